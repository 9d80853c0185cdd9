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
    pub fn new(kind: ErrorType, field: impl Into<String>, value: Value, detail: impl Into<String>) -> Self {
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

/// A value as `field.Error` prints it: numbers and booleans with Go `%v`, strings with
/// Go `%q`, anything else as Go `json.Marshal` (sorted keys, HTML-escaped).
pub fn render_value(value: &Value) -> String {
    match value {
        Value::Bool(_) | Value::Number(_) => crate::golang::fmt::format_value(value),
        Value::String(s) => crate::golang::strconv::quote(s, false),
        _ => go_json(value),
    }
}

/// Go's `json.Marshal` of a decoded JSON value: keys sorted, `<`, `>`, `&` escaped.
pub fn go_json(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&map[k]))).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_string(&sorted(value))
        .expect("a Value always serializes")
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}
