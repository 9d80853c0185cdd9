//! A CEL map whose comprehensions visit its keys sorted.
//!
//! A built-in `CelMap` visits its keys in its hash table's order, which differs from run to
//! run (and from map to map): `self.data.map(k, k).join(',')` or a JSONPatch per label
//! would come out differently each time. The server's Go maps are no more ordered, but
//! kadmit's output must not change between runs, so every map kadmit makes of JSON is a
//! [`SortedMap`]: the built-in map for every other capability (it identifies itself as
//! it, `as_builtin`), with its keys visited in order. Maps an expression builds itself
//! (literals, function results) are the `cel` crate's: every comprehension's range goes
//! through [`ordered`] (inserted when compiling), which hands such a map to the loop as
//! the list of its keys, sorted.

use cel::common::traits::{self, Container, Indexer, Iterable, Sizer, Zeroer};
use cel::common::types::{CelBool, CelInt, CelList, CelMap, CelMapKey, CelString, CelUInt, Type};
use cel::common::value::{Builtin, BuiltinRef, CowVal, Val};
use cel::ExecutionError;

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
        let keys: Vec<&'b CelMapKey<'v>> = entries_in_order(&self.0)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        Box::new(SortedKeys(keys.into_iter()))
    }
}

struct SortedKeys<'b, 'v>(std::vec::IntoIter<&'b CelMapKey<'v>>);

impl<'b, 'v: 'w, 'w> traits::Iterator<'b, 'w> for SortedKeys<'b, 'v> {
    fn next(&mut self) -> Option<&'b (dyn Val + 'w)> {
        self.0.next().map(|key| key.inner())
    }
}

/// A map's entries in key order (`CelMapKey`'s): the one order in which kadmit visits a
/// map, wherever the order can show (comprehensions, `@pairs`, which error is reported).
pub(crate) fn entries_in_order<'b, 'v>(
    map: &'b CelMap<'v>,
) -> Vec<(&'b CelMapKey<'v>, &'b (dyn Val + 'v))> {
    let mut entries: Vec<_> = map.inner().iter().map(|(k, v)| (k, v.as_ref())).collect();
    entries.sort_unstable_by_key(|(k, _)| *k);
    entries
}

/// `@ordered(range)`: the range of a comprehension, in the order it is to be visited. A map
/// whose keys come in order already (a [`SortedMap`], an object read in place) is passed
/// as it is; any other map (one the expression built, its keys in hash order) becomes the
/// sorted list of its keys, which is the same range: a comprehension over a map visits
/// exactly its keys. Anything else is passed as it is, errors included.
pub(crate) fn ordered<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let range = args
        .into_iter()
        .next()
        .ok_or_else(ExecutionError::missing_argument_or_target)?;
    let Some(map) = range.downcast_ref::<CelMap>() else {
        return Ok(range);
    };
    if visited_in_order(&*range) {
        return Ok(range);
    }
    let keys: Vec<Box<dyn Val + 'v>> = entries_in_order(map)
        .into_iter()
        .map(|(k, _)| k.inner().clone_as_boxed())
        .collect();
    Ok(CowVal::owned(CelList::from(keys)))
}

/// Whether iterating `range` visits its keys in `CelMapKey`'s order.
fn visited_in_order(range: &dyn Val) -> bool {
    let Some(iterable) = range.as_iterable() else {
        return true;
    };
    let mut items = iterable.iter();
    let mut previous: Option<KeyOrder> = None;
    while let Some(key) = items.next() {
        let Some(key) = KeyOrder::of(key) else {
            return false;
        };
        if previous.is_some_and(|p| p > key) {
            return false;
        }
        previous = Some(key);
    }
    true
}

/// A map key as `CelMapKey` orders it: by kind (int, uint, bool, string), then value.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum KeyOrder<'a> {
    Int(i64),
    Uint(u64),
    Bool(bool),
    String(&'a str),
}

impl<'a> KeyOrder<'a> {
    fn of(key: &'a dyn Val) -> Option<Self> {
        if let Some(s) = key.downcast_ref::<CelString>() {
            Some(KeyOrder::String(s.inner()))
        } else if let Some(i) = key.downcast_ref::<CelInt>() {
            Some(KeyOrder::Int(*i.inner()))
        } else if let Some(u) = key.downcast_ref::<CelUInt>() {
            Some(KeyOrder::Uint(*u.inner()))
        } else {
            key.downcast_ref::<CelBool>()
                .map(|b| KeyOrder::Bool(*b.inner()))
        }
    }
}
