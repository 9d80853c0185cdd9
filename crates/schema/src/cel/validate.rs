//! Evaluating compiled rules over an object: the traversal, the cost budget and the
//! field errors of `cel/validation.go`.

use super::compile::Expression;
use super::cost::{self, PER_CALL_LIMIT, VALIDATION_BUDGET};
use super::env::env;
use super::errors::go_text;
use super::rules::{CelOutcome, Node, Rule};
use super::value::to_cel;
use crate::field_error::{BadValue, ErrorType, FieldError};
use crate::schema::Schema;
use cel::common::types::{CelBool, CelOptional, CelString};
use cel::{Context, ExecutionError, Value as CelValue};
use serde_json::Value;

/// Longest messageExpression result used (`MaxEvaluatedMessageExpressionSizeBytes`).
const MAX_MESSAGE_BYTES: usize = 5120;

struct Run {
    outcome: CelOutcome,
    budget: u64,
    stopped: bool,
}

pub(super) fn run(
    root: &Node,
    value: &Value,
    schema: &Schema,
    is_resource_root: bool,
) -> CelOutcome {
    let mut run = Run {
        outcome: CelOutcome::default(),
        budget: VALIDATION_BUDGET,
        stopped: false,
    };
    run.node(root, value, schema, None, is_resource_root);
    run.outcome
}

fn path_child(path: Option<&str>, name: &str) -> String {
    match path {
        None => name.to_owned(),
        Some(p) => format!("{p}.{name}"),
    }
}

fn path_index(path: Option<&str>, index: &str) -> String {
    format!("{}[{index}]", path.unwrap_or(""))
}

enum Verdict {
    Pass,
    Fail,
    Error(ExecutionError),
    OutOfCost { per_call: bool },
}

impl Run {
    fn node(
        &mut self,
        node: &Node,
        value: &Value,
        schema: &Schema,
        path: Option<&str>,
        resource: bool,
    ) {
        if value.is_null() || self.stopped {
            return;
        }
        if !node.rules.is_empty() {
            let mut this = Context::with_env(env());
            this.add_variable_as_val("self", to_cel(value, schema, resource));
            this.add_variable_as_val("oldSelf", Box::new(CelOptional::none()));
            for rule in &node.rules {
                if self.stopped {
                    return;
                }
                self.rule(rule, &this, value, schema, path);
            }
        }
        if let (Some(n), Some(fields), Some(s)) = (
            &node.additional,
            value.as_object(),
            schema.additional_schema(),
        ) {
            for (key, v) in fields {
                self.node(n, v, s, Some(&path_index(path, key)), false);
            }
        }
        if let Some(fields) = value.as_object() {
            for (name, n) in &node.properties {
                if let (Some(v), Some(s)) = (fields.get(name), schema.property(name)) {
                    self.node(n, v, s, Some(&path_child(path, name)), false);
                }
            }
        }
        if let (Some(n), Some(items), Some(s)) =
            (&node.items, value.as_array(), schema.items.as_deref())
        {
            for (i, v) in items.iter().enumerate() {
                self.node(n, v, s, Some(&path_index(path, &i.to_string())), false);
            }
        }
    }

    fn rule(
        &mut self,
        rule: &Rule,
        this: &Context<'_, '_>,
        value: &Value,
        schema: &Schema,
        path: Option<&str>,
    ) {
        let source = &rule.source;
        let field = path.map_or_else(|| "<nil>".to_owned(), str::to_owned);
        let type_name = Value::String(schema_type(schema, value).to_owned());
        let program = match &rule.program {
            Ok(p) => p,
            Err(e) => {
                self.outcome.errors.push(FieldError::invalid(
                    field,
                    type_name,
                    format!("rule compile error: {e}"),
                ));
                return;
            }
        };
        if program.uses_old_self && source.optional_old_self != Some(true) {
            self.outcome.skipped_transition_rules += 1;
            return;
        }
        match self.evaluate(program, this) {
            Verdict::Pass => {}
            Verdict::Fail => {
                let detail = self.message(rule, this);
                self.outcome.errors.push(failure(rule, path, value, detail));
            }
            Verdict::Error(e) => self.outcome.errors.push(FieldError::invalid(
                field,
                type_name,
                format!(
                    "{} evaluating rule: {}",
                    go_text(&e),
                    rule_error_string(rule)
                ),
            )),
            Verdict::OutOfCost { per_call } => {
                self.stopped = true;
                let detail = if per_call {
                    format!(
                            "'{}': no further validation rules will be run due to call cost exceeds limit for rule: {}",
                            cost::EXCEEDED,
                            rule_error_string(rule)
                        )
                } else {
                    "validation failed due to running out of cost budget, no further validation rules will be run"
                            .to_owned()
                };
                self.outcome
                    .errors
                    .push(FieldError::invalid(field, type_name, detail));
            }
        }
    }

