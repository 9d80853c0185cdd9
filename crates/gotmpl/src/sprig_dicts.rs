//! Sprig v3.2.2 dictionaries. Maps are shared, so `set`, `unset` and `merge` change
//! them in place as Go does (`{{ $_ := set $d "k" 1 }}{{ $d.k }}` prints 1). `keys`
//! and `values` are in sorted key order (Go's map order is random).

use super::funcs::{boxed, f, fv, Args, Ctx, Table, P};
use super::sprig_strings::strval;
use super::value::{deep_copy, Elem, MapCell, MapRef, Value};
use super::MAX_NESTING;
use std::collections::BTreeMap;

type Res = Result<Value, String>;

pub(crate) const FUNCS: Table = &[
    ("dict", fv(&[], P::Any, dict)),
    (
        "get",
        boxed(f(&[P::Map, P::Str], |_, a| {
            Ok(entries(&a.v(0))
                .remove(&a.s(1))
                .unwrap_or_else(|| Value::str("")))
        })),
    ),
    ("set", f(&[P::Map, P::Str, P::Any], set)),
    (
        "unset",
        f(&[P::Map, P::Str], |_, a| {
            let d = a.v(0);
            if let Value::Map(m, _) = &d {
                m.borrow_mut().remove(&a.s(1));
            }
            Ok(d)
        }),
    ),
    (
        "hasKey",
        f(&[P::Map, P::Str], |_, a| {
            Ok(Value::Bool(entries(&a.v(0)).contains_key(&a.s(1))))
        }),
    ),
    (
        "pluck",
        fv(&[P::Str], P::Map, |_, a| {
            let key = a.s(0);
            Ok(Value::list(
                a.rest(1)
                    .iter()
                    .filter_map(|d| entries(d).remove(&key))
                    .collect(),
            ))
        }),
    ),
    (
        "keys",
        fv(&[], P::Map, |_, a| {
            let mut keys: Vec<String> = a
                .rest(0)
                .iter()
                .flat_map(|d| entries(d).into_keys())
                .collect();
            keys.sort();
            Ok(Value::str_list(keys))
        }),
    ),
    (
        "values",
        f(&[P::Map], |_, a| {
            Ok(Value::list(entries(&a.v(0)).into_values().collect()))
        }),
    ),
    (
        "pick",
        fv(&[P::Map], P::Str, |_, a| {
            let mut d = entries(&a.v(0));
            let keep: Vec<String> = (1..a.len()).map(|i| a.s(i)).collect();
            d.retain(|k, _| keep.contains(k));
            Ok(Value::map(d))
        }),
    ),
    (
        "omit",
        fv(&[P::Map], P::Str, |_, a| {
            let mut d = entries(&a.v(0));
            for i in 1..a.len() {
                d.remove(&a.s(i));
            }
            Ok(Value::map(d))
        }),
    ),
    (
        "merge",
        boxed(fv(&[P::Map], P::Map, |c, a| merge_all(c, a, false))),
    ),
    (
        "mustMerge",
        boxed(fv(&[P::Map], P::Map, |c, a| merge_all(c, a, false))),
    ),
    (
        "mergeOverwrite",
        boxed(fv(&[P::Map], P::Map, |c, a| merge_all(c, a, true))),
    ),
    (
        "mustMergeOverwrite",
        boxed(fv(&[P::Map], P::Map, |c, a| merge_all(c, a, true))),
    ),
    (
        "deepCopy",
        boxed(f(&[P::Any], |_, a| deep_copy(&a.v(0), 0))),
    ),
    (
        "mustDeepCopy",
        boxed(f(&[P::Any], |_, a| deep_copy(&a.v(0), 0))),
    ),
    ("dig", boxed(fv(&[], P::Any, dig))),
];

/// A snapshot of a map argument (a nil map is empty).
fn entries(v: &Value) -> BTreeMap<String, Value> {
    v.map_entries().unwrap_or_default()
}

fn dict(_: &mut Ctx, a: &Args) -> Res {
    let v = a.rest(0);
    let mut d = BTreeMap::new();
    for pair in v.chunks(2) {
        let key = strval(&pair[0])?;
        d.insert(key, pair.get(1).cloned().unwrap_or_else(|| Value::str("")));
    }
    Ok(Value::map(d))
}

