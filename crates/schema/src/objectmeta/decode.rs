//! A `metadata` value decoded into Go's `metav1.ObjectMeta` the way the API server does it
//! (`objectmeta.GetObjectMetaWithOptions`: marshal, then strict, case-sensitive
//! `sigs.k8s.io/json` unmarshal). What matters is what Go reports: unknown fields, and
//! the first type error in Go's words. Go marshals maps with sorted keys, so fields are
//! visited in key order.

use kadmit_go::time::{parse, RFC3339};
use serde_json::{Map, Value};

/// A Go field type, as far as decoding JSON into it can fail.
#[derive(Clone, Copy)]
enum Ty {
    Str,
    Int64,
    Bool,
    /// `metav1.Time`: its `UnmarshalJSON` parses RFC 3339.
    Time,
    /// `metav1.FieldsV1`: any JSON.
    Raw,
    StrMap,
    List(&'static Ty),
    Struct(&'static GoStruct),
}

struct GoStruct {
    name: &'static str,
    fields: &'static [(&'static str, Ty)],
}

static OBJECT_META: GoStruct = GoStruct {
    name: "ObjectMeta",
    fields: &[
        ("name", Ty::Str),
        ("generateName", Ty::Str),
        ("namespace", Ty::Str),
        ("selfLink", Ty::Str),
        ("uid", Ty::Str),
        ("resourceVersion", Ty::Str),
        ("generation", Ty::Int64),
        ("creationTimestamp", Ty::Time),
        ("deletionTimestamp", Ty::Time),
        ("deletionGracePeriodSeconds", Ty::Int64),
        ("labels", Ty::StrMap),
        ("annotations", Ty::StrMap),
        ("ownerReferences", Ty::List(&OWNER_REFERENCE_TY)),
        ("finalizers", Ty::List(&Ty::Str)),
        ("managedFields", Ty::List(&MANAGED_FIELDS_ENTRY_TY)),
    ],
};

static OWNER_REFERENCE_TY: Ty = Ty::Struct(&GoStruct {
    name: "OwnerReference",
    fields: &[
        ("apiVersion", Ty::Str),
        ("kind", Ty::Str),
        ("name", Ty::Str),
        ("uid", Ty::Str),
        ("controller", Ty::Bool),
        ("blockOwnerDeletion", Ty::Bool),
    ],
});

static MANAGED_FIELDS_ENTRY_TY: Ty = Ty::Struct(&GoStruct {
    name: "ManagedFieldsEntry",
    fields: &[
        ("manager", Ty::Str),
        ("operation", Ty::Str),
        ("apiVersion", Ty::Str),
        ("time", Ty::Time),
        ("fieldsType", Ty::Str),
        ("fieldsV1", Ty::Raw),
        ("subresource", Ty::Str),
    ],
});

/// One step from `metadata` down to a field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// An unknown field: its strict-decoding path (`foo`, `ownerReferences[0].bar`) and
/// where it sits.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Unknown {
    pub path: String,
    pub at: Vec<Seg>,
}

/// What decoding found besides success.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Decoded {
    pub unknown: Vec<Unknown>,
    /// Top-level keys left out because their values do not decode (`drop_malformed`).
    pub dropped: Vec<String>,
}

impl Decoded {
    /// Deletes the unknown and dropped fields from `metadata`, as the round trip does.
    pub fn remove_from(&self, metadata: &mut Value) {
        for unknown in &self.unknown {
            remove_at(metadata, &unknown.at);
        }
        if let Value::Object(map) = metadata {
            for key in &self.dropped {
                map.shift_remove(key);
            }
        }
    }
}

/// Decodes `metadata` into ObjectMeta. On a type error, `drop_malformed` retries field by
/// field and leaves out the top-level fields that fail; otherwise the error is Go's.
pub(super) fn decode(metadata: &Value, drop_malformed: bool) -> Result<Decoded, String> {
    let mut whole = Decoder::default();
    match whole.run(|d| d.value(metadata, Ty::Struct(&OBJECT_META))) {
        Ok(()) => {
            return Ok(Decoded {
                unknown: whole.unknown,
                dropped: Vec::new(),
            })
        }
        Err(e) if !drop_malformed => return Err(e),
        Err(_) => {}
    }
    let Value::Object(map) = metadata else {
        return Err(format!(
            "invalid metadata: expected object, got {}",
            go_type_of(metadata)
        ));
    };
    let mut decoded = Decoded::default();
    for (key, v) in map {
        let mut single = Decoder::default();
        match single.run(|d| d.field(&OBJECT_META, key, v)) {
            Ok(()) => decoded.unknown.extend(single.unknown),
            Err(_) => decoded.dropped.push(key.clone()),
        }
    }
    Ok(decoded)
}

