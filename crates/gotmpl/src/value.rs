//! Template values as Go's reflection sees them while a template runs.
//!
//! Go keeps the static type of every value; the engine keeps just enough of it to give
//! the same answers: JSON data is `map[string]interface {}`, `[]interface {}`, `string`,
//! `float64`, `bool` and nil; template literals are `int`, `float64`, `string`, `bool`;
//! Sprig adds `int64`, `[]string`, `map[string]string`, `[]int` and `*semver.Version`.
//! A [`Slot`] is a value in a place: `None` is Go's invalid `reflect.Value` (a missing
//! map key, printed `<no value>`), and `boxed` says the value sits in an `interface {}`
//! (an element of a JSON map or array) until a pipeline unwraps it.

use super::semver::Version;
use std::cell::{Ref, RefCell, RefMut};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The element type of a list or map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    /// `interface {}`: elements are boxed.
    Any,
    /// `string`.
    Str,
    /// `int`.
    Int,
}

pub(crate) type MapRef = Rc<MapCell>;

/// A Go map's entries. A map that comes from a shared JSON document starts out with only
/// its `source`: an entry is converted when a template first reads it, and all of them
/// the first time the map is iterated, changed or measured against another.
#[derive(Debug, Default)]
pub(crate) struct MapCell {
    entries: RefCell<BTreeMap<String, Value>>,
    /// The JSON object whose entries are not all in `entries` yet.
    source: RefCell<Option<Rc<JsonPath>>>,
}

/// Where a value sits in a shared document.
#[derive(Debug)]
pub(crate) enum JsonPath {
    Root(Rc<serde_json::Value>),
    Key(Rc<JsonPath>, String),
    Index(Rc<JsonPath>, usize),
}

impl JsonPath {
    /// The value here; the shared document cannot change while this path holds it.
    fn resolve(&self) -> &serde_json::Value {
        match self {
            JsonPath::Root(doc) => doc,
            JsonPath::Key(parent, key) => &parent.resolve()[key.as_str()],
            JsonPath::Index(parent, i) => &parent.resolve()[*i],
        }
    }
}

impl MapCell {
    pub(crate) fn new(entries: BTreeMap<String, Value>) -> MapRef {
        Rc::new(MapCell {
            entries: RefCell::new(entries),
            source: RefCell::new(None),
        })
    }

    fn lazy(source: Rc<JsonPath>) -> MapRef {
        Rc::new(MapCell {
            entries: RefCell::default(),
            source: RefCell::new(Some(source)),
        })
    }

    /// The value at `key`, converting only that entry.
    pub(crate) fn get(&self, key: &str) -> Option<Value> {
        if let Some(v) = self.entries.borrow().get(key) {
            return Some(v.clone());
        }
        let source = self.source.borrow();
        let source = source.as_ref()?;
        let v = source.resolve().as_object()?.get(key)?;
        let v = from_shared(v, &|| {
            Rc::new(JsonPath::Key(source.clone(), key.to_owned()))
        });
        self.entries.borrow_mut().insert(key.to_owned(), v.clone());
        Some(v)
    }

    pub(crate) fn len(&self) -> usize {
        match &*self.source.borrow() {
            Some(source) => source.resolve().as_object().map_or(0, |m| m.len()),
            None => self.entries.borrow().len(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn borrow(&self) -> Ref<'_, BTreeMap<String, Value>> {
        self.convert_all();
        self.entries.borrow()
    }

    pub(crate) fn borrow_mut(&self) -> RefMut<'_, BTreeMap<String, Value>> {
        self.convert_all();
        self.entries.borrow_mut()
    }

    fn convert_all(&self) {
        let Some(source) = self.source.borrow_mut().take() else {
            return;
        };
        let mut entries = self.entries.borrow_mut();
        for (k, v) in source.resolve().as_object().into_iter().flatten() {
            if !entries.contains_key(k) {
                let v = from_shared(v, &|| Rc::new(JsonPath::Key(source.clone(), k.clone())));
                entries.insert(k.clone(), v);
            }
        }
    }
}

/// A Go value. Maps are shared and mutable (Sprig's `set`, `unset` and `merge` change
/// them in place, as in Go); lists are immutable.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    Nil,
    Bool(bool),
    /// Go `int`.
    Int(i64),
    /// Go `int64`.
    Int64(i64),
    /// Go `uint8` (a byte of a string) or `uint64` (semver parts).
    Uint(u64, bool),
    Float(f64),
    Str(Rc<str>),
    List(Rc<Vec<Value>>, Elem),
    Map(MapRef, Elem),
    Version(Rc<Version>),
}

/// Go's classification of values for comparisons (`basicKind` in text/template).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BasicKind {
    Invalid,
    Bool,
    Int,
    Uint,
    Float,
    Str,
}

impl Value {
    pub(crate) fn str(s: impl Into<Rc<str>>) -> Value {
        Value::Str(s.into())
    }

