//! The conversion of an object to a typed value (upstream `TypeConverter.ObjectToTyped`,
//! structured-merge-diff's validating walk): every key declared, every value of its
//! type, keyed list items with their keys and, unless allowed, no duplicates. Nothing is
//! changed; what does not convert is reported as `<path>: <message>`.

use super::atom::{Atom, Scalar, Type};
use super::path::{self, go_type, go_value, go_value_sharp, Element};
use serde_json::Value;
use std::collections::HashSet;
use std::fmt;

/// One error of the walk (upstream `ValidationError`).
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

/// Every error of the walk; prints as upstream's `ValidationErrors`: one error as
/// `<path>: <message>`, several as `errors:` and one indented line each.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversionErrors(pub Vec<FieldError>);

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path.is_empty() {
            true => f.write_str(&self.message),
            false => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl fmt::Display for ConversionErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let [one] = self.0.as_slice() {
            return one.fmt(f);
        }
        f.write_str("errors:")?;
        for e in &self.0 {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

/// Checks `value` against `ty`. `allow_duplicates`: the live object may hold duplicate
/// keys in associative lists (upstream converts it with `typed.AllowDuplicates`).
pub fn check(value: &Value, ty: Type<'_>, allow_duplicates: bool) -> Result<(), ConversionErrors> {
    // Most values convert: a walk that keeps no path says so; the errors are then walked
    // for only when there are some.
    if clean(value, ty, allow_duplicates) {
        return Ok(());
    }
    let mut walk = Walk {
        path: Vec::new(),
        errors: Vec::new(),
        allow_duplicates,
    };
    walk.value(value, ty);
    match walk.errors.is_empty() {
        true => Ok(()),
        false => Err(ConversionErrors(walk.errors)),
    }
}

/// Whether [`Walk::value`] would find no error.
fn clean(value: &Value, ty: Type<'_>, allow_duplicates: bool) -> bool {
    let atom: Atom<'_> = ty.deduce(value);
    if let Some(scalar) = atom.scalar {
        matches!(
            (scalar, value),
            (_, Value::Null)
                | (Scalar::Numeric, Value::Number(_))
                | (Scalar::String, Value::String(_))
                | (Scalar::Boolean, Value::Bool(_))
        ) || (scalar == Scalar::Untyped && !matches!(value, Value::Array(_) | Value::Object(_)))
    } else if let Some(list) = atom.list {
        let items = match value {
            Value::Null => return true,
            Value::Array(items) => items,
            _ => return false,
        };
        let mut seen = HashSet::new();
        items.iter().all(|item| {
            if list.associative {
                match path::list_item(&list, item) {
                    Ok(element) => {
                        if !allow_duplicates && !seen.insert(element.to_string()) {
                            return false;
                        }
                    }
                    Err(_) => return false,
                }
            }
            clean(item, list.item, allow_duplicates)
        })
    } else if let Some(map) = atom.map {
        match value {
            Value::Null => true,
            Value::Object(fields) => fields.iter().all(|(key, child)| {
                map.field(key)
                    .is_some_and(|child_type| clean(child, child_type, allow_duplicates))
            }),
            _ => false,
        }
    } else {
        true
    }
}

struct Walk {
    path: Vec<Element>,
    errors: Vec<FieldError>,
    allow_duplicates: bool,
}

impl Walk {
    fn error(&mut self, message: String) {
        self.errors.push(FieldError {
            path: path::render(&self.path),
            message,
        });
    }

    fn descend(&mut self, element: Element, value: &Value, ty: Type<'_>) {
        self.path.push(element);
        self.value(value, ty);
        self.path.pop();
    }

    fn value(&mut self, value: &Value, ty: Type<'_>) {
        let atom: Atom<'_> = ty.deduce(value);
        if let Some(scalar) = atom.scalar {
            self.scalar(scalar, value);
        } else if let Some(list) = atom.list {
            let items = match value {
                Value::Null => return,
                Value::Array(items) => items,
                other => return self.error(format!("expected list, got {}", go_value(other))),
            };
            let mut seen = HashSet::new();
            for (i, item) in items.iter().enumerate() {
                let element = match list.associative {
                    false => Element::Index(i),
                    true => match path::list_item(&list, item) {
                        Ok(element) => element,
                        // Without its key the item cannot be named: the rest of the list
                        // is not looked at either (upstream returns here).
                        Err(e) => return self.error(format!("element {i}: {e}")),
                    },
                };
                if list.associative && !seen.insert(element.to_string()) && !self.allow_duplicates {
                    self.error(format!("duplicate entries for key {element}"));
                }
                self.descend(element, item, list.item);
            }
        } else if let Some(map) = atom.map {
            let fields = match value {
                Value::Null => return,
                Value::Object(fields) => fields,
                other => return self.error(format!("expected map, got {}", go_value(other))),
            };
            for (key, child) in fields {
                let Some(child_type) = map.field(key) else {
                    // Upstream stops at the first undeclared key of a map.
                    self.path.push(Element::Field(key.clone()));
                    self.error("field not declared in schema".into());
                    self.path.pop();
                    return;
                };
                self.descend(Element::Field(key.clone()), child, child_type);
            }
        }
    }

    fn scalar(&mut self, scalar: Scalar, v: &Value) {
        let message = match (scalar, v) {
            (_, Value::Null) => return,
            (Scalar::Numeric, Value::Number(_)) => return,
            (Scalar::Numeric, _) => format!("expected numeric (int or float), got {}", go_type(v)),
            (Scalar::String, Value::String(_)) => return,
            (Scalar::String, _) => format!("expected string, got {}", go_value_sharp(v)),
            (Scalar::Boolean, Value::Bool(_)) => return,
            (Scalar::Boolean, _) => format!("expected boolean, got {}", go_value(v)),
            (Scalar::Untyped, Value::Array(_) | Value::Object(_)) => {
                format!("expected any scalar, got {}", go_value(v))
            }
            (Scalar::Untyped, _) => return,
        };
        self.error(message);
    }
}
