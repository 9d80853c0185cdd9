//! The compiled rules of a schema tree and the CRD-time errors of compiling them.

use super::checker::Ty;
use super::compile::{self, Expression};
use super::cost::{self, Cardinality, STATIC_ESTIMATED_COST_LIMIT};
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

/// The result of evaluating the rules.
#[derive(Debug, Default, PartialEq)]
pub struct CelOutcome {
    pub errors: Vec<FieldError>,
    /// On update, failures of rules without `oldSelf` on unchanged values (ratcheting):
    /// the server returns them as warnings.
    pub ratcheted: Vec<FieldError>,
    /// Rules that reference `oldSelf` (transition rules), which do not run on create.
    pub skipped_transition_rules: usize,
}

/// Compiles every x-kubernetes-validations rule in the schema tree; `Err` lists the
/// CRD-time errors with paths relative to the schema root
/// (`properties[spec].x-kubernetes-validations[0].rule`).
pub fn compile(schema: &Schema) -> Result<CompiledRules, Vec<FieldError>> {
    let mut errors = Vec::new();
    let root = node(schema, "", true, Cardinality::ROOT, &mut errors);
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
        root: node(schema, "", true, Cardinality::ROOT, &mut Vec::new()),
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
        validate::run(&self.root, value, None, schema, is_resource_root)
    }

    /// Evaluates the rules on update: transition rules see `oldSelf` where the value
    /// correlates to an old one (and are skipped elsewhere), and a failing rule that does
    /// not use `oldSelf` on an unchanged value is ratcheted (`CelOutcome::ratcheted`).
    pub fn validate_update(
        &self,
        value: &Value,
        old: &Value,
        schema: &Schema,
        is_resource_root: bool,
    ) -> CelOutcome {
        validate::run(&self.root, value, Some(old), schema, is_resource_root)
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

/// `correlatable`: whether `oldSelf` can be paired with a value here (not below lists
/// other than `map` lists); `cardinality`: how many times a rule here can run (for its estimated cost).
fn node(
    schema: &Schema,
    path: &str,
    correlatable: bool,
    cardinality: Cardinality,
    errors: &mut Vec<FieldError>,
) -> Node {
    let mut out = Node::default();
    let this = RuleSelf {
        ty: Ty::of(schema, path.is_empty()),
        schema,
        resource_root: path.is_empty() || schema.embedded_resource,
        cardinality,
    };
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
            cardinality,
            errors,
        );
        if !n.is_empty() {
            out.properties.push((name.clone(), n));
        }
    }
    if let Some(additional) = schema.additional_schema() {
        // `MapIsCorrelatable`: granular (the default) and atomic maps both pair values.
        let correlatable = correlatable
            && matches!(
                schema.map_type.as_deref(),
                None | Some("granular" | "atomic")
            );
        let n = node(
            additional,
            &child(path, "additionalProperties"),
            correlatable,
            cardinality.times(schema.max_properties),
            errors,
        );
        if !n.is_empty() {
            out.additional = Some(Box::new(n));
        }
    }
    if let Some(items) = &schema.items {
        let correlatable = correlatable && schema.list_type.as_deref() == Some("map");
        let cardinality = cardinality.times(schema.max_items);
        let n = node(
            items,
            &child(path, "items"),
            correlatable,
            cardinality,
            errors,
        );
        if !n.is_empty() {
            out.items = Some(Box::new(n));
        }
    }
    out
}

/// What `self` is for the rules of one schema node.
struct RuleSelf<'a> {
    ty: Ty,
    schema: &'a Schema,
    resource_root: bool,
    cardinality: Cardinality,
}

impl RuleSelf<'_> {
    fn compile(&self, source: &str) -> Result<Expression, String> {
        compile::compile(source, &self.ty, self.schema, self.resource_root)
    }

    /// The API server's error when `compiled`'s estimated cost, times how often it can
    /// run, is over the limit.
    fn cost_error(&self, compiled: &Expression, what: &str) -> Option<String> {
        let estimated = self.cardinality.apply(compiled.estimated_cost);
        (estimated > STATIC_ESTIMATED_COST_LIMIT)
            .then(|| cost::estimated_cost_error(what, estimated))
    }
}

