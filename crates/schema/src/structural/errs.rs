//! `field.Path` rendering and the `field.Error` constructors the CRD checks use.

use crate::field_error::{ErrorType, FieldError};
use serde_json::Value;

/// `path.Child(name)`.
pub fn child(path: &str, name: &str) -> String {
    format!("{path}.{name}")
}

/// `path.Key(key)` (unquoted, as `field.Path` prints it).
pub fn key(path: &str, key: &str) -> String {
    format!("{path}[{key}]")
}

/// `path.Index(i)`.
pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

pub fn invalid(path: String, value: Value, detail: impl Into<String>) -> FieldError {
    FieldError::invalid(path, value, detail)
}

pub fn invalid_str(path: String, value: &str, detail: impl Into<String>) -> FieldError {
    FieldError::invalid(path, Value::String(value.to_owned()), detail)
}

pub fn required(path: String, detail: impl Into<String>) -> FieldError {
    FieldError::required(path, detail)
}

pub fn forbidden(path: String, detail: impl Into<String>) -> FieldError {
    FieldError::forbidden(path, detail)
}

/// `field.NotSupported`: the detail lists the valid values Go-quoted.
pub fn not_supported(path: String, value: &str, valid: &[&str]) -> FieldError {
    let quoted: Vec<String> = valid
        .iter()
        .map(|v| kadmit_go::strconv::quote(v, false))
        .collect();
    FieldError::new(
        ErrorType::NotSupported,
        path,
        Value::String(value.to_owned()),
        format!("supported values: {}", quoted.join(", ")),
    )
}

/// `validateEnumStrings`: required when empty, else one of `accepted`.
pub fn enum_string(path: String, value: &str, accepted: &[&str]) -> Option<FieldError> {
    if value.is_empty() {
        Some(required(path, ""))
    } else if accepted.contains(&value) {
        None
    } else {
        Some(not_supported(path, value, accepted))
    }
}

/// `strings.TrimSpace`.
pub fn trim(s: &str) -> &str {
    s.trim()
}

/// Whether `s` holds a line break (`[\n\r]+`).
pub fn has_newlines(s: &str) -> bool {
    s.contains(['\n', '\r'])
}
