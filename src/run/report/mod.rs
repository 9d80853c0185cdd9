//! `--report FILE --report-format FORMAT`: the outcome of a run as a document for another
//! tool. Each format lives in its own file; this one holds what they share: which
//! diagnostics and changes belong to which admitted resource, the rule id of a diagnostic
//! that names none, and `file:line`.
//!
//! Every format is a pure function of the [`Outcome`]: the same run gives the same bytes
//! (no timestamps, no host names, no absolute paths kadmit was not given).

mod json;
mod junit;
mod markdown;
mod openreports;
mod sarif;

/// XML escaping, shared with `kadmit test`'s JUnit (`run::suite`).
pub(crate) use junit::{attribute as xml_attribute, text as xml_text};

use super::{Operation, Outcome, Subject};
use crate::core::diagnostic::{Category, Diagnostic, Severity};
use crate::core::pipeline::Change;
use crate::core::resource::{Identity, Origin};
use std::io::{self, Write};

/// The formats of `--report-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// kadmit's own `kadmit.dev/v1alpha1` `Report` (the default).
    Json,
    /// A pull-request comment: outcome, counts, tables, changes per resource.
    Markdown,
    /// SARIF 2.1.0, for code-scanning dashboards.
    Sarif,
    /// JUnit XML, for CI test reports.
    Junit,
    /// OpenReports `openreports.io/v1alpha1` `Report` and `ClusterReport` objects.
    OpenReports,
}

impl ReportFormat {
    pub const ALL: [ReportFormat; 5] = [
        ReportFormat::Json,
        ReportFormat::Markdown,
        ReportFormat::Sarif,
        ReportFormat::Junit,
        ReportFormat::OpenReports,
    ];

    /// The name `--report-format` takes.
    pub fn name(self) -> &'static str {
        match self {
            ReportFormat::Json => "json",
            ReportFormat::Markdown => "markdown",
            ReportFormat::Sarif => "sarif",
            ReportFormat::Junit => "junit",
            ReportFormat::OpenReports => "openreports",
        }
    }
}

/// Writes the report, ending with a newline, to `out`. The formats whose size grows with
/// the stream (json, junit, openreports) are written as they are made, not held whole
/// first: a report of a stream of many small resources is several times the stream's size
/// (docs/security.md, "Memory"). JSON is written from the outcome; the others from its
/// findings.
pub fn write(outcome: &Outcome, format: ReportFormat, out: &mut dyn Write) -> io::Result<()> {
    let findings = || Findings::of(outcome);
    match format {
        ReportFormat::Json => json::write(outcome, out),
        ReportFormat::Markdown => out.write_all(markdown::render(outcome, &findings()).as_bytes()),
        ReportFormat::Sarif => out.write_all(sarif::render(outcome, &findings()).as_bytes()),
        ReportFormat::Junit => junit::write(&findings(), out),
        ReportFormat::OpenReports => openreports::write(&findings(), out),
    }
}

/// What the run found, per admitted resource and for the run as a whole.
struct Findings<'a> {
    resources: Vec<ResourceFindings<'a>>,
    /// Diagnostics that name no admitted resource: input and configuration problems, and
    /// run-wide notes.
    run: Vec<&'a Diagnostic>,
}

struct ResourceFindings<'a> {
    subject: &'a Subject,
    diagnostics: Vec<&'a Diagnostic>,
    changes: Vec<&'a Change>,
    /// The run has other operations than CREATE (`--old`, `--operation`): names say
    /// each resource's operation.
    marked: bool,
}

/// One rule's part in one resource's admission: the unit JUnit test cases and OpenReports
/// results are made of.
struct Evaluation<'a> {
    /// The rule as users name it, or [`ADMISSION`] for findings no rule owns.
    rule: String,
    changes: Vec<&'a Change>,
    diagnostics: Vec<&'a Diagnostic>,
}

/// The name of the evaluation of a resource no rule changed, rejected or warned about, and
/// of findings that name no rule.
const ADMISSION: &str = "admission";

