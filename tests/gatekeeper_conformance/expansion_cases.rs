//! HELPER-OWNED: checks for some case kinds.
use crate::Check;
use serde_json::Value;

/// The checks for `kind`, or `None` when this module does not handle that kind.
pub fn checks(_kind: &str, _cases: &[Value]) -> Option<Vec<(String, Check)>> {
    None
}
