//! The CEL environment of CRD rules: the standard library, cel-go's strings and lists
//! extensions, the Kubernetes libraries, and the internal functions kadmit's rewriting of
//! the expression tree calls (their names start with `@`, which CEL source cannot spell),
//! among them cel-go's type conversions (`convert`).

use super::convert;
use super::cost;
use super::library;
use super::sorted;
use cel::common::types::{
    CelBytes, CelInt, CelList, CelMap, CelMapKey, CelString, DYN_TYPE, INT_TYPE,
};
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
/// `@pairs(x)`: `[[index, value], ...]` of a list or `[[key, value], ...]` of a map, its
/// keys in order.
pub const PAIRS: &str = "@pairs";
/// `@ordered(x)`: a comprehension's range, a map's keys in order (see `sorted`).
pub const ORDERED: &str = "@ordered";
/// `@mapInsert(m, k, v)`: `m` with `k: v` added.
pub const MAP_INSERT: &str = "@mapInsert";
/// `@mapMerge(m, n)`: `m` with the entries of `n` added.
pub const MAP_MERGE: &str = "@mapMerge";
/// `@strcost(s, tenths)`: charges `tenths / 10` per character of `s` (`lowerAscii`, ...).
pub const STR_COST: &str = "@strcost";
/// `@replacecost(s, from, to[, n])`: charges `s.replace(from, to[, n])` before it runs.
pub const REPLACE_COST: &str = "@replacecost";
/// `@splitcost(s, sep[, n])`: charges `s.split(sep[, n])` before it runs.
pub const SPLIT_COST: &str = "@splitcost";
/// `@joincost(list[, sep])`: charges `list.join([sep])` before it runs.
pub const JOIN_COST: &str = "@joincost";
/// `@containscost(s, sub)`: charges `s.contains(sub)`.
pub const CONTAINS_COST: &str = "@containscost";
/// `@prefixcost(s, p)`: charges `s.startsWith(p)` and `s.endsWith(p)`.
pub const PREFIX_COST: &str = "@prefixcost";
/// `@addcost(x)`: charges the result of a `+` the expression wrote.
pub const ADD_COST: &str = "@addcost";
/// `@built(x)`: counts an element a comprehension appends against the memory limit.
pub const BUILT: &str = "@built";

/// The shared environment.
pub fn env() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        Arc::new(build().expect("the CRD CEL environment declares each overload once"))
    })
    .clone()
}

/// The environment of MutatingAdmissionPolicy expressions: the shared one plus the
/// `Object`/`JSONPatch` constructor (`mutation`).
pub fn mutation_env() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = build().expect("the CRD CEL environment declares each overload once");
        super::mutation::register(&mut env)
            .expect("the mutation types are declared once, in their own environment");
        Arc::new(env)
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
    env.add_overload(ORDERED, ORDERED, vec![DYN_TYPE], sorted::ordered)?;
    env.add_overload(
        MAP_INSERT,
        MAP_INSERT,
        vec![DYN_TYPE, DYN_TYPE, DYN_TYPE],
        map_insert,
    )?;
    env.add_overload(MAP_MERGE, MAP_MERGE, vec![DYN_TYPE, DYN_TYPE], map_merge)?;
    let dyn2 = || vec![DYN_TYPE, DYN_TYPE];
    env.add_overload(STR_COST, STR_COST, vec![DYN_TYPE, INT_TYPE], str_cost)?;
    env.add_overload(
        REPLACE_COST,
        "@replacecost3",
        vec![DYN_TYPE, DYN_TYPE, DYN_TYPE],
        replace_cost,
    )?;
    env.add_overload(
        REPLACE_COST,
        "@replacecost4",
        vec![DYN_TYPE, DYN_TYPE, DYN_TYPE, DYN_TYPE],
        replace_cost,
    )?;
    env.add_overload(SPLIT_COST, "@splitcost2", dyn2(), split_cost)?;
    env.add_overload(
        SPLIT_COST,
        "@splitcost3",
        vec![DYN_TYPE, DYN_TYPE, DYN_TYPE],
        split_cost,
    )?;
    env.add_overload(JOIN_COST, "@joincost1", vec![DYN_TYPE], join_cost)?;
    env.add_overload(JOIN_COST, "@joincost2", dyn2(), join_cost)?;
    env.add_overload(CONTAINS_COST, CONTAINS_COST, dyn2(), contains_cost)?;
    env.add_overload(PREFIX_COST, PREFIX_COST, dyn2(), prefix_cost)?;
    env.add_overload(ADD_COST, ADD_COST, vec![DYN_TYPE], add_cost)?;
    env.add_overload(BUILT, BUILT, vec![DYN_TYPE], built)?;
    convert::register(&mut env)?;
    library::register(&mut env)?;
    super::mutation::register_escape_key(&mut env)?;
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

/// The string argument `i`, if it is one.
fn string_arg<'a>(args: &'a [CowVal<'_, '_>], i: usize) -> Option<&'a str> {
    args.get(i)
        .and_then(|a| a.downcast_ref::<CelString>())
        .map(|s| s.inner())
}

fn int_arg(args: &[CowVal<'_, '_>], i: usize) -> Option<i64> {
    args.get(i)
        .and_then(|a| a.downcast_ref::<CelInt>())
        .map(|n| *n.inner())
}

