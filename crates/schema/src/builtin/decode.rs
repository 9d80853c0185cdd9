//! The walk of a built-in object through its Go types, as kube-apiserver's strict decoder
//! (`sigs.k8s.io/json` `UnmarshalStrict`, case-sensitive) makes it: keys sorted at every
//! level (kubectl's YAML-to-JSON goes through Go maps), unknown fields recorded with
//! their strict path (`spec.containers[0].portz`: keys joined with `.`, map keys too,
//! list elements as `[i]`), type mismatches as `encoding/json`'s `UnmarshalTypeError`
//! (the innermost struct's name, the struct-field path without indices or map keys, the
//! Go type), and the errors of the types with their own `UnmarshalJSON` (Quantity,
//! IntOrString, Time), which Go returns at once instead of saving.

use super::catalog::Catalog;
use super::goerrors::{base64_error, quantity_error};
use super::node::Node;
use super::shape::Shape;
use crate::unknown::{did_you_mean, UnknownField};
use serde_json::{Number, Value};
use std::collections::HashSet;

/// `saveStrictError` keeps at most this many.
const MAX_STRICT: usize = 100;

/// What the walk found, in decode order.
#[derive(Default)]
pub struct Findings {
    /// `unknown field "<path>"` / `duplicate field "<path>"`.
    pub strict: Vec<String>,
    pub unknown: Vec<UnknownField>,
    /// JSON Pointers of the unknown fields (what the decoded object does not keep).
    pub drop: Vec<String>,
    /// Every type error, Go's text; Go reports the first one it saved ...
    pub type_errors: Vec<String>,
    /// ... unless an `UnmarshalJSON` failed first or later: that one is returned at once.
    pub fatal: Option<String>,
}

pub struct Decoder<'a> {
    catalog: &'a Catalog,
    /// Strict path steps: `Ok(key)` or `Err(index)`; the JSON Pointer of an unknown field
    /// is made from them too.
    strict_path: Vec<Result<&'a str, usize>>,
    /// `errorContext`: the innermost struct's name and the struct fields' JSON names.
    go_struct: &'static str,
    go_fields: Vec<&'a str>,
    duplicates: HashSet<&'a str>,
    pub found: Findings,
}

