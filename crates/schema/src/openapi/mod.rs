//! OpenAPI schema validation of a custom resource as kube-apiserver 1.35 runs it
//! (reference §6): kube-openapi's `SchemaValidator` with its validator order, match
//! counting for `anyOf`/`oneOf`, and its errors converted to field errors as
//! `validation.ValidateCustomResource` does with a nil root path (dialect 1 paths:
//! `spec.a`, `spec.map.key`, `spec.l[0]`, the root `<nil>`).
//!
//! On update (`validate_update`), KEP-4008 ratcheting as kube-openapi's
//! `ratchetingValueValidator` does it: the errors found at and under a value that
//! correlates to an unchanged old value are not reported (see `crate::correlation`).
//!
//! Numbers follow 1.35: bounds and `multipleOf` are truncated to int64 for int64 data and
//! numeric formats (`int32`, `double`, ...) are stripped, so never range-checked.

mod keywords;
mod messages;
mod node;
mod pattern;
mod values;

use crate::correlation::Correlated;
use crate::field_error::FieldError;
use crate::schema::Schema;
use kadmit_go::strconv::quote;
use node::Node;
use serde_json::Value;
use std::collections::HashSet;
use std::fmt::Write;
use values::Kind;

/// A schema prepared for validating many values: formats resolved, patterns compiled.
pub struct Validator {
    root: Node,
}

impl Validator {
    pub fn new(schema: &Schema) -> Validator {
        Validator {
            root: Node::new(schema),
        }
    }

    /// The field errors of `value`, each distinct text once.
    pub fn validate(&self, value: &Value) -> Vec<FieldError> {
        let mut walk = Walk {
            path: String::new(),
            out: Vec::new(),
            correlated: None,
        };
        walk.node(&self.root, value);
        distinct(walk.out)
    }

    /// The field errors of `value` replacing `old` (`schema` is the schema this validator
    /// was built from: it decides how values correlate), ratcheted.
    pub fn validate_update(&self, value: &Value, old: &Value, schema: &Schema) -> Vec<FieldError> {
        let root = Correlated::new(value, old, schema);
        let mut walk = Walk {
            path: String::new(),
            out: Vec::new(),
            correlated: Some(root),
        };
        walk.node(&self.root, value);
        if !walk.out.is_empty() && root.deep_equal() {
            return Vec::new();
        }
        distinct(walk.out)
    }
}

/// Validates `value` against `schema` once; build a [`Validator`] to validate many.
pub fn validate(value: &Value, schema: &Schema) -> Vec<FieldError> {
    Validator::new(schema).validate(value)
}

fn distinct(errors: Vec<FieldError>) -> Vec<FieldError> {
    if errors.len() < 2 {
        return errors;
    }
    let mut seen = HashSet::new();
    errors
        .into_iter()
        .filter(|e| seen.insert(e.to_string()))
        .collect()
}

/// One validation pass: the kube-openapi path of the node being checked and the errors
/// found so far. Each check returns kube-openapi's match count, which picks the branch
/// whose errors an `anyOf`/`oneOf` failure reports.
struct Walk<'a> {
    path: String,
    out: Vec<FieldError>,
    /// On update: the value being checked with its old value, while they correlate.
    correlated: Option<Correlated<'a>>,
}

