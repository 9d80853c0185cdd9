//! Fixtures the engines' unit tests share: a resource read from a file named `test`, with
//! an optional old object, and a run's context with nothing but the operation set.

use super::kinds::KindTable;
use super::pipeline::{Context, Operation};
use super::resource::{Origin, Resource};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `value` as a resource from the first line of `test`; `old`, when given, its old object.
pub fn resource(value: Value, old: Option<Value>) -> Resource {
    let origin = Origin {
        source: Arc::from("test"),
        index: 0,
        line: 1,
        list_item: None,
        declared: None,
    };
    let mut r = Resource::new(value, origin).unwrap();
    r.old = old.map(Arc::new);
    r
}

/// A context with no CRDs, Namespaces or looked-up objects, for `operation`.
pub fn context(operation: Operation) -> Context {
    Context {
        kinds: KindTable::default(),
        namespaces: BTreeMap::new(),
        default_namespace: "default".into(),
        operation,
        objects: BTreeMap::new(),
    }
}
