//! The path walk every mutator shares (Gatekeeper's `core.Mutate`): follows a location
//! through an object, creating missing parents and keyed list elements, honouring the
//! path tests, and hands the last node to a mutator-specific setter.
//!
//! "Mutated" means the setter ran, not that anything changed; what changed is recorded in
//! `Edits` as the walk goes. Whatever the walk creates on a branch that does not end in a
//! set is dropped, so nothing is half-created.

use super::edits::{Edits, Written};
use super::path::tester::Tester;
use super::path::{KeyValue, Node, Path};
use super::values::{self, go_type_name};
use kadmit_jsonpatch::pointer::{push_index, push_token};
use serde_json::{Map, Value};

/// What a mutator does at the end of its location.
pub trait Setter {
    /// Sets `key` of `map`, the parent of the last (object) node.
    fn set_value(&self, map: &mut Map<String, Value>, key: &str) -> Result<Written, String>;

    /// The element to put in a keyed list when the location ends in `[key: value]`; only
    /// Assign can, others are refused when built.
    fn keyed_list_value(&self) -> Result<Value, String> {
        Err("a keyed list can not be the last path entry of this mutator".into())
    }
}

/// Sets `map[key]` to `value`, cloning it only when the field does not hold it already.
pub fn put(map: &mut Map<String, Value>, key: &str, value: &Value) -> Written {
    match values::field_mut(map, key) {
        Some(old) if values::identical(old, value) => Written::Nothing,
        Some(old) => Written::Replaced(Some(std::mem::replace(old, value.clone()))),
        None => {
            map.insert(key.to_owned(), value.clone());
            Written::Replaced(None)
        }
    }
}

/// The JSON Pointer token (`/key`, escaped) of each map node of `path`; `""` for lists.
pub fn tokens(path: &Path) -> Vec<String> {
    let token = |node: &Node| {
        let mut token = String::new();
        if let Node::Object(key) = node {
            push_token(&mut token, key);
        }
        token
    };
    path.nodes.iter().map(token).collect()
}

/// Walks `path` (with its `tokens`) through `object`, recording what changes in `edits`;
/// `Ok(true)` when the setter ran.
pub fn mutate(
    path: &Path,
    tokens: &[String],
    tester: &Tester,
    setter: &dyn Setter,
    object: &mut Value,
    edits: &mut Edits,
) -> Result<bool, String> {
    if path.nodes.is_empty() {
        return Err("attempting to mutate an empty target location".into());
    }
    edits.indices.clear();
    edits.indices.resize(path.nodes.len(), 0);
    Walk {
        nodes: &path.nodes,
        tokens,
        tester,
        setter,
        edits,
    }
    .at(0, object)
}

struct Walk<'a> {
    nodes: &'a [Node],
    tokens: &'a [String],
    tester: &'a Tester,
    setter: &'a dyn Setter,
    edits: &'a mut Edits,
}

