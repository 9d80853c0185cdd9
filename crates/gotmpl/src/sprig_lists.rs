//! Sprig v3.2.2 list functions (the plain and `must` forms fail the same way in a
//! template), defaults and flow control (`default empty coalesce all any ternary fail`),
//! and reflection (`typeOf kindOf typeIs typeIsLike kindIs deepEqual`).

use super::funcs::{boxed, f, fv, Args, Ctx, Table, P};
use super::value::{deep_equal, Elem, Value};
use std::rc::Rc;

type Res = Result<Value, String>;

const NIL_DEREF: &str = "runtime error: invalid memory address or nil pointer dereference";

pub(crate) const FUNCS: Table = &[
    ("list", fv(&[], P::Any, |_, a| Ok(Value::list(a.rest(0))))),
    ("tuple", fv(&[], P::Any, |_, a| Ok(Value::list(a.rest(0))))),
    ("append", f(&[P::Any, P::Any], push)),
    ("push", f(&[P::Any, P::Any], push)),
    ("mustAppend", f(&[P::Any, P::Any], push)),
    ("mustPush", f(&[P::Any, P::Any], push)),
    ("prepend", f(&[P::Any, P::Any], prepend)),
    ("mustPrepend", f(&[P::Any, P::Any], prepend)),
    ("first", boxed(f(&[P::Any], first))),
    ("mustFirst", boxed(f(&[P::Any], first))),
    ("last", boxed(f(&[P::Any], last))),
    ("mustLast", boxed(f(&[P::Any], last))),
    ("rest", f(&[P::Any], rest)),
    ("mustRest", f(&[P::Any], rest)),
    ("initial", f(&[P::Any], initial)),
    ("mustInitial", f(&[P::Any], initial)),
    ("reverse", f(&[P::Any], reverse)),
    ("mustReverse", f(&[P::Any], reverse)),
    ("compact", f(&[P::Any], compact)),
    ("mustCompact", f(&[P::Any], compact)),
    ("uniq", f(&[P::Any], uniq)),
    ("mustUniq", f(&[P::Any], uniq)),
    ("without", fv(&[P::Any], P::Any, without)),
    ("mustWithout", fv(&[P::Any], P::Any, without)),
    ("has", f(&[P::Any, P::Any], has)),
    ("mustHas", f(&[P::Any, P::Any], has)),
    ("slice", boxed(fv(&[P::Any], P::Any, slice))),
    ("mustSlice", boxed(fv(&[P::Any], P::Any, slice))),
    ("concat", boxed(fv(&[], P::Any, concat))),
    ("chunk", f(&[P::Int, P::Any], chunk)),
    ("mustChunk", f(&[P::Int, P::Any], chunk)),
    (
        "default",
        boxed(fv(&[P::Any], P::Any, |_, a| {
            let given = a.v(1);
            Ok(if a.len() < 2 || !given.truth() {
                a.v(0)
            } else {
                given
            })
        })),
    ),
    (
        "empty",
        f(&[P::Any], |_, a| Ok(Value::Bool(!a.v(0).truth()))),
    ),
    (
        "coalesce",
        boxed(fv(&[], P::Any, |_, a| {
            Ok(a.rest(0)
                .into_iter()
                .find(Value::truth)
                .unwrap_or(Value::Nil))
        })),
    ),
    (
        "all",
        fv(&[], P::Any, |_, a| {
            Ok(Value::Bool(a.rest(0).iter().all(Value::truth)))
        }),
    ),
    (
        "any",
        fv(&[], P::Any, |_, a| {
            Ok(Value::Bool(a.rest(0).iter().any(Value::truth)))
        }),
    ),
    (
        "ternary",
        boxed(f(&[P::Any, P::Any, P::Bool], |_, a| {
            Ok(if a.b(2) { a.v(0) } else { a.v(1) })
        })),
    ),
    ("fail", f(&[P::Str], |_, a| Err(a.s(0)))),
    (
        "typeOf",
        f(&[P::Any], |_, a| Ok(Value::str(a.v(0).type_name()))),
    ),
    (
        "kindOf",
        f(&[P::Any], |_, a| Ok(Value::str(a.v(0).kind_name()))),
    ),
    (
        "typeIs",
        f(&[P::Str, P::Any], |_, a| {
            Ok(Value::Bool(a.s(0) == a.v(1).type_name()))
        }),
    ),
    (
        "typeIsLike",
        f(&[P::Str, P::Any], |_, a| {
            let (target, t) = (a.s(0), a.v(1).type_name());
            Ok(Value::Bool(target == t || format!("*{target}") == t))
        }),
    ),
    (
        "kindIs",
        f(&[P::Str, P::Any], |_, a| {
            Ok(Value::Bool(a.s(0) == a.v(1).kind_name()))
        }),
    ),
    (
        "deepEqual",
        f(&[P::Any, P::Any], |_, a| {
            Ok(Value::Bool(deep_equal(&a.v(0), &a.v(1))))
        }),
    ),
];

/// The items of a list argument, or Sprig's error for anything else.
fn items(v: &Value, what: &str) -> Result<Vec<Value>, String> {
    match v {
        Value::List(items, _) => Ok(items.as_ref().clone()),
        Value::Nil => Err(NIL_DEREF.into()),
        other => Err(format!("Cannot {what} on type {}", other.kind_name())),
    }
}

