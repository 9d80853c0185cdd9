//! Go 1.18's builtin template functions: `and or not len index call print printf println
//! html js urlquery eq ne lt le gt ge`, with Go's comparison rules (no mixing of `int`
//! and `float64`) and error texts. (`slice` is Sprig's in KubeMod, see `sprig_lists`.)

use super::fmt::{sprint, sprintln};
use super::funcs::{f, fv, Args, Ctx, FuncDef, Imp, Table, P};
use super::printf::sprintf;
use super::value::{BasicKind, Slot, Value};

pub(crate) const FUNCS: Table = &[
    (
        "and",
        FuncDef {
            params: &[P::Rv],
            variadic: Some(P::Rv),
            boxed: false,
            imp: Imp::AndOr(false),
        },
    ),
    (
        "or",
        FuncDef {
            params: &[P::Rv],
            variadic: Some(P::Rv),
            boxed: false,
            imp: Imp::AndOr(true),
        },
    ),
    ("not", f(&[P::Rv], not)),
    ("len", f(&[P::Rv], len)),
    (
        "index",
        FuncDef {
            params: &[P::Rv],
            variadic: Some(P::Rv),
            boxed: false,
            imp: Imp::Slot(index),
        },
    ),
    (
        "call",
        FuncDef {
            params: &[P::Rv],
            variadic: Some(P::Rv),
            boxed: false,
            imp: Imp::Slot(call),
        },
    ),
    ("print", fv(&[], P::Any, print)),
    ("printf", fv(&[P::Str], P::Any, printf)),
    ("println", fv(&[], P::Any, println)),
    ("html", fv(&[], P::Any, html)),
    ("js", fv(&[], P::Any, js)),
    ("urlquery", fv(&[], P::Any, urlquery)),
    ("eq", fv(&[P::Rv], P::Rv, eq)),
    ("ne", f(&[P::Rv, P::Rv], ne)),
    ("lt", f(&[P::Rv, P::Rv], lt)),
    ("le", f(&[P::Rv, P::Rv], le)),
    ("gt", f(&[P::Rv, P::Rv], gt)),
    ("ge", f(&[P::Rv, P::Rv], ge)),
];

const BAD_TYPE: &str = "invalid type for comparison";
const BAD_COMPARISON: &str = "incompatible types for comparison";

fn not(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    Ok(Value::Bool(
        !a.slot(0).concrete().map(Value::truth).unwrap_or(false),
    ))
}

fn len(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    let s = a.slot(0);
    let n = match &s.v {
        None => return Err("reflect: call of reflect.Value.Type on zero Value".into()),
        Some(Value::Nil) => return Err("len of nil pointer".into()),
        Some(Value::Str(x)) => x.len(),
        Some(Value::List(l, _)) => l.len(),
        Some(Value::Map(m, _)) => m.len(),
        Some(Value::Version(_)) => return Err("len of type semver.Version".into()),
        Some(other) => return Err(format!("len of type {}", other.type_name())),
    };
    Ok(Value::Int(n as i64))
}

fn index_arg(index: Option<&Value>, cap: usize) -> Result<usize, String> {
    let x = match index {
        None => return Err("cannot index slice/array with nil".into()),
        Some(v) => match v.as_i64() {
            Some(x) => x,
            None => {
                return Err(format!(
                    "cannot index slice/array with type {}",
                    v.type_name()
                ))
            }
        },
    };
    if x < 0 || x as u64 > cap as u64 {
        return Err(format!("index out of range: {x}"));
    }
    Ok(x as usize)
}

fn index(_: &mut Ctx, a: &Args) -> Result<Slot, String> {
    let Some(item) = a.slot(0).concrete().cloned() else {
        return Err("index of untyped nil".into());
    };
    let mut cur = Slot::plain(item);
    for i in 1..a.len() {
        let idx = a.slot(i);
        let idx = idx.concrete();
        let value = match &cur.v {
            Some(Value::Nil) | None => return Err("index of nil pointer".into()),
            Some(v) => v.clone(),
        };
        cur = match &value {
            Value::List(items, _) => {
                let x = index_arg(idx, items.len())?;
                match items.get(x) {
                    Some(v) => Slot::elem_of(&value, v.clone()),
                    None => return Err(format!("index out of range: {x}")),
                }
            }
            Value::Str(s) => {
                let x = index_arg(idx, s.len())?;
                match s.as_bytes().get(x) {
                    Some(b) => Slot::plain(Value::Uint(u64::from(*b), true)),
                    None => return Err(format!("index out of range: {x}")),
                }
            }
            Value::Map(m, elem) => {
                let key = match idx {
                    None => return Err("value is nil; should be of type string".into()),
                    Some(Value::Str(k)) => k.to_string(),
                    Some(other) => {
                        return Err(format!(
                            "value has type {}; should be string",
                            other.type_name()
                        ))
                    }
                };
                let found = m.get(&key);
                match found {
                    Some(v) => Slot::elem_of(&value, v),
                    None if *elem == super::value::Elem::Str => Slot::plain(Value::str("")),
                    None => Slot::boxed(Value::Nil),
                }
            }
            Value::Version(_) => return Err("can't index item of type semver.Version".into()),
            other => return Err(format!("can't index item of type {}", other.type_name())),
        };
    }
    Ok(cur)
}

fn call(_: &mut Ctx, a: &Args) -> Result<Slot, String> {
    match a.slot(0).concrete() {
        None => Err("call of nil".into()),
        Some(v) => Err(format!("non-function of type {}", v.type_name())),
    }
}