#[derive(Default)]
struct Decoder {
    /// Go's `errorContext`: the innermost struct and the JSON field names leading there.
    struct_name: Option<&'static str>,
    field_stack: Vec<&'static str>,
    at: Vec<Seg>,
    unknown: Vec<Unknown>,
    /// The first type error; decoding goes on after it, as Go's does.
    saved: Option<String>,
}

impl Decoder {
    /// Runs a decode; `Err` is an `UnmarshalJSON` error (which stops Go at once and wins)
    /// or else the first type error.
    fn run(&mut self, f: impl FnOnce(&mut Self) -> Result<(), String>) -> Result<(), String> {
        f(self)?;
        self.saved.take().map_or(Ok(()), Err)
    }

    fn value(&mut self, v: &Value, ty: Ty) -> Result<(), String> {
        if v.is_null() {
            return Ok(());
        }
        match (ty, v) {
            (Ty::Str, Value::String(_)) | (Ty::Bool, Value::Bool(_)) | (Ty::Raw, _) => {}
            (Ty::Int64, Value::Number(n)) => {
                if let Some(literal) = non_int64_literal(n) {
                    self.save(&format!("number {literal}"), ty);
                }
            }
            // `metav1.Time` decodes with `time.Parse(time.RFC3339, s)`.
            (Ty::Time, Value::String(s)) => {
                parse(RFC3339, s).map_err(|e| e.to_string())?;
            }
            (Ty::Time, _) => {
                return Err(format!(
                    "json: cannot unmarshal {} into Go value of type string",
                    json_kind(v)
                ))
            }
            (Ty::StrMap, Value::Object(map)) => {
                for key in sorted_keys(map) {
                    let item = &map[key];
                    if !item.is_null() && !item.is_string() {
                        self.save(json_kind(item), Ty::Str);
                    }
                }
            }
            (Ty::List(item_ty), Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    self.at.push(Seg::Index(i));
                    let outcome = self.value(item, *item_ty);
                    self.at.pop();
                    outcome?;
                }
            }
            (Ty::Struct(st), Value::Object(map)) => {
                for key in sorted_keys(map) {
                    self.field(st, key, &map[key])?;
                }
            }
            _ => self.save(json_kind(v), ty),
        }
        Ok(())
    }

    fn field(&mut self, st: &'static GoStruct, key: &str, v: &Value) -> Result<(), String> {
        let Some((name, ty)) = st.fields.iter().find(|(name, _)| *name == key) else {
            let mut at = self.at.clone();
            at.push(Seg::Key(key.to_owned()));
            self.unknown.push(Unknown {
                path: strict_path(&at),
                at,
            });
            return Ok(());
        };
        let outer = (self.struct_name, self.field_stack.len());
        self.struct_name = Some(st.name);
        self.field_stack.push(name);
        self.at.push(Seg::Key(key.to_owned()));
        let outcome = self.value(v, *ty);
        self.at.pop();
        self.field_stack.truncate(outer.1);
        self.struct_name = outer.0;
        outcome
    }

    /// Go's `*json.UnmarshalTypeError` text for `what` (`string`, `number 1.5`, ...) that
    /// cannot go into `ty`, with the error context of where it happened.
    fn save(&mut self, what: &str, ty: Ty) {
        if self.saved.is_some() {
            return;
        }
        let ty = go_type_name(ty);
        self.saved = Some(match self.struct_name {
            Some(st) => format!(
                "json: cannot unmarshal {what} into Go struct field {st}.{} of type {ty}",
                self.field_stack.join(".")
            ),
            None => format!("json: cannot unmarshal {what} into Go value of type {ty}"),
        });
    }
}

fn sorted_keys(map: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    keys
}

/// The JSON names of ObjectMeta's fields.
pub(crate) fn object_meta_fields() -> impl Iterator<Item = &'static str> {
    OBJECT_META.fields.iter().map(|(name, _)| *name)
}

/// `sigs.k8s.io/json`'s strict field path: keys joined with `.`, indices as `[i]`.
pub(crate) fn strict_path(at: &[Seg]) -> String {
    let mut path = String::new();
    for seg in at {
        match seg {
            Seg::Key(key) if path.is_empty() => path.push_str(key),
            Seg::Key(key) => {
                path.push('.');
                path.push_str(key);
            }
            Seg::Index(i) => path.push_str(&format!("[{i}]")),
        }
    }
    path
}

