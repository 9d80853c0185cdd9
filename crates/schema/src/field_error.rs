//! Kubernetes' `field.Error` (apimachinery `util/validation/field`): the error type every
//! schema check reports, rendered exactly as the API server renders it.

use serde_json::Value;
use std::fmt;

/// `field.ErrorType`; `reason()` is the name used in a Status cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    Required,
    Forbidden,
    TooLong,
    Invalid,
    TypeInvalid,
    NotSupported,
    Duplicate,
    TooMany,
    NotFound,
    Internal,
}

impl ErrorType {
    /// The `ErrorBody` prefix (`Invalid value`).
    pub fn text(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::TooMany => "Too many",
            ErrorType::NotFound => "Not found",
            ErrorType::Internal => "Internal error",
        }
    }

    /// The cause `reason` (`FieldValueInvalid`).
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Internal => "InternalError",
        }
    }

    fn shows_value(self) -> bool {
        !matches!(
            self,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal
        )
    }
}

/// What a field error shows as its value.
#[derive(Debug, Clone, PartialEq)]
pub enum BadValue {
    /// Rendered like Go's `field.Error` renders values (`%v`, `%q`, or JSON).
    Value(Value),
    /// `field.OmitValueType`: nothing is printed.
    Omit,
}

/// One field error. `field` is the already rendered path (`spec.replicas`, `<nil>` for
/// the root; the producer decides the dialect, see the reference §2.3).
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub kind: ErrorType,
    pub field: String,
    pub value: BadValue,
    pub detail: String,
}

impl FieldError {
    pub fn new(
        kind: ErrorType,
        field: impl Into<String>,
        value: Value,
        detail: impl Into<String>,
    ) -> Self {
        FieldError {
            kind,
            field: field.into(),
            value: BadValue::Value(value),
            detail: detail.into(),
        }
    }

    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> Self {
        FieldError::new(ErrorType::Required, field, Value::Null, detail)
    }

    pub fn invalid(field: impl Into<String>, value: Value, detail: impl Into<String>) -> Self {
        FieldError::new(ErrorType::Invalid, field, value, detail)
    }

    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> Self {
        FieldError::new(ErrorType::Forbidden, field, Value::Null, detail)
    }

    /// `ErrorBody()`: the type text, the value where the type shows one, the detail.
    pub fn body(&self) -> String {
        let mut out = self.kind.text().to_owned();
        if self.kind.shows_value() {
            if let BadValue::Value(v) = &self.value {
                out.push_str(": ");
                out.push_str(&render_value(v));
            }
        }
        if !self.detail.is_empty() {
            out.push_str(": ");
            out.push_str(&self.detail);
        }
        out
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// A value as `field.Error` prints it: integers and booleans with Go `%v`, floats with Go
/// `%v` of a float64, strings with Go `%q`, anything else as Go `json.Marshal`.
pub fn render_value(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => {
            kadmit_go::fmt::format_float(n.as_f64().unwrap_or_default())
        }
        Value::Number(n) => n.to_string(),
        Value::String(s) => kadmit_go::strconv::quote(s, false),
        _ => kadmit_go::json::marshal(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_render_as_go_renders_them() {
        assert_eq!(render_value(&json!(1000000)), "1000000");
        assert_eq!(render_value(&json!(1.5)), "1.5");
        assert_eq!(render_value(&json!("a\"b")), "\"a\\\"b\"");
        assert_eq!(
            kadmit_go::json::marshal(&json!({"b": 1.0, "a": [1e21, 1e-7, "<x>"]})),
            r#"{"a":[1e+21,1e-7,"\u003cx\u003e"],"b":1}"#
        );
    }

    #[test]
    fn an_error_reads_path_type_value_detail() {
        let e = FieldError::invalid(
            "spec.replicas",
            json!(15),
            "spec.replicas in body should be less than or equal to 10",
        );
        assert_eq!(
            e.to_string(),
            "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10"
        );
        assert_eq!(
            FieldError::required("alpha", "").to_string(),
            "alpha: Required value"
        );
    }
}
