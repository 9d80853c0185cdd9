//! Native defaults (reference §3). Filled in by the defaults work.

use crate::{Kind, Minor};
use serde_json::Value;

/// Applies every native default of `kind` to `object`, in the server's order. Returns
/// whether anything changed.
pub fn apply(kind: Kind<'_>, object: &mut Value, minor: Minor) -> bool {
    let _ = (kind, object, minor);
    false
}
