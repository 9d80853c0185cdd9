//! Sprig v3.2.2 string functions (the word and case ones are in `sprig_words.rs`), and
//! Sprig's `strval`/`strslice` conversions that other functions share.

use super::fmt::sprint_one;
use super::funcs::{f, fv, Args, Ctx, Table, P};
use super::value::{Elem, MapCell, Value};
use kadmit_go::strconv::quote;
use std::collections::BTreeMap;

type Res = Result<Value, String>;

pub(crate) const FUNCS: Table = &[
    ("hello", f(&[], |_, _| Ok(Value::str("Hello!")))),
    ("trunc", f(&[P::Int, P::Str], trunc)),
    ("trim", f(&[P::Str], |_, a| Ok(Value::str(a.s(0).trim())))),
    (
        "upper",
        f(&[P::Str], |_, a| {
            Ok(Value::str(map_chars(&a.s(0), char::to_uppercase)))
        }),
    ),
    (
        "lower",
        f(&[P::Str], |_, a| {
            Ok(Value::str(map_chars(&a.s(0), char::to_lowercase)))
        }),
    ),
    ("substr", f(&[P::Int, P::Int, P::Str], substr)),
    ("repeat", f(&[P::Int, P::Str], repeat)),
    ("trimall", f(&[P::Str, P::Str], trim_all)),
    ("trimAll", f(&[P::Str, P::Str], trim_all)),
    (
        "trimSuffix",
        f(&[P::Str, P::Str], |_, a| {
            let (x, s) = (a.s(0), a.s(1));
            Ok(Value::str(s.strip_suffix(x.as_str()).unwrap_or(&s)))
        }),
    ),
    (
        "trimPrefix",
        f(&[P::Str, P::Str], |_, a| {
            let (x, s) = (a.s(0), a.s(1));
            Ok(Value::str(s.strip_prefix(x.as_str()).unwrap_or(&s)))
        }),
    ),
    (
        "contains",
        f(&[P::Str, P::Str], |_, a| {
            Ok(Value::Bool(a.s(1).contains(&a.s(0))))
        }),
    ),
    (
        "hasPrefix",
        f(&[P::Str, P::Str], |_, a| {
            Ok(Value::Bool(a.s(1).starts_with(&a.s(0))))
        }),
    ),
    (
        "hasSuffix",
        f(&[P::Str, P::Str], |_, a| {
            Ok(Value::Bool(a.s(1).ends_with(&a.s(0))))
        }),
    ),
    ("quote", fv(&[], P::Any, quote_fn)),
    ("squote", fv(&[], P::Any, squote)),
    ("cat", fv(&[], P::Any, cat)),
    (
        "indent",
        f(&[P::Int, P::Str], |c, a| {
            indent(c, a.i(0), &a.s(1)).map(Value::str)
        }),
    ),
    (
        "nindent",
        f(&[P::Int, P::Str], |c, a| {
            indent(c, a.i(0), &a.s(1)).map(|s| Value::str(format!("\n{s}")))
        }),
    ),
    ("replace", f(&[P::Str, P::Str, P::Str], replace)),
    (
        "plural",
        f(&[P::Str, P::Str, P::Int], |_, a| {
            Ok(Value::str(if a.i(2) == 1 { a.s(0) } else { a.s(1) }))
        }),
    ),
    (
        "toString",
        f(&[P::Any], |_, a| strval(&a.v(0)).map(Value::str)),
    ),
    (
        "split",
        f(&[P::Str, P::Str], |_, a| {
            Ok(parts_map(go_split(&a.s(1), &a.s(0), -1)))
        }),
    ),
    (
        "splitn",
        f(&[P::Str, P::Int, P::Str], |_, a| {
            Ok(parts_map(go_split(&a.s(2), &a.s(0), a.i(1))))
        }),
    ),
    (
        "splitList",
        f(&[P::Str, P::Str], |_, a| {
            Ok(Value::str_list(go_split(&a.s(1), &a.s(0), -1)))
        }),
    ),
    (
        "toStrings",
        f(&[P::Any], |_, a| strslice(&a.v(0)).map(Value::str_list)),
    ),
    ("join", f(&[P::Str, P::Any], join)),
    ("sortAlpha", f(&[P::Any], sort_alpha)),
];