pub(crate) fn remove_at(v: &mut Value, at: &[Seg]) {
    match (at, v) {
        ([Seg::Key(key)], Value::Object(map)) => {
            map.shift_remove(key);
        }
        ([Seg::Key(key), rest @ ..], Value::Object(map)) => {
            if let Some(child) = map.get_mut(key) {
                remove_at(child, rest);
            }
        }
        ([Seg::Index(i), rest @ ..], Value::Array(items)) => {
            if let Some(child) = items.get_mut(*i) {
                remove_at(child, rest);
            }
        }
        _ => {}
    }
}

/// The JSON literal Go marshals a decoded number as, when `strconv.ParseInt` rejects it.
/// The API server decodes integers beyond int64 as float64.
fn non_int64_literal(n: &serde_json::Number) -> Option<String> {
    if n.is_i64() {
        return None;
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    let literal = kadmit_go::json::float(f);
    literal.parse::<i64>().is_err().then_some(literal)
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn go_type_name(ty: Ty) -> String {
    match ty {
        Ty::Str => "string".to_owned(),
        Ty::Int64 => "int64".to_owned(),
        Ty::Bool => "bool".to_owned(),
        Ty::Time => "v1.Time".to_owned(),
        Ty::Raw => "v1.FieldsV1".to_owned(),
        Ty::StrMap => "map[string]string".to_owned(),
        Ty::List(item) => format!("[]{}", go_type_name(*item)),
        Ty::Struct(st) => format!("v1.{}", st.name),
    }
}

/// `%T` of a value decoded by the API server's JSON decoder.
fn go_type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error_of(v: Value) -> String {
        decode(&v, false).unwrap_err()
    }

    #[test]
    fn unknown_fields_are_named_with_their_path() {
        let d = decode(
            &json!({"b": 1, "name": "x", "Name": "y", "ownerReferences": [{"zz": 1}]}),
            false,
        )
        .unwrap();
        let paths: Vec<&str> = d.unknown.iter().map(|u| u.path.as_str()).collect();
        assert_eq!(paths, ["Name", "b", "ownerReferences[0].zz"]);
    }

    #[test]
    fn type_errors_read_as_go_json_errors() {
        assert_eq!(
            error_of(json!({"finalizers": {"key": "value"}})),
            "json: cannot unmarshal object into Go struct field ObjectMeta.finalizers of type []string"
        );
        assert_eq!(
            error_of(json!({"labels": {"a": 1}})),
            "json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string"
        );
        assert_eq!(
            error_of(json!({"ownerReferences": [{"controller": "yes"}]})),
            "json: cannot unmarshal string into Go struct field OwnerReference.ownerReferences.controller of type bool"
        );
        assert_eq!(
            error_of(json!({"generation": 1.5})),
            "json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.generation of type int64"
        );
        assert_eq!(
            error_of(json!("x")),
            "json: cannot unmarshal string into Go value of type v1.ObjectMeta"
        );
    }

    #[test]
    fn the_first_type_error_in_key_order_is_reported_unless_a_time_fails() {
        assert_eq!(
            error_of(json!({"namespace": 1, "annotations": [1]})),
            "json: cannot unmarshal array into Go struct field ObjectMeta.annotations of type map[string]string"
        );
        assert_eq!(
            error_of(json!({"annotations": [1], "creationTimestamp": 5})),
            "json: cannot unmarshal number into Go value of type string"
        );
    }

    #[test]
    fn integral_floats_and_nulls_decode() {
        assert!(decode(
            &json!({"generation": 2.0, "labels": {"a": null}, "name": null}),
            false
        )
        .is_ok());
        assert!(decode(&json!({"generation": 1e21}), false).is_err());
    }

    #[test]
    fn dropping_leaves_out_the_failing_top_level_fields() {
        let mut meta = json!({"name": "n", "labels": {"a": 1}, "x": 1, "namespace": 3});
        let d = decode(&meta, true).unwrap();
        assert_eq!(d.dropped, ["labels", "namespace"]);
        d.remove_from(&mut meta);
        assert_eq!(meta, json!({"name": "n"}));
        assert_eq!(
            decode(&json!([1]), true),
            Err("invalid metadata: expected object, got []interface {}".to_owned())
        );
    }
}
