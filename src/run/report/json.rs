//! `--report-format json` (the default): kadmit's own `kadmit.dev/v1alpha1` `Report`,
//! every diagnostic and change as data.

use super::location;
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::run::Outcome;
use serde_json::{json, Value};

pub(super) fn render(outcome: &Outcome) -> String {
    let mut text = serde_json::to_string_pretty(&document(outcome)).expect("report serializes");
    text.push('\n');
    text
}

fn document(outcome: &Outcome) -> Value {
    json!({
        "apiVersion": "kadmit.dev/v1alpha1",
        "kind": "Report",
        "exitCode": outcome.exit_code,
        "diagnostics": outcome.diagnostics.iter().map(Diagnostic::to_report).collect::<Vec<_>>(),
        "resources": outcome.subjects.iter().map(|subject| json!({
            "resource": {
                "apiVersion": subject.id.api_version(),
                "kind": subject.id.kind,
                "namespace": subject.id.namespace,
                "name": subject.id.name,
            },
            "operation": subject.operation.as_str(),
            "location": location(&subject.origin),
        })).collect::<Vec<_>>(),
        "changes": outcome.changes.iter().map(|(id, changes)| json!({
            "resource": {
                "apiVersion": id.api_version(),
                "kind": id.kind,
                "namespace": id.namespace,
                "name": id.name,
            },
            "changes": changes.iter().map(|c| json!({"path": c.path, "rule": c.rule})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "unmatchedRules": outcome.unmatched.iter().map(|u| json!({
            "rule": u.rule,
            "kinds": u.kinds,
        })).collect::<Vec<_>>(),
        "summary": {
            "errors": outcome.diagnostics.iter().filter(|d| d.severity == Severity::Error).count(),
            "warnings": outcome.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count(),
        },
    })
}
