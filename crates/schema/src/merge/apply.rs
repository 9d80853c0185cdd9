//! The merge of a converted patch into the live object (upstream `TypedValue.Merge`
//! with the patch winning, structured-merge-diff's merging walk):
//! - scalars, atomic lists and atomic maps/structs are replaced by the patch's value;
//! - granular maps and structs merge key by key; an associative list merges item by
//!   item, matched by its keys (`map`) or value (`set`): a matched item merges in place,
//!   new items follow the live ones in the patch's order;
//! - a live item whose key repeats an earlier one is kept as it is unless the patch
//!   names that key: then the first one takes the merge and the repeats are dropped
//!   (upstream's `AllowDuplicates` merge);
//! - a `null` in the patch replaces a scalar or atomic value, and leaves a granular map
//!   or associative list as it is; an empty map or list meets an empty or absent one as
//!   a leaf (the patch's is kept), which preserves `{}`/`[]` against `null`.
//!
//! Nothing is removed. Order: a map keeps the live object's key order and appends the
//! keys only the patch has, in the patch's order (upstream builds a Go map, whose order
//! JSON encoding then sorts; kadmit keeps the input's order so output diffs stay small).
//!
//! Both sides were converted first, so the walk cannot meet a value its type refuses.

use super::atom::{List, Type};
use super::path;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// `live` with `patch` merged into it, both of type `ty`.
pub fn merge(live: Option<&Value>, patch: Option<&Value>, ty: Type<'_>) -> Option<Value> {
    // Without a patch every branch below gives the live value back as it is (a list's
    // repeated keys are kept when the patch does not name them).
    let Some(p) = patch else {
        return live.cloned();
    };
    // The patch's shape decides, as upstream handles the patch side last.
    let atom = ty.deduce(p);
    let leaf = || patch.or(live).cloned();
    if atom.scalar.is_some() {
        return leaf();
    }
    if let Some(list) = atom.list {
        let (l, p) = (items(live), items(patch));
        if !list.associative || (l.is_empty() && p.is_empty()) {
            return leaf();
        }
        return Some(Value::Array(merge_list(&list, l, p)));
    }
    if let Some(map) = atom.map {
        let (l, p) = (fields(live), fields(patch));
        let empty = |m: Option<&Map<String, Value>>| m.is_none_or(Map::is_empty);
        if map.atomic || (empty(l) && empty(p)) {
            return leaf();
        }
        let mut out = Map::new();
        for (key, value) in l.into_iter().flatten() {
            let ty = map.field(key).unwrap_or(Type::Deduced);
            let merged = merge(Some(value), p.and_then(|p| p.get(key)), ty);
            out.extend(merged.map(|m| (key.clone(), m)));
        }
        for (key, value) in p.into_iter().flatten() {
            if !out.contains_key(key) {
                let ty = map.field(key).unwrap_or(Type::Deduced);
                out.extend(merge(None, Some(value), ty).map(|m| (key.clone(), m)));
            }
        }
        return Some(Value::Object(out));
    }
    leaf()
}

/// [`merge`] of `patch` into `live` in place: the same result, without copying what the
/// patch does not touch (most of an object: an apply configuration sets a few fields).
pub fn merge_into(live: &mut Value, patch: &Value, ty: Type<'_>) {
    let atom = ty.deduce(patch);
    let Some(map) = atom
        .map
        .filter(|_| atom.scalar.is_none() && atom.list.is_none())
    else {
        // Scalars, lists and anything else: as `merge` does it, on the live value.
        if let Some(merged) = merge(Some(live), Some(patch), ty) {
            *live = merged;
        }
        return;
    };
    let p = patch.as_object();
    let empty = |m: Option<&Map<String, Value>>| m.is_none_or(Map::is_empty);
    if map.atomic || (empty(live.as_object()) && empty(p)) {
        *live = patch.clone();
        return;
    }
    let Some(l) = live.as_object_mut() else {
        // Not a map on the live side: the patch's fields alone, as `merge` gives them.
        if let Some(merged) = merge(None, Some(patch), ty) {
            *live = merged;
        }
        return;
    };
    // Live keys keep their place and merge with the patch's; the patch's other keys
    // follow in its order (an insert appends).
    for (key, value) in p.into_iter().flatten() {
        let ty = map.field(key).unwrap_or(Type::Deduced);
        match l.get_mut(key) {
            Some(existing) => merge_into(existing, value, ty),
            None => {
                if let Some(merged) = merge(None, Some(value), ty) {
                    l.insert(key.clone(), merged);
                }
            }
        }
    }
}

fn items(v: Option<&Value>) -> &[Value] {
    match v {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

fn fields(v: Option<&Value>) -> Option<&Map<String, Value>> {
    v.and_then(Value::as_object)
}

fn merge_list(list: &List<'_>, live: &[Value], patch: &[Value]) -> Vec<Value> {
    let mut by_key: HashMap<String, &Value> = HashMap::new();
    let mut patch_order = Vec::new();
    for item in patch {
        if let Some(key) = path::item_key(list, item) {
            if by_key.insert(key.clone(), item).is_none() {
                patch_order.push(key);
            }
        }
    }
    let mut out = Vec::with_capacity(live.len() + patch.len());
    let mut seen = HashSet::new();
    for item in live {
        let Some(key) = path::item_key(list, item) else {
            out.push(item.clone());
            continue;
        };
        let touched = by_key.get(&key).copied();
        if !seen.insert(key) {
            // A repeated live key: dropped when the patch merges into the first one.
            if touched.is_none() {
                out.push(item.clone());
            }
            continue;
        }
        out.extend(merge(Some(item), touched, list.item));
    }
    for key in patch_order {
        if !seen.contains(&key) {
            out.extend(merge(None, Some(by_key[&key]), list.item));
        }
    }
    out
}
