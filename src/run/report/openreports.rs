//! `--report-format openreports`: OpenReports (`openreports.io/v1alpha1`) objects as a YAML
//! stream, following the API of github.com/openreports/reports-api: one `Report` per
//! namespace that admitted resources live in (its `scope` the Namespace, named `kadmit`), then
//! one `ClusterReport` named `kadmit` for cluster-scoped resources and for the findings about
//! the run as a whole (input and configuration problems; no `scope`).
//!
//! A result is one rule's part in one resource's admission: `policy` is the rule as kadmit
//! names it (`ModRule team-a/no-root`, `Assign always-pull`, or `admission` when nothing
//! found anything), `rule` what it did (`mutate`, `validate`, `admit`; `input` or `config`
//! for problems of the run), `result` `pass` when the rule changed it or nothing was found,
//! `fail` for a rejection, `warn` for a warning, `error` for an input or configuration
//! problem. No timestamps: the same run gives the same bytes.

use super::{location, message, rule_id, Evaluation, Findings, ResourceFindings};
use crate::core::diagnostic::{Category, Diagnostic, Severity};
use crate::core::resource::Identity;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::{self, Write};

pub const API_VERSION: &str = "openreports.io/v1alpha1";
/// `source` of every report and result.
const SOURCE: &str = "kadmit";
/// `metadata.name` of every report kadmit writes.
const NAME: &str = "kadmit";

/// Writes the reports, each result made as it is written: a run's results are held only
/// as the findings they come from (a result's object costs many times its text).
pub(super) fn write(findings: &Findings, out: &mut dyn Write) -> io::Result<()> {
    let mut namespaced: BTreeMap<&str, Vec<&ResourceFindings>> = BTreeMap::new();
    let mut cluster = Vec::new();
    for resource in &findings.resources {
        match resource.subject.namespace.as_deref() {
            Some(ns) => namespaced.entry(ns).or_default().push(resource),
            None => cluster.push(resource),
        }
    }
    let run: Vec<&Diagnostic> = findings
        .run
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .copied()
        .collect();
    for (namespace, resources) in namespaced {
        let scope = json!({"apiVersion": "v1", "kind": "Namespace", "name": namespace});
        write_report(out, "Report", Some(namespace), Some(scope), &resources, &[])?;
        out.write_all(b"---\n")?;
    }
    write_report(out, "ClusterReport", None, None, &cluster, &run)
}

/// One report: the results of `resources`' evaluations, then of `run`'s diagnostics. The
/// summary, which comes before the results, counts them first.
fn write_report(
    out: &mut dyn Write,
    kind: &str,
    namespace: Option<&str>,
    scope: Option<Value>,
    resources: &[&ResourceFindings],
    run: &[&Diagnostic],
) -> io::Result<()> {
    let mut counts = STATUSES.map(|status| (status, 0));
    let mut any = false;
    let evaluated = resources.iter().flat_map(|r| {
        r.evaluations()
            .iter()
            .map(evaluation_status)
            .collect::<Vec<_>>()
    });
    for result in evaluated.chain(run.iter().map(|d| status(d))) {
        any = true;
        if let Some((_, count)) = counts.iter_mut().find(|(s, _)| *s == result) {
            *count += 1;
        }
    }
    let mut text = String::new();
    kadmit_yaml::emit::write_document(&mut text, &report(kind, namespace, scope, &counts));
    if !any {
        text.push_str("results: []\n");
        return out.write_all(text.as_bytes());
    }
    text.push_str("results:\n");
    out.write_all(text.as_bytes())?;
    let evaluated = resources.iter().flat_map(|resource| {
        let evaluations = resource.evaluations();
        let made: Vec<Value> = evaluations
            .iter()
            .map(|e| evaluation_result(resource, e))
            .collect();
        made
    });
    for result in evaluated.chain(run.iter().map(|d| run_result(d))) {
        text.clear();
        // A top-level key's sequence is not indented: its items are written as those of
        // a top-level sequence are.
        kadmit_yaml::emit::write_sequence_item(&mut text, &result);
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

/// The `result`s a summary counts, in its order.
const STATUSES: [&str; 5] = ["pass", "fail", "warn", "error", "skip"];

/// A report's object without its `results` (written after it, one by one); `counts` are
/// how many of its results have each status.
fn report(
    kind: &str,
    namespace: Option<&str>,
    scope: Option<Value>,
    counts: &[(&str, usize)],
) -> Value {
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(NAME));
    if let Some(ns) = namespace {
        metadata.insert("namespace".into(), json!(ns));
    }
    metadata.insert(
        "labels".into(),
        json!({"app.kubernetes.io/managed-by": "kadmit"}),
    );
    let mut summary = Map::new();
    for (status, count) in counts {
        summary.insert((*status).into(), json!(count));
    }
    let mut object = Map::new();
    object.insert("apiVersion".into(), json!(API_VERSION));
    object.insert("kind".into(), json!(kind));
    object.insert("metadata".into(), Value::Object(metadata));
    object.insert("source".into(), json!(SOURCE));
    if let Some(scope) = scope {
        object.insert("scope".into(), scope);
    }
    object.insert("summary".into(), Value::Object(summary));
    Value::Object(object)
}

/// An evaluation's `result`: that of its worst diagnostic, `pass` without one.
fn evaluation_status(evaluation: &Evaluation) -> &'static str {
    let worst = evaluation
        .diagnostics
        .iter()
        .min_by_key(|d| (d.severity, d.category != Category::Resource));
    worst.map_or("pass", |d| status(d))
}

