//! Evaluation of a compiled select against a document, following gval's evaluables and
//! the JSONPath fork's selectors (`jsonpath/selector.go`, `jsonpath/path.go`).
//!
//! A path without wildcards yields one value (possibly Undefined) and passes errors on.
//! A path with any ambiguous selector yields a list of matches and never fails: each
//! branch that errors or ends Undefined is dropped. Where Go iterates a map (wildcards
//! and `..` over objects) the document's key order is used.

use serde_json::Value;

use super::ast::{Ambiguous, Entry, Node, Path, Pattern, Plain, Root, Segment};
use super::ops;
use super::value::{Val, View};
use kadmit_go::convert::float_to_int;
use kadmit_go::strconv::{atoi, quote};

/// One wildcard key of a match: an array index or object key, or for `..` the whole
/// relative path from where the descent started.
#[derive(Clone, Debug)]
pub(crate) enum KeyItem {
    Key(String),
    Path(Vec<String>),
}

/// The evaluation context: the document, `@`, and the wildcard keys that `#`/`#N`
/// read inside an object key.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'c, 'a> {
    pub root: &'a Value,
    pub current: &'c Val<'a>,
    pub placeholders: Option<&'c [KeyItem]>,
}

static NULL_DOC: Value = Value::Null;
static NULL_VAL: Val<'static> = Val::Null;

impl<'a> Ctx<'_, 'a> {
    pub fn new(root: &'a Value) -> Ctx<'a, 'a> {
        Ctx {
            root,
            current: &NULL_VAL,
            placeholders: None,
        }
    }
}

/// Evaluates a node that does not depend on the document (constant folding).
pub(crate) fn eval_detached(node: &Node) -> Result<Val<'static>, String> {
    eval(node, Ctx::new(&NULL_DOC))
}

pub(crate) fn eval<'a>(node: &Node, ctx: Ctx<'_, 'a>) -> Result<Val<'a>, String> {
    match node {
        Node::Const(v) => Ok(v.clone()),
        Node::Array(items) => items
            .iter()
            .map(|i| eval(i, ctx))
            .collect::<Result<_, _>>()
            .map(Val::List),
        Node::Object(entries) => eval_object(entries, ctx),
        Node::Placeholder(n) => placeholder(*n, ctx.placeholders),
        Node::Path(path) => eval_path(path, ctx),
        Node::Var(keys) => variable(keys, ctx),
        Node::CallVar { name, var, .. } => match variable(var, ctx) {
            Err(e) => Err(format!("could not call function: {e}")),
            Ok(v) => Err(format!("could not call '{name}' type {}", v.go_type())),
        },
        Node::Func(func, args) => {
            let args = args
                .iter()
                .map(|a| eval(a, ctx))
                .collect::<Result<_, _>>()?;
            ops::call(*func, args)
        }
        Node::Prefix(op, operand) => ops::prefix(*op, eval(operand, ctx)?),
        Node::Infix(op, lhs, rhs) => {
            let a = eval(lhs, ctx)?;
            if let Some(result) = ops::short_circuit(*op, &a) {
                return Ok(result);
            }
            let b = eval(rhs, ctx)?;
            ops::binary(*op, a, b)
        }
        Node::Regex {
            negate,
            lhs,
            pattern,
        } => {
            let lhs = eval(lhs, ctx)?;
            let text = lhs.text();
            let matched = match pattern {
                Pattern::Compiled(re) => re.is_match(&text),
                Pattern::Dynamic(p) => {
                    let source = eval(p, ctx)?.format();
                    kadmit_go::regexp::compile(&source)
                        .map_err(|e| e.to_string())?
                        .is_match(&text)
                }
            };
            Ok(Val::Bool(matched != *negate))
        }
        Node::If(condition, then, otherwise) => {
            let c = eval(condition, ctx)?;
            if c.is_false() || c.is_nil() {
                otherwise.as_ref().map_or(Ok(Val::Null), |o| eval(o, ctx))
            } else {
                eval(then, ctx)
            }
        }
    }
}

fn eval_string(node: &Node, ctx: Ctx<'_, '_>) -> Result<String, String> {
    eval(node, ctx).map(|v| v.format())
}

/// `#`/`#N` inside an object key.
fn placeholder<'a>(n: Option<usize>, keys: Option<&[KeyItem]>) -> Result<Val<'a>, String> {
    let unavailable = || {
        let shown = n.map_or("-1".to_string(), |i| i.to_string());
        format!("JSONPath placeholder #{shown} is not available")
    };
    let keys = keys.ok_or_else(unavailable)?;
    match n {
        None => Ok(Val::Str(select_key(keys))),
        Some(i) => match keys.get(i).ok_or_else(unavailable)? {
            KeyItem::Key(k) => Ok(Val::Str(k.clone())),
            KeyItem::Path(p) => Ok(Val::List(p.iter().map(|s| Val::Str(s.clone())).collect())),
        },
    }
}

