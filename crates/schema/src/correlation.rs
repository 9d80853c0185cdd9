//! Pairing a new value with its old value on update, as the API server does for CRD
//! validation ratcheting (KEP-4008) and `oldSelf` (apiserver `cel/common/equality.go`,
//! `maplist.go`, apiextensions `schema/cel/validation.go`).
//!
//! Two correlations exist upstream and they differ:
//! - ratcheting ([`Correlated`]): through object properties and `additionalProperties`
//!   keys (only where the schema has a node for the field) and through `map` lists by
//!   their keys; never into the items of other lists (`set`, `atomic`, or no list type,
//!   which is atomic): such a list is unchanged only as a whole.
//! - `oldSelf` ([`old_field`], [`MapList`]): through every object field (any map type)
//!   and through `map` lists by their keys only.

use crate::schema::Schema;
use serde_json::Value;
use std::collections::HashMap;

/// A new value, its correlated old value and the schema of both: `CorrelatedObject`.
#[derive(Clone, Copy)]
pub struct Correlated<'a> {
    pub new: &'a Value,
    pub old: &'a Value,
    pub schema: &'a Schema,
}

impl<'a> Correlated<'a> {
    pub fn new(new: &'a Value, old: &'a Value, schema: &'a Schema) -> Correlated<'a> {
        Correlated { new, old, schema }
    }

    /// The field `name` of both objects, when both have it and the schema has a node for
    /// it (a property, else the `additionalProperties` schema).
    pub fn key(&self, name: &str) -> Option<Correlated<'a>> {
        let new = self.new.as_object()?.get(name)?;
        let old = self.old.as_object()?.get(name)?;
        let schema = self.schema.field(name)?;
        Some(Correlated::new(new, old, schema))
    }

    /// Item `index` of the new list with the old item it correlates to.
    pub fn index(&self, index: usize) -> Option<Correlated<'a>> {
        self.index_with(index, None)
    }

    fn index_with(&self, index: usize, keyed: Option<&MapList<'a>>) -> Option<Correlated<'a>> {
        let new_items = self.new.as_array()?;
        let old_items = self.old.as_array()?;
        let item = new_items.get(index)?;
        let old = match self.schema.list_type.as_deref() {
            Some("map") => match keyed {
                Some(list) => list.get(item),
                None => MapList::new(self.schema, old_items).get(item),
            },
            // Upstream: "Atomic lists are the default are not correlatable by item".
            _ => None,
        }?;
        Some(Correlated::new(item, old, self.schema.items.as_deref()?))
    }

    /// `CachedDeepEqual`: whether the value is unchanged. Objects and lists compare
    /// through their correlated children (a `map` list ignores order; a field the schema
    /// does not describe makes its object unequal); sets and atomic lists compare whole.
    pub fn deep_equal(&self) -> bool {
        match (self.new, self.old) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            (Value::Array(new), Value::Array(old)) => {
                if new.len() != old.len() {
                    return false;
                }
                let map_list = self.schema.list_type.as_deref() == Some("map");
                let keyed = map_list.then(|| MapList::new(self.schema, old));
                for i in 0..new.len() {
                    match self.index_with(i, keyed.as_ref()) {
                        Some(child) if child.deep_equal() => {}
                        Some(_) => return false,
                        None if map_list => return false,
                        None => return new == old,
                    }
                }
                true
            }
            (Value::Object(new), Value::Object(old)) => {
                new.len() == old.len()
                    && new
                        .keys()
                        .all(|k| self.key(k).is_some_and(|child| child.deep_equal()))
            }
            (new, old) => new == old,
        }
    }
}

/// The old value `oldSelf` sees for an object field: the old object's field (a null one
/// is no old value).
pub fn old_field<'a>(old: Option<&'a Value>, name: &str) -> Option<&'a Value> {
    old?.as_object()?.get(name).filter(|v| !v.is_null())
}

/// The old items of an `x-kubernetes-list-type: map` list by their keys (`MakeMapList`):
/// an item is keyed only when every key field is present and a scalar; the first item
/// with a key wins.
pub struct MapList<'a> {
    keys: &'a [String],
    items: HashMap<String, &'a Value>,
}

impl<'a> MapList<'a> {
    /// The lookup over `old_items`; empty unless `schema` is a map list with keys.
    pub fn new(schema: &'a Schema, old_items: &'a [Value]) -> MapList<'a> {
        let mut list = MapList {
            keys: &schema.list_map_keys,
            items: HashMap::new(),
        };
        if schema.list_type.as_deref() != Some("map") || list.keys.is_empty() {
            list.keys = &[];
            return list;
        }
        for item in old_items {
            if let Some(key) = list.key_of(item) {
                list.items.entry(key).or_insert(item);
            }
        }
        list
    }

    /// The old item with the same keys as `item`.
    pub fn get(&self, item: &Value) -> Option<&'a Value> {
        if self.keys.is_empty() {
            return None;
        }
        self.items.get(&self.key_of(item)?).copied()
    }

    fn key_of(&self, item: &Value) -> Option<String> {
        let map = item.as_object()?;
        let mut key = String::new();
        for name in self.keys {
            // A type tag keeps 1 (an integer) and 1.0 (a float) apart, as Go does.
            match map.get(name)? {
                Value::Bool(b) => key.push_str(&format!("\0b{b}")),
                Value::Number(n) if n.is_f64() => key.push_str(&format!("\0f{n}")),
                Value::Number(n) => key.push_str(&format!("\0i{n}")),
                Value::String(s) => key.push_str(&format!("\0s{s:?}")),
                _ => return None,
            }
        }
        Some(key)
    }
}

#[cfg(test)]
mod tests;