fn push(c: &mut Ctx, a: &Args) -> Res {
    let mut l = items(&a.v(0), "push")?;
    c.charge(l.len() as u64)?;
    l.push(a.v(1));
    Ok(Value::list(l))
}

fn prepend(c: &mut Ctx, a: &Args) -> Res {
    let mut l = items(&a.v(0), "prepend")?;
    c.charge(l.len() as u64)?;
    l.insert(0, a.v(1));
    Ok(Value::list(l))
}

fn first(_: &mut Ctx, a: &Args) -> Res {
    Ok(items(&a.v(0), "find first")?
        .into_iter()
        .next()
        .unwrap_or(Value::Nil))
}

fn last(_: &mut Ctx, a: &Args) -> Res {
    Ok(items(&a.v(0), "find last")?.pop().unwrap_or(Value::Nil))
}

fn rest(_: &mut Ctx, a: &Args) -> Res {
    let l = items(&a.v(0), "find rest")?;
    Ok(Value::list(l.into_iter().skip(1).collect()))
}

fn initial(_: &mut Ctx, a: &Args) -> Res {
    let mut l = items(&a.v(0), "find initial")?;
    l.pop();
    Ok(Value::list(l))
}

fn reverse(_: &mut Ctx, a: &Args) -> Res {
    let mut l = items(&a.v(0), "find reverse")?;
    l.reverse();
    Ok(Value::list(l))
}

fn compact(_: &mut Ctx, a: &Args) -> Res {
    let l = items(&a.v(0), "compact")?;
    Ok(Value::list(l.into_iter().filter(Value::truth).collect()))
}

fn uniq(c: &mut Ctx, a: &Args) -> Res {
    let l = items(&a.v(0), "find uniq")?;
    c.charge((l.len() as u64).saturating_mul(l.len() as u64) / 16)?;
    let mut out: Vec<Value> = Vec::new();
    for item in l {
        if !out.iter().any(|o| deep_equal(&item, o)) {
            out.push(item);
        }
    }
    Ok(Value::list(out))
}

fn without(c: &mut Ctx, a: &Args) -> Res {
    let l = items(&a.v(0), "find without")?;
    let omit = a.rest(1);
    c.charge((l.len() as u64).saturating_mul(omit.len() as u64) / 16)?;
    Ok(Value::list(
        l.into_iter()
            .filter(|i| !omit.iter().any(|o| deep_equal(i, o)))
            .collect(),
    ))
}

fn has(_: &mut Ctx, a: &Args) -> Res {
    let haystack = a.v(1);
    if let Value::Nil = haystack {
        return Ok(Value::Bool(false));
    }
    let needle = a.v(0);
    let l = items(&haystack, "find has")?;
    Ok(Value::Bool(l.iter().any(|i| deep_equal(&needle, i))))
}

fn slice(_: &mut Ctx, a: &Args) -> Res {
    let v = a.v(0);
    let (list, elem) = match &v {
        Value::List(l, e) => (l.clone(), *e),
        Value::Nil => return Err(NIL_DEREF.into()),
        other => {
            return Err(format!(
                "list should be type of slice or array but {}",
                other.kind_name()
            ))
        }
    };
    if list.is_empty() {
        return Ok(Value::Nil);
    }
    let start = if a.len() > 1 {
        super::sprig_math::to_i64(&a.v(1))
    } else {
        0
    };
    let end = if a.len() > 2 {
        super::sprig_math::to_i64(&a.v(2))
    } else {
        list.len() as i64
    };
    if start < 0 || end < start || end as u64 > list.len() as u64 {
        return Err("reflect: slice index out of range".into());
    }
    Ok(Value::List(
        Rc::new(list[start as usize..end as usize].to_vec()),
        elem,
    ))
}

fn concat(c: &mut Ctx, a: &Args) -> Res {
    let mut out = Vec::new();
    for l in a.rest(0) {
        match &l {
            Value::List(items, _) => {
                c.charge(items.len() as u64)?;
                out.extend(items.iter().cloned());
            }
            Value::Nil => return Err(NIL_DEREF.into()),
            other => return Err(format!("Cannot concat type {} as list", other.kind_name())),
        }
    }
    Ok(Value::list(out))
}

fn chunk(c: &mut Ctx, a: &Args) -> Res {
    let size = a.i(0);
    let l = items(&a.v(1), "chunk")
        .map_err(|e| e.replace("Cannot chunk on type", "Cannot chunk type"))?;
    let len = l.len() as i64;
    let cs = ((len - 1) as f64 / size as f64).floor() + 1.0;
    if !cs.is_finite() || cs < 0.0 || cs > l.len() as f64 + 1.0 {
        return Err("runtime error: makeslice: len out of range".into());
    }
    let cs = cs as i64;
    c.charge(cs.max(0) as u64)?;
    let mut out = Vec::new();
    for i in 0..cs {
        let mut clen = size;
        if i == cs - 1 {
            clen = ((len as f64) % (size as f64)).floor() as i64;
            if clen == 0 {
                clen = size;
            }
        }
        if clen < 0 {
            return Err("runtime error: makeslice: len out of range".into());
        }
        let mut part = Vec::new();
        for j in 0..clen {
            let ix = i * size + j;
            match usize::try_from(ix).ok().and_then(|ix| l.get(ix)) {
                Some(v) => part.push(v.clone()),
                None => return Err("reflect: slice index out of range".into()),
            }
        }
        out.push(Value::List(Rc::new(part), Elem::Any));
    }
    Ok(Value::list(out))
}