    fn evaluate(&mut self, program: &Expression, this: &Context<'_, '_>) -> Verdict {
        let limit = PER_CALL_LIMIT.min(self.budget);
        let (result, spent) = cost::metered(limit, || eval(program, this));
        self.budget -= spent;
        if spent >= limit {
            return Verdict::OutOfCost {
                per_call: limit == PER_CALL_LIMIT,
            };
        }
        match result {
            Ok(CelValue::Bool(true)) => Verdict::Pass,
            Ok(CelValue::Bool(false)) => Verdict::Fail,
            Ok(_) => Verdict::Error(ExecutionError::function_error(
                "rule",
                "cel expression must evaluate to a bool",
            )),
            Err(e) => Verdict::Error(e),
        }
    }

    /// The evaluated messageExpression, else the message, else `failed rule: <rule>`.
    fn message(&mut self, rule: &Rule, this: &Context<'_, '_>) -> String {
        if let Some(Ok(expr)) = &rule.message {
            let limit = PER_CALL_LIMIT.min(self.budget);
            let (result, spent) = cost::metered(limit, || eval(expr, this));
            self.budget -= spent;
            if let Ok(CelValue::String(s)) = result {
                let s = s.trim();
                if !s.is_empty() && !s.contains('\n') && s.len() <= MAX_MESSAGE_BYTES {
                    return s.to_owned();
                }
            }
        }
        match &rule.source.message {
            Some(m) => m.trim().to_owned(),
            None => format!("failed rule: {}", rule.source.rule.trim()),
        }
    }
}

fn eval(program: &Expression, ctx: &Context<'_, '_>) -> Result<CelValue, ExecutionError> {
    let result = CelValue::resolve_val(&program.tree, ctx)?;
    if let Some(b) = result.downcast_ref::<CelBool>() {
        return Ok(CelValue::Bool(*b.inner()));
    }
    if let Some(s) = result.downcast_ref::<CelString>() {
        return Ok(CelValue::String(s.inner().to_owned().into()));
    }
    CelValue::try_from(result.as_ref())
}

/// `ruleErrorString`: the message if set, else the rule.
fn rule_error_string(rule: &Rule) -> String {
    match &rule.source.message {
        Some(m) if !m.trim().is_empty() => m.trim().to_owned(),
        _ => rule.source.rule.trim().to_owned(),
    }
}

/// The schema's type name as runtime errors print it.
fn schema_type<'a>(schema: &'a Schema, value: &Value) -> &'a str {
    match schema.type_.as_deref() {
        Some(t) => t,
        None => match value {
            Value::Object(_) => "object",
            Value::Array(_) => "array",
            Value::String(_) => "string",
            Value::Number(_) => "number",
            Value::Bool(_) => "boolean",
            Value::Null => "",
        },
    }
}

/// The error of a rule that evaluated to false (`fieldErrorForReason`).
fn failure(rule: &Rule, path: Option<&str>, value: &Value, detail: String) -> FieldError {
    let field = match rule.source.field_path.as_deref() {
        Some(fp) if !fp.trim().is_empty() => path_child(path, &normalize_field_path(fp)),
        _ => path.map_or_else(|| "<nil>".to_owned(), str::to_owned),
    };
    let shown = match value {
        Value::Object(_) | Value::Array(_) => BadValue::Omit,
        scalar => BadValue::Value(scalar.clone()),
    };
    let (kind, detail) = match rule.source.reason.as_deref() {
        Some("FieldValueRequired") => (ErrorType::Required, detail),
        Some("FieldValueForbidden") => (ErrorType::Forbidden, detail),
        Some("FieldValueDuplicate") => (ErrorType::Duplicate, String::new()),
        _ => (ErrorType::Invalid, detail),
    };
    FieldError {
        kind,
        field,
        value: shown,
        detail,
    }
}

/// A fieldPath (`.a.b`, `['k']`) as the child name Kubernetes appends (`a.b`, `[k]`).
fn normalize_field_path(field_path: &str) -> String {
    let mut out = String::new();
    let mut rest = field_path.trim();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("['") {
            let end = after.find("']").unwrap_or(after.len());
            out.push('[');
            out.push_str(&after[..end]);
            out.push(']');
            rest = after.get(end + 2..).unwrap_or("");
        } else if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&after[..end]);
            rest = &after[end..];
        } else {
            out.push_str(rest);
            break;
        }
    }
    out
}