impl<'a> Decoder<'a> {
    pub fn new(catalog: &'a Catalog, duplicates: &'a [String]) -> Decoder<'a> {
        Decoder {
            catalog,
            strict_path: Vec::new(),
            go_struct: "",
            go_fields: Vec::new(),
            duplicates: duplicates.iter().map(String::as_str).collect(),
            found: Findings::default(),
        }
    }

    /// Decodes `value` into the Go type of `node`.
    pub fn value(&mut self, node: Node, value: &'a Value) {
        if value.is_null() {
            // `null` decodes into anything (a no-op, or a nil pointer, slice or map).
            return;
        }
        let catalog = self.catalog;
        let shape = Shape::cached(catalog, node);
        match (&shape, value) {
            (Shape::Any, _) => {}
            (Shape::Struct { name, fields, .. }, Value::Object(map)) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                for key in keys {
                    self.enter_key(key);
                    match fields.and_then(|f| f.get(key.as_str())) {
                        Some(field) => {
                            let outer = std::mem::replace(&mut self.go_struct, name);
                            self.go_fields.push(key);
                            self.value(Node::new(catalog, field), &map[key]);
                            self.go_fields.pop();
                            self.go_struct = outer;
                        }
                        None => {
                            let known = fields.iter().flat_map(|f| f.keys().map(String::as_str));
                            self.unknown(did_you_mean(key, known));
                        }
                    }
                    self.duplicate();
                    self.leave();
                }
            }
            (Shape::Map(values), Value::Object(map)) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                for key in keys {
                    self.enter_key(key);
                    self.value(*values, &map[key]);
                    self.duplicate();
                    self.leave();
                }
            }
            (Shape::Slice(items), Value::Array(list)) => {
                for (i, item) in list.iter().enumerate() {
                    self.strict_path.push(Err(i));
                    self.value(*items, item);
                    self.leave();
                }
            }
            (Shape::Bytes, Value::String(s)) => {
                if let Some(e) = base64_error(s) {
                    self.found.type_errors.push(e);
                }
            }
            (Shape::String, Value::String(_)) | (Shape::Bool, Value::Bool(_)) => {}
            (Shape::Float, Value::Number(_)) => {}
            (Shape::Int(_, bits), Value::Number(n)) => {
                // An integer kubectl sent as such needs no text to be checked.
                let fits = match n.as_i64() {
                    Some(v) => *bits >= 64 || i32::try_from(v).is_ok(),
                    None => fits(&literal(n), *bits),
                };
                if !fits {
                    self.type_error(&format!("number {}", literal(n)), &shape);
                }
            }
            (Shape::Quantity, v) => {
                let text = match v {
                    Value::String(s) => s.trim().to_owned(),
                    Value::Number(n) => literal(n),
                    Value::Bool(b) => b.to_string(),
                    Value::Object(_) => "{".into(),
                    _ => "[".into(),
                };
                if let Some(e) = quantity_error(&text) {
                    self.fatal(e.to_owned());
                }
            }
            (Shape::IntOrString, Value::String(_)) => {}
            (Shape::IntOrString, v) => {
                let kind = match v {
                    Value::Number(n) if fits(&literal(n), 32) => return,
                    Value::Number(n) => format!("number {}", literal(n)),
                    other => json_kind(other).into(),
                };
                self.fatal(format!(
                    "json: cannot unmarshal {kind} into Go value of type int32"
                ));
            }
            (Shape::Time(_, layout), Value::String(s)) => {
                if let Err(e) = kadmit_go::time::parse(layout, s) {
                    self.fatal(e.to_string());
                }
            }
            (Shape::Time(..), other) => self.fatal(format!(
                "json: cannot unmarshal {} into Go value of type string",
                json_kind(other)
            )),
            // A number into a string, bool, struct, slice or map is plain `number`;
            // only the numeric kinds quote the literal.
            (_, other) => self.type_error(json_kind(other), &shape),
        }
    }

    fn enter_key(&mut self, key: &'a str) {
        self.strict_path.push(Ok(key));
    }

    fn leave(&mut self) {
        self.strict_path.pop();
    }

    fn path(&self) -> String {
        let mut out = String::new();
        for step in &self.strict_path {
            match step {
                Ok(key) if out.is_empty() => out.push_str(key),
                Ok(key) => {
                    out.push('.');
                    out.push_str(key);
                }
                Err(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    fn unknown(&mut self, suggestion: Option<&str>) {
        let field = UnknownField {
            path: self.path(),
            suggestion: suggestion.map(str::to_owned),
        };
        let mut pointer = String::new();
        for step in &self.strict_path {
            pointer.push('/');
            match step {
                Ok(key) => pointer.push_str(&key.replace('~', "~0").replace('/', "~1")),
                Err(i) => pointer.push_str(&i.to_string()),
            }
        }
        self.found.drop.push(pointer);
        if self.found.strict.len() < MAX_STRICT {
            self.found.strict.push(field.server_text());
        }
        self.found.unknown.push(field);
    }

    /// A key the reader saw twice: reported after the field, once.
    fn duplicate(&mut self) {
        if self.duplicates.is_empty() {
            return;
        }
        let path = self.path();
        if self.duplicates.remove(path.as_str()) && self.found.strict.len() < MAX_STRICT {
            self.found
                .strict
                .push(format!("duplicate field {}", quote(&path)));
        }
    }

    /// Duplicates the walk did not reach (inside raw fields), in the caller's order.
    pub fn finish(&mut self, duplicates: &[String]) {
        for path in duplicates {
            if self.duplicates.remove(path.as_str()) {
                self.found
                    .strict
                    .push(format!("duplicate field {}", quote(path)));
            }
        }
    }

    fn type_error(&mut self, value: &str, shape: &Shape) {
        let go_type = shape.go_type(self.catalog);
        let text = if self.go_fields.is_empty() {
            format!("json: cannot unmarshal {value} into Go value of type {go_type}")
        } else {
            format!(
                "json: cannot unmarshal {value} into Go struct field {}.{} of type {go_type}",
                self.go_struct,
                self.go_fields.join(".")
            )
        };
        self.found.type_errors.push(text);
    }

    fn fatal(&mut self, text: String) {
        self.found.type_errors.push(text.clone());
        self.found.fatal.get_or_insert(text);
    }
}

/// The number as kubectl sends it: Go's `json.Marshal` of what its YAML reader made of
/// it (`1.0` in YAML is the float 1, sent as `1`).
fn literal(n: &Number) -> String {
    match n.as_f64() {
        _ if n.is_i64() || n.is_u64() => n.to_string(),
        Some(f) => kadmit_go::json::float(f),
        None => n.to_string(),
    }
}

/// `strconv.ParseInt(literal, 10, 64)` succeeds and the value fits `bits`.
fn fits(literal: &str, bits: u32) -> bool {
    match kadmit_go::strconv::parse_int(literal, 10) {
        Some(v) => bits >= 64 || (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&v),
        None => false,
    }
}

/// `UnmarshalTypeError.Value` for a JSON value.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn quote(s: &str) -> String {
    kadmit_go::strconv::quote(s, false)
}
