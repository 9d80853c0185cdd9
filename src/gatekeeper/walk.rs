//! The path walk every mutator shares (Gatekeeper's `core.Mutate`): follows a location
//! through an object, creating missing parents and keyed list elements, honouring the
//! path tests, and hands the last node to a mutator-specific setter.
//!
//! "Mutated" means the setter ran, not that anything changed. Whatever the walk creates
//! on a branch that does not end in a set is dropped, so nothing is half-created.

use super::path::tester::Tester;
use super::path::{KeyValue, Node, Path};
use super::values::{self, go_type_name};
use serde_json::{Map, Value};

/// What a mutator does at the end of its location.
pub trait Setter {
    /// Sets `key` of `map`, the parent of the last (object) node.
    fn set_value(&self, map: &mut Map<String, Value>, key: &str) -> Result<(), String>;

    /// The element to put in a keyed list when the location ends in `[key: value]`; only
    /// Assign can, others are refused when built.
    fn keyed_list_value(&self) -> Result<Value, String> {
        Err("a keyed list can not be the last path entry of this mutator".into())
    }
}

/// Walks `path` through `object`; `Ok(true)` when the setter ran.
pub fn mutate(
    path: &Path,
    tester: &Tester,
    setter: &dyn Setter,
    object: &mut Value,
) -> Result<bool, String> {
    if path.nodes.is_empty() {
        return Err("attempting to mutate an empty target location".into());
    }
    Walk {
        nodes: &path.nodes,
        tester,
        setter,
    }
    .at(0, object)
}

struct Walk<'a> {
    nodes: &'a [Node],
    tester: &'a Tester,
    setter: &'a dyn Setter,
}

impl Walk<'_> {
    fn at(&self, depth: usize, current: &mut Value) -> Result<bool, String> {
        match &self.nodes[depth] {
            Node::Object(key) => self.object(depth, key, current),
            Node::List {
                key_field,
                key_value,
            } => self.list(depth, key_field, key_value.as_ref(), current),
        }
    }

    fn is_last(&self, depth: usize) -> bool {
        depth + 1 == self.nodes.len()
    }

    fn object(&self, depth: usize, key: &str, current: &mut Value) -> Result<bool, String> {
        let Value::Object(map) = current else {
            return Err(format!(
                "mismatch between path entry (type: object) and received object (type: {}). Path: &{{Reference:{key}}}",
                go_type_name(current)
            ));
        };
        let present = map.contains_key(key);
        if present && !self.tester.exists_okay(depth)
            || !present && !self.tester.missing_okay(depth)
        {
            return Ok(false);
        }
        if self.is_last(depth) {
            self.setter.set_value(map, key)?;
            return Ok(true);
        }
        if let Some(child) = map.get_mut(key) {
            return self.at(depth + 1, child);
        }
        let mut child = match self.nodes[depth + 1] {
            Node::Object(_) => Value::Object(Map::new()),
            Node::List { .. } => Value::Array(Vec::new()),
        };
        let mutated = self.at(depth + 1, &mut child)?;
        if mutated {
            map.insert(key.to_owned(), child);
        }
        Ok(mutated)
    }

    fn list(
        &self,
        depth: usize,
        key_field: &str,
        key_value: Option<&KeyValue>,
        current: &mut Value,
    ) -> Result<bool, String> {
        let Value::Array(items) = current else {
            return Err(format!(
                "mismatch between path entry (type: List) and received object (type: {}). Path: &{{KeyField:{key_field} KeyValue:{} Glob:{}}}",
                go_type_name(current),
                key_value.map(render_key).unwrap_or_default(),
                key_value.is_none()
            ));
        };
        match key_value {
            _ if self.is_last(depth) => self.assign_keyed(depth, key_field, key_value, items),
            None => self.every_element(depth, items),
            Some(wanted) => self.keyed_elements(depth, key_field, wanted, items),
        }
    }

    fn every_element(&self, depth: usize, items: &mut [Value]) -> Result<bool, String> {
        if !self.tester.exists_okay(depth) {
            return Ok(false);
        }
        let mut mutated = false;
        for item in items {
            mutated |= self.at(depth + 1, item)?;
        }
        Ok(mutated)
    }

    fn keyed_elements(
        &self,
        depth: usize,
        key_field: &str,
        wanted: &KeyValue,
        items: &mut Vec<Value>,
    ) -> Result<bool, String> {
        let matching: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|(_, item)| {
                item.get(key_field)
                    .is_some_and(|v| item.is_object() && key_equals(v, wanted))
            })
            .map(|(i, _)| i)
            .collect();
        if matching.is_empty() {
            if !self.tester.missing_okay(depth) {
                return Ok(false);
            }
            let mut element = Map::new();
            element.insert(key_field.to_owned(), key_to_value(wanted));
            let mut element = Value::Object(element);
            let mutated = self.at(depth + 1, &mut element)?;
            if mutated {
                items.push(element);
            }
            return Ok(mutated);
        }
        if !self.tester.exists_okay(depth) {
            return Ok(false);
        }
        let mut mutated = false;
        for i in matching {
            mutated |= self.at(depth + 1, &mut items[i])?;
        }
        Ok(mutated)
    }

    /// A location ending in `[key: value]`: the element with that key is replaced whole,
    /// or the value appended when none has it.
    fn assign_keyed(
        &self,
        depth: usize,
        key_field: &str,
        key_value: Option<&KeyValue>,
        items: &mut Vec<Value>,
    ) -> Result<bool, String> {
        let Some(wanted) = key_value else {
            return Err("last path entry can not be globbed".into());
        };
        let value = self.setter.keyed_list_value()?;
        if !value.is_object() {
            return Err(format!(
                "assign.value for keyed list is not an object: {value}"
            ));
        }
        for item in items.iter_mut() {
            let Value::Object(element) = item else {
                return Err(format!(
                    "cast error, unable to case {} to map[string]interface{{}}",
                    go_type_name(item)
                ));
            };
            if !element
                .get(key_field)
                .is_some_and(|v| key_equals(v, wanted))
            {
                continue;
            }
            if !value.get(key_field).is_some_and(|v| key_equals(v, wanted)) {
                return Err("key value of replaced object must not change".into());
            }
            if !self.tester.exists_okay(depth) {
                return Ok(false);
            }
            *item = value;
            return Ok(true);
        }
        if !self.tester.missing_okay(depth) {
            return Ok(false);
        }
        items.push(value);
        Ok(true)
    }
}

/// Whether a list element's key equals the path's key value; numbers compare by value.
pub fn key_equals(actual: &Value, wanted: &KeyValue) -> bool {
    values::equal(actual, &key_to_value(wanted))
}

/// The JSON value of a path key: an integer for `[port: 80]`, a string otherwise.
pub fn key_to_value(key: &KeyValue) -> Value {
    match key {
        KeyValue::String(s) => Value::String(s.clone()),
        KeyValue::Int(i) => Value::from(*i),
    }
}

fn render_key(key: &KeyValue) -> String {
    match key {
        KeyValue::String(s) => s.clone(),
        KeyValue::Int(i) => i.to_string(),
    }
}
