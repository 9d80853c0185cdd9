//! A CEL map whose comprehensions visit its keys sorted.
//!
//! A built-in `CelMap` visits its keys in its hash table's order, which differs from run to
//! run (and from map to map): `self.data.map(k, k).join(',')` or a JSONPatch per label
//! would come out differently each time. The server's Go maps are no more ordered, but
//! kadmit's output must not change between runs, so every map kadmit makes of JSON is a
//! [`SortedMap`]: the built-in map for every other capability (it identifies itself as
//! it, `as_builtin`), with its keys visited in order. Maps an expression builds itself
//! (literals, function results) are the `cel` crate's and keep its order.

use cel::common::traits::{self, Container, Indexer, Iterable, Sizer, Zeroer};
use cel::common::types::{CelMap, CelMapKey, Type};
use cel::common::value::{Builtin, BuiltinRef, Val};

#[derive(Debug, Clone)]
pub(crate) struct SortedMap<'v>(pub(crate) CelMap<'v>);

impl<'v> Val for SortedMap<'v> {
    fn get_type(&self) -> &Type {
        self.0.get_type()
    }

    fn cel_type() -> &'static Type
    where
        Self: Sized,
    {
        <CelMap as Val>::cel_type()
    }

    fn as_container(&self) -> Option<&dyn Container> {
        self.0.as_container()
    }

    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        self.0.as_indexer()
    }

    fn into_indexer<'w>(self: Box<Self>) -> Option<Box<dyn Indexer + 'w>>
    where
        Self: 'w,
    {
        Box::new(self.0).into_indexer()
    }

    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        self.0.as_sizer()
    }

    fn as_zeroer(&self) -> Option<&dyn Zeroer> {
        self.0.as_zeroer()
    }

    fn equals(&self, other: &dyn Val) -> bool {
        self.0.equals(other)
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(self.clone())
    }

    fn as_builtin<'b, 'w>(&'b self) -> BuiltinRef<'b, 'w>
    where
        Self: 'w,
    {
        BuiltinRef::Map(&self.0)
    }

    fn into_builtin<'w>(self: Box<Self>) -> Option<Builtin<'w>>
    where
        Self: 'w,
    {
        Some(Builtin::Map(self.0))
    }
}

impl<'v> Iterable for SortedMap<'v> {
    fn iter<'b, 'w>(&'b self) -> Box<dyn traits::Iterator<'b, 'w> + 'b>
    where
        Self: 'w,
    {
        let mut keys: Vec<&'b CelMapKey<'v>> = self.0.inner().keys().collect();
        keys.sort_unstable();
        Box::new(SortedKeys(keys.into_iter()))
    }
}

struct SortedKeys<'b, 'v>(std::vec::IntoIter<&'b CelMapKey<'v>>);

impl<'b, 'v: 'w, 'w> traits::Iterator<'b, 'w> for SortedKeys<'b, 'v> {
    fn next(&mut self) -> Option<&'b (dyn Val + 'w)> {
        self.0.next().map(|key| key.inner())
    }
}