fn set(_: &mut Ctx, a: &Args) -> Res {
    let d = a.v(0);
    let Value::Map(m, _) = &d else {
        return Err("assignment to entry in nil map".into());
    };
    let value = a.v(2);
    if contains_map(&value, m, 0) {
        return Err("set: the value contains the map itself".into());
    }
    m.borrow_mut().insert(a.s(1), value);
    Ok(d)
}

/// Does `v` contain (or is it) the map `m`? Refusing such a `set` keeps values acyclic.
fn contains_map(v: &Value, m: &MapRef, depth: usize) -> bool {
    if depth > MAX_NESTING {
        return true;
    }
    match v {
        Value::Map(x, _) => {
            std::rc::Rc::ptr_eq(x, m) || x.borrow().values().any(|i| contains_map(i, m, depth + 1))
        }
        Value::List(items, _) => items.iter().any(|i| contains_map(i, m, depth + 1)),
        _ => false,
    }
}

fn merge_all(c: &mut Ctx, a: &Args, overwrite: bool) -> Res {
    let dst = match a.v(0) {
        Value::Map(m, Elem::Any) => m,
        _ => Value::map(BTreeMap::new()).map_entries_ref(),
    };
    for src in a.rest(1) {
        let Value::Map(s, _) = src else { continue };
        if contains_map(&Value::Map(s.clone(), Elem::Any), &dst, 0) {
            return Ok(Value::str(""));
        }
        merge_into(c, &dst, &s.borrow().clone(), overwrite, 0)?;
    }
    Ok(Value::Map(dst, Elem::Any))
}

/// mergo's map merge: missing or empty destination entries are filled, nested maps are
/// merged, and with `overwrite` source entries win.
fn merge_into(
    c: &mut Ctx,
    dst: &MapRef,
    src: &BTreeMap<String, Value>,
    overwrite: bool,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_NESTING {
        return Err("merge: maps are nested too deeply".into());
    }
    c.charge(src.len() as u64)?;
    for (k, sv) in src {
        if let Value::Nil = sv {
            if overwrite {
                dst.borrow_mut().insert(k.clone(), Value::Nil);
            }
            continue;
        }
        let dv = dst.borrow().get(k).cloned();
        if let (Value::Map(sm, _), Some(Value::Map(dm, Elem::Any))) = (sv, &dv) {
            if !std::rc::Rc::ptr_eq(sm, dm) {
                let inner = sm.borrow().clone();
                merge_into(c, dm, &inner, overwrite, depth + 1)?;
            }
        }
        let dst_set = dv.as_ref().is_some_and(Value::truth);
        if dst_set && matches!(sv, Value::Map(..) | Value::List(..)) {
            continue;
        }
        if overwrite || !dst_set {
            dst.borrow_mut().insert(k.clone(), sv.clone());
        }
    }
    Ok(())
}

fn dig(_: &mut Ctx, a: &Args) -> Res {
    let ps = a.rest(0);
    if ps.len() < 3 {
        return Err("dig needs at least three arguments".into());
    }
    let n = ps.len();
    let Value::Map(mut dict, Elem::Any) = ps[n - 1].clone() else {
        return Err(format!(
            "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
            ps[n - 1].type_name()
        ));
    };
    let def = ps[n - 2].clone();
    let keys = &ps[..n - 2];
    for (i, k) in keys.iter().enumerate() {
        let Value::Str(k) = k else {
            return Err(format!(
                "interface conversion: interface {{}} is {}, not string",
                k.type_name()
            ));
        };
        let step = dict.get(k);
        let Some(step) = step else {
            return Ok(def);
        };
        if i == keys.len() - 1 {
            return Ok(step);
        }
        match step {
            Value::Map(m, Elem::Any) => dict = m,
            other => {
                return Err(format!(
                    "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
                    other.type_name()
                ))
            }
        }
    }
    Ok(def)
}

impl Value {
    /// The shared map inside a fresh map value.
    fn map_entries_ref(self) -> MapRef {
        match self {
            Value::Map(m, _) => m,
            _ => MapCell::new(BTreeMap::new()),
        }
    }
}