fn str_cost<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if let Some(s) = args.first() {
        let tenths = int_arg(&args, 1).unwrap_or(1).max(0) as f64;
        cost::charge(cost::scaled(cost::actual_size(&**s), tenths / 10.0))?;
    }
    first(args)
}

/// `s.replace(from, to[, n])`: 0.2 per character of `s` (the API server's charge), and the
/// size of the result counted before it is built.
fn replace_cost<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if let (Some(s), Some(from), Some(to)) = (
        string_arg(&args, 0),
        string_arg(&args, 1),
        string_arg(&args, 2),
    ) {
        cost::charge(cost::scaled(
            s.chars().count() as u64,
            2.0 * cost::TRAVERSAL,
        ))?;
        let found = if from.is_empty() {
            s.chars().count() as u64 + 1
        } else {
            s.matches(from).count() as u64
        };
        let limit = int_arg(&args, 3).and_then(|n| u64::try_from(n).ok());
        let count = limit.map_or(found, |n| found.min(n));
        let kept = (s.len() as u64).saturating_sub(count.saturating_mul(from.len() as u64));
        cost::build(kept.saturating_add(count.saturating_mul(to.len() as u64)))?;
    }
    first(args)
}

/// `s.split(sep[, n])`: 0.2 per character of `s`, and the parts counted before they are made.
fn split_cost<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if let (Some(s), Some(sep)) = (string_arg(&args, 0), string_arg(&args, 1)) {
        cost::charge(cost::scaled(
            s.chars().count() as u64,
            2.0 * cost::TRAVERSAL,
        ))?;
        let parts = if sep.is_empty() {
            s.chars().count() as u64
        } else {
            s.matches(sep).count() as u64 + 1
        };
        let limit = int_arg(&args, 2).and_then(|n| u64::try_from(n).ok());
        let parts = limit.map_or(parts, |n| parts.min(n));
        cost::build((s.len() as u64).saturating_add(parts.saturating_mul(16)))?;
    }
    first(args)
}

/// `list.join([sep])`: 0.2 per character of the result (the API server's charge, made
/// after the join; here before it).
fn join_cost<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let sep = string_arg(&args, 1).unwrap_or("");
    if let Some(iterable) = args.first().and_then(|l| l.as_iterable()) {
        let (mut chars, mut bytes, mut n) = (0u64, 0u64, 0u64);
        let mut items = iterable.iter();
        while let Some(item) = items.next() {
            if let Some(s) = item.downcast_ref::<CelString>() {
                chars = chars.saturating_add(s.chars().count() as u64);
                bytes = bytes.saturating_add(s.len() as u64);
            }
            n += 1;
        }
        let separators = n.saturating_sub(1);
        chars = chars.saturating_add(separators.saturating_mul(sep.chars().count() as u64));
        bytes = bytes.saturating_add(separators.saturating_mul(sep.len() as u64));
        cost::charge(cost::scaled(chars, 2.0 * cost::TRAVERSAL))?;
        cost::build(bytes)?;
    }
    first(args)
}

/// `s.contains(sub)`: 0.1 per character of `s` times 0.1 per character of `sub`.
fn contains_cost<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if let (Some(s), Some(sub)) = (string_arg(&args, 0), string_arg(&args, 1)) {
        let a = cost::scaled(s.chars().count() as u64, cost::TRAVERSAL);
        let b = cost::scaled(sub.chars().count() as u64, cost::TRAVERSAL);
        cost::charge(a.saturating_mul(b))?;
    }
    first(args)
}

/// `s.startsWith(p)`, `s.endsWith(p)`: 0.1 per character of `p`.
fn prefix_cost<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if let Some(p) = string_arg(&args, 1) {
        cost::charge(cost::scaled(p.chars().count() as u64, cost::TRAVERSAL))?;
    }
    first(args)
}

/// A `+` the expression wrote: 0.1 per character of a string (or byte of bytes) result,
/// and the result counted against the memory limit.
fn add_cost<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if let Some(v) = args.first() {
        if v.downcast_ref::<CelString>().is_some() || v.downcast_ref::<CelBytes>().is_some() {
            cost::charge(cost::scaled(cost::actual_size(&**v), cost::TRAVERSAL))?;
        }
        cost::build(cost::built_size(&**v, cost::MAX_BUILT_BYTES))?;
    }
    first(args)
}

fn built<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if let Some(v) = args.first() {
        cost::build(cost::built_size(&**v, cost::MAX_BUILT_BYTES))?;
    }
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
        let out: Vec<Box<dyn Val + 'v>> = sorted::entries_in_order(map)
            .into_iter()
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
    // In key order: of two keys both maps hold, the same one is reported in every run.
    let mut added: Vec<_> = map_entries(&*other)?.into_iter().collect();
    added.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
    for (k, v) in added {
        if entries.contains_key(&k) {
            return Err(ExecutionError::DuplicateKey(
                cel::Value::try_from(k.inner()).unwrap_or(cel::Value::Null),
            ));
        }
        entries.insert(k, v);
    }
    Ok(CowVal::owned(CelMap::from(entries)))
}
