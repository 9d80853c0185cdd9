//! A JSON object or array as CEL sees it without a schema (the same value as
//! `value::untyped`), built one level at a time, only as far as an expression reads it.
//!
//! Admission-policy expressions read a few fields of large objects
//! (`object.spec.template.spec.containers.all(c, ...)`): converting the whole object up
//! front cost more than evaluating. A [`LazyJson`] borrows the JSON node; the first time
//! the value is used it builds the node's own level, a built-in `CelMap` or `CelList`
//! whose scalar entries are converted (strings borrowed, not copied) and whose object and
//! array entries are `LazyJson` again. Every capability is that built value's, and it
//! identifies itself as it (`as_builtin`), so functions and conversions that downcast to
//! `CelMap`/`CelList` see a built-in value and nothing behaves differently.
//!
//! Cloning a `LazyJson` copies a reference and shares what was built: the comprehensions
//! of cel 0.15 clone each element they visit into the loop variable (a deep copy of an
//! eagerly converted element), and the policies of a request all read the same object, so
//! each level is built at most once per bound value.
//!
//! An object's level is a [`SortedMap`]: a comprehension over it
//! (`object.metadata.labels.map(k, k)`) visits its keys sorted, the same in every run.

use super::sorted::SortedMap;
use super::value::untyped;
use cel::common::traits::{
    Adder, Comparer, Container, Divider, Indexer, Iterable, Modder, Multiplier, Negator, Sizer,
    Subtractor, Zeroer,
};
use cel::common::types::{CelList, CelMap, CelMapKey, CelString, Type};
use cel::common::value::{Builtin, BuiltinRef, Val};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// `value` as a CEL value borrowing it: objects and arrays lazily, strings borrowed.
pub(crate) fn borrowed<'v>(value: &'v Value) -> Box<dyn Val + 'v> {
    match value {
        Value::Object(fields) => Box::new(LazyJson::new(Node::Object(fields))),
        Value::Array(items) => Box::new(LazyJson::new(Node::Array(items))),
        Value::String(s) => Box::new(CelString::from(s.as_str())),
        scalar => untyped(scalar),
    }
}