impl Walk<'_> {
    /// `SchemaValidator.Validate`: for null only the type and enum checks run; otherwise
    /// every validator that applies to the value's kind, a failing one not stopping the
    /// rest. The match count adds, per validator run, its own count (type: 1 unless it
    /// failed; junctors, number, slice: 1 plus what they merged) and 1, and 1 at the end.
    fn node(&mut self, node: &Node, value: &Value) -> usize {
        let kind = Kind::of(value);
        if let Kind::Null = kind {
            let matched = self.null_type(node);
            self.check_enum(node, value);
            return matched;
        }
        let mut count = 0;
        if node.has_type() || node.format.is_some() {
            count += usize::from(self.check_type(node, kind)) + 1;
        }
        count += self.junctors(node, value) + 2;
        match kind {
            Kind::Str(s) => {
                self.check_string(node, s);
                count += 1;
                if let Some((name, format)) = &node.format {
                    if !format.validates(s) {
                        self.out.push(messages::type_invalid(&self.path, name, s));
                    }
                    count += 1;
                }
            }
            Kind::Int(_) | Kind::Float(_) => {
                self.check_number(node, kind);
                count += 2;
            }
            Kind::Array(items) => count += self.check_array(node, items) + 2,
            _ => {}
        }
        self.check_enum(node, value);
        count += 1;
        if let Kind::Object(map) = kind {
            count += self.check_object(node, map) + 1;
        }
        count + 1
    }

    /// A value one step below the current node; `segment` is appended to the path. On
    /// update, what is found under a child equal to its correlated old value is dropped.
    fn child(&mut self, segment: Segment, node: &Node, value: &Value) -> usize {
        let parent = self.correlated;
        let correlated = parent.and_then(|c| match segment {
            // apiVersion and kind are converted alike on both sides: never ratcheted.
            Segment::Property(name) | Segment::Key(name)
                if self.path.is_empty() && (name == "apiVersion" || name == "kind") =>
            {
                None
            }
            Segment::Property(name) | Segment::Key(name) => c.key(name),
            Segment::Index(i) => c.index(i),
        });
        self.correlated = correlated;
        let before = self.out.len();
        let count = self.step(segment, node, value);
        if self.out.len() > before && correlated.is_some_and(|c| c.deep_equal()) {
            self.out.truncate(before);
        }
        self.correlated = parent;
        count
    }

    fn step(&mut self, segment: Segment, node: &Node, value: &Value) -> usize {
        let len = self.path.len();
        match segment {
            Segment::Property(name) => {
                if len > 0 {
                    self.path.push('.');
                }
                self.path.push_str(name);
            }
            Segment::Key(key) => {
                self.path.push('.');
                self.path.push_str(key);
            }
            Segment::Index(i) => {
                let _ = write!(self.path, "[{i}]");
            }
        }
        let count = self.node(node, value);
        self.path.truncate(len);
        count
    }

    /// `allOf`, `anyOf`, `oneOf` and `not` on the same value and path. A failed `anyOf`
    /// or `oneOf` reports the errors of its branch with the highest match count (the
    /// first among equals).
    fn junctors(&mut self, node: &Node, value: &Value) -> usize {
        let mut count = 0;
        if !node.any_of.is_empty() {
            let (valid, best) = self.branches(&node.any_of, value, true);
            if valid == 0 {
                let message = format!(
                    "{} must validate at least one schema (anyOf)",
                    quote(&self.path, false)
                );
                self.out.push(messages::composite(message));
            }
            count += self.keep(best);
        }
        if !node.one_of.is_empty() {
            let (valid, best) = self.branches(&node.one_of, value, false);
            if valid != 1 {
                let found = if valid == 0 {
                    "Found none valid".to_owned()
                } else {
                    format!("Found {valid} valid alternatives")
                };
                let message = format!(
                    "{} must validate one and only one schema (oneOf). {found}",
                    quote(&self.path, false)
                );
                self.out.push(messages::composite(message));
            }
            count += self.keep(best);
        }
        if !node.all_of.is_empty() {
            let mut valid = 0;
            for branch in &node.all_of {
                let before = self.out.len();
                count += self.node(branch, value);
                valid += usize::from(self.out.len() == before);
            }
            if valid != node.all_of.len() {
                let none = if valid == 0 { ". None validated" } else { "" };
                let message = format!(
                    "{} must validate all the schemas (allOf){none}",
                    quote(&self.path, false)
                );
                self.out.push(messages::composite(message));
            }
        }
        if let Some(not) = &node.not {
            let before = self.out.len();
            self.node(not, value);
            let valid = self.out.len() == before;
            self.out.truncate(before);
            if valid {
                let message = format!(
                    "{} must not validate the schema (not)",
                    quote(&self.path, false)
                );
                self.out.push(messages::composite(message));
            }
        }
        count
    }

    /// Runs alternative branches: how many are valid and the outcome to keep (the best
    /// failure while none is valid, else the first success). `any` stops at the first
    /// success as `anyOf` does.
    fn branches(&mut self, branches: &[Node], value: &Value, any: bool) -> (usize, Outcome) {
        let mut valid = 0;
        let mut best: Option<Outcome> = None;
        let mut success: Option<Outcome> = None;
        for branch in branches {
            let before = self.out.len();
            let count = self.node(branch, value);
            let errors = self.out.split_off(before);
            if errors.is_empty() {
                valid += 1;
                best = None;
                success.get_or_insert(Outcome { count, errors });
                if any {
                    break;
                }
            } else if valid == 0 && best.as_ref().is_none_or(|b| count > b.count) {
                best = Some(Outcome { count, errors });
            }
        }
        let keep = best.or(if valid == 1 || any { success } else { None });
        (valid, keep.unwrap_or_default())
    }

    fn keep(&mut self, outcome: Outcome) -> usize {
        self.out.extend(outcome.errors);
        outcome.count
    }
}

#[derive(Default)]
struct Outcome {
    count: usize,
    errors: Vec<FieldError>,
}

enum Segment<'a> {
    /// A declared property: `a.b`, or `b` at the root.
    Property(&'a str),
    /// An `additionalProperties` key: always dotted, even at the root.
    Key(&'a str),
    Index(usize),
}

#[cfg(test)]
mod tests;
