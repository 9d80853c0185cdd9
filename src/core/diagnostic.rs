//! Diagnostics: every problem kadmit finds, with enough context for a person to act on it,
//! rendered for people (stderr), for KRM orchestrators (`results`) and for `--report`.

use crate::core::resource::{Identity, Origin};
use serde_json::{json, Map, Value};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// What went wrong decides the exit code: a rejected resource is a policy outcome (1),
/// unreadable input or a bad rule is a usage problem (2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// Unparseable or malformed input.
    Input,
    /// A rule, generator or other configuration that cannot be used.
    Config,
    /// A resource was rejected or is invalid.
    Resource,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub category: Category,
    pub message: String,
    pub resource: Option<Box<Identity>>,
    /// Dotted field path inside the resource (`spec.template.spec.containers[0].image`).
    pub field: Option<String>,
    /// The rule responsible, as users name it (`ModRule team-a/no-root`, `Assign always-pull`).
    pub rule: Option<String>,
    /// The message names the rule already in the peer's own words (a
    /// ValidatingAdmissionPolicy denial): the line does not repeat it.
    rule_in_message: bool,
    pub origin: Option<Box<Origin>>,
}

impl Diagnostic {
    fn new(severity: Severity, category: Category, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            category,
            message: message.into(),
            resource: None,
            field: None,
            rule: None,
            rule_in_message: false,
            origin: None,
        }
    }

    pub fn input(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, Category::Input, message)
    }

    pub fn config(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, Category::Config, message)
    }

    pub fn rejected(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, Category::Resource, message)
    }

    pub fn warning(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, Category::Resource, message)
    }

    /// Something the user should know that is neither wrong nor risky.
    pub fn info(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Info, Category::Resource, message)
    }

    pub fn with_resource(mut self, id: &Identity) -> Diagnostic {
        self.resource = Some(Box::new(id.clone()));
        self
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Diagnostic {
        self.field = Some(field.into());
        self
    }

    pub fn with_rule(mut self, rule: impl Into<String>) -> Diagnostic {
        self.rule = Some(rule.into());
        self
    }

    /// The rule, for reports, of a message that names it already (not repeated on the line).
    pub fn with_rule_named_in_message(mut self, rule: impl Into<String>) -> Diagnostic {
        self.rule = Some(rule.into());
        self.rule_in_message = true;
        self
    }

    pub fn with_origin(mut self, origin: &Origin) -> Diagnostic {
        self.origin = Some(Box::new(origin.clone()));
        self
    }

    /// A KRM function `results` entry (functions spec v1: `field` is an object).
    pub fn to_krm_result(&self) -> Value {
        let mut result = Map::new();
        result.insert(
            "message".into(),
            Value::String(self.describe_without_resource()),
        );
        result.insert(
            "severity".into(),
            Value::String(self.severity.as_str().into()),
        );
        if let Some(id) = &self.resource {
            let mut reference = Map::new();
            reference.insert("apiVersion".into(), Value::String(id.api_version()));
            reference.insert("kind".into(), Value::String(id.kind.clone()));
            reference.insert("name".into(), Value::String(id.name.clone()));
            if let Some(ns) = &id.namespace {
                reference.insert("namespace".into(), Value::String(ns.clone()));
            }
            result.insert("resourceRef".into(), Value::Object(reference));
            if let Some(field) = &self.field {
                result.insert("field".into(), json!({ "path": field }));
            }
        }
        if let Some(origin) = self.origin.as_ref().filter(|o| o.is_file()) {
            let mut file = Map::new();
            file.insert("path".into(), json!(origin.file()));
            if let Some(index) = origin.file_index() {
                file.insert("index".into(), json!(index));
            }
            result.insert("file".into(), Value::Object(file));
        }
        if let Some(rule) = &self.rule {
            result.insert("tags".into(), json!({ "rule": rule }));
        }
        Value::Object(result)
    }

    /// The `--report` form: every field as data. `file` is the file a person edits (the
    /// one the document declares, when it does); `input`, present then, is where the
    /// document was in what kadmit read.
    pub fn to_report(&self) -> Value {
        let mut report = json!({
            "severity": self.severity.as_str(),
            "category": match self.category {
                Category::Input => "input",
                Category::Config => "config",
                Category::Resource => "resource",
            },
            "message": self.message,
            "resource": self.resource.as_ref().map(|id| json!({
                "apiVersion": id.api_version(),
                "kind": id.kind,
                "namespace": id.namespace,
                "name": id.name,
            })),
            "field": self.field,
            "rule": self.rule,
            "file": self.origin.as_ref().map(|o| json!({
                "path": o.file(), "index": o.file_index(), "line": o.file_line(),
            })),
        });
        if let Some(origin) = self.origin.as_ref().filter(|o| o.declared.is_some()) {
            report["input"] = json!({
                "path": origin.source.as_ref(), "index": origin.index, "line": origin.line,
            });
        }
        report
    }

    fn describe_without_resource(&self) -> String {
        let mut text = String::new();
        if let Some(field) = &self.field {
            text.push_str(field);
            text.push_str(": ");
        }
        text.push_str(&self.message);
        if let Some(rule) = self.rule.as_ref().filter(|_| !self.rule_in_message) {
            text.push_str(&format!(" ({rule})"));
        }
        text
    }
}

