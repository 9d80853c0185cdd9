//! Decoded JSON as kube-openapi sees it: Go's `int64` and `float64` are different types,
//! comparisons go through `reflect`, numbers convert with Go's rules.

use serde_json::{Map, Number, Value};

/// A value's Go type after the API server's JSON decoding: integers that fit int64 are
/// int64, every other number is float64.
#[derive(Clone, Copy)]
pub(super) enum Kind<'a> {
    Null,
    Bool,
    Int(i64),
    Float(f64),
    Str(&'a str),
    Array(&'a [Value]),
    Object(&'a Map<String, Value>),
}

impl<'a> Kind<'a> {
    pub fn of(value: &'a Value) -> Kind<'a> {
        match value {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Number(n) => number_kind(n),
            Value::String(s) => Kind::Str(s),
            Value::Array(items) => Kind::Array(items),
            Value::Object(map) => Kind::Object(map),
        }
    }
}

fn number_kind<'a>(n: &Number) -> Kind<'a> {
    match n.as_i64() {
        Some(i) => Kind::Int(i),
        None => Kind::Float(n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// `reflect.DeepEqual` of two decoded values.
pub(super) fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (number_kind(x), number_kind(y)) {
            (Kind::Int(i), Kind::Int(j)) => i == j,
            (Kind::Float(f), Kind::Float(g)) => f == g,
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| deep_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Whether `data` equals the enum member `member` the way kube-openapi's common
/// validator decides: equal as is, or after a Go conversion of `data` to the member's
/// type (float64 truncates to int64, an integer becomes the string of that rune).
/// A null never matches.
pub(super) fn enum_matches(data: &Value, member: &Value) -> bool {
    match (Kind::of(data), Kind::of(member)) {
        (Kind::Null, _) | (_, Kind::Null) => false,
        (Kind::Float(f), Kind::Int(m)) => go_int64(f) == m,
        (Kind::Int(i), Kind::Float(m)) => i as f64 == m,
        (Kind::Int(i), Kind::Str(m)) => go_rune_string(i) == m,
        _ => deep_equal(data, member),
    }
}

/// Go's `string(rune(i))` for an int64: invalid code points become U+FFFD.
fn go_rune_string(i: i64) -> String {
    u32::try_from(i)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('\u{FFFD}')
        .to_string()
}

/// Go's `int64(f)` on amd64: truncation, and the minimum int64 when out of range.
pub(super) fn go_int64(f: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if (-LIMIT..LIMIT).contains(&f) {
        f as i64
    } else {
        i64::MIN
    }
}

/// `swag.IsFloat64AJSONInteger`: within ±(2^53-1) and integral, where a positive value
/// just above an integer (relative error under 1e-9) still counts.
pub(super) fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    if f == f.trunc() {
        return true;
    }
    if f < 0.0 {
        return false;
    }
    let g = f.trunc();
    if g == 0.0 {
        return false;
    }
    (f - g) / (f + g) < 1e-9
}

/// A number as Go's `%v` prints an int64 or a float64.
pub(super) fn go_number_text(n: &Number) -> String {
    match number_kind(n) {
        Kind::Int(i) => i.to_string(),
        Kind::Float(f) => kadmit_go::fmt::format_float(f),
        _ => unreachable!("a number is int64 or float64"),
    }
}

pub(super) fn float_value(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enum_membership_uses_go_conversions() {
        assert!(
            enum_matches(&json!(1.5), &json!(1)),
            "float64 truncates to the int64 member"
        );
        assert!(
            enum_matches(&json!(2), &json!(2.0)),
            "int64 converts to the float64 member"
        );
        assert!(
            enum_matches(&json!(65), &json!("A")),
            "an int64 converts to a one-rune string"
        );
        assert!(!enum_matches(&json!("1"), &json!(1)));
        assert!(
            !enum_matches(&Value::Null, &Value::Null),
            "null never matches"
        );
        assert!(enum_matches(&json!({"a": [1]}), &json!({"a": [1]})));
        assert!(
            !enum_matches(&json!({"a": [1.5]}), &json!({"a": [1]})),
            "nested values compare by type"
        );
    }

    #[test]
    fn json_integers_tolerate_a_tiny_positive_excess() {
        assert!(is_json_integer(3.0));
        assert!(is_json_integer(-3.0));
        assert!(is_json_integer(3.000_000_000_1));
        assert!(!is_json_integer(2.999_999_999_9));
        assert!(!is_json_integer(-2.5));
        assert!(!is_json_integer(0.5));
        assert!(!is_json_integer(9_007_199_254_740_992.0));
    }

    #[test]
    fn go_int64_truncates_and_wraps_like_amd64() {
        assert_eq!(go_int64(1.9), 1);
        assert_eq!(go_int64(-1.9), -1);
        assert_eq!(go_int64(1e20), i64::MIN);
        assert_eq!(go_int64(f64::NAN), i64::MIN);
    }
}
