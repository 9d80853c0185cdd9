//! Values as apimachinery's `field.Error.ErrorBody` prints the typed Go values that
//! validation.go passes: strings with `%q`, named string types and slices with `%#v`
//! (`[]string{"*/*", "a"}`, `[]admissionregistration.OperationType{"*", "CREATE"}`).
//! `kadmit_schema::field_error::render_value` prints non-scalars as JSON (right for
//! unstructured values), so a slice is rendered here into the detail of an error whose
//! value is omitted; the rendered text is identical.

use kadmit_go::strconv::quote;
use kadmit_schema::field_error::{BadValue, ErrorType, FieldError};
use serde_json::Value;

/// `%#v` of a slice of a string type: `[]string{"a", "b"}`.
pub fn string_slice(type_name: &str, items: &[&str]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quote(s, false)).collect();
    format!("[]{type_name}{{{}}}", inner.join(", "))
}

/// `field.Invalid(path, <Go value printed as rendered>, detail)`.
pub fn invalid_rendered(path: &str, rendered: String, detail: &str) -> FieldError {
    FieldError {
        kind: ErrorType::Invalid,
        field: path.to_owned(),
        value: BadValue::Omit,
        detail: format!("{rendered}: {detail}"),
    }
}

/// `field.NotSupported(path, value, supported)`: `Unsupported value: "x": supported
/// values: "a", "b"`.
pub fn not_supported(path: &str, value: &str, supported: &[&str]) -> FieldError {
    let list: Vec<String> = supported.iter().map(|s| quote(s, false)).collect();
    FieldError::new(
        ErrorType::NotSupported,
        path,
        Value::String(value.to_owned()),
        format!("supported values: {}", list.join(", ")),
    )
}

/// `field.Duplicate(path, value)`.
pub fn duplicate(path: &str, value: &str) -> FieldError {
    FieldError::new(
        ErrorType::Duplicate,
        path,
        Value::String(value.to_owned()),
        "",
    )
}