fn evaluation_result(resource: &ResourceFindings, evaluation: &Evaluation) -> Value {
    let status = evaluation_status(evaluation);
    let mut properties = Map::new();
    properties.insert("location".into(), json!(location(&resource.subject.origin)));
    if !evaluation.changes.is_empty() {
        let paths: Vec<&str> = evaluation.changes.iter().map(|c| c.path.as_str()).collect();
        properties.insert("changedPaths".into(), json!(paths.join(", ")));
    }
    let fields: Vec<&str> = evaluation
        .diagnostics
        .iter()
        .filter_map(|d| d.field.as_deref())
        .collect();
    if !fields.is_empty() {
        properties.insert("fields".into(), json!(fields.join(", ")));
    }
    let text = if evaluation.diagnostics.is_empty() {
        match evaluation.changes.len() {
            0 => format!("{} admitted", resource.name()),
            n => format!("changed {n} path{}", if n == 1 { "" } else { "s" }),
        }
    } else {
        evaluation
            .diagnostics
            .iter()
            .map(|d| message(d))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let rule = if !evaluation.diagnostics.is_empty() {
        "validate"
    } else if !evaluation.changes.is_empty() {
        "mutate"
    } else {
        "admit"
    };
    result(
        &evaluation.rule,
        rule,
        status,
        text,
        Some(reference(
            &resource.subject.id,
            resource.subject.namespace.as_deref(),
        )),
        properties,
    )
}

fn run_result(d: &Diagnostic) -> Value {
    let mut properties = Map::new();
    if let Some(origin) = d.origin.as_deref() {
        properties.insert("location".into(), json!(location(origin)));
    }
    if let Some(field) = &d.field {
        properties.insert("fields".into(), json!(field));
    }
    let rule = match d.category {
        Category::Input => "input",
        Category::Config => "config",
        Category::Resource => "validate",
    };
    result(
        &rule_id(d),
        rule,
        status(d),
        message(d),
        d.resource
            .as_deref()
            .map(|id| reference(id, id.namespace.as_deref())),
        properties,
    )
}

fn status(d: &Diagnostic) -> &'static str {
    match (d.severity, d.category) {
        (Severity::Error, Category::Resource) => "fail",
        (Severity::Error, _) => "error",
        (Severity::Warning, _) => "warn",
        (Severity::Info, _) => "pass",
    }
}

fn result(
    policy: &str,
    rule: &str,
    status: &str,
    message: String,
    resource: Option<Value>,
    properties: Map<String, Value>,
) -> Value {
    let mut result = Map::new();
    result.insert("source".into(), json!(SOURCE));
    result.insert("policy".into(), json!(policy));
    result.insert("rule".into(), json!(rule));
    result.insert("category".into(), json!("admission"));
    result.insert("result".into(), json!(status));
    result.insert("message".into(), json!(message));
    if let Some(resource) = resource {
        result.insert("resources".into(), json!([resource]));
    }
    if !properties.is_empty() {
        result.insert("properties".into(), Value::Object(properties));
    }
    Value::Object(result)
}

/// An `ObjectReference`: the namespace is the one the resource was admitted in.
fn reference(id: &Identity, namespace: Option<&str>) -> Value {
    let mut reference = Map::new();
    reference.insert("apiVersion".into(), json!(id.api_version()));
    reference.insert("kind".into(), json!(id.kind));
    if let Some(ns) = namespace {
        reference.insert("namespace".into(), json!(ns));
    }
    reference.insert("name".into(), json!(id.name));
    Value::Object(reference)
}
