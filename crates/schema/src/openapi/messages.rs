//! kube-openapi's errors as apiextensions' `kubeOpenAPIResultToFieldErrors` turns them
//! into field errors. `path` is always the kube-openapi path (`spec.a`, `spec.l[0]`,
//! map keys dotted); messages print it as is and `body` is literal.

use crate::field_error::{ErrorType, FieldError};
use kadmit_go::json::marshal as go_json;
use kadmit_go::strconv::quote;
use serde_json::Value;

/// The field of an error named by kube-openapi path `path`: one leading `.` dropped, the
/// root (`""` or `.`) is `<nil>`.
pub(super) fn field(path: &str) -> String {
    match path {
        "" | "." => "<nil>".to_owned(),
        p => p.strip_prefix('.').unwrap_or(p).to_owned(),
    }
}

/// A type mismatch: the value shown is a JSON type name (or the data's Go format when a
/// format disagrees with a non-string value).
pub(super) fn type_invalid(path: &str, expected: &str, actual: &str) -> FieldError {
    FieldError::new(
        ErrorType::TypeInvalid,
        field(path),
        Value::String(actual.to_owned()),
        format!(
            "{path} in body must be of type {expected}: {}",
            quote(actual, false)
        ),
    )
}

pub(super) fn invalid(path: &str, value: Value, message: String) -> FieldError {
    FieldError::new(ErrorType::Invalid, field(path), value, message)
}

pub(super) fn required(path: &str) -> FieldError {
    FieldError::required(field(path), "")
}

pub(super) fn too_long(path: &str, data: &str, max: i64) -> FieldError {
    let unit = if max == 1 { "byte" } else { "bytes" };
    FieldError::new(
        ErrorType::TooLong,
        field(path),
        Value::String(data.to_owned()),
        format!("may not be more than {max} {unit}"),
    )
}

/// `field.TooMany`, used for maxItems and maxProperties alike.
pub(super) fn too_many(path: &str, actual: usize, max: i64) -> FieldError {
    let unit = if max == 1 { "item" } else { "items" };
    FieldError::new(
        ErrorType::TooMany,
        field(path),
        Value::from(actual),
        format!("must have at most {max} {unit}"),
    )
}

/// `field.NotSupported` listing the enum: strings as they are, other members
/// JSON-encoded, each then Go-quoted.
pub(super) fn not_supported(path: &str, data: &Value, members: &[Value]) -> FieldError {
    let listed: Vec<String> = members
        .iter()
        .map(|m| match m {
            Value::String(s) => quote(s, false),
            other => quote(&go_json(other), false),
        })
        .collect();
    FieldError::new(
        ErrorType::NotSupported,
        field(path),
        data.clone(),
        format!("supported values: {}", listed.join(", ")),
    )
}

/// An error kube-openapi raises without a field (the junctors): `<nil>`, value `""`.
pub(super) fn composite(message: String) -> FieldError {
    FieldError::invalid("<nil>", Value::String(String::new()), message)
}
