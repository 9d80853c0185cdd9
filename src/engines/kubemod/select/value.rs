//! The evaluator's values. KubeMod evaluates against a document decoded by Go's
//! `encoding/json`, so document numbers are float64; the language adds Go ints (from
//! `length()`), the `Undefined` sentinel (a float64 NaN underneath), `[]interface{}`
//! slices built by wildcards and array literals, maps built by object literals, and
//! `time.Time` from `date()`. Values borrow the document where they can.

use serde_json::{Map, Value};
use std::borrow::Cow;

use super::date::GoTime;
use kadmit_go::fmt::{format_float, format_value};
use kadmit_go::strconv::{parse_float, FloatSyntax};

/// A value produced by a select expression (the public `Outcome`).
#[derive(Clone, Debug)]
pub enum Val<'a> {
    /// KubeMod's `jsonpath.Undefined`: a missing key, or a select on nil.
    Undefined,
    /// Go `nil` (a JSON null, or `@` where there is no current element).
    Null,
    Bool(bool),
    /// A float64 computed by the expression.
    Num(f64),
    /// A Go int (`length()`), printed in decimal.
    Int(i64),
    Str(String),
    /// A `time.Time` from `date()`.
    Time(GoTime),
    /// A Go `[]interface{}` built by the evaluator (wildcard results, array literals).
    List(Vec<Val<'a>>),
    /// A Go `map[string]interface{}` built by an object literal, in insertion order.
    Map(Vec<(String, Val<'a>)>),
    /// Any subtree of the document, borrowed.
    Json(&'a Value),
}

/// A value classified by its Go type, looking through `Json`.
pub(crate) enum View<'v, 'a> {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    Int(i64),
    Str(&'v str),
    Time(&'v GoTime),
    Arr(Arr<'v, 'a>),
    Obj(Obj<'v, 'a>),
}

#[derive(Clone, Copy)]
pub(crate) enum Arr<'v, 'a> {
    Json(&'a [Value]),
    Vals(&'v [Val<'a>]),
}

#[derive(Clone, Copy)]
pub(crate) enum Obj<'v, 'a> {
    Json(&'a Map<String, Value>),
    Vals(&'v [(String, Val<'a>)]),
}

impl<'a> Arr<'_, 'a> {
    pub fn len(&self) -> usize {
        match self {
            Arr::Json(items) => items.len(),
            Arr::Vals(items) => items.len(),
        }
    }

    pub fn get(&self, i: usize) -> Option<Val<'a>> {
        match self {
            Arr::Json(items) => items.get(i).map(Val::Json),
            Arr::Vals(items) => items.get(i).cloned(),
        }
    }

    pub fn items(&self) -> Vec<Val<'a>> {
        match self {
            Arr::Json(items) => items.iter().map(Val::Json).collect(),
            Arr::Vals(items) => items.to_vec(),
        }
    }
}

impl<'a> Obj<'_, 'a> {
    pub fn len(&self) -> usize {
        match self {
            Obj::Json(map) => map.len(),
            Obj::Vals(entries) => entries.len(),
        }
    }

    pub fn get(&self, key: &str) -> Option<Val<'a>> {
        match self {
            // Comparing a few keys is cheaper than hashing one.
            Obj::Json(map) if map.len() <= 8 => map
                .iter()
                .find_map(|(k, v)| (k == key).then_some(Val::Json(v))),
            Obj::Json(map) => map.get(key).map(Val::Json),
            Obj::Vals(entries) => entries
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone()),
        }
    }

    /// Entries in key (document) order.
    pub fn entries(&self) -> Vec<(String, Val<'a>)> {
        match self {
            Obj::Json(map) => map.iter().map(|(k, v)| (k.clone(), Val::Json(v))).collect(),
            Obj::Vals(entries) => entries.to_vec(),
        }
    }
}

