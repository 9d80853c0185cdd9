//! The compiled rules of a schema tree and the CRD-time errors of compiling them.

use super::checker::Ty;
use super::compile::{self, Expression};
use super::validate;
use crate::field_error::{ErrorType, FieldError};
use crate::schema::{Schema, ValidationRule};
use serde_json::{json, Map, Value};

/// The compiled rules of a whole schema tree, built once per CRD version.
#[derive(Debug)]
pub struct CompiledRules {
    pub(super) root: Node,
}

/// The rules of one schema node and of the nodes below it that have any.
#[derive(Debug, Default)]
pub(super) struct Node {
    pub rules: Vec<Rule>,
    pub properties: Vec<(String, Node)>,
    pub additional: Option<Box<Node>>,
    pub items: Option<Box<Node>>,
}

/// One rule; a compile failure is kept so that evaluation reports it the way the API
/// server reports a rule it could not compile.
#[derive(Debug)]
pub(super) struct Rule {
    pub source: ValidationRule,
    pub program: Result<Expression, String>,
    pub message: Option<Result<Expression, String>>,
}

/// The result of evaluating the rules on create.
#[derive(Debug, Default, PartialEq)]
pub struct CelOutcome {
    pub errors: Vec<FieldError>,
    /// Rules that reference `oldSelf` (transition rules), which do not run on create.
    pub skipped_transition_rules: usize,
}

/// Compiles every x-kubernetes-validations rule in the schema tree; `Err` lists the
/// CRD-time errors with paths relative to the schema root
/// (`properties[spec].x-kubernetes-validations[0].rule`).
pub fn compile(schema: &Schema) -> Result<CompiledRules, Vec<FieldError>> {
    let mut errors = Vec::new();
    let root = node(schema, "", true, &mut errors);
    if errors.is_empty() {
        Ok(CompiledRules { root })
    } else {
        Err(errors)
    }
}

/// Compiles the rules without rejecting the schema: a rule that does not compile reports
/// `rule compile error: ...` when evaluated, as the API server does for a stored CRD.
pub fn compile_unchecked(schema: &Schema) -> CompiledRules {
    CompiledRules {
        root: node(schema, "", true, &mut Vec::new()),
    }
}

impl CompiledRules {
    /// Whether the schema has no rules at all.
    pub fn is_empty(&self) -> bool {
        self.root.is_empty()
    }

    /// Evaluates the rules on create: transition rules are skipped (and counted); field
    /// errors use the `field.Path` dialect with `<nil>` for the root.
    pub fn validate(&self, value: &Value, schema: &Schema, is_resource_root: bool) -> CelOutcome {
        validate::run(&self.root, value, schema, is_resource_root)
    }
}

impl Node {
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
            && self.properties.is_empty()
            && self.additional.is_none()
            && self.items.is_none()
    }
}

fn child(path: &str, step: &str) -> String {
    if path.is_empty() {
        step.to_owned()
    } else {
        format!("{path}.{step}")
    }
}

/// `correlatable`: whether `oldSelf` can be paired with a value here (not below atomic or
/// set lists).
fn node(schema: &Schema, path: &str, correlatable: bool, errors: &mut Vec<FieldError>) -> Node {
    let mut out = Node::default();
    let this = Ty::of(schema, path.is_empty());
    for (i, rule) in schema.validations.iter().enumerate() {
        let at = child(path, &format!("x-kubernetes-validations[{i}]"));
        let compiled = compile_rule(rule, &this, &at, correlatable, errors);
        out.rules.push(compiled);
    }
    for (name, property) in &schema.properties {
        let n = node(
            property,
            &child(path, &format!("properties[{name}]")),
            correlatable,
            errors,
        );
        if !n.is_empty() {
            out.properties.push((name.clone(), n));
        }
    }
    if let Some(additional) = schema.additional_schema() {
        let correlatable = correlatable && schema.map_type.as_deref() != Some("atomic");
        let n = node(
            additional,
            &child(path, "additionalProperties"),
            correlatable,
            errors,
        );
        if !n.is_empty() {
            out.additional = Some(Box::new(n));
        }
    }
    if let Some(items) = &schema.items {
        let correlatable = correlatable && schema.list_type.as_deref() == Some("map");
        let n = node(items, &child(path, "items"), correlatable, errors);
        if !n.is_empty() {
            out.items = Some(Box::new(n));
        }
    }
    out
}

