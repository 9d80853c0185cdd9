//! cel-go's runtime error texts for cel-rust's errors (Kubernetes prints them verbatim).

use cel::{ExecutionError, Value};

/// The text cel-go gives the same failure.
pub fn go_text(error: &ExecutionError) -> String {
    match error {
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        ExecutionError::DivisionByZero(_) => "division by zero".to_owned(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".to_owned(),
        ExecutionError::Overflow(..) => "integer overflow".to_owned(),
        ExecutionError::IndexOutOfBounds(index) => format!("index out of bounds: {}", plain(index)),
        ExecutionError::FunctionError { message, .. } => message.clone(),
        ExecutionError::UndeclaredReference(name) => {
            format!("undeclared reference to '{name}' (in container '')")
        }
        ExecutionError::DuplicateKey(key) => {
            format!("insert failed: key {} already exists", plain(key))
        }
        other => other.to_string(),
    }
}

fn plain(value: &Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => f.to_string(),
        Value::String(s) => s.to_string(),
        other => format!("{other:?}"),
    }
}