impl<'a> Val<'a> {
    pub(crate) fn view(&self) -> View<'_, 'a> {
        match self {
            Val::Undefined => View::Undefined,
            Val::Null => View::Null,
            Val::Bool(b) => View::Bool(*b),
            Val::Num(f) => View::Num(*f),
            Val::Int(i) => View::Int(*i),
            Val::Str(s) => View::Str(s),
            Val::Time(t) => View::Time(t),
            Val::List(items) => View::Arr(Arr::Vals(items)),
            Val::Map(entries) => View::Obj(Obj::Vals(entries)),
            Val::Json(value) => match value {
                Value::Null => View::Null,
                Value::Bool(b) => View::Bool(*b),
                Value::Number(n) => View::Num(n.as_f64().unwrap_or(f64::NAN)),
                Value::String(s) => View::Str(s),
                Value::Array(items) => View::Arr(Arr::Json(items)),
                Value::Object(map) => View::Obj(Obj::Json(map)),
            },
        }
    }

    /// The bool, if the value is one (a JSON boolean included).
    pub fn as_bool(&self) -> Option<bool> {
        match self.view() {
            View::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The string, if the value is one (a JSON string included).
    pub fn as_str(&self) -> Option<&str> {
        self.strict_str()
    }

    /// The elements, if the value is a Go slice (a built list or a JSON array).
    pub fn elements(&self) -> Option<Vec<Val<'a>>> {
        match self.view() {
            View::Arr(items) => Some(items.items()),
            _ => None,
        }
    }

    pub fn is_undefined(&self) -> bool {
        matches!(self, Val::Undefined)
    }

    /// Go `x == nil`.
    pub fn is_nil(&self) -> bool {
        matches!(self.view(), View::Null)
    }

    /// Go `x == false` (a bool false, nothing else).
    pub fn is_false(&self) -> bool {
        matches!(self.view(), View::Bool(false))
    }

    /// The value as a float64 only if it is one (Go `x.(float64)`).
    pub(crate) fn strict_float(&self) -> Option<f64> {
        match self.view() {
            View::Num(f) => Some(f),
            _ => None,
        }
    }

    /// The value as a string only if it is one (Go `x.(string)`).
    pub(crate) fn strict_str(&self) -> Option<&str> {
        match self.view() {
            View::Str(s) => Some(s),
            _ => None,
        }
    }

    /// gval `convertToFloat`: numbers, ints, Undefined (NaN) and numeric strings.
    pub(crate) fn to_float(&self) -> Option<f64> {
        match self.view() {
            View::Num(f) => Some(f),
            View::Int(i) => Some(i as f64),
            View::Undefined => Some(f64::NAN),
            View::Str(s) => parse_float(s, FloatSyntax::Text),
            _ => None,
        }
    }

    /// gval `convertToBool`, used by filters (`EvalBool`).
    pub(crate) fn to_bool(&self) -> Option<bool> {
        match self.view() {
            View::Bool(b) => Some(b),
            View::Null => Some(false),
            View::Str("false" | "FALSE") => Some(false),
            View::Str("true" | "TRUE") => Some(true),
            _ => self.to_float().map(|f| f != 0.0),
        }
    }

    /// Go `fmt.Sprintf("%v", x)`, borrowed when the value is a string.
    pub fn text(&self) -> Cow<'_, str> {
        match self.strict_str() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(self.format()),
        }
    }

    /// Go `fmt.Sprintf("%v", x)`.
    pub fn format(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Val::Json(value) => out.push_str(&format_value(value)),
            _ => match self.view() {
                View::Undefined => {}
                View::Null => out.push_str("<nil>"),
                View::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                View::Num(f) => out.push_str(&format_float(f)),
                View::Int(i) => out.push_str(&i.to_string()),
                View::Str(s) => out.push_str(s),
                View::Time(t) => out.push_str(&t.to_string()),
                View::Arr(arr) => {
                    out.push('[');
                    for (i, item) in arr.items().iter().enumerate() {
                        if i > 0 {
                            out.push(' ');
                        }
                        item.write(out);
                    }
                    out.push(']');
                }
                View::Obj(obj) => {
                    let mut entries = obj.entries();
                    entries.sort_by(|a, b| a.0.cmp(&b.0));
                    out.push_str("map[");
                    for (i, (k, v)) in entries.iter().enumerate() {
                        if i > 0 {
                            out.push(' ');
                        }
                        out.push_str(k);
                        out.push(':');
                        v.write(out);
                    }
                    out.push(']');
                }
            },
        }
    }

    /// Go's `%T`, for error messages.
    pub(crate) fn go_type(&self) -> &'static str {
        match self.view() {
            View::Undefined => "jsonpath.UndefinedType",
            View::Null => "<nil>",
            View::Bool(_) => "bool",
            View::Num(_) => "float64",
            View::Int(_) => "int",
            View::Str(_) => "string",
            View::Time(_) => "time.Time",
            View::Arr(_) => "[]interface {}",
            View::Obj(_) => "map[string]interface {}",
        }
    }

    /// The value as JSON: `None` for Undefined; ints become numbers and times strings.
    pub fn to_json(&self) -> Option<Value> {
        Some(match self {
            Val::Undefined => return None,
            Val::Json(value) => (*value).clone(),
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Num(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Val::Int(i) => Value::from(*i),
            Val::Str(s) => Value::String(s.clone()),
            Val::Time(t) => Value::String(t.to_string()),
            Val::List(items) => Value::Array(items.iter().filter_map(Val::to_json).collect()),
            Val::Map(entries) => Value::Object(
                entries
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.to_json()?)))
                    .collect(),
            ),
        })
    }
}

