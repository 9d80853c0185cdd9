//! HELPER-OWNED: checks for validate_cel and cel_expressions.yaml (placeholder).
use crate::Check;
use serde_json::Value;

/// The checks for `op`, or `None` when this module does not handle that op.
pub fn checks(_op: &str, _cases: &[Value]) -> Option<Vec<(String, Check)>> {
    None
}

/// One check per expression of `cel_expressions.yaml` (`<group>::valid-<n>` / `<group>::error-<n>`).
pub fn expression_checks(_doc: &Value) -> Vec<(String, Check)> {
    Vec::new()
}