impl fmt::Display for Diagnostic {
    /// `error: Deployment team-a/web: spec.replicas: message (ModRule team-a/x) [stdin, document 2, line 14]`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.severity.as_str())?;
        if let Some(id) = &self.resource {
            write!(f, "{id}: ")?;
        }
        write!(f, "{}", self.describe_without_resource())?;
        if let Some(origin) = &self.origin {
            write!(f, " [{origin}]")?;
        }
        Ok(())
    }
}

/// Success: every resource admitted.
pub const EXIT_SUCCESS: i32 = 0;
/// A resource was rejected or is invalid: a policy outcome.
pub const EXIT_REJECTED: i32 = 1;
/// Bad input or bad configuration.
pub const EXIT_BAD_INPUT: i32 = 2;
/// The KEP-993 contract: an unknown subcommand means "the operation is not supported".
pub const EXIT_UNSUPPORTED: i32 = 127;

/// The process exit code for a set of diagnostics (docs/architecture.md: 0 / 1 / 2).
pub fn exit_code(diagnostics: &[Diagnostic]) -> i32 {
    let errors = diagnostics.iter().filter(|d| d.severity == Severity::Error);
    let mut code = EXIT_SUCCESS;
    for d in errors {
        match d.category {
            Category::Input | Category::Config => return EXIT_BAD_INPUT,
            Category::Resource => code = EXIT_REJECTED,
        }
    }
    code
}

pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.severity == Severity::Error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id() -> Identity {
        Identity::of(&json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "team-a"}}))
        .unwrap()
    }

    #[test]
    fn human_and_krm_forms_name_resource_field_and_rule() {
        let d = Diagnostic::rejected("must be at least 1")
            .with_resource(&id())
            .with_field("spec.replicas")
            .with_rule("ModRule team-a/min");
        assert_eq!(
            d.to_string(),
            "error: Deployment team-a/web: spec.replicas: must be at least 1 (ModRule team-a/min)"
        );
        let r = d.to_krm_result();
        assert_eq!(r["field"], json!({"path": "spec.replicas"}));
        assert_eq!(r["resourceRef"]["namespace"], json!("team-a"));
        assert_eq!(r["severity"], json!("error"));
    }

    #[test]
    fn exit_codes_follow_design() {
        assert_eq!(exit_code(&[]), 0);
        assert_eq!(exit_code(&[Diagnostic::warning("w")]), 0);
        assert_eq!(exit_code(&[Diagnostic::rejected("r")]), 1);
        assert_eq!(
            exit_code(&[Diagnostic::rejected("r"), Diagnostic::input("i")]),
            2
        );
    }
}
