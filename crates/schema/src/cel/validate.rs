//! Evaluating compiled rules over an object: the traversal, the cost budget and the
//! field errors of `cel/validation.go`; on update, `oldSelf` bound to the correlated old
//! value and the ratcheting of rules that do not use it.

use super::compile::Expression;
use super::cost::{self, PER_CALL_LIMIT, VALIDATION_BUDGET};
use super::env::env;
use super::errors::go_text;
use super::rules::{CelOutcome, Node, Rule};
use super::value::to_cel;
use crate::correlation::{old_field, Correlated, MapList};
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

/// Evaluates the rules under `root` on `value`; `old` is the object before an update
/// (`None` on create).
pub(super) fn run(
    root: &Node,
    value: &Value,
    old: Option<&Value>,
    schema: &Schema,
    is_resource_root: bool,
) -> CelOutcome {
    let mut run = Run {
        outcome: CelOutcome::default(),
        budget: VALIDATION_BUDGET,
        stopped: false,
    };
    let old = old.filter(|o| !o.is_null());
    let ratchet = Ratchet {
        current: old.map(|o| Correlated::new(value, o, schema)),
        parent: None,
    };
    let at = At {
        path: None,
        resource: is_resource_root,
        old,
        ratchet,
    };
    run.node(root, value, schema, at);
    run.outcome
}

/// `ratchetingOptions`: the node's correlation to its old value, else the nearest
/// correlated ancestor's. A failing rule that does not use `oldSelf` is not reported when
/// that value is unchanged.
#[derive(Clone, Copy, Default)]
struct Ratchet<'a> {
    current: Option<Correlated<'a>>,
    parent: Option<Correlated<'a>>,
}

impl<'a> Ratchet<'a> {
    fn unchanged(&self) -> bool {
        match (&self.current, &self.parent) {
            (Some(c), _) => c.deep_equal(),
            (None, Some(p)) => p.deep_equal(),
            (None, None) => false,
        }
    }

    fn key(self, name: &str) -> Ratchet<'a> {
        let Some(current) = self.current else {
            return self;
        };
        if self.parent.is_none() && (name == "apiVersion" || name == "kind") {
            // Both sides are converted to the same version: a change there is invisible.
            return Ratchet::default();
        }
        Ratchet {
            current: current.key(name),
            parent: Some(current),
        }
    }

    fn index(self, index: usize) -> Ratchet<'a> {
        let Some(current) = self.current else {
            return self;
        };
        Ratchet {
            current: current.index(index),
            parent: Some(current),
        }
    }
}

/// Where the walk is: the field path, whether the node is a resource root, the old value
/// `oldSelf` sees and the ratcheting state.
#[derive(Clone, Copy)]
struct At<'a, 'p> {
    path: Option<&'p str>,
    resource: bool,
    old: Option<&'a Value>,
    ratchet: Ratchet<'a>,
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
    fn node<'a>(&mut self, node: &Node, value: &'a Value, schema: &'a Schema, at: At<'a, '_>) {
        if value.is_null() || self.stopped {
            return;
        }
        let path = at.path;
        if !node.rules.is_empty() {
            let this_self = || to_cel(value, schema, at.resource);
            let old_self = || at.old.map(|o| to_cel(o, schema, at.resource));
            let mut this = Context::with_env(env());
            this.add_variable_as_val("self", this_self());
            if let Some(old) = old_self() {
                this.add_variable_as_val("oldSelf", old);
            }
            // The activation with an optional `oldSelf`, built (converting `self` again)
            // only when a rule of the node asks for it: most never do.
            let mut optional = None;
            for rule in &node.rules {
                if self.stopped {
                    return;
                }
                let optional_old_self = rule.source.optional_old_self == Some(true);
                let cx = match optional_old_self {
                    true => &*optional.get_or_insert_with(|| {
                        let mut optional = Context::with_env(env());
                        optional.add_variable_as_val("self", this_self());
                        optional.add_variable_as_val(
                            "oldSelf",
                            Box::new(match old_self() {
                                Some(old) => CelOptional::of(old),
                                None => CelOptional::none(),
                            }),
                        );
                        optional
                    }),
                    false => &this,
                };
                // The message expression sees the plain activation, as upstream.
                self.rule(rule, cx, &this, value, schema, at);
            }
        }
        // `oldSelf` pairs values through every object field and `map` list keys.
        if let (Some(n), Some(fields), Some(s)) = (
            &node.additional,
            value.as_object(),
            schema.additional_schema(),
        ) {
            for (key, v) in fields {
                let child_path = path_index(path, key);
                let child = At {
                    path: Some(&child_path),
                    resource: false,
                    old: old_field(at.old, key),
                    ratchet: at.ratchet.key(key),
                };
                self.node(n, v, s, child);
            }
        }
        if let Some(fields) = value.as_object() {
            for (name, n) in &node.properties {
                if let (Some(v), Some(s)) = (fields.get(name), schema.property(name)) {
                    let child_path = path_child(path, name);
                    let child = At {
                        path: Some(&child_path),
                        resource: false,
                        old: old_field(at.old, name),
                        ratchet: at.ratchet.key(name),
                    };
                    self.node(n, v, s, child);
                }
            }
        }
        if let (Some(n), Some(items), Some(s)) =
            (&node.items, value.as_array(), schema.items.as_deref())
        {
            let old_items = at.old.and_then(Value::as_array).map_or(&[][..], |v| v);
            let keyed = MapList::new(schema, old_items);
            for (i, v) in items.iter().enumerate() {
                let child_path = path_index(path, &i.to_string());
                let child = At {
                    path: Some(&child_path),
                    resource: false,
                    old: keyed.get(v).filter(|o| !o.is_null()),
                    ratchet: at.ratchet.index(i),
                };
                self.node(n, v, s, child);
            }
        }
    }

    fn rule(
        &mut self,
        rule: &Rule,
        this: &Context<'_, '_>,
        message_cx: &Context<'_, '_>,
        value: &Value,
        schema: &Schema,
        at: At<'_, '_>,
    ) {
        let path = at.path;
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
        if program.uses_old_self && at.old.is_none() && source.optional_old_self != Some(true) {
            // A transition rule runs only where there is an old value to compare.
            self.outcome.skipped_transition_rules += 1;
            return;
        }
        match self.evaluate(program, this) {
            Verdict::Pass => {}
            Verdict::Fail => {
                let detail = self.message(rule, message_cx);
                let error = failure(rule, path, value, detail);
                if !program.uses_old_self && at.ratchet.unchanged() {
                    // Ratcheting: the server returns this as a warning only.
                    self.outcome.ratcheted.push(error);
                } else {
                    self.outcome.errors.push(error);
                }
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