    pub(crate) fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(items), Elem::Any)
    }

    pub(crate) fn str_list(items: Vec<String>) -> Value {
        Value::List(
            Rc::new(items.into_iter().map(Value::str).collect()),
            Elem::Str,
        )
    }

    pub(crate) fn map(entries: BTreeMap<String, Value>) -> Value {
        Value::Map(MapCell::new(entries), Elem::Any)
    }

    /// Go's `%T`.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Int64(_) => "int64",
            Value::Uint(_, true) => "uint8",
            Value::Uint(_, false) => "uint64",
            Value::Float(_) => "float64",
            Value::Str(_) => "string",
            Value::List(_, Elem::Any) => "[]interface {}",
            Value::List(_, Elem::Str) => "[]string",
            Value::List(_, Elem::Int) => "[]int",
            Value::Map(_, Elem::Str) => "map[string]string",
            Value::Map(..) => "map[string]interface {}",
            Value::Version(_) => "*semver.Version",
        }
    }

    /// `reflect.Kind.String()`.
    pub(crate) fn kind_name(&self) -> &'static str {
        match self {
            Value::Nil => "invalid",
            Value::List(..) => "slice",
            Value::Map(..) => "map",
            Value::Version(_) => "ptr",
            other => other.type_name(),
        }
    }

    pub(crate) fn basic_kind(&self) -> BasicKind {
        match self {
            Value::Bool(_) => BasicKind::Bool,
            Value::Int(_) | Value::Int64(_) => BasicKind::Int,
            Value::Uint(..) => BasicKind::Uint,
            Value::Float(_) => BasicKind::Float,
            Value::Str(_) => BasicKind::Str,
            _ => BasicKind::Invalid,
        }
    }

    /// Go template truth (`isTrue`), which is also the negation of Sprig's `empty`.
    pub(crate) fn truth(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) | Value::Int64(i) => *i != 0,
            Value::Uint(u, _) => *u != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l, _) => !l.is_empty(),
            Value::Map(m, _) => !m.is_empty(),
            Value::Version(_) => true,
        }
    }

    /// Are elements of this container boxed in `interface {}`?
    pub(crate) fn elems_boxed(&self) -> bool {
        matches!(self, Value::List(_, Elem::Any) | Value::Map(_, Elem::Any))
    }

    /// The integer inside an integer value.
    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) | Value::Int64(i) => Some(*i),
            Value::Uint(u, _) => Some(*u as i64),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A copy of the list items or map values, for functions that iterate.
    pub(crate) fn list_items(&self) -> Option<Vec<Value>> {
        match self {
            Value::List(l, _) => Some(l.as_ref().clone()),
            _ => None,
        }
    }

    /// A snapshot of a map's entries (never holds the borrow across calls).
    pub(crate) fn map_entries(&self) -> Option<BTreeMap<String, Value>> {
        match self {
            Value::Map(m, _) => Some(m.borrow().clone()),
            _ => None,
        }
    }
}

/// A value in a place: see the module documentation.
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    pub v: Option<Value>,
    pub boxed: bool,
}

impl Slot {
    pub(crate) const MISSING: Slot = Slot {
        v: None,
        boxed: false,
    };

    pub(crate) fn plain(v: Value) -> Slot {
        Slot {
            v: Some(v),
            boxed: false,
        }
    }

    pub(crate) fn boxed(v: Value) -> Slot {
        Slot {
            v: Some(v),
            boxed: true,
        }
    }

    /// An element taken out of `container`.
    pub(crate) fn elem_of(container: &Value, v: Value) -> Slot {
        Slot {
            v: Some(v),
            boxed: container.elems_boxed(),
        }
    }

    /// What a pipeline does to its result: an `interface {}` is replaced by the value
    /// inside it, so a boxed nil becomes the invalid value.
    pub(crate) fn unbox(self) -> Slot {
        if !self.boxed {
            return self;
        }
        match self.v {
            Some(Value::Nil) | None => Slot::MISSING,
            v => Slot { v, boxed: false },
        }
    }

    /// The value as an `interface {}` argument receives it: missing becomes nil.
    pub(crate) fn value(&self) -> Value {
        self.v.clone().unwrap_or(Value::Nil)
    }

    /// `indirectInterface`: the concrete value, or `None` for nil and missing.
    pub(crate) fn concrete(&self) -> Option<&Value> {
        match &self.v {
            Some(Value::Nil) | None => None,
            Some(v) => Some(v),
        }
    }

    /// The static type Go would name in "can't evaluate field" errors.
    pub(crate) fn static_type(&self) -> &'static str {
        match (&self.v, self.boxed) {
            (_, true) => "interface {}",
            (Some(v), false) => v.type_name(),
            (None, false) => "<nil>",
        }
    }
}

/// `reflect.DeepEqual`: same types, equal contents.
pub(crate) fn deep_equal(a: &Value, b: &Value) -> bool {
    deep_equal_at(a, b, 0)
}