/// Sprig's `strval`: strings as they are, a version by its `String()`, the rest `%v`.
pub(crate) fn strval(v: &Value) -> Result<String, String> {
    match v {
        Value::Str(s) => Ok(s.to_string()),
        Value::Version(ver) => Ok(ver.to_string()),
        other => sprint_one(other),
    }
}

/// Sprig's `strslice`: a list as strings (nil elements skipped), nil as `[]`, anything
/// else as a one-element list.
pub(crate) fn strslice(v: &Value) -> Result<Vec<String>, String> {
    match v {
        Value::List(items, Elem::Str) => Ok(items
            .iter()
            .filter_map(|i| i.as_str().map(String::from))
            .collect()),
        Value::List(items, _) => items
            .iter()
            .filter(|i| !matches!(i, Value::Nil))
            .map(strval)
            .collect(),
        Value::Nil => Ok(Vec::new()),
        other => Ok(vec![strval(other)?]),
    }
}

fn map_chars<I: Iterator<Item = char>>(s: &str, f: impl Fn(char) -> I) -> String {
    s.chars()
        .map(|c| {
            let mut it = f(c);
            match (it.next(), it.next()) {
                (Some(one), None) => one,
                _ => c,
            }
        })
        .collect()
}

pub(crate) fn upper1(c: char) -> char {
    let mut it = c.to_uppercase();
    match (it.next(), it.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

pub(crate) fn lower1(c: char) -> char {
    let mut it = c.to_lowercase();
    match (it.next(), it.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// Bytes back to text; a cut through a character becomes U+FFFD.
pub(crate) fn text(b: &[u8]) -> Value {
    Value::str(String::from_utf8_lossy(b).as_ref())
}

fn trunc(_: &mut Ctx, a: &Args) -> Res {
    let (c, s) = (a.i(0), a.s(1));
    let b = s.as_bytes();
    let len = b.len() as i64;
    if c < 0 && len + c > 0 {
        return Ok(text(&b[(len + c) as usize..]));
    }
    if c >= 0 && len > c {
        return Ok(text(&b[..c as usize]));
    }
    Ok(Value::str(s))
}

fn slice_err(lo: i64, hi: i64, len: usize) -> String {
    if hi < 0 || hi as u64 > len as u64 {
        if hi < 0 {
            return format!("runtime error: slice bounds out of range [:{hi}]");
        }
        return format!("runtime error: slice bounds out of range [:{hi}] with length {len}");
    }
    format!("runtime error: slice bounds out of range [{lo}:{hi}]")
}

/// Go's `s[lo:hi]` on bytes, with its runtime error.
fn go_slice(s: &str, lo: i64, hi: i64) -> Res {
    let b = s.as_bytes();
    if hi < 0 || hi as u64 > b.len() as u64 || lo < 0 || lo > hi {
        return Err(slice_err(lo, hi, b.len()));
    }
    Ok(text(&b[lo as usize..hi as usize]))
}

fn substr(_: &mut Ctx, a: &Args) -> Res {
    let (start, end, s) = (a.i(0), a.i(1), a.s(2));
    let len = s.len() as i64;
    if start < 0 {
        return go_slice(&s, 0, end);
    }
    if end < 0 || end > len {
        return go_slice(&s, start, len);
    }
    go_slice(&s, start, end)
}

fn repeat(c: &mut Ctx, a: &Args) -> Res {
    let (n, s) = (a.i(0), a.s(1));
    if n < 0 {
        return Err("strings: negative Repeat count".into());
    }
    c.check_size(
        (s.len() as u64)
            .saturating_mul(n as u64)
            .min(usize::MAX as u64) as usize,
    )?;
    Ok(Value::str(s.repeat(n as usize)))
}

fn trim_all(_: &mut Ctx, a: &Args) -> Res {
    let (cut, s) = (a.s(0), a.s(1));
    Ok(Value::str(s.trim_matches(|c| cut.contains(c))))
}

fn quote_fn(_: &mut Ctx, a: &Args) -> Res {
    let parts = a
        .rest(0)
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(|v| strval(v).map(|s| quote(&s, false)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Value::str(parts.join(" ")))
}

fn squote(_: &mut Ctx, a: &Args) -> Res {
    let parts = a
        .rest(0)
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(|v| sprint_one(v).map(|s| format!("'{s}'")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Value::str(parts.join(" ")))
}

fn cat(_: &mut Ctx, a: &Args) -> Res {
    let parts = a
        .rest(0)
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(sprint_one)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Value::str(parts.join(" ")))
}

fn indent(c: &mut Ctx, spaces: i64, s: &str) -> Result<String, String> {
    if spaces < 0 {
        return Err("strings: negative Repeat count".into());
    }
    let lines = s.matches('\n').count() as u64 + 1;
    let size = (spaces as u64)
        .saturating_mul(lines)
        .saturating_add(s.len() as u64 + 1);
    c.check_size(size.min(usize::MAX as u64) as usize)?;
    let pad = " ".repeat(spaces as usize);
    Ok(format!("{pad}{}", s.replace('\n', &format!("\n{pad}"))))
}

fn replace(c: &mut Ctx, a: &Args) -> Res {
    let (old, new, src) = (a.s(0), a.s(1), a.s(2));
    let count = if old.is_empty() {
        src.chars().count() as u64 + 1
    } else {
        src.matches(old.as_str()).count() as u64
    };
    c.check_size(
        (src.len() as u64 + count.saturating_mul(new.len() as u64)).min(usize::MAX as u64) as usize,
    )?;
    if old.is_empty() {
        let mut out = String::from(new.as_str());
        for ch in src.chars() {
            out.push(ch);
            out.push_str(&new);
        }
        return Ok(Value::str(out));
    }
    Ok(Value::str(src.replace(old.as_str(), &new)))
}

/// Go's `strings.SplitN` (`n < 0`: all parts).
pub(crate) fn go_split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let chars: Vec<String> = s.chars().map(String::from).collect();
        if n < 0 || chars.len() <= n as usize {
            return chars;
        }
        let n = n as usize;
        let mut out: Vec<String> = chars[..n - 1].to_vec();
        out.push(chars[n - 1..].concat());
        return out;
    }
    if n < 0 {
        return s.split(sep).map(String::from).collect();
    }
    s.splitn(n as usize, sep).map(String::from).collect()
}

fn parts_map(parts: Vec<String>) -> Value {
    let map: BTreeMap<String, Value> = parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("_{i}"), Value::str(p)))
        .collect();
    Value::Map(MapCell::new(map), Elem::Str)
}

fn join(c: &mut Ctx, a: &Args) -> Res {
    let parts = strslice(&a.v(1))?;
    let sep = a.s(0);
    let size = parts.iter().map(String::len).sum::<usize>() as u64
        + (sep.len() as u64).saturating_mul(parts.len() as u64);
    c.check_size(size.min(usize::MAX as u64) as usize)?;
    Ok(Value::str(parts.join(&sep)))
}

fn sort_alpha(_: &mut Ctx, a: &Args) -> Res {
    let v = a.v(0);
    let mut items = match &v {
        Value::List(..) => strslice(&v)?,
        other => vec![strval(other)?],
    };
    items.sort();
    Ok(Value::str_list(items))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_like_go() {
        assert_eq!(go_split("a,b,c", ",", -1), vec!["a", "b", "c"]);
        assert_eq!(go_split("a,b,c", ",", 2), vec!["a", "b,c"]);
        assert_eq!(go_split("abc", "", -1), vec!["a", "b", "c"]);
        assert_eq!(go_split("abc", "", 2), vec!["a", "bc"]);
        assert_eq!(go_split("", ",", -1), vec![""]);
        assert!(go_split("a", ",", 0).is_empty());
    }
}