impl Walk<'_> {
    fn at(&mut self, depth: usize, current: &mut Value) -> Result<bool, String> {
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

    fn object(&mut self, depth: usize, key: &str, current: &mut Value) -> Result<bool, String> {
        let Value::Object(map) = current else {
            return Err(format!(
                "mismatch between path entry (type: object) and received object (type: {}). Path: &{{Reference:{key}}}",
                go_type_name(current)
            ));
        };
        if self.is_last(depth) {
            if !self.tester_allows(depth, values::field(map, key).is_some()) {
                return Ok(false);
            }
            let written = self.setter.set_value(map, key)?;
            if !matches!(written, Written::Nothing) {
                self.point(depth + 1);
                self.edits.written(written, map, key);
            }
            return Ok(true);
        }
        if let Some(child) = values::field_mut(map, key) {
            return match self.tester.exists_okay(depth) {
                true => self.at(depth + 1, child),
                false => Ok(false),
            };
        }
        if !self.tester.missing_okay(depth) {
            return Ok(false);
        }
        let mut child = match self.nodes[depth + 1] {
            Node::Object(_) => Value::Object(Map::new()),
            Node::List { .. } => Value::Array(Vec::new()),
        };
        let mark = self.edits.mark();
        let mutated = self.at(depth + 1, &mut child)?;
        if mutated {
            map.insert(key.to_owned(), child);
            self.point(depth + 1);
            self.edits.created(mark);
        }
        Ok(mutated)
    }

    /// Points `edits.at` at the node the first `nodes` of the path lead to, through the
    /// list elements the walk is in.
    fn point(&mut self, nodes: usize) {
        let Edits { at, indices, .. } = &mut *self.edits;
        at.clear();
        let route = self.nodes.iter().zip(self.tokens).zip(indices.iter());
        for ((node, token), &index) in route.take(nodes) {
            match node {
                Node::Object(_) => at.push_str(token),
                Node::List { .. } => push_index(at, index),
            }
        }
    }

    fn tester_allows(&self, depth: usize, present: bool) -> bool {
        match present {
            true => self.tester.exists_okay(depth),
            false => self.tester.missing_okay(depth),
        }
    }

    fn list(
        &mut self,
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

    /// Walks on from element `index` of the list at node `depth`.
    fn element(&mut self, depth: usize, index: usize, item: &mut Value) -> Result<bool, String> {
        self.edits.indices[depth] = index;
        self.at(depth + 1, item)
    }

    fn every_element(&mut self, depth: usize, items: &mut [Value]) -> Result<bool, String> {
        if !self.tester.exists_okay(depth) {
            return Ok(false);
        }
        let mut mutated = false;
        for (i, item) in items.iter_mut().enumerate() {
            mutated |= self.element(depth, i, item)?;
        }
        Ok(mutated)
    }

    fn keyed_elements(
        &mut self,
        depth: usize,
        key_field: &str,
        wanted: &KeyValue,
        items: &mut Vec<Value>,
    ) -> Result<bool, String> {
        let has_key = |item: &Value| has_key(item, key_field, wanted);
        if !items.iter().any(has_key) {
            if !self.tester.missing_okay(depth) {
                return Ok(false);
            }
            let mut element = Map::new();
            element.insert(key_field.to_owned(), key_to_value(wanted));
            let mut element = Value::Object(element);
            let mark = self.edits.mark();
            let mutated = self.element(depth, items.len(), &mut element)?;
            if mutated {
                self.edits.forget_since(mark);
                self.point(depth);
                self.edits.appended(items.len());
                items.push(element);
            }
            return Ok(mutated);
        }
        if !self.tester.exists_okay(depth) {
            return Ok(false);
        }
        let mut mutated = false;
        for (i, item) in items.iter_mut().enumerate() {
            if has_key(item) {
                mutated |= self.element(depth, i, item)?;
            }
        }
        Ok(mutated)
    }

    /// A location ending in `[key: value]`: the element with that key is replaced whole,
    /// or the value appended when none has it.
    fn assign_keyed(
        &mut self,
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
        for (i, item) in items.iter_mut().enumerate() {
            let Value::Object(element) = item else {
                return Err(format!(
                    "cast error, unable to case {} to map[string]interface{{}}",
                    go_type_name(item)
                ));
            };
            if !values::field(element, key_field).is_some_and(|v| key_equals(v, wanted)) {
                continue;
            }
            if !has_key(&value, key_field, wanted) {
                return Err("key value of replaced object must not change".into());
            }
            if !self.tester.exists_okay(depth) {
                return Ok(false);
            }
            if !values::identical(item, &value) {
                let old = std::mem::replace(item, value);
                self.edits.indices[depth] = i;
                self.point(depth + 1);
                self.edits.replaced(Some(old), item);
            }
            return Ok(true);
        }
        if !self.tester.missing_okay(depth) {
            return Ok(false);
        }
        self.point(depth);
        self.edits.appended(items.len());
        items.push(value);
        Ok(true)
    }
}

/// Whether `item` is a map whose `key_field` equals the path's key value.
fn has_key(item: &Value, key_field: &str, wanted: &KeyValue) -> bool {
    item.as_object()
        .and_then(|map| values::field(map, key_field))
        .is_some_and(|v| key_equals(v, wanted))
}

/// Whether a list element's key equals the path's key value; numbers compare by value.
pub fn key_equals(actual: &Value, wanted: &KeyValue) -> bool {
    match wanted {
        KeyValue::String(s) => actual.as_str() == Some(s),
        KeyValue::Int(i) => values::equal(actual, &Value::from(*i)),
    }
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