fn print(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    sprint(&a.rest(0)).map(Value::str)
}

fn printf(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    sprintf(&a.s(0), &a.rest(1)).map(Value::str)
}

fn println(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    sprintln(&a.rest(0)).map(Value::str)
}

/// Go's `evalArgs`: one string as is, otherwise `Sprint` with nil shown as `<no value>`.
fn eval_args(a: &Args) -> Result<String, String> {
    let args = a.rest(0);
    if let [Value::Str(s)] = args.as_slice() {
        return Ok(s.to_string());
    }
    let args: Vec<Value> = args
        .into_iter()
        .map(|v| match v {
            Value::Nil => Value::str("<no value>"),
            other => other,
        })
        .collect();
    sprint(&args)
}

fn html(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    let s = eval_args(a)?;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Ok(Value::str(out))
}

fn js(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    let s = eval_args(a)?;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if c.is_ascii() || kadmit_go::strconv::is_print(c) => out.push(c),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    Ok(Value::str(out))
}

fn urlquery(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    let s = eval_args(a)?;
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    Ok(Value::str(out))
}

fn comparable(v: &Value) -> bool {
    !matches!(v, Value::List(..) | Value::Map(..))
}

/// `a == b` by Go's rules; `Err` for the comparison errors.
fn equal(a1: Option<&Value>, a: Option<&Value>) -> Result<bool, String> {
    let k1 = a1.map(Value::basic_kind).unwrap_or(BasicKind::Invalid);
    let k2 = a.map(Value::basic_kind).unwrap_or(BasicKind::Invalid);
    let (Some(x), Some(y)) = (a1, a) else {
        if k1 != k2 && a1.is_some() && a.is_some() {
            return Err(BAD_COMPARISON.into());
        }
        return Ok(a1.is_none() && a.is_none());
    };
    if k1 != k2 {
        return match (k1, k2) {
            (BasicKind::Int, BasicKind::Uint) | (BasicKind::Uint, BasicKind::Int) => {
                let (i, u) = if k1 == BasicKind::Int { (x, y) } else { (y, x) };
                let (Some(i), Value::Uint(u, _)) = (i.as_i64(), u) else {
                    return Ok(false);
                };
                Ok(i >= 0 && i as u64 == *u)
            }
            _ => Err(BAD_COMPARISON.into()),
        };
    }
    Ok(match (x, y) {
        (Value::Bool(p), Value::Bool(q)) => p == q,
        (Value::Float(p), Value::Float(q)) => p == q,
        (Value::Str(p), Value::Str(q)) => p == q,
        (Value::Uint(p, _), Value::Uint(q, _)) => p == q,
        _ if k1 == BasicKind::Int => x.as_i64() == y.as_i64(),
        (Value::Version(p), Value::Version(q)) => std::rc::Rc::ptr_eq(p, q),
        _ => {
            if !comparable(y) {
                return Err(BAD_TYPE.into());
            }
            false
        }
    })
}

fn eq(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    let first = a.slot(0);
    let a1 = first.concrete();
    if let Some(v) = a1 {
        if !comparable(v) {
            return Err(BAD_TYPE.into());
        }
    }
    if a.len() < 2 {
        return Err("missing argument for comparison".into());
    }
    for i in 1..a.len() {
        let other = a.slot(i);
        if equal(a1, other.concrete())? {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

fn ne(c: &mut Ctx, a: &Args) -> Result<Value, String> {
    let Value::Bool(b) = eq(c, a)? else {
        return Ok(Value::Bool(false));
    };
    Ok(Value::Bool(!b))
}

fn less(a: &Args) -> Result<bool, String> {
    let (s1, s2) = (a.slot(0), a.slot(1));
    let (Some(x), Some(y)) = (s1.concrete(), s2.concrete()) else {
        return Err(BAD_TYPE.into());
    };
    let (k1, k2) = (x.basic_kind(), y.basic_kind());
    if k1 == BasicKind::Invalid || k2 == BasicKind::Invalid {
        return Err(BAD_TYPE.into());
    }
    if k1 != k2 {
        return match (x, y) {
            (Value::Uint(u, _), other) if k2 == BasicKind::Int => {
                let i = other.as_i64().unwrap_or(0);
                Ok(i >= 0 && *u < i as u64)
            }
            (other, Value::Uint(u, _)) if k1 == BasicKind::Int => {
                let i = other.as_i64().unwrap_or(0);
                Ok(i < 0 || (i as u64) < *u)
            }
            _ => Err(BAD_COMPARISON.into()),
        };
    }
    match (x, y) {
        (Value::Bool(_), _) => Err(BAD_TYPE.into()),
        (Value::Float(p), Value::Float(q)) => Ok(p < q),
        (Value::Str(p), Value::Str(q)) => Ok(p < q),
        (Value::Uint(p, _), Value::Uint(q, _)) => Ok(p < q),
        _ => Ok(x.as_i64() < y.as_i64()),
    }
}

fn lt(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    less(a).map(Value::Bool)
}

fn le(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    if less(a)? {
        return Ok(Value::Bool(true));
    }
    let (s1, s2) = (a.slot(0), a.slot(1));
    equal(s1.concrete(), s2.concrete()).map(Value::Bool)
}

fn gt(c: &mut Ctx, a: &Args) -> Result<Value, String> {
    let Value::Bool(b) = le(c, a)? else {
        return Ok(Value::Bool(false));
    };
    Ok(Value::Bool(!b))
}

fn ge(_: &mut Ctx, a: &Args) -> Result<Value, String> {
    less(a).map(|b| Value::Bool(!b))
}
