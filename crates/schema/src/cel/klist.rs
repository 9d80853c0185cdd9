//! Lists with `x-kubernetes-list-type: set` or `map`: the same CEL list for everything but
//! `==` (order-insensitive, or by map key) and `+` (union, or merge by key with the right
//! side winning), as Kubernetes' unstructured set and map lists behave. Empty atomic lists
//! are wrapped too, to remember their element type (`sum()` of an empty `list(double)` is
//! `0.0`, of a `list(duration)` `duration('0')`).

use cel::common::traits::{Adder, Container, Indexer, Iterable, Sizer, Zeroer};
use cel::common::types::{CelList, CelMap, CelMapKey, CelNull, Type, LIST_TYPE};
use cel::common::value::{Builtin, BuiltinRef, CowVal, StaticVal, Val};
use cel::ExecutionError;

/// How the elements of a Kubernetes list are identified.
#[derive(Debug, Clone, PartialEq)]
pub enum ListKind {
    Atomic,
    Set,
    /// The escaped names of the `x-kubernetes-list-map-keys`.
    Map(Vec<String>),
}

/// The element type of a list, where its zero value matters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Element {
    Int,
    Double,
    Duration,
    Other,
}

/// A set, map or empty atomic list.
#[derive(Debug, Clone)]
pub struct KList {
    list: CelList<'static>,
    kind: ListKind,
    pub element: Element,
}

impl KList {
    pub fn new(list: CelList<'static>, kind: ListKind, element: Element) -> Self {
        KList {
            list,
            kind,
            element,
        }
    }

    fn items(&self) -> &[Box<dyn Val>] {
        self.list.inner()
    }

    fn position(&self, item: &dyn Val) -> Option<usize> {
        position(self.items(), &self.kind, item)
    }
}

/// The position of the element of `items` that `item` stands for.
fn position(items: &[Box<dyn Val>], kind: &ListKind, item: &dyn Val) -> Option<usize> {
    match kind {
        ListKind::Atomic => None,
        ListKind::Set => items.iter().position(|e| e.equals(item)),
        ListKind::Map(keys) => items
            .iter()
            .position(|e| keys.iter().all(|k| same_field(e.as_ref(), item, k))),
    }
}

fn field<'a>(item: &'a dyn Val, name: &'a str) -> Option<&'a dyn Val> {
    let map = item.downcast_ref::<CelMap>()?;
    map.inner().get(&CelMapKey::from(name)).map(|v| v.as_ref())
}

fn same_field(a: &dyn Val, b: &dyn Val, key: &str) -> bool {
    match (field(a, key), field(b, key)) {
        (Some(x), Some(y)) => x.equals(y),
        (None, None) => true,
        _ => false,
    }
}

fn elements(val: &dyn Val) -> Option<Vec<&dyn Val>> {
    let mut iter = val.as_iterable()?.iter();
    let mut out = Vec::new();
    while let Some(item) = iter.next() {
        out.push(item);
    }
    Some(out)
}

impl Val for KList {
    fn get_type(&self) -> &Type {
        &LIST_TYPE
    }

    fn cel_type() -> &'static Type {
        &LIST_TYPE
    }

    fn as_adder<'b, 'v>(&'b self) -> Option<&'b (dyn Adder + 'v)>
    where
        Self: 'v,
    {
        Some(self)
    }

    fn as_container(&self) -> Option<&dyn Container> {
        self.list.as_container()
    }

    fn as_indexer<'b, 'v>(&'b self) -> Option<&'b (dyn Indexer + 'v)>
    where
        Self: 'v,
    {
        self.list.as_indexer()
    }

    fn as_iterable<'b, 'v>(&'b self) -> Option<&'b (dyn Iterable + 'v)>
    where
        Self: 'v,
    {
        self.list.as_iterable()
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        self.list.as_sizer()
    }

    fn as_zeroer(&self) -> Option<&dyn Zeroer> {
        self.list.as_zeroer()
    }

    fn equals(&self, other: &dyn Val) -> bool {
        if self.kind == ListKind::Atomic {
            return self.list.equals(other);
        }
        let Some(others) = elements(other) else {
            return false;
        };
        others.len() == self.items().len()
            && others.iter().all(|o| {
                self.position(*o)
                    .is_some_and(|i| self.items()[i].equals(*o))
            })
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v>
    where
        Self: 'v,
    {
        Box::new(self.clone())
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn as_builtin<'b, 'v>(&'b self) -> BuiltinRef<'b, 'v>
    where
        Self: 'v,
    {
        BuiltinRef::List(&self.list)
    }

    fn into_builtin<'v>(self: Box<Self>) -> Option<Builtin<'v>>
    where
        Self: 'v,
    {
        Some(Builtin::List(self.list))
    }
}

impl StaticVal for KList {}

impl Adder for KList {
    fn add<'b, 'v>(&'b self, rhs: &(dyn Val + 'v)) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        let others = elements(rhs).ok_or_else(|| {
            ExecutionError::no_such_overload(
                "_+_",
                vec!["list".into(), rhs.get_type().name().to_owned()],
            )
        })?;
        let mut items: Vec<Box<dyn Val>> =
            self.items().iter().map(|e| e.clone_as_boxed()).collect();
        for other in others {
            match position(&items, &self.kind, other) {
                Some(i) if matches!(self.kind, ListKind::Map(_)) => items[i] = owned_static(other),
                Some(_) => {}
                None => items.push(owned_static(other)),
            }
        }
        let merged = KList::new(CelList::from(items), self.kind.clone(), self.element);
        Ok(CowVal::owned(merged))
    }
}

/// A `'static` copy of a value (every value kadmit binds or builds owns its data).
fn owned_static(val: &dyn Val) -> Box<dyn Val> {
    cel::Value::try_from(val)
        .and_then(Box::<dyn Val>::try_from)
        .unwrap_or_else(|_| Box::new(CelNull))
}
