//! A ModRule read and validated the way KubeMod's webhook validates it, and compiled:
//! selects parsed, regexes and templates compiled, once, before any resource is seen.

use super::matching::{MatchFor, MatchItem};
use super::select::{self, PlaceholderSelect};
use crate::core::diagnostic::Diagnostic;
use crate::core::resource::Resource;
use kadmit_gotmpl::Template;
use regex::Regex;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleType {
    Patch,
    Reject,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchOpKind {
    Add,
    Replace,
    Remove,
}

pub struct PatchItem {
    pub op: PatchOpKind,
    pub select: Option<PlaceholderSelect>,
    pub path: String,
    /// The `value` template; `None` when the rule gives no value (the value is null).
    pub value: Option<Template>,
}

pub struct ModRule {
    /// `metadata.namespace`; `None` means the rule applies to every resource.
    pub namespace: Option<String>,
    pub name: String,
    pub rule_type: RuleType,
    pub tier: i32,
    pub operations: Vec<String>,
    pub target_namespace_regex: Option<Regex>,
    pub matches: Vec<MatchItem>,
    pub patches: Vec<PatchItem>,
    pub reject_message: Option<Template>,
}

impl ModRule {
    /// How users and KubeMod name the rule: `<namespace>/<name>`.
    pub fn qualified_name(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}/{}", self.name),
            None => self.name.clone(),
        }
    }

    pub fn label(&self) -> String {
        format!("ModRule {}", self.qualified_name())
    }
}

/// Go's text/template preprocessing KubeMod applies: `.#N` → `(index .SelectKeyParts N)`.
pub fn preprocess_template(text: &str) -> String {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\.#(\d+)").expect("static regex"))
        .replace_all(text, "(index .SelectKeyParts $1)")
        .into_owned()
}

struct Check<'a> {
    label: String,
    resource: &'a Resource,
    problems: Vec<Diagnostic>,
}

impl Check<'_> {
    fn fail(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.problems.push(
            Diagnostic::config(message)
                .with_rule(self.label.clone())
                .with_field(field)
                .with_origin(&self.resource.origin),
        );
    }
}

/// Reads a field that sigs.k8s.io/yaml would decode into a Go string: scalars become text.
fn string_field(value: Option<&Value>) -> Result<Option<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Bool(b)) => Ok(Some(b.to_string())),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(Some(n.to_string())),
        Some(Value::Number(n)) => Ok(Some(kadmit_go::fmt::format_float(
            n.as_f64().unwrap_or(0.0),
        ))),
        Some(other) => Err(format!(
            "must be a string, not {}",
            crate::core::resource::type_name(other)
        )),
    }
}

