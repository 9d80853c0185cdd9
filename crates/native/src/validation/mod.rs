//! Native validation (reference §4). Filled in by the validation work.

use crate::{Kind, Minor};
use kadmit_schema::field_error::FieldError;
use serde_json::Value;

/// Every native validation error of `object` (a `kind`), in the server's order.
pub fn validate(kind: Kind<'_>, object: &Value, minor: Minor) -> Vec<FieldError> {
    let _ = (kind, object, minor);
    Vec::new()
}