fn deep_equal_at(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > super::MAX_NESTING {
        return false;
    }
    match (a, b) {
        (Value::Nil, Value::Nil) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) | (Value::Int64(x), Value::Int64(y)) => x == y,
        (Value::Uint(x, p), Value::Uint(y, q)) => x == y && p == q,
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Version(x), Value::Version(y)) => x == y,
        (Value::List(x, p), Value::List(y, q)) => {
            p == q
                && x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(a, b)| deep_equal_at(a, b, depth + 1))
        }
        (Value::Map(x, p), Value::Map(y, q)) => {
            if p != q {
                return false;
            }
            if Rc::ptr_eq(x, y) {
                return true;
            }
            let (x, y) = (x.borrow().clone(), y.borrow().clone());
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.get(k)
                        .map(|w| deep_equal_at(v, w, depth + 1))
                        .unwrap_or(false)
                })
        }
        _ => false,
    }
}

/// A fresh deep copy (`copystructure.Copy`): maps are no longer shared.
pub(crate) fn deep_copy(v: &Value, depth: usize) -> Result<Value, String> {
    if depth > super::MAX_NESTING {
        return Err("value is nested too deeply to copy".into());
    }
    Ok(match v {
        Value::List(items, elem) => Value::List(
            Rc::new(
                items
                    .iter()
                    .map(|i| deep_copy(i, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            *elem,
        ),
        Value::Map(m, elem) => {
            let entries = m.borrow().clone();
            let mut out = BTreeMap::new();
            for (k, v) in entries {
                out.insert(k, deep_copy(&v, depth + 1)?);
            }
            Value::Map(MapCell::new(out), *elem)
        }
        other => other.clone(),
    })
}

/// JSON as `encoding/json` decodes it into `interface {}`: every number is a float64.
pub(crate) fn from_json(v: &serde_json::Value, depth: usize) -> Result<Value, String> {
    if depth > super::MAX_NESTING {
        return Err(too_deep_message());
    }
    Ok(match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Value::str(s.as_str()),
        serde_json::Value::Array(items) => Value::list(
            items
                .iter()
                .map(|i| from_json(i, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        serde_json::Value::Object(map) => {
            let mut out = BTreeMap::new();
            for (k, v) in map {
                out.insert(k.clone(), from_json(v, depth + 1)?);
            }
            Value::map(out)
        }
    })
}

/// What [`from_json`] gives for a shared document that nests at most `levels` levels,
/// converting maps only when a template reaches into them. It refuses the same documents.
pub(crate) fn from_json_shared(
    doc: Rc<serde_json::Value>,
    levels: usize,
    depth: usize,
) -> Result<Value, String> {
    let limit = super::MAX_NESTING;
    if depth + levels > limit && depth + nesting(&doc, limit + 1) > limit {
        return Err(too_deep_message());
    }
    Ok(from_shared(&doc, &|| Rc::new(JsonPath::Root(doc.clone()))))
}

fn too_deep_message() -> String {
    format!(
        "data is nested more than {} levels deep",
        super::MAX_NESTING
    )
}

/// How many levels `v` nests, or `cap` if more.
pub(crate) fn nesting(v: &serde_json::Value, cap: usize) -> usize {
    if cap == 0 {
        return 0;
    }
    let below = |child: &serde_json::Value| 1 + nesting(child, cap - 1);
    match v {
        serde_json::Value::Array(items) => items.iter().map(below).max().unwrap_or(0),
        serde_json::Value::Object(map) => map.values().map(below).max().unwrap_or(0),
        _ => 0,
    }
}

/// `v` converted, where `at` says where `v` is; lists are converted whole, maps lazily.
fn from_shared(v: &serde_json::Value, at: &dyn Fn() -> Rc<JsonPath>) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Value::str(s.as_str()),
        serde_json::Value::Array(items) => {
            let at = at();
            Value::list(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| from_shared(item, &|| Rc::new(JsonPath::Index(at.clone(), i))))
                    .collect(),
            )
        }
        serde_json::Value::Object(_) => Value::Map(MapCell::lazy(at()), Elem::Any),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_numbers_are_float64() {
        let v = from_json(&json!({"a": [1, "x", null, true]}), 0).unwrap();
        assert_eq!(v.type_name(), "map[string]interface {}");
        let inner = v.map_entries().unwrap()["a"].clone();
        let items = inner.list_items().unwrap();
        assert_eq!(items[0].type_name(), "float64");
        assert_eq!(items[2].kind_name(), "invalid");
    }

    #[test]
    fn unboxing_turns_nil_into_missing() {
        assert!(Slot::boxed(Value::Nil).unbox().v.is_none());
        assert!(Slot::plain(Value::Nil).unbox().v.is_some());
        assert_eq!(Slot::boxed(Value::Int(1)).static_type(), "interface {}");
    }

    #[test]
    fn deep_equality_is_typed() {
        assert!(!deep_equal(&Value::Int(1), &Value::Float(1.0)));
        assert!(deep_equal(
            &Value::list(vec![Value::str("a")]),
            &Value::list(vec![Value::str("a")])
        ));
        assert!(!deep_equal(
            &Value::list(vec![Value::str("a")]),
            &Value::str_list(vec!["a".into()])
        ));
    }

    #[test]
    fn too_deep_data_is_refused() {
        let mut v = json!(1);
        for _ in 0..(super::super::MAX_NESTING + 2) {
            v = json!([v]);
        }
        assert!(from_json(&v, 0).is_err());
    }
}
