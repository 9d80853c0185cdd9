//! "Set if absent" on JSON objects, with Go's zero-value semantics.
//!
//! The server decodes into Go structs before defaulting, so "unset" means the Go zero value:
//! a pointer, map or slice is unset when the key is absent or `null`; a string when it is
//! absent, `null` or `""`; a non-pointer integer when it is absent, `null` or `0`. A value of
//! the wrong JSON type is never "unset": the strict decoder rejects it elsewhere, so the
//! default is skipped rather than overwriting it (and nothing here panics on it).

use serde_json::{Map, Value};

/// A JSON object.
pub type Obj = Map<String, Value>;

/// Go `field == nil` (pointer, map, slice): absent or null.
pub fn is_nil(o: &Obj, key: &str) -> bool {
    o.get(key).is_none_or(Value::is_null)
}

/// Go `field == ""` on a string field.
pub fn is_empty_str(o: &Obj, key: &str) -> bool {
    match o.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(_) => false,
    }
}

/// Go `field == 0` on a non-pointer integer field.
pub fn is_zero_int(o: &Obj, key: &str) -> bool {
    match o.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::Number(n)) => n.as_i64() == Some(0),
        Some(_) => false,
    }
}

/// Go `len(field) == 0` on a map or slice: absent, null, `{}` or `[]`.
pub fn is_empty_collection(o: &Obj, key: &str) -> bool {
    match o.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(_) => false,
    }
}

/// The string at `key`, if it is one (absent/null read as Go's "").
pub fn str_of<'a>(o: &'a Obj, key: &str) -> Option<&'a str> {
    match o.get(key) {
        None | Some(Value::Null) => Some(""),
        Some(Value::String(s)) => Some(s),
        Some(_) => None,
    }
}

/// Sets `key` (in place when it exists, else appended) and reports a change if the value
/// differs.
pub fn set(o: &mut Obj, key: &str, value: Value) -> bool {
    if o.get(key) == Some(&value) {
        return false;
    }
    o.insert(key.to_owned(), value);
    true
}

/// `if field == nil { field = value }`.
pub fn default_nil(o: &mut Obj, key: &str, value: Value) -> bool {
    is_nil(o, key) && set(o, key, value)
}

/// `if field == "" { field = value }`.
pub fn default_str(o: &mut Obj, key: &str, value: &str) -> bool {
    is_empty_str(o, key) && set(o, key, Value::from(value))
}

/// `if field == 0 { field = value }` (non-pointer integer).
pub fn default_int(o: &mut Obj, key: &str, value: i64) -> bool {
    is_zero_int(o, key) && set(o, key, Value::from(value))
}

/// The object at `key` when it is one; `None` when absent, null or of another type (a nil
/// pointer struct: nothing to default inside).
pub fn obj_mut<'a>(o: &'a mut Obj, key: &str) -> Option<&'a mut Obj> {
    o.get_mut(key).and_then(Value::as_object_mut)
}

/// The object at `key`, created (`{}`) when absent or null: a non-pointer struct field, which
/// Go always has, or a pointer the defaulting function allocates. `None` on a wrong type.
/// The caller sets something in a created object, so creation is reported through that.
pub fn obj_or_new<'a>(o: &'a mut Obj, key: &str) -> Option<&'a mut Obj> {
    if is_nil(o, key) {
        o.insert(key.to_owned(), Value::Object(Obj::new()));
    }
    obj_mut(o, key)
}

/// Follows non-pointer struct fields from `o`, creating each missing level.
pub fn path_or_new<'a>(mut o: &'a mut Obj, keys: &[&str]) -> Option<&'a mut Obj> {
    for key in keys {
        o = obj_or_new(o, key)?;
    }
    Some(o)
}

/// Every object element of the array at `key` (elements of another type are skipped).
pub fn each_obj<'a>(o: &'a mut Obj, key: &str) -> impl Iterator<Item = &'a mut Obj> {
    o.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}
