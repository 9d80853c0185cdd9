//! The apply configuration guard (upstream `validatePatch`/`findAtomics` in the MAP
//! patcher's smd.go): an apply configuration may not set an atomic list, map or struct,
//! since applying it would silently drop whatever the live value has and the patch does
//! not repeat.
//!
//! As upstream: the walk descends only into declared fields (not into the values of
//! `additionalProperties` maps) and into every list item, named by index (`[0]`), and
//! it reports an atomic value even when it also reports things inside it.

use super::atom::Type;
use super::path::{self, Element};
use serde_json::Value;

/// The paths of the atomic lists, maps and structs `patch` sets, in the patch's order.
pub fn find(patch: &Value, ty: Type<'_>) -> Vec<String> {
    let mut found = Vec::new();
    walk(&mut Vec::new(), patch, ty, &mut found);
    found
}

fn walk(path: &mut Vec<Element>, value: &Value, ty: Type<'_>, found: &mut Vec<String>) {
    let atom = ty.atom();
    match (value, atom.map, atom.list) {
        (Value::Object(fields), Some(map), _) => {
            if map.atomic {
                found.push(path::render(path));
            }
            for (key, child) in fields {
                if let Some(child_type) = map.field(key).filter(|_| map.declares(key)) {
                    path.push(Element::Field(key.clone()));
                    walk(path, child, child_type, found);
                    path.pop();
                }
            }
        }
        (Value::Array(items), _, Some(list)) => {
            if !list.associative {
                found.push(path::render(path));
            }
            for (i, item) in items.iter().enumerate() {
                path.push(Element::Index(i));
                walk(path, item, list.item, found);
                path.pop();
            }
        }
        _ => {}
    }
}
