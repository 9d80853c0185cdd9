//! `--report-format sarif`: SARIF 2.1.0 (OASIS), one run of the `kadmit` driver. Each
//! diagnostic is a result (error, warning, note), and so is each change (note); the rules
//! are every rule id the results use: a diagnostic's rule, or `kadmit/input`,
//! `kadmit/config`, `kadmit/resource` for those that name none.

use super::{location as file_line, message, resource_name, rule_id, Findings};
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::resource::Origin;
use crate::run::Outcome;
use serde_json::{json, Map, Value};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Where a SARIF viewer sends a reader who wants to know what kadmit is.
pub const INFORMATION_URI: &str = "https://kadmit.dev";

pub(super) fn render(outcome: &Outcome, findings: &Findings) -> String {
    let mut rules: Vec<String> = Vec::new();
    let mut results = Vec::new();
    let mut index_of = |id: String| -> usize {
        match rules.iter().position(|r| *r == id) {
            Some(i) => i,
            None => {
                rules.push(id);
                rules.len() - 1
            }
        }
    };
    let diagnostics = findings
        .resources
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(move |d| (Some(r), *d)))
        .chain(findings.run.iter().map(|d| (None, *d)));
    for (resource, d) in diagnostics {
        let id = rule_id(d);
        let index = index_of(id.clone());
        let origin = d.origin.as_deref().or(resource.map(|r| &r.subject.origin));
        results.push(result(
            &id,
            index,
            level(d),
            text(d, resource.map(|r| r.name())),
            origin,
            properties(d),
        ));
    }
    for resource in &findings.resources {
        for change in &resource.changes {
            let index = index_of(change.rule.clone());
            let mut props = Map::new();
            props.insert("kind".into(), json!("change"));
            props.insert("path".into(), json!(change.path));
            results.push(result(
                &change.rule,
                index,
                "note",
                format!(
                    "{}: {} changed by {}",
                    resource.name(),
                    change.path,
                    change.rule
                ),
                Some(&resource.subject.origin),
                props,
            ));
        }
    }
    let document = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "kadmit",
                    "informationUri": INFORMATION_URI,
                    "rules": rules.iter().map(|id| json!({
                        "id": id,
                        "shortDescription": {"text": describe(id)},
                    })).collect::<Vec<_>>(),
                }
            },
            "invocations": [{
                "executionSuccessful": outcome.exit_code == 0,
                "exitCode": outcome.exit_code,
            }],
            "results": results,
        }],
    });
    let mut out = serde_json::to_string_pretty(&document).expect("SARIF serializes");
    out.push('\n');
    out
}

fn result(
    rule: &str,
    index: usize,
    level: &str,
    message: String,
    origin: Option<&Origin>,
    properties: Map<String, Value>,
) -> Value {
    let mut result = Map::new();
    result.insert("ruleId".into(), json!(rule));
    result.insert("ruleIndex".into(), json!(index));
    result.insert("level".into(), json!(level));
    result.insert("message".into(), json!({ "text": message }));
    if let Some(origin) = origin {
        let mut physical = Map::new();
        physical.insert(
            "artifactLocation".into(),
            json!({ "uri": uri(origin.file()) }),
        );
        if origin.file_line() > 0 {
            physical.insert("region".into(), json!({ "startLine": origin.file_line() }));
        }
        result.insert(
            "locations".into(),
            json!([{ "physicalLocation": Value::Object(physical) }]),
        );
    }
    if !properties.is_empty() {
        result.insert("properties".into(), Value::Object(properties));
    }
    Value::Object(result)
}

fn level(d: &Diagnostic) -> &'static str {
    match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn text(d: &Diagnostic, resource: Option<String>) -> String {
    let body = message(d);
    match resource.or_else(|| d.resource.as_deref().map(resource_name)) {
        Some(resource) => format!("{resource}: {body}"),
        None => body,
    }
}

fn properties(d: &Diagnostic) -> Map<String, Value> {
    let mut props = Map::new();
    if let Some(id) = d.resource.as_deref() {
        props.insert(
            "resource".into(),
            json!({
                "apiVersion": id.api_version(),
                "kind": id.kind,
                "namespace": id.namespace,
                "name": id.name,
            }),
        );
    }
    if let Some(field) = &d.field {
        props.insert("field".into(), json!(field));
    }
    if let Some(origin) = d.origin.as_deref() {
        props.insert("location".into(), json!(file_line(origin)));
    }
    props
}

fn describe(id: &str) -> String {
    match id {
        "kadmit/input" => "The input could not be read".into(),
        "kadmit/config" => "The configuration could not be used".into(),
        "kadmit/resource" => "A resource finding no rule owns".into(),
        rule => rule.to_owned(),
    }
}

/// The source as a relative URI reference: as given, with the characters a URI cannot
/// hold percent-encoded.
fn uri(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for byte in source.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn uris_keep_relative_paths_and_encode_the_rest() {
        assert_eq!(uri("examples/a.yaml"), "examples/a.yaml");
        assert_eq!(uri("my dir/50%.yaml"), "my%20dir/50%25.yaml");
        assert_eq!(uri("stdin"), "stdin");
    }
}