/// Validates and compiles a ModRule; every problem is reported, named by rule and field.
pub fn compile(resource: &Resource) -> Result<ModRule, Vec<Diagnostic>> {
    let namespace = resource.id.namespace.clone();
    let name = resource.id.name.clone();
    let label = match &namespace {
        Some(ns) => format!("ModRule {ns}/{name}"),
        None => format!("ModRule {name}"),
    };
    let mut check = Check {
        label,
        resource,
        problems: Vec::new(),
    };
    let spec = resource.value.get("spec").cloned().unwrap_or(Value::Null);
    if !spec.is_object() {
        check.fail("spec", "spec is required and must be a mapping");
        return Err(check.problems);
    }

    let rule_type = match spec.get("type").and_then(Value::as_str) {
        Some("Patch") => Some(RuleType::Patch),
        Some("Reject") => Some(RuleType::Reject),
        Some(other) => {
            check.fail(
                "spec.type",
                format!("unsupported value {other:?}: must be Patch or Reject"),
            );
            None
        }
        None => {
            check.fail("spec.type", "required value: must be Patch or Reject");
            None
        }
    };

    let tier = match spec.get("executionTier") {
        None | Some(Value::Null) => 0,
        Some(v) => match v.as_i64() {
            Some(t) if (-32767..=32766).contains(&t) => t as i32,
            _ => {
                check.fail(
                    "spec.executionTier",
                    format!("{v} is not an integer between -32767 and 32766"),
                );
                0
            }
        },
    };

    let operations = compile_operations(&spec, &mut check);
    let target_namespace_regex = match string_field(spec.get("targetNamespaceRegex")) {
        Ok(Some(text)) if !text.is_empty() => match kadmit_go::regexp::compile(&text) {
            Ok(re) => Some(re),
            Err(e) => {
                check.fail(
                    "spec.targetNamespaceRegex",
                    format!("invalid regular expression: {e}"),
                );
                None
            }
        },
        Ok(_) => None,
        Err(e) => {
            check.fail("spec.targetNamespaceRegex", e);
            None
        }
    };

    let matches = compile_matches(&spec, &mut check);
    let patches = compile_patches(&spec, rule_type, &mut check);
    let reject_message = match string_field(spec.get("rejectMessage")) {
        Ok(Some(text)) => {
            if rule_type == Some(RuleType::Patch) {
                check.fail(
                    "spec.rejectMessage",
                    "rejectMessage is only allowed on Reject rules",
                );
            }
            match kadmit_gotmpl::parse("rejectMessage", &text) {
                Ok(t) => Some(t),
                Err(e) => {
                    check.fail("spec.rejectMessage", e.to_string());
                    None
                }
            }
        }
        Ok(None) => None,
        Err(e) => {
            check.fail("spec.rejectMessage", e);
            None
        }
    };

    if !check.problems.is_empty() {
        return Err(check.problems);
    }
    Ok(ModRule {
        namespace,
        name,
        rule_type: rule_type.expect("validated"),
        tier,
        operations,
        target_namespace_regex,
        matches,
        patches,
        reject_message,
    })
}

fn compile_operations(spec: &Value, check: &mut Check) -> Vec<String> {
    let defaults = || vec!["CREATE".to_owned(), "UPDATE".to_owned()];
    match spec.get("admissionOperations") {
        None | Some(Value::Null) => defaults(),
        Some(Value::Array(items)) if items.is_empty() => defaults(),
        Some(Value::Array(items)) => {
            let mut ops = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item.as_str() {
                    Some(op @ ("CREATE" | "UPDATE" | "DELETE")) => ops.push(op.to_owned()),
                    _ => check.fail(
                        format!("spec.admissionOperations[{i}]"),
                        format!("unsupported value {item}: must be CREATE, UPDATE or DELETE"),
                    ),
                }
            }
            ops
        }
        Some(_) => {
            check.fail("spec.admissionOperations", "must be a list");
            Vec::new()
        }
    }
}

fn compile_matches(spec: &Value, check: &mut Check) -> Vec<MatchItem> {
    let items = match spec.get("match") {
        Some(Value::Array(items)) if !items.is_empty() => items.clone(),
        _ => {
            check.fail("spec.match", "required value: at least one match item");
            return Vec::new();
        }
    };
    let mut compiled = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = |f: &str| format!("spec.match[{i}].{f}");
        let select = match string_field(item.get("select")) {
            Ok(Some(text)) if !text.trim().is_empty() => match select::compile(&text) {
                Ok(s) => Some(s),
                Err(e) => {
                    check.fail(field("select"), format!("invalid select expression at {e}"));
                    None
                }
            },
            Ok(_) => {
                check.fail(field("select"), "required value: select must not be empty");
                None
            }
            Err(e) => {
                check.fail(field("select"), e);
                None
            }
        };
        let match_for = match item.get("matchFor").and_then(Value::as_str) {
            None | Some("") | Some("Any") => MatchFor::Any,
            Some("All") => MatchFor::All,
            Some(other) => {
                check.fail(
                    field("matchFor"),
                    format!("unsupported value {other:?}: must be Any or All"),
                );
                MatchFor::Any
            }
        };
        let match_value = string_field(item.get("matchValue")).unwrap_or_else(|e| {
            check.fail(field("matchValue"), e);
            None
        });
        let mut match_values = Vec::new();
        match item.get("matchValues") {
            None | Some(Value::Null) => {}
            Some(Value::Array(values)) => {
                for (j, v) in values.iter().enumerate() {
                    match string_field(Some(v)) {
                        Ok(Some(s)) => match_values.push(s),
                        Ok(None) => match_values.push(String::new()),
                        Err(e) => check.fail(format!("spec.match[{i}].matchValues[{j}]"), e),
                    }
                }
            }
            Some(_) => check.fail(field("matchValues"), "must be a list of strings"),
        }
        let match_regex = match string_field(item.get("matchRegex")) {
            Ok(Some(text)) => match kadmit_go::regexp::compile(&text) {
                Ok(re) => Some(re),
                Err(e) => {
                    check.fail(
                        field("matchRegex"),
                        format!("invalid regular expression: {e}"),
                    );
                    None
                }
            },
            Ok(None) => None,
            Err(e) => {
                check.fail(field("matchRegex"), e);
                None
            }
        };
        let negate = match item.get("negate") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                check.fail(field("negate"), format!("must be a boolean, not {other}"));
                false
            }
        };
        if let Some(select) = select {
            compiled.push(MatchItem {
                select,
                match_for,
                match_value,
                match_values,
                match_regex,
                negate,
            });
        }
    }
    compiled
}

