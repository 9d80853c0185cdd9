//! Small helpers shared by the per-group validators: reading a decoded object the way Go
//! reads its struct (a missing or wrongly typed field is the zero value, never a panic),
//! building field paths in `field.Path` syntax, and the common error constructors of
//! apimachinery's `util/validation/field` and `core/validation`.

use kadmit_schema::field_error::{ErrorType, FieldError};
use serde_json::{json, Map, Value};

pub type Errors = Vec<FieldError>;

/// `field.Path.Child`.
pub fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// `field.Path.Index`.
pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// `field.Path.Key`.
pub fn key(path: &str, k: &str) -> String {
    format!("{path}[{k}]")
}

/// A member of an object, `None` when absent, null or `v` is no object.
pub fn get<'a>(v: &'a Value, k: &str) -> Option<&'a Value> {
    v.as_object()
        .and_then(|m| m.get(k))
        .filter(|x| !x.is_null())
}

/// A string member; Go's zero value `""` when absent or not a string.
pub fn str_of<'a>(v: &'a Value, k: &str) -> &'a str {
    get(v, k).and_then(Value::as_str).unwrap_or("")
}

/// An integer member (a Go `*int32`/`*int64`), `None` when absent or not an integer.
pub fn int_of(v: &Value, k: &str) -> Option<i64> {
    get(v, k).and_then(as_int)
}

/// An integer value; floats with no fraction read as integers (JSON decoding of Go
/// integers accepts `1.0`).
pub fn as_int(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
}

/// A list member; empty when absent or not a list.
pub fn list<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    get(v, k)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// An object member (a Go pointer to a struct or a map), `None` when absent.
pub fn obj<'a>(v: &'a Value, k: &str) -> Option<&'a Map<String, Value>> {
    get(v, k).and_then(Value::as_object)
}

/// A map member as sorted `(key, string value)` pairs. Go ranges over maps in random
/// order; sorting makes kadmit's order deterministic (the server's may differ when a map
/// holds several bad entries).
pub fn string_map<'a>(v: &'a Value, k: &str) -> Vec<(&'a str, &'a str)> {
    let mut pairs: Vec<(&str, &str)> = obj(v, k)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or("")))
        .collect();
    pairs.sort();
    pairs
}

/// `field.NotSupported`: `supported values: "A", "B"` in the order given.
pub fn not_supported(path: impl Into<String>, value: Value, valid: &[&str]) -> FieldError {
    let detail = format!(
        "supported values: {}",
        valid
            .iter()
            .map(|v| kadmit_go::strconv::quote(v, false))
            .collect::<Vec<_>>()
            .join(", ")
    );
    FieldError::new(ErrorType::NotSupported, path, value, detail)
}

/// `field.Duplicate`.
pub fn duplicate(path: impl Into<String>, value: Value) -> FieldError {
    FieldError::new(ErrorType::Duplicate, path, value, "")
}

/// `field.NotFound`.
pub fn not_found(path: impl Into<String>, value: Value) -> FieldError {
    FieldError::new(ErrorType::NotFound, path, value, "")
}

pub const IS_NEGATIVE: &str = "must be greater than or equal to 0";

/// `ValidateNonnegativeField`.
pub fn nonnegative(value: i64, path: &str, errs: &mut Errors) {
    if value < 0 {
        errs.push(FieldError::invalid(path, json!(value), IS_NEGATIVE));
    }
}

/// `ValidateNonnegativeField` of an optional member of `v`.
pub fn nonnegative_opt(v: &Value, k: &str, path: &str, errs: &mut Errors) {
    if let Some(n) = int_of(v, k) {
        nonnegative(n, &child(path, k), errs);
    }
}

/// One `field.Invalid` per message of a name check (`for _, msg := range IsX(v)`).
pub fn invalid_each(path: &str, value: &str, msgs: Vec<String>, errs: &mut Errors) {
    for msg in msgs {
        errs.push(FieldError::invalid(path, json!(value), msg));
    }
}

/// `ValidateDNS1123Label`.
pub fn dns1123_label(value: &str, path: &str, errs: &mut Errors) {
    invalid_each(
        path,
        value,
        kadmit_schema::objectmeta::dns1123_label_errors(value),
        errs,
    );
}

/// `ValidateDNS1123Subdomain`.
pub fn dns1123_subdomain(value: &str, path: &str, errs: &mut Errors) {
    invalid_each(
        path,
        value,
        kadmit_schema::objectmeta::dns1123_subdomain_errors(value),
        errs,
    );
}

/// `ValidateQualifiedName`.
pub fn qualified_name(value: &str, path: &str, errs: &mut Errors) {
    invalid_each(
        path,
        value,
        kadmit_schema::objectmeta::qualified_name_errors(value),
        errs,
    );
}

/// `validation.IsValidPortNum`.
pub fn port_num_errors(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec!["must be between 1 and 65535, inclusive".to_owned()]
    }
}

/// `validation.IsValidPortName` (IANA service name).
pub fn port_name_errors(port: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if port.len() > 15 {
        errs.push("must be no more than 15 characters".to_owned());
    }
    if port.is_empty()
        || !port
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errs.push(
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".to_owned(),
        );
    }
    if !port.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".to_owned());
    }
    if port.contains("--") {
        errs.push("must not contain consecutive hyphens".to_owned());
    }
    if port.starts_with('-') || port.ends_with('-') {
        errs.push("must not begin or end with a hyphen".to_owned());
    }
    errs
}

/// `ValidatePortNumOrName` of an IntOrString value.
pub fn port_num_or_name(port: Option<&Value>, path: &str, errs: &mut Errors) {
    match port {
        Some(Value::String(name)) => invalid_each(path, name, port_name_errors(name), errs),
        Some(v) => {
            let n = as_int(v).unwrap_or(0);
            for msg in port_num_errors(n) {
                errs.push(FieldError::invalid(path, json!(n), msg));
            }
        }
        // A nil IntOrString is the zero value: the integer 0.
        None => errs.push(FieldError::invalid(
            path,
            json!(0),
            "must be between 1 and 65535, inclusive",
        )),
    }
}

/// `validation.IsValidPercent`: `[0-9]+%`.
pub fn is_percent(s: &str) -> bool {
    s.len() > 1 && s.ends_with('%') && s[..s.len() - 1].bytes().all(|b| b.is_ascii_digit())
}

pub const PERCENT_MSG: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/// `validation.IsValidUserID` / `IsValidGroupID`.
pub fn id_range(value: i64, path: &str, errs: &mut Errors) {
    if !(0..=2147483647).contains(&value) {
        errs.push(FieldError::invalid(
            path,
            json!(value),
            "must be between 0 and 2147483647, inclusive",
        ));
    }
}
