//! kube-openapi's per-node validators (type, string, number, slice, common, object) and
//! the errors each reports.

use super::messages::{self, invalid};
use super::node::{Additional, Node, ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING};
use super::values::{
    deep_equal, enum_matches, float_value, go_int64, go_number_text, is_json_integer, Kind,
};
use super::{Segment, Walk};
use kadmit_go::fmt::format_float;
use serde_json::{Map, Value};
use std::cmp::Ordering;

impl Walk<'_> {
    /// The type validator on null: a typed node accepts it only when nullable.
    pub(super) fn null_type(&mut self, node: &Node) -> usize {
        if node.has_type() && !node.accepts(NULL) && !node.nullable {
            self.out
                .push(messages::type_invalid(&self.path, &node.type_text, "null"));
            0
        } else {
            1
        }
    }

    /// The type validator: `integer` takes integral float64 values, `number` takes
    /// int64; a format rejects non-string values its type does not take, reporting the
    /// data's Go format (`int64`, `float64`, or empty) as the value.
    pub(super) fn check_type(&mut self, node: &Node, kind: Kind) -> bool {
        let (json_type, bit, go_format) = match kind {
            Kind::Bool => ("boolean", BOOLEAN, ""),
            Kind::Str(_) => ("string", STRING, ""),
            Kind::Int(_) => ("integer", INTEGER, "int64"),
            Kind::Float(_) => ("number", NUMBER, "float64"),
            Kind::Array(_) => ("array", ARRAY, ""),
            Kind::Object(_) => ("object", OBJECT, ""),
            Kind::Null => ("null", NULL, ""),
        };
        let float_int =
            matches!(kind, Kind::Float(f) if is_json_integer(f)) && node.accepts(INTEGER);
        let int_float = matches!(kind, Kind::Int(_)) && node.accepts(NUMBER);
        let textual = matches!(kind, Kind::Str(_) | Kind::Array(_));
        if let Some((format, _)) = &node.format {
            if !(textual || node.accepts(bit) || go_format == &**format || float_int || int_float) {
                self.out
                    .push(messages::type_invalid(&self.path, format, go_format));
                return false;
            }
            if textual && !node.accepts(NUMBER | INTEGER) {
                return true;
            }
        }
        if node.accepts(bit) || float_int || int_float {
            return true;
        }
        self.out.push(messages::type_invalid(
            &self.path,
            &node.type_text,
            json_type,
        ));
        false
    }

    /// maxLength, minLength (both in runes), then pattern; the first failure ends it.
    pub(super) fn check_string(&mut self, node: &Node, s: &str) {
        let path = &self.path;
        if node.max_length.is_some() || node.min_length.is_some() {
            let runes = s.chars().count() as i64;
            if let Some(max) = node.max_length.filter(|&max| runes > max) {
                self.out.push(messages::too_long(path, s, max));
                return;
            }
            if let Some(min) = node.min_length.filter(|&min| runes < min) {
                let message = format!("{path} in body should be at least {min} chars long");
                self.out.push(invalid(path, Value::from(s), message));
                return;
            }
        }
        if let Some(pattern) = &node.pattern {
            let failure = match &pattern.compiled {
                Ok(re) if re.is_match(s) => return,
                Ok(_) => pattern.source.clone(),
                Err(e) => format!("{}, but pattern is invalid: {e}", pattern.source),
            };
            let message = format!("{path} in body should match '{failure}'");
            self.out.push(invalid(path, Value::from(s), message));
        }
    }

    /// multipleOf, minimum, maximum. An int64 compares with each bound truncated to
    /// int64 (Kubernetes 1.35, where the number validator knows no type or format).
    pub(super) fn check_number(&mut self, node: &Node, kind: Kind) {
        let data = match kind {
            Kind::Int(i) => Value::from(i),
            Kind::Float(f) => float_value(f),
            _ => return,
        };
        let path = &self.path;
        if let Some(factor) = node.multiple_of {
            let (factor, multiple) = match kind {
                Kind::Int(i) => {
                    let f = go_int64(factor);
                    (Value::from(f), f > 0 && i % f == 0)
                }
                Kind::Float(x) => {
                    let m = if factor < 1.0 {
                        1.0 / factor * x
                    } else {
                        x / factor
                    };
                    (float_value(factor), is_json_integer(m))
                }
                _ => unreachable!("numbers only"),
            };
            let factor_text = number_text(&factor);
            if factor.as_f64().is_none_or(|f| f <= 0.0) {
                let message = format!(
                    "factor MultipleOf declared for {path} must be positive: {factor_text}"
                );
                self.out.push(invalid(path, factor, message));
            } else if !multiple {
                let message = format!("{path} in body should be a multiple of {factor_text}");
                self.out.push(invalid(path, data.clone(), message));
            }
        }
        let bounds = [
            (
                node.minimum,
                node.exclusive_minimum,
                Ordering::Less,
                "greater than",
            ),
            (
                node.maximum,
                node.exclusive_maximum,
                Ordering::Greater,
                "less than",
            ),
        ];
        for (bound, exclusive, side, relation) in bounds {
            if let Some(bound) = bound.and_then(|b| beyond(kind, b, exclusive, side)) {
                let or_equal = if exclusive { "" } else { " or equal to" };
                let message = format!("{path} in body should be {relation}{or_equal} {bound}");
                self.out.push(invalid(path, data.clone(), message));
            }
        }
    }

    /// items (each element on its own path), then minItems, maxItems, uniqueItems.
    pub(super) fn check_array(&mut self, node: &Node, items: &[Value]) -> usize {
        let mut count = 0;
        if let Some(item) = &node.items {
            for (i, v) in items.iter().enumerate() {
                count += self.child(Segment::Index(i), item, v);
            }
        }
        let path = &self.path;
        let size = items.len();
        if let Some(min) = node.min_items.filter(|&min| (size as i64) < min) {
            let message = format!("{path} in body should have at least {min} items");
            self.out.push(invalid(path, Value::from(size), message));
        }
        if let Some(max) = node.max_items.filter(|&max| size as i64 > max) {
            self.out.push(messages::too_many(path, size, max));
        }
        if node.unique_items
            && items
                .iter()
                .enumerate()
                .any(|(i, a)| items[..i].iter().any(|b| deep_equal(a, b)))
        {
            let message = format!("{path} in body shouldn't contain duplicates");
            self.out.push(invalid(path, Value::from(""), message));
        }
        count
    }

    pub(super) fn check_enum(&mut self, node: &Node, value: &Value) {
        if !node.enum_.is_empty() && !node.enum_.iter().any(|m| enum_matches(value, m)) {
            self.out
                .push(messages::not_supported(&self.path, value, &node.enum_));
        }
    }

    /// minProperties and maxProperties (either failing ends the object's checks), then
    /// additionalProperties, the declared properties and required.
    pub(super) fn check_object(&mut self, node: &Node, map: &Map<String, Value>) -> usize {
        let path = &self.path;
        let size = map.len();
        if let Some(min) = node.min_properties.filter(|&min| (size as i64) < min) {
            let message = format!("{path} in body should have at least {min} properties");
            self.out.push(invalid(path, Value::from(size), message));
            return 0;
        }
        if let Some(max) = node.max_properties.filter(|&max| size as i64 > max) {
            self.out.push(messages::too_many(path, size, max));
            return 0;
        }
        let mut count = 0;
        match &node.additional {
            Additional::Forbidden => {
                for key in map.keys().filter(|k| !node.declares(k)) {
                    let message = format!("{path}.{key} in body is a forbidden property");
                    self.out
                        .push(invalid(path, Value::from(key.as_str()), message));
                }
            }
            Additional::Schema(schema) => {
                for (key, v) in map.iter().filter(|(k, _)| !node.declares(k)) {
                    count += self.child(Segment::Key(key), schema, v);
                }
            }
            Additional::Allowed => {}
        }
        for (name, property) in &node.properties {
            if let Some(v) = map.get(name) {
                count += self.child(Segment::Property(name), property, v);
            }
        }
        for name in node.required.iter().filter(|r| !map.contains_key(*r)) {
            self.out
                .push(messages::required(&format!("{}.{name}", self.path)));
        }
        count
    }
}

/// The bound as messages print it when the number `kind` lies on its `side` of it (or
/// on it, when exclusive); int64 data compares with the bound truncated to int64.
fn beyond(kind: Kind, bound: f64, exclusive: bool, side: Ordering) -> Option<String> {
    let (ord, text) = match kind {
        Kind::Int(i) => {
            let b = go_int64(bound);
            (i.cmp(&b), b.to_string())
        }
        Kind::Float(x) => (x.partial_cmp(&bound)?, format_float(bound)),
        _ => return None,
    };
    (ord == side || (exclusive && ord == Ordering::Equal)).then_some(text)
}

fn number_text(v: &Value) -> String {
    match v {
        Value::Number(n) => go_number_text(n),
        other => other.to_string(),
    }
}