impl<'a> Findings<'a> {
    fn of(outcome: &'a Outcome) -> Findings<'a> {
        let marked = outcome
            .subjects
            .iter()
            .any(|s| s.operation != Operation::Create);
        let mut resources: Vec<ResourceFindings> = outcome
            .subjects
            .iter()
            .map(|subject| ResourceFindings {
                subject,
                diagnostics: Vec::new(),
                changes: Vec::new(),
                marked,
            })
            .collect();
        // Change records follow admission order: each belongs to the next subject with
        // its identity.
        let mut cursor = 0;
        for (id, changes) in &outcome.changes {
            let found = (cursor..resources.len()).find(|&i| &resources[i].subject.id == id);
            if let Some(i) = found {
                resources[i].changes.extend(changes.iter());
                cursor = i + 1;
            }
        }
        let mut run = Vec::new();
        for diagnostic in &outcome.diagnostics {
            match owner(&resources, diagnostic) {
                Some(i) => resources[i].diagnostics.push(diagnostic),
                None => run.push(diagnostic),
            }
        }
        Findings { resources, run }
    }

    fn count(&self, severity: Severity) -> usize {
        self.resources
            .iter()
            .flat_map(|r| &r.diagnostics)
            .chain(&self.run)
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// The resource a diagnostic is about: same identity and origin, else the first with the
/// identity.
fn owner(resources: &[ResourceFindings], diagnostic: &Diagnostic) -> Option<usize> {
    let id = diagnostic.resource.as_deref()?;
    let same_id = |r: &&ResourceFindings| &r.subject.id == id;
    if let Some(origin) = diagnostic.origin.as_deref() {
        if let Some(i) = resources
            .iter()
            .position(|r| same_id(&r) && &r.subject.origin == origin)
        {
            return Some(i);
        }
    }
    resources.iter().position(|r| same_id(&r))
}

impl<'a> ResourceFindings<'a> {
    fn rejected(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// The rules that changed it, in the order they first did, each once.
    fn changing_rules(&self) -> Vec<&'a str> {
        let mut rules: Vec<&str> = Vec::new();
        for change in &self.changes {
            if !rules.contains(&change.rule.as_str()) {
                rules.push(&change.rule);
            }
        }
        rules
    }

    /// Per rule that changed, rejected or warned about the resource (in that order of first
    /// appearance), what it did; a resource with no finding has one evaluation,
    /// [`ADMISSION`], with nothing in it. Info diagnostics are notes, not findings.
    fn evaluations(&self) -> Vec<Evaluation<'a>> {
        let mut evaluations: Vec<Evaluation> = Vec::new();
        let mut entry = |rule: &str| -> usize {
            match evaluations.iter().position(|e| e.rule == rule) {
                Some(i) => i,
                None => {
                    evaluations.push(Evaluation {
                        rule: rule.to_owned(),
                        changes: Vec::new(),
                        diagnostics: Vec::new(),
                    });
                    evaluations.len() - 1
                }
            }
        };
        let mut placed: Vec<(usize, Placed)> = Vec::new();
        for change in &self.changes {
            placed.push((entry(&change.rule), Placed::Change(change)));
        }
        for diagnostic in &self.diagnostics {
            if diagnostic.severity != Severity::Info {
                let rule = diagnostic.rule.as_deref().unwrap_or(ADMISSION);
                placed.push((entry(rule), Placed::Diagnostic(diagnostic)));
            }
        }
        if placed.is_empty() {
            entry(ADMISSION);
        }
        for (i, item) in placed {
            match item {
                Placed::Change(c) => evaluations[i].changes.push(c),
                Placed::Diagnostic(d) => evaluations[i].diagnostics.push(d),
            }
        }
        evaluations
    }
}

enum Placed<'a> {
    Change(&'a Change),
    Diagnostic(&'a Diagnostic),
}

/// The rule id of a diagnostic: its rule, else one stable id per category.
fn rule_id(diagnostic: &Diagnostic) -> String {
    match &diagnostic.rule {
        Some(rule) => rule.clone(),
        None => category_id(diagnostic.category).to_owned(),
    }
}

fn category_id(category: Category) -> &'static str {
    match category {
        Category::Input => "kadmit/input",
        Category::Config => "kadmit/config",
        Category::Resource => "kadmit/resource",
    }
}

/// `file:line` (`stdin:3`), or the file alone when the line is not known.
fn location(origin: &Origin) -> String {
    if origin.file_line() > 0 {
        format!("{}:{}", origin.file(), origin.file_line())
    } else {
        origin.file().to_owned()
    }
}

/// A diagnostic's text without its resource and origin (those have places of their own in
/// every format): `field: message`.
fn message(diagnostic: &Diagnostic) -> String {
    match &diagnostic.field {
        Some(field) => format!("{field}: {}", diagnostic.message),
        None => diagnostic.message.clone(),
    }
}

/// `Deployment team-a/web`, as the diagnostics on stderr name it.
fn resource_name(id: &Identity) -> String {
    id.to_string()
}

impl ResourceFindings<'_> {
    /// The resource's name, with its operation when the run has other operations than
    /// CREATE: `Deployment team-a/web (UPDATE)`.
    fn name(&self) -> String {
        if self.marked {
            format!(
                "{} ({})",
                resource_name(&self.subject.id),
                self.subject.operation.as_str()
            )
        } else {
            resource_name(&self.subject.id)
        }
    }
}

/// How many resources each operation admitted, `1 CREATE, 2 UPDATE, 1 DELETE`; `None`
/// when every resource was a CREATE.
fn operation_counts(findings: &Findings) -> Option<String> {
    let mut counts: Vec<(Operation, usize)> = Vec::new();
    for resource in &findings.resources {
        let operation = resource.subject.operation;
        match counts.iter_mut().find(|(op, _)| *op == operation) {
            Some((_, n)) => *n += 1,
            None => counts.push((operation, 1)),
        }
    }
    if counts.iter().all(|(op, _)| *op == Operation::Create) {
        return None;
    }
    counts.sort_by_key(|(op, _)| *op as u8);
    let parts: Vec<String> = counts
        .iter()
        .map(|(op, n)| format!("{n} {}", op.as_str()))
        .collect();
    Some(parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::resource::STDIN;
    use serde_json::json;
    use std::sync::Arc;

    fn subject(name: &str, line: usize) -> Subject {
        let id = Identity::of(&json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name}}))
        .unwrap();
        Subject {
            id,
            origin: Origin {
                source: Arc::from(STDIN),
                index: line,
                line,
                list_item: None,
                declared: None,
            },
            namespace: Some("default".into()),
            operation: Operation::Create,
        }
    }

    fn change(rule: &str) -> Change {
        Change {
            path: "/data/a".into(),
            rule: rule.into(),
        }
    }

    #[test]
    fn findings_go_to_their_resource_and_rule() {
        let a = subject("a", 1);
        let b = subject("b", 5);
        let outcome = Outcome {
            stdout: super::super::Output::default(),
            diagnostics: vec![
                Diagnostic::rejected("no")
                    .with_resource(&b.id)
                    .with_rule("ModRule r")
                    .with_origin(&b.origin),
                Diagnostic::config("bad rule"),
            ],
            exit_code: 2,
            changes: vec![(b.id.clone(), vec![change("ModRule m"), change("ModRule r")])],
            unmatched: Vec::new(),
            admitted: Vec::new(),
            subjects: vec![a, b],
        };
        let findings = Findings::of(&outcome);
        assert_eq!(findings.run.len(), 1);
        let first = findings.resources[0].evaluations();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].rule, ADMISSION);
        let second = findings.resources[1].evaluations();
        let rules: Vec<&str> = second.iter().map(|e| e.rule.as_str()).collect();
        assert_eq!(rules, ["ModRule m", "ModRule r"]);
        assert_eq!(second[1].diagnostics.len(), 1);
        assert!(findings.resources[1].rejected());
        assert_eq!(rule_id(findings.run[0]), "kadmit/config");
        assert_eq!(location(&findings.resources[1].subject.origin), "stdin:5");
    }
}