fn compile_rule(
    rule: &ValidationRule,
    this: &Ty,
    at: &str,
    correlatable: bool,
    errors: &mut Vec<FieldError>,
) -> Rule {
    let program = compile::compile(&rule.rule, this);
    match &program {
        Err(e) => errors.push(FieldError::invalid(
            child(at, "rule"),
            rule_json(rule),
            e.clone(),
        )),
        Ok(p) => {
            if let Some(problem) = p.non_bool_result() {
                errors.push(FieldError::invalid(
                    child(at, "rule"),
                    rule_json(rule),
                    problem,
                ));
            }
            if p.uses_old_self && !correlatable {
                errors.push(FieldError::new(
                    ErrorType::Invalid,
                    child(at, "rule"),
                    Value::String(rule.rule.clone()),
                    "oldSelf cannot be used on the uncorrelatable portion of the schema",
                ));
            }
            if rule.optional_old_self == Some(true) && !p.uses_old_self {
                errors.push(FieldError::invalid(
                    child(at, "optionalOldSelf"),
                    Value::Bool(true),
                    "may not be set if oldSelf is not used in rule",
                ));
            }
        }
    }
    let message = rule.message_expression.as_ref().map(|m| {
        let compiled = compile::compile(m, this);
        if let Err(e) = &compiled {
            errors.push(FieldError::invalid(
                child(at, "messageExpression"),
                rule_json(rule),
                format!("messageExpression {e}"),
            ));
        }
        compiled
    });
    Rule {
        source: rule.clone(),
        program,
        message,
    }
}

/// The rule object as the API server prints it in an error.
fn rule_json(rule: &ValidationRule) -> Value {
    let mut map = Map::new();
    map.insert("rule".into(), json!(rule.rule));
    let optional = [
        ("message", &rule.message),
        ("messageExpression", &rule.message_expression),
        ("reason", &rule.reason),
        ("fieldPath", &rule.field_path),
    ];
    for (key, value) in optional {
        if let Some(v) = value {
            map.insert(key.into(), json!(v));
        }
    }
    if let Some(b) = rule.optional_old_self {
        map.insert("optionalOldSelf".into(), json!(b));
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_comprehensions_over_a_big_list_stop_at_the_cost_limit() {
        let schema = Schema::from_value(&json!({
            "type": "array",
            "items": {"type": "integer"},
            "x-kubernetes-validations": [
                {"rule": "self.all(x, self.all(y, self.all(z, x + y + z >= 0)))"},
                {"rule": "size(self) > 0"}
            ]
        }))
        .unwrap();
        let value = Value::Array((0..2000).map(|i| json!(i)).collect());
        let start = std::time::Instant::now();
        let outcome = compile(&schema).unwrap().validate(&value, &schema, false);
        assert!(start.elapsed().as_secs() < 5);
        assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
        assert!(outcome.errors[0]
            .to_string()
            .contains("no further validation rules will be run due to call cost exceeds limit"));
    }

    #[test]
    fn transition_rules_are_skipped_on_create() {
        let schema = Schema::from_value(&json!({
            "type": "object",
            "x-kubernetes-validations": [{"rule": "self == oldSelf"}]
        }))
        .unwrap();
        let outcome = compile(&schema)
            .unwrap()
            .validate(&json!({}), &schema, true);
        assert_eq!(outcome.skipped_transition_rules, 1);
        assert!(outcome.errors.is_empty());
    }
}