fn compile_rule(
    rule: &ValidationRule,
    this: &RuleSelf<'_>,
    at: &str,
    correlatable: bool,
    errors: &mut Vec<FieldError>,
) -> Rule {
    let program = this.compile(&rule.rule);
    if let Some(e) = program
        .as_ref()
        .ok()
        .and_then(|p| this.cost_error(p, "estimated rule cost"))
    {
        errors.push(FieldError::forbidden(child(at, "rule"), e));
    }
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
        let compiled = this.compile(m);
        match &compiled {
            Err(e) => errors.push(FieldError::invalid(
                child(at, "messageExpression"),
                rule_json(rule),
                match e.strip_prefix("program instantiation failed: ") {
                    Some(why) => format!("messageExpression instantiation failed: {why}"),
                    None => format!("messageExpression {e}"),
                },
            )),
            Ok(p) => {
                if let Some(e) = this.cost_error(p, "estimated messageExpression cost") {
                    errors.push(FieldError::forbidden(child(at, "messageExpression"), e));
                }
            }
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
        // As a stored CRD: the API server refuses to create it (its estimated cost).
        let outcome = compile_unchecked(&schema).validate(&value, &schema, false);
        assert!(start.elapsed().as_secs() < 5);
        assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
        assert!(outcome.errors[0]
            .to_string()
            .contains("no further validation rules will be run due to call cost exceeds limit"));
    }

    #[test]
    fn rules_over_their_estimated_cost_are_refused_at_crd_creation() {
        let schema = |max_items: Option<i64>, rule: &str| {
            let mut s = json!({
                "type": "object",
                "properties": {
                    "s": {"type": "string"},
                    "cells": {"type": "array", "items": {"type": "integer"},
                        "x-kubernetes-validations": [{"rule": rule,
                            "messageExpression": "string(self.exists(x, self.exists(y, x == y)))"}]}
                }
            });
            if let Some(m) = max_items {
                s["properties"]["cells"]["maxItems"] = json!(m);
            }
            Schema::from_value(&s).unwrap()
        };
        let nested = "self.all(x, self.all(y, x >= 0 && y >= 0))";
        let errors = compile(&schema(None, nested)).unwrap_err();
        let texts: Vec<String> = errors.iter().map(FieldError::to_string).collect();
        assert_eq!(texts, [
            "properties[cells].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
            "properties[cells].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        ]);
        // With maxItems the estimate is small enough (the server's is about 7,000,000).
        assert!(compile(&schema(Some(1000), nested)).is_ok());
        // A rule on each item runs maxItems times.
        let items = Schema::from_value(&json!({
            "type": "array", "maxItems": 20,
            "items": {"type": "string",
                "x-kubernetes-validations": [{"rule": "self.replace('a', 'b') == self"}]}
        }))
        .unwrap();
        let errors = compile(&items).unwrap_err();
        assert!(errors[0].to_string().starts_with(
            "items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.258296x"
        ), "{errors:?}");
    }

    /// The errors of one rule on `{"s": s, "items": [..n]}`, compiled as a stored CRD.
    fn run(rule: &str, s: &str, n: usize) -> Vec<String> {
        let schema = Schema::from_value(&json!({
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "items": {"type": "array", "items": {"type": "integer"}}
            },
            "x-kubernetes-validations": [{"rule": rule}]
        }))
        .unwrap();
        let value = json!({"s": s, "items": (0..n).collect::<Vec<_>>()});
        let outcome = compile_unchecked(&schema).validate(&value, &schema, false);
        outcome.errors.iter().map(FieldError::to_string).collect()
    }

    #[test]
    fn string_functions_pay_the_api_servers_cost_before_they_run() {
        let long = "a".repeat(2_600_000);
        // 0.2 per character each: 520,000 + 520,000 is over the per-call limit.
        let two = "self.s.replace('a', 'b').size() + self.s.replace('a', 'c').size() > 0";
        let errors = run(two, &long, 0);
        assert!(errors[0].contains("call cost exceeds limit"), "{errors:?}");
        assert!(run("self.s.replace('a', 'b').size() > 0", &long, 0).is_empty());
        // join pays for its result before building it.
        let errors = run("self.items.map(x, self.s).join('').size() > 0", &long, 10);
        assert!(errors[0].contains("call cost exceeds limit"), "{errors:?}");
    }

    #[test]
    fn what_an_evaluation_builds_is_limited() {
        let mb = "a".repeat(1 << 20);
        let limit = "the rule would build more than 67108864 bytes of strings and lists";
        for rule in [
            // map and transformList copy the string into every element
            "self.items.map(x, self.s).size() > 0",
            "self.items.transformList(i, x, self.s).size() > 0",
            // a replace whose result would be size(s)^2
            "self.s.replace('a', self.s).size() > 0",
            // split makes a list element per character
            "self.s.split('').size() > 0",
        ] {
            let n = if rule.contains("items") { 100 } else { 0 };
            let s = if rule.contains("split") {
                "a".repeat(4_500_000)
            } else {
                mb.clone()
            };
            let errors = run(rule, &s, n);
            assert!(
                errors.len() == 1 && errors[0].contains(limit),
                "{rule}: {errors:?}"
            );
        }
        assert!(run("self.items.map(x, self.s).size() > 0", &mb, 10).is_empty());
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