fn compile_patches(spec: &Value, rule_type: Option<RuleType>, check: &mut Check) -> Vec<PatchItem> {
    let items = match (spec.get("patch"), rule_type) {
        (None | Some(Value::Null), Some(RuleType::Patch)) => {
            check.fail(
                "spec.patch",
                "required value: a Patch rule needs at least one patch item",
            );
            return Vec::new();
        }
        (None | Some(Value::Null), _) => return Vec::new(),
        (Some(Value::Array(items)), Some(RuleType::Reject)) if !items.is_empty() => {
            check.fail(
                "spec.patch",
                "forbidden: a Reject rule cannot have patch items",
            );
            return Vec::new();
        }
        (Some(Value::Array(items)), _) => {
            if items.is_empty() && rule_type == Some(RuleType::Patch) {
                check.fail(
                    "spec.patch",
                    "required value: a Patch rule needs at least one patch item",
                );
            }
            items.clone()
        }
        (Some(_), _) => {
            check.fail("spec.patch", "must be a list");
            return Vec::new();
        }
    };
    let mut compiled = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = |f: &str| format!("spec.patch[{i}].{f}");
        let op = match item.get("op").and_then(Value::as_str) {
            Some("add") => Some(PatchOpKind::Add),
            Some("replace") => Some(PatchOpKind::Replace),
            Some("remove") => Some(PatchOpKind::Remove),
            Some(other) => {
                check.fail(
                    field("op"),
                    format!("unsupported value {other:?}: must be add, replace or remove"),
                );
                None
            }
            None => {
                check.fail(
                    field("op"),
                    "required value: must be add, replace or remove",
                );
                None
            }
        };
        let path = match string_field(item.get("path")) {
            Ok(Some(p)) if !p.is_empty() => Some(p),
            Ok(_) => {
                check.fail(field("path"), "required value: path must not be empty");
                None
            }
            Err(e) => {
                check.fail(field("path"), e);
                None
            }
        };
        let select = match string_field(item.get("select")) {
            Ok(Some(text)) if !text.trim().is_empty() => match select::compile_placeholder(&text) {
                Ok(s) => Some(s),
                Err(e) => {
                    check.fail(field("select"), format!("invalid select expression at {e}"));
                    None
                }
            },
            Ok(_) => None,
            Err(e) => {
                check.fail(field("select"), e);
                None
            }
        };
        let template_name = path.clone().unwrap_or_default();
        let value = match string_field(item.get("value")) {
            Ok(Some(text)) => {
                match kadmit_gotmpl::parse(&template_name, &preprocess_template(&text)) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        check.fail(field("value"), e.to_string());
                        None
                    }
                }
            }
            Ok(None) => None,
            Err(e) => {
                check.fail(field("value"), e);
                None
            }
        };
        if let (Some(op), Some(path)) = (op, path) {
            compiled.push(PatchItem {
                op,
                select,
                path,
                value,
            });
        }
    }
    compiled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_preprocessing_row() {
        assert_eq!(
            preprocess_template("{{ index (index .Target.spec.containers .#0) \"name\" }}-.#12"),
            "{{ index (index .Target.spec.containers (index .SelectKeyParts 0)) \"name\" }}-(index .SelectKeyParts 12)"
        );
    }
}