/// The `#` key: `$` followed by `["k"]` per wildcard key, Go-quoted.
pub(crate) fn select_key(keys: &[KeyItem]) -> String {
    let mut out = String::from("$");
    for item in keys {
        let parts = match item {
            KeyItem::Key(k) => std::slice::from_ref(k),
            KeyItem::Path(p) => p.as_slice(),
        };
        for part in parts {
            out.push('[');
            out.push_str(&quote(part, false));
            out.push(']');
        }
    }
    out
}

fn eval_object<'a>(entries: &[Entry], ctx: Ctx<'_, 'a>) -> Result<Val<'a>, String> {
    let mut out: Vec<(String, Val<'a>)> = Vec::new();
    let mut insert = |key: String, value: Val<'a>| match out.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => out.push((key, value)),
    };
    for entry in entries {
        match entry {
            Entry::Pair { key, value } => {
                let value = eval(value, ctx)?;
                insert(eval_string(key, ctx)?, value);
            }
            Entry::Matcher { key, path } => {
                let mut failure = None;
                visit_path(path, ctx, &mut |keys, value| {
                    let kctx = Ctx {
                        placeholders: Some(keys),
                        ..ctx
                    };
                    match eval_string(key, kctx) {
                        Ok(k) => insert(k, value),
                        Err(e) => failure = Some(e),
                    }
                });
                if let Some(e) = failure {
                    return Err(e);
                }
            }
        }
    }
    Ok(Val::Map(out))
}

/// A gval variable: keys looked up from the document root; a missing map key is nil,
/// and going below nil (or a scalar) is an error.
fn variable<'a>(keys: &[Node], ctx: Ctx<'_, 'a>) -> Result<Val<'a>, String> {
    let keys: Vec<String> = keys
        .iter()
        .map(|k| eval_string(k, ctx))
        .collect::<Result<_, _>>()?;
    let mut v: Option<&'a Value> = Some(ctx.root);
    for (i, k) in keys.iter().enumerate() {
        v = match v {
            Some(Value::Object(map)) => map.get(k),
            Some(Value::Array(items)) => match atoi(k).and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n < items.len() => items.get(n),
                _ => return Err(format!("unknown parameter {}", keys[..=i].join("."))),
            },
            _ => return Err(format!("unknown parameter {}", keys[..=i].join("."))),
        };
    }
    Ok(v.map_or(Val::Null, Val::Json))
}

pub(crate) fn eval_path<'a>(path: &Path, ctx: Ctx<'_, 'a>) -> Result<Val<'a>, String> {
    if !path.is_ambiguous() {
        return run_plain(&path.segments, start(path, ctx), ctx);
    }
    let mut matches = Vec::new();
    visit_path(path, ctx, &mut |_, v| matches.push(v));
    Ok(Val::List(matches))
}

fn start<'a>(path: &Path, ctx: Ctx<'_, 'a>) -> Val<'a> {
    match path.root {
        Root::Doc => Val::Json(ctx.root),
        Root::Current => ctx.current.clone(),
    }
}

/// Calls `visit` with each match of the path and its wildcard keys, in order.
pub(crate) fn visit_path<'a>(
    path: &Path,
    ctx: Ctx<'_, 'a>,
    visit: &mut dyn FnMut(&[KeyItem], Val<'a>),
) {
    let plain = path
        .segments
        .iter()
        .take_while(|s| matches!(s, Segment::Plain(_)))
        .count();
    match run_plain(&path.segments[..plain], start(path, ctx), ctx) {
        Ok(v) if !v.is_undefined() => {
            visit_from(&path.segments[plain..], v, &mut Vec::new(), ctx, visit);
        }
        _ => {}
    }
}

/// `segments` starts with an ambiguous selector (or is empty: a complete match).
fn visit_from<'a>(
    segments: &[Segment],
    v: Val<'a>,
    keys: &mut Vec<KeyItem>,
    ctx: Ctx<'_, 'a>,
    visit: &mut dyn FnMut(&[KeyItem], Val<'a>),
) {
    let Some((Segment::Ambiguous(branch), rest)) = segments.split_first() else {
        visit(keys, v);
        return;
    };
    let ending = rest
        .iter()
        .take_while(|s| matches!(s, Segment::Plain(_)))
        .count();
    let (ending, rest) = rest.split_at(ending);
    for (key, m) in branch_matches(branch, &v, ctx) {
        let m = if ending.is_empty() {
            m
        } else {
            match run_plain(ending, m, ctx) {
                Ok(r) if !r.is_undefined() => r,
                _ => continue,
            }
        };
        keys.push(key);
        visit_from(rest, m, keys, ctx, visit);
        keys.pop();
    }
}

fn run_plain<'a>(
    segments: &[Segment],
    mut v: Val<'a>,
    ctx: Ctx<'_, 'a>,
) -> Result<Val<'a>, String> {
    for segment in segments {
        v = match segment {
            Segment::Plain(Plain::Key(key)) => select_child(key, &v, ctx)?,
            Segment::Plain(Plain::Script(script)) => eval(script, Ctx { current: &v, ..ctx })?,
            Segment::Ambiguous(_) => unreachable!("run_plain is given plain selectors only"),
        };
    }
    Ok(v)
}