/// Go `reflect.DeepEqual` of two values as KubeMod holds them. Undefined (a NaN) equals
/// nothing, not even itself; a float64 never equals an int.
pub(crate) fn deep_equal(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a.view(), b.view()) {
        (View::Null, View::Null) => true,
        (View::Bool(x), View::Bool(y)) => x == y,
        (View::Num(x), View::Num(y)) => x == y,
        (View::Int(x), View::Int(y)) => x == y,
        (View::Str(x), View::Str(y)) => x == y,
        (View::Time(x), View::Time(y)) => x == y,
        (View::Arr(x), View::Arr(y)) => {
            x.len() == y.len()
                && x.items()
                    .iter()
                    .zip(y.items().iter())
                    .all(|(p, q)| deep_equal(p, q))
        }
        (View::Obj(x), View::Obj(y)) => {
            x.len() == y.len()
                && x.entries()
                    .iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, &w)))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn formats_like_go_percent_v() {
        let doc = json!({"b": [1, "x", null], "a": 1000000});
        assert_eq!(Val::Json(&doc).format(), "map[a:1e+06 b:[1 x <nil>]]");
        let list = Val::List(vec![Val::Int(3), Val::Undefined, Val::Num(0.5), Val::Null]);
        assert_eq!(list.format(), "[3  0.5 <nil>]");
        assert_eq!(Val::Undefined.format(), "");
    }

    #[test]
    fn deep_equal_follows_go_types() {
        let doc = json!({"n": 80, "s": "80", "o": {"a": [1]}});
        let n = Val::Json(&doc["n"]);
        assert!(deep_equal(&n, &Val::Num(80.0)));
        assert!(!deep_equal(&n, &Val::Int(80)));
        assert!(!deep_equal(&n, &Val::Json(&doc["s"])));
        assert!(!deep_equal(&Val::Undefined, &Val::Undefined));
        let built = Val::Map(vec![("a".into(), Val::List(vec![Val::Num(1.0)]))]);
        assert!(deep_equal(&Val::Json(&doc["o"]), &built));
    }

    #[test]
    fn converts_like_gval() {
        assert_eq!(Val::Str("1.0".into()).to_float(), Some(1.0));
        assert!(Val::Undefined.to_float().is_some_and(f64::is_nan));
        assert_eq!(Val::Undefined.to_bool(), Some(true));
        assert_eq!(Val::Str("FALSE".into()).to_bool(), Some(false));
        assert_eq!(Val::Str("yes".into()).to_bool(), None);
        assert_eq!(Val::Null.to_bool(), Some(false));
        assert_eq!(Val::Map(vec![]).to_bool(), None);
    }
}