/// The JSON node a [`LazyJson`] stands for.
#[derive(Debug, Clone, Copy)]
enum Node<'v> {
    Object(&'v Map<String, Value>),
    Array(&'v Vec<Value>),
}

/// The node's level, once built.
#[derive(Debug)]
enum Built<'v> {
    Map(SortedMap<'v>),
    List(CelList<'v>),
}

/// A JSON object (a CEL `map`) or array (a CEL `list`), built when first used; its
/// clones share the build.
#[derive(Debug)]
pub(crate) struct LazyJson<'v> {
    node: Node<'v>,
    built: Arc<OnceLock<Built<'v>>>,
}

impl<'v> LazyJson<'v> {
    fn new(node: Node<'v>) -> Self {
        LazyJson {
            node,
            built: Arc::new(OnceLock::new()),
        }
    }

    fn build(node: Node<'v>) -> Built<'v> {
        match node {
            Node::Object(fields) => Built::Map(SortedMap(CelMap::from(
                fields
                    .iter()
                    .map(|(k, v)| (CelMapKey::from(k.as_str()), borrowed(v)))
                    .collect::<HashMap<_, _>>(),
            ))),
            Node::Array(items) => Built::List(CelList::from(
                items.iter().map(borrowed).collect::<Vec<_>>(),
            )),
        }
    }

    /// The built value every capability comes from.
    fn value(&self) -> &(dyn Val + 'v) {
        match self.built.get_or_init(|| Self::build(self.node)) {
            Built::Map(m) => m,
            Built::List(l) => l,
        }
    }

    /// The built value, owned: taken when no clone shares it, copied (one level) if one
    /// does.
    fn into_value(self) -> Box<dyn Val + 'v> {
        let built = match Arc::try_unwrap(self.built) {
            Ok(cell) => cell.into_inner(),
            Err(shared) => shared.get().map(|b| match b {
                Built::Map(m) => Built::Map(m.clone()),
                Built::List(l) => Built::List(l.clone()),
            }),
        };
        match built.unwrap_or_else(|| Self::build(self.node)) {
            Built::Map(m) => Box::new(m),
            Built::List(l) => Box::new(l),
        }
    }
}

impl<'v> Val for LazyJson<'v> {
    fn get_type(&self) -> &Type {
        match self.node {
            Node::Object(_) => <CelMap as Val>::cel_type(),
            Node::Array(_) => <CelList as Val>::cel_type(),
        }
    }

    /// A `LazyJson` is a map or a list, depending on the node: no static type.
    fn cel_type() -> &'static Type
    where
        Self: Sized,
    {
        panic!("LazyJson has no static CEL type: it is a map or a list (see get_type)")
    }

    fn as_adder<'b, 'w>(&'b self) -> Option<&'b (dyn Adder + 'w)>
    where
        Self: 'w,
    {
        self.value().as_adder()
    }

    fn as_comparer(&self) -> Option<&dyn Comparer> {
        self.value().as_comparer()
    }

    fn as_container(&self) -> Option<&dyn Container> {
        self.value().as_container()
    }

    fn as_divider<'b, 'w>(&'b self) -> Option<&'b (dyn Divider + 'w)>
    where
        Self: 'w,
    {
        self.value().as_divider()
    }

    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        self.value().as_indexer()
    }

    fn into_indexer<'w>(self: Box<Self>) -> Option<Box<dyn Indexer + 'w>>
    where
        Self: 'w,
    {
        self.into_value().into_indexer()
    }

    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        self.value().as_iterable()
    }

    fn as_modder<'b, 'w>(&'b self) -> Option<&'b (dyn Modder + 'w)>
    where
        Self: 'w,
    {
        self.value().as_modder()
    }

    fn as_multiplier<'b, 'w>(&'b self) -> Option<&'b (dyn Multiplier + 'w)>
    where
        Self: 'w,
    {
        self.value().as_multiplier()
    }

    fn as_negator<'b, 'w>(&'b self) -> Option<&'b (dyn Negator + 'w)>
    where
        Self: 'w,
    {
        self.value().as_negator()
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        self.value().as_sizer()
    }

    fn as_subtractor<'b, 'w>(&'b self) -> Option<&'b (dyn Subtractor + 'w)>
    where
        Self: 'w,
    {
        self.value().as_subtractor()
    }

    fn as_zeroer(&self) -> Option<&dyn Zeroer> {
        self.value().as_zeroer()
    }

    fn equals(&self, other: &dyn Val) -> bool {
        // A map equals only a map, a list only a list (`CelMap`/`CelList::equals`): the
        // null guards of declared variables (`object == null`) build nothing.
        other.get_type().kind() == self.get_type().kind() && self.value().equals(other)
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(LazyJson {
            node: self.node,
            built: Arc::clone(&self.built),
        })
    }

    fn as_builtin<'b, 'w>(&'b self) -> BuiltinRef<'b, 'w>
    where
        Self: 'w,
    {
        self.value().as_builtin()
    }

    fn into_builtin<'w>(self: Box<Self>) -> Option<Builtin<'w>>
    where
        Self: 'w,
    {
        self.into_value().into_builtin()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cel::common::types::CelInt;
    use serde_json::json;

    #[test]
    fn builds_only_what_is_read() {
        let json = json!({"spec": {"containers": [{"image": "a"}]}, "status": {"x": 1}});
        let value = borrowed(&json);
        let spec_key = CelString::from("spec");
        let spec = value.as_indexer().unwrap().get(&spec_key).unwrap();
        assert_eq!(spec.get_type(), <CelMap as Val>::cel_type());
        // the built map is a built-in one, with the same entries as an eager conversion
        let map = value.downcast_ref::<CelMap>().unwrap();
        assert_eq!(map.len(), 2);
        assert!(value.equals(untyped(&json).as_ref()));
        assert!(untyped(&json).equals(value.as_ref()));
        let status = value
            .as_indexer()
            .unwrap()
            .get(&CelString::from("status"))
            .unwrap();
        let one = status
            .as_indexer()
            .unwrap()
            .get(&CelString::from("x"))
            .unwrap();
        assert_eq!(one.downcast_ref::<CelInt>(), Some(&CelInt::from(1)));
    }

    #[test]
    fn strings_are_borrowed() {
        let json = json!(["abc"]);
        let value = borrowed(&json);
        let list = value.downcast_ref::<CelList>().unwrap();
        let s = list.inner()[0].downcast_ref::<CelString>().unwrap();
        let Value::String(original) = &json[0] else {
            unreachable!()
        };
        assert!(std::ptr::eq(s.inner(), original.as_str()));
    }
}