/// `v[key]`, as [`select_value`] without the key's text.
fn select_child<'a>(key: &Node, v: &Val<'a>, ctx: Ctx<'_, 'a>) -> Result<Val<'a>, String> {
    match (key, v.view()) {
        (Node::Const(Val::Str(k)), View::Obj(map)) => {
            return Ok(map.get(k).unwrap_or(Val::Undefined));
        }
        (Node::Const(_), View::Null | View::Undefined) => return Ok(Val::Undefined),
        _ => {}
    }
    select_value(key, v, ctx).map(|(child, _)| child)
}

/// `selectValue`: `v[key]` with `@` bound to `v`, and the key as text.
fn select_value<'a>(
    key: &Node,
    v: &Val<'a>,
    ctx: Ctx<'_, 'a>,
) -> Result<(Val<'a>, String), String> {
    let kctx = Ctx { current: v, ..ctx };
    let invalid = |e: String| format!("could not select value, invalid key: {e}");
    match v.view() {
        View::Null | View::Undefined => Ok((Val::Undefined, eval_string(key, kctx).map_err(invalid)?)),
        View::Arr(items) => {
            let k = eval(key, kctx).map_err(invalid)?;
            let f = k
                .to_float()
                .ok_or_else(|| invalid(format!("expected number but got {} ({})", k.format(), k.go_type())))?;
            let i = float_to_int(f);
            match usize::try_from(i).ok().and_then(|u| items.get(u)) {
                Some(item) => Ok((item, i.to_string())),
                None => Err(format!("index {i} out of bounds")),
            }
        }
        View::Obj(map) => {
            let k = eval_string(key, kctx).map_err(invalid)?;
            Ok((map.get(&k).unwrap_or(Val::Undefined), k))
        }
        _ => Err(format!(
            "unsupported value type {} for select, expected map[string]interface{{}} or []interface{{}}",
            v.go_type()
        )),
    }
}

/// Array elements or object entries (document order), with their keys.
fn children<'a>(v: &Val<'a>) -> Vec<(String, Val<'a>)> {
    match v.view() {
        View::Arr(items) => items
            .items()
            .into_iter()
            .enumerate()
            .map(|(i, x)| (i.to_string(), x))
            .collect(),
        View::Obj(map) => map.entries(),
        _ => Vec::new(),
    }
}

fn branch_matches<'a>(
    branch: &Ambiguous,
    v: &Val<'a>,
    ctx: Ctx<'_, 'a>,
) -> Vec<(KeyItem, Val<'a>)> {
    let keyed = |(k, x): (String, Val<'a>)| (KeyItem::Key(k), x);
    match branch {
        Ambiguous::Star => children(v).into_iter().map(keyed).collect(),
        Ambiguous::Multi(keys) => keys
            .iter()
            .filter_map(|k| select_value(k, v, ctx).ok())
            .filter(|(x, _)| !x.is_undefined())
            .map(|(x, k)| (KeyItem::Key(k), x))
            .collect(),
        Ambiguous::Filter(condition) => children(v)
            .into_iter()
            .filter(|(_, x)| {
                let fctx = Ctx { current: x, ..ctx };
                eval(condition, fctx).ok().and_then(|c| c.to_bool()) == Some(true)
            })
            .map(keyed)
            .collect(),
        Ambiguous::Range(bounds) => range(bounds, v, ctx),
        Ambiguous::Mapper => {
            let mut out = Vec::new();
            let mut stack = vec![(Vec::<String>::new(), v.clone())];
            while let Some((path, x)) = stack.pop() {
                for (k, child) in children(&x).into_iter().rev() {
                    let mut child_path = path.clone();
                    child_path.push(k);
                    stack.push((child_path, child));
                }
                out.push((KeyItem::Path(path), x));
            }
            out
        }
    }
}

/// `[min:max:step]` over an array, with the fork's order of checks (`min > max` before
/// negative bounds are normalised).
fn range<'a>(bounds: &[Node; 3], v: &Val<'a>, ctx: Ctx<'_, 'a>) -> Vec<(KeyItem, Val<'a>)> {
    let View::Arr(items) = v.view() else {
        return Vec::new();
    };
    let rctx = Ctx { current: v, ..ctx };
    let int = |n: &Node| eval(n, rctx).ok()?.to_float().map(float_to_int);
    let (Some(min), Some(max), Some(step)) = (int(&bounds[0]), int(&bounds[1]), int(&bounds[2]))
    else {
        return Vec::new();
    };
    if min > max {
        return Vec::new();
    }
    let n = i64::try_from(items.len()).unwrap_or(i64::MAX);
    let clamp = |i: i64| if i < 0 { (n + i).max(0) } else { i.min(n) };
    let (min, max) = (clamp(min), clamp(max));
    let step = if step == 0 { 1 } else { step };
    let mut out = Vec::new();
    let mut i = if step > 0 { min } else { max - 1 };
    while (step > 0 && i < max) || (step < 0 && i >= min) {
        if let Some(item) = usize::try_from(i).ok().and_then(|u| items.get(u)) {
            out.push((KeyItem::Key(i.to_string()), item));
        }
        match i.checked_add(step) {
            Some(next) => i = next,
            None => break,
        }
    }
    out
}
