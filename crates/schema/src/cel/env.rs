//! The CEL environment of CRD rules: the standard library, cel-go's strings and lists
//! extensions, the Kubernetes libraries, and the internal functions kadmit's rewriting of
//! the expression tree calls (their names start with `@`, which CEL source cannot spell).

use super::cost;
use super::library;
use cel::common::types::{CelInt, CelList, CelMap, CelMapKey, DYN_TYPE, INT_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{Env, ExecutionError};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// `@cost(x, w)`: charges `w` per element of a comprehension's range before it is iterated.
pub const COST: &str = "@cost";
/// `@tick(b, w)`: charges `w` for one comprehension iteration.
pub const TICK: &str = "@tick";
/// `@count(n)`: charges `n` (the length of a list a function is about to build).
pub const COUNT: &str = "@count";
/// `@pairs(x)`: `[[index, value], ...]` of a list or `[[key, value], ...]` of a map.
pub const PAIRS: &str = "@pairs";
/// `@mapInsert(m, k, v)`: `m` with `k: v` added.
pub const MAP_INSERT: &str = "@mapInsert";
/// `@mapMerge(m, n)`: `m` with the entries of `n` added.
pub const MAP_MERGE: &str = "@mapMerge";

/// The shared environment.
pub fn env() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        Arc::new(build().expect("the CRD CEL environment declares each overload once"))
    })
    .clone()
}

fn build() -> Result<Env, cel::DeclarationError> {
    let mut env = Env::stdlib();
    env.add_extension(cel::extensions::strings)?;
    env.add_extension(cel::extensions::lists)?;
    env.add_overload(COST, COST, vec![DYN_TYPE, INT_TYPE], charge_size)?;
    env.add_overload(COUNT, COUNT, vec![DYN_TYPE], charge_count)?;
    env.add_overload(TICK, TICK, vec![DYN_TYPE, INT_TYPE], charge_one)?;
    env.add_overload(PAIRS, PAIRS, vec![DYN_TYPE], pairs)?;
    env.add_overload(
        MAP_INSERT,
        MAP_INSERT,
        vec![DYN_TYPE, DYN_TYPE, DYN_TYPE],
        map_insert,
    )?;
    env.add_overload(MAP_MERGE, MAP_MERGE, vec![DYN_TYPE, DYN_TYPE], map_merge)?;
    library::register(&mut env)?;
    Ok(env)
}

/// Calls the global function `name` of the environment.
pub fn call_global(name: &str, args: Vec<Box<dyn Val>>) -> Result<Box<dyn Val>, ExecutionError> {
    let env = env();
    let args: Vec<CowVal<'_, 'static>> = args.into_iter().map(CowVal::Owned).collect();
    let f = env.find_overload(name, &args).ok_or_else(|| {
        ExecutionError::no_such_overload(
            name,
            args.iter()
                .map(|a| a.get_type().name().to_owned())
                .collect(),
        )
    })?;
    f(args).map(CowVal::into_owned)
}

fn first<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    args.into_iter()
        .next()
        .ok_or_else(ExecutionError::missing_argument_or_target)
}

/// The weight argument of `@cost` and `@tick`.
fn weight(args: &[CowVal<'_, '_>]) -> u64 {
    args.get(1)
        .and_then(|w| w.downcast_ref::<CelInt>())
        .map_or(1, |w| (*w.inner()).max(1) as u64)
}

fn charge_size<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let size = args
        .first()
        .and_then(|a| a.as_sizer())
        .map_or(1, |s| (*s.size().inner()).max(1) as u64);
    cost::charge(size.saturating_mul(weight(&args)))?;
    first(args)
}

fn charge_one<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    cost::charge(weight(&args))?;
    first(args)
}

fn charge_count<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let n = args
        .first()
        .and_then(|a| {
            a.downcast_ref::<cel::common::types::CelInt>()
                .map(|i| *i.inner())
        })
        .unwrap_or(0);
    cost::charge(n.max(1) as u64)?;
    first(args)
}

fn pairs<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let target = args
        .first()
        .ok_or_else(ExecutionError::missing_argument_or_target)?;
    let pair = |k: Box<dyn Val + 'v>, v: Box<dyn Val + 'v>| -> Box<dyn Val + 'v> {
        Box::new(CelList::from(vec![k, v]))
    };
    if let Some(map) = target.downcast_ref::<CelMap>() {
        let out: Vec<Box<dyn Val + 'v>> = map
            .inner()
            .iter()
            .map(|(k, v)| pair(k.inner().clone_as_boxed(), v.clone_as_boxed()))
            .collect();
        return Ok(CowVal::owned(CelList::from(out)));
    }
    let mut iter = target
        .as_iterable()
        .ok_or_else(|| {
            ExecutionError::no_such_overload("@pairs", vec![target.get_type().name().to_owned()])
        })?
        .iter();
    let mut out: Vec<Box<dyn Val + 'v>> = Vec::new();
    let mut i = 0i64;
    while let Some(v) = iter.next() {
        out.push(pair(
            Box::new(cel::common::types::CelInt::from(i)),
            v.clone_as_boxed(),
        ));
        i += 1;
    }
    Ok(CowVal::owned(CelList::from(out)))
}

fn map_entries<'b, 'v>(
    map: &'b (dyn Val + 'v),
) -> Result<HashMap<CelMapKey<'v>, Box<dyn Val + 'v>>, ExecutionError> {
    let map = map
        .downcast_ref::<CelMap>()
        .ok_or_else(|| ExecutionError::function_error("transformMap", "not a map"))?;
    Ok(map
        .inner()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone_as_boxed()))
        .collect())
}

fn map_insert<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [map, key, value] = <[CowVal<'b, 'v>; 3]>::try_from(args)
        .map_err(|_| ExecutionError::invalid_argument_count(3, 0))?;
    let mut entries = map_entries(&*map)?;
    let key = CelMapKey::try_from(key.into_owned())?;
    if entries.contains_key(&key) {
        return Err(ExecutionError::DuplicateKey(
            cel::Value::try_from(key.inner()).unwrap_or(cel::Value::Null),
        ));
    }
    entries.insert(key, value.into_owned());
    Ok(CowVal::owned(CelMap::from(entries)))
}

fn map_merge<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [map, other] = <[CowVal<'b, 'v>; 2]>::try_from(args)
        .map_err(|_| ExecutionError::invalid_argument_count(2, 0))?;
    let mut entries = map_entries(&*map)?;
    for (k, v) in map_entries(&*other)? {
        if entries.contains_key(&k) {
            return Err(ExecutionError::DuplicateKey(
                cel::Value::try_from(k.inner()).unwrap_or(cel::Value::Null),
            ));
        }
        entries.insert(k, v);
    }
    Ok(CowVal::owned(CelMap::from(entries)))
}
