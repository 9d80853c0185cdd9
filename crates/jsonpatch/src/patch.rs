//! JSON Pointer (RFC 6901) and JSON Patch (RFC 6902) with the extensions admission engines
//! rely on: creating missing parents on `add`, negative array indices, and ignoring a
//! `remove` of a path that is not there. A patch applies atomically: all or nothing.

use crate::pointer::tokens;
use serde_json::map::Entry;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Add { path: String, value: Value },
    Replace { path: String, value: Value },
    Remove { path: String },
}

impl Op {
    pub fn path(&self) -> &str {
        match self {
            Op::Add { path, .. } | Op::Replace { path, .. } | Op::Remove { path } => path,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Op::Add { .. } => "add",
            Op::Replace { .. } => "replace",
            Op::Remove { .. } => "remove",
        }
    }
}

/// The extensions, each off by default (plain RFC 6902).
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// `add` creates missing parents: arrays when the next token is an integer or `-`.
    pub ensure_path_exists_on_add: bool,
    /// `-1` is the last element (replace, remove, traversal) or the end (add).
    pub negative_indices: bool,
    /// `remove` of a missing key, index or parent does nothing.
    pub allow_missing_path_on_remove: bool,
}

impl Options {
    /// What KubeMod's patcher enables.
    pub fn kubemod() -> Options {
        Options {
            ensure_path_exists_on_add: true,
            negative_indices: true,
            allow_missing_path_on_remove: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PatchError {
    pub op: &'static str,
    pub path: String,
    pub message: String,
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.op, self.path, self.message)
    }
}

impl std::error::Error for PatchError {}

/// Applies every op in order; on error `doc` is left exactly as it was.
pub fn apply(doc: &mut Value, ops: &[Op], options: Options) -> Result<(), PatchError> {
    let mut undo = Vec::new();
    for op in ops {
        if let Err(message) = apply_one(doc, op, options, &mut undo) {
            while let Some(change) = undo.pop() {
                change.revert(doc);
            }
            return Err(PatchError {
                op: op.name(),
                path: op.path().to_owned(),
                message,
            });
        }
    }
    Ok(())
}

/// One step from a container to a child: a key, or an index resolved to a position.
#[derive(Debug, Clone)]
enum Step<'p> {
    Key(Cow<'p, str>),
    Index(usize),
}

/// How to take back one change to the container at `at`, when every later change has
/// been taken back already.
#[derive(Debug)]
struct Undo<'p> {
    at: Vec<Step<'p>>,
    revert: Revert<'p>,
}

#[derive(Debug)]
enum Revert<'p> {
    /// The child was replaced.
    Put(Step<'p>, Value),
    /// A key was added (at the end of the object).
    RemoveKey(Cow<'p, str>),
    /// A key was removed from this position.
    InsertKey(usize, String, Value),
    /// An element was inserted.
    RemoveIndex(usize),
    /// An element was removed.
    InsertIndex(usize, Value),
    /// Elements were appended to an array of this length.
    Truncate(usize),
}

impl Undo<'_> {
    fn revert(self, doc: &mut Value) {
        let mut container = doc;
        for step in &self.at {
            let child = match (container, step) {
                (Value::Object(map), Step::Key(k)) => map.get_mut(k.as_ref()),
                (Value::Array(items), Step::Index(i)) => items.get_mut(*i),
                _ => None,
            };
            let Some(child) = child else {
                debug_assert!(false, "the undo log does not match the document");
                return;
            };
            container = child;
        }
        match (container, self.revert) {
            (Value::Object(map), Revert::Put(Step::Key(k), old)) => {
                map.insert(k.into_owned(), old);
            }
            (Value::Array(items), Revert::Put(Step::Index(i), old)) => items[i] = old,
            (Value::Object(map), Revert::RemoveKey(k)) => {
                map.shift_remove(k.as_ref());
            }
            (Value::Object(map), Revert::InsertKey(i, k, old)) => {
                map.shift_insert(i, k, old);
            }
            (Value::Array(items), Revert::RemoveIndex(i)) => {
                items.remove(i);
            }
            (Value::Array(items), Revert::InsertIndex(i, old)) => items.insert(i, old),
            (Value::Array(items), Revert::Truncate(len)) => items.truncate(len),
            _ => debug_assert!(false, "the undo log does not match the document"),
        }
    }
}

fn apply_one<'p>(
    doc: &mut Value,
    op: &'p Op,
    options: Options,
    undo: &mut Vec<Undo<'p>>,
) -> Result<(), String> {
    let tokens = tokens(op.path())?;
    let (last, parents) = tokens
        .split_last()
        .expect("a pointer has at least one token");
    let mut at = Vec::with_capacity(tokens.len());
    match op {
        Op::Add { value, .. } => {
            let parent = if options.ensure_path_exists_on_add {
                ensure_parents(doc, &tokens, options, &mut at, undo)?
            } else {
                walk(doc, parents, options, &mut at)?.ok_or("a parent does not exist")?
            };
            let revert = add(parent, last.clone(), value.clone(), options)?;
            undo.push(Undo { at, revert });
            Ok(())
        }
        Op::Replace { value, .. } => {
            let parent = walk(doc, parents, options, &mut at)?.ok_or("a parent does not exist")?;
            let (step, slot) = child_mut(parent, last, options)?
                .ok_or_else(|| format!("doc is missing key {last:?}"))?;
            let old = std::mem::replace(slot, value.clone());
            undo.push(Undo {
                at,
                revert: Revert::Put(step, old),
            });
            Ok(())
        }
        Op::Remove { .. } => {
            let Some(parent) = walk(doc, parents, options, &mut at)? else {
                return missing_on_remove(options);
            };
            match remove(parent, last, options)? {
                Some(revert) => undo.push(Undo { at, revert }),
                None => missing_on_remove(options)?,
            }
            Ok(())
        }
    }
}

fn missing_on_remove(options: Options) -> Result<(), String> {
    if options.allow_missing_path_on_remove {
        Ok(())
    } else {
        Err("the path does not exist".into())
    }
}

/// Follows `tokens`, recording the steps in `at`; `Ok(None)` when something along the
/// way is missing.
fn walk<'a, 'p>(
    doc: &'a mut Value,
    tokens: &[Cow<'p, str>],
    options: Options,
    at: &mut Vec<Step<'p>>,
) -> Result<Option<&'a mut Value>, String> {
    let mut current = doc;
    for token in tokens {
        match child_mut(current, token, options)? {
            Some((step, next)) => {
                at.push(step);
                current = next;
            }
            None => return Ok(None),
        }
    }
    Ok(Some(current))
}

/// The child at `token`, `None` if absent; an error for a scalar or a non-index token on
/// an array.
fn child_mut<'a, 'p>(
    value: &'a mut Value,
    token: &Cow<'p, str>,
    options: Options,
) -> Result<Option<(Step<'p>, &'a mut Value)>, String> {
    match value {
        Value::Object(map) => Ok(map
            .get_mut(token.as_ref())
            .map(|v| (Step::Key(token.clone()), v))),
        Value::Array(items) => {
            let position = array_position(token, items.len(), options)?;
            Ok(position.and_then(move |i| Some((Step::Index(i), items.get_mut(i)?))))
        }
        other => Err(format!(
            "cannot descend into {} at {token:?}",
            type_name(other)
        )),
    }
}

/// An existing element's position for `token` (negative counts from the end).
fn array_position(token: &str, len: usize, options: Options) -> Result<Option<usize>, String> {
    let index = parse_index(token).ok_or_else(|| format!("{token:?} is not an array index"))?;
    if index < 0 {
        if !options.negative_indices {
            return Err(format!("negative index {index}"));
        }
        let from_end = len as i64 + index;
        return Ok((from_end >= 0).then_some(from_end as usize));
    }
    Ok(((index as usize) < len).then_some(index as usize))
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits.
fn parse_index(token: &str) -> Option<i64> {
    let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// Walks to the parent of the last token, creating what is missing (or null) on the way:
/// an array when the following token is an integer or `-`, an object otherwise.
fn ensure_parents<'a, 'p>(
    doc: &'a mut Value,
    tokens: &[Cow<'p, str>],
    options: Options,
    at: &mut Vec<Step<'p>>,
    undo: &mut Vec<Undo<'p>>,
) -> Result<&'a mut Value, String> {
    let mut current = doc;
    for pair in tokens.windows(2) {
        let (token, next) = (&pair[0], &pair[1]);
        current = match current {
            Value::Object(map) => {
                let slot = match map.entry(token.as_ref()) {
                    Entry::Occupied(entry) => {
                        let slot = entry.into_mut();
                        if slot.is_null() {
                            *slot = new_container(next)?;
                            undo.push(Undo {
                                at: at.clone(),
                                revert: Revert::Put(Step::Key(token.clone()), Value::Null),
                            });
                        }
                        slot
                    }
                    Entry::Vacant(entry) => {
                        let slot = entry.insert(new_container(next)?);
                        undo.push(Undo {
                            at: at.clone(),
                            revert: Revert::RemoveKey(token.clone()),
                        });
                        slot
                    }
                };
                at.push(Step::Key(token.clone()));
                slot
            }
            Value::Array(items) => {
                let position = match array_position(token, items.len(), options)? {
                    Some(i) if !items[i].is_null() => i,
                    Some(i) => {
                        items[i] = new_container(next)?;
                        undo.push(Undo {
                            at: at.clone(),
                            revert: Revert::Put(Step::Index(i), Value::Null),
                        });
                        i
                    }
                    None => {
                        let index = parse_index(token).filter(|i| *i >= 0).ok_or_else(|| {
                            format!(
                                "index {token} is out of range for an array of {}",
                                items.len()
                            )
                        })? as usize;
                        let container = new_container(next)?;
                        undo.push(Undo {
                            at: at.clone(),
                            revert: Revert::Truncate(items.len()),
                        });
                        items.resize(index, Value::Null);
                        items.push(container);
                        index
                    }
                };
                at.push(Step::Index(position));
                &mut items[position]
            }
            other => {
                return Err(format!(
                    "cannot create {token:?} inside {}",
                    type_name(other)
                ))
            }
        };
    }
    Ok(current)
}

fn new_container(next_token: &str) -> Result<Value, String> {
    if next_token == "-" {
        return Ok(Value::Array(Vec::new()));
    }
    match parse_index(next_token) {
        Some(i) if i < -1 => Err(format!("cannot create an array for index {i}")),
        Some(i) if i <= 0 => Ok(Value::Array(Vec::new())),
        Some(i) => Ok(Value::Array(vec![Value::Null; i as usize])),
        None => Ok(Value::Object(Map::new())),
    }
}

/// Adds `value` at `token`, and says how to take that back.
fn add<'p>(
    parent: &mut Value,
    token: Cow<'p, str>,
    value: Value,
    options: Options,
) -> Result<Revert<'p>, String> {
    match parent {
        Value::Object(map) => Ok(match map.insert(token.to_string(), value) {
            Some(old) => Revert::Put(Step::Key(token), old),
            None => Revert::RemoveKey(token),
        }),
        Value::Array(items) => {
            let len = items.len() as i64;
            let token = token.as_ref();
            let index = if token == "-" {
                len
            } else {
                let i =
                    parse_index(token).ok_or_else(|| format!("{token:?} is not an array index"))?;
                if i < 0 && options.negative_indices {
                    i + len + 1
                } else {
                    i
                }
            };
            if !(0..=len).contains(&index) {
                return Err(format!(
                    "index {token} is out of range for an array of {len}"
                ));
            }
            items.insert(index as usize, value);
            Ok(Revert::RemoveIndex(index as usize))
        }
        other => Err(format!("cannot add to {}", type_name(other))),
    }
}

/// Removes what is at `token`, and says how to take that back; `None` if nothing is there.
fn remove(
    parent: &mut Value,
    token: &str,
    options: Options,
) -> Result<Option<Revert<'static>>, String> {
    Ok(match parent {
        Value::Object(map) => {
            let position = map.keys().position(|k| k == token);
            position.and_then(|i| {
                let (key, old) = map.shift_remove_entry(token)?;
                Some(Revert::InsertKey(i, key, old))
            })
        }
        Value::Array(items) => array_position(token, items.len(), options)?
            .map(|i| Revert::InsertIndex(i, items.remove(i))),
        _ => None,
    })
}

/// How a value's kind reads in a message.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(doc: Value, ops: Vec<Op>) -> Result<Value, PatchError> {
        let mut doc = doc;
        apply(&mut doc, &ops, Options::kubemod()).map(|()| doc)
    }

    fn add(path: &str, value: Value) -> Op {
        Op::Add {
            path: path.into(),
            value,
        }
    }

    #[test]
    fn pointer_tokens_unescape_in_one_pass() {
        assert_eq!(
            crate::pointer::parse("/a~1b/~01/~0").unwrap(),
            vec!["a/b", "~1", "~"]
        );
        assert!(crate::pointer::parse("").is_err());
        assert!(crate::pointer::parse("a/b").is_err());
        assert_eq!(crate::pointer::escape("a/b~c"), "a~1b~0c");
    }

    #[test]
    fn add_creates_missing_parents() {
        let doc = run(
            json!({"spec": {}}),
            vec![add("/spec/metadata/annotations/color", json!("x"))],
        )
        .unwrap();
        assert_eq!(
            doc,
            json!({"spec": {"metadata": {"annotations": {"color": "x"}}}})
        );
        let doc = run(json!({}), vec![add("/spec/list/-1", json!(1))]).unwrap();
        assert_eq!(doc, json!({"spec": {"list": [1]}}));
        let doc = run(json!({"a": null}), vec![add("/a/2", json!("z"))]).unwrap();
        assert_eq!(doc, json!({"a": [null, null, "z"]}));
        let doc = run(json!({}), vec![add("/a/0/b", json!(1))]).unwrap();
        assert_eq!(doc, json!({"a": [{"b": 1}]}));
        assert!(run(json!({"a": "s"}), vec![add("/a/b", json!(1))]).is_err());
    }

    #[test]
    fn add_to_arrays_with_negative_indices() {
        let doc = run(
            json!({"a": [1, 2]}),
            vec![
                add("/a/-1", json!(3)),
                add("/a/-2", json!(9)),
                add("/a/0", json!(0)),
                add("/a/-", json!(4)),
            ],
        )
        .unwrap();
        assert_eq!(doc, json!({"a": [0, 1, 2, 9, 3, 4]}));
        assert!(run(json!({"a": [1]}), vec![add("/a/3", json!(3))]).is_err());
        assert!(run(json!({"a": [1]}), vec![add("/a/-3", json!(3))]).is_err());
    }

    #[test]
    fn replace_needs_the_path_and_remove_does_not() {
        let doc = run(
            json!({"a": [1, 2, 3], "n": null}),
            vec![
                Op::Replace {
                    path: "/a/-1".into(),
                    value: json!(30),
                },
                Op::Replace {
                    path: "/n".into(),
                    value: json!(1),
                },
                Op::Remove {
                    path: "/a/0".into(),
                },
                Op::Remove {
                    path: "/missing/x".into(),
                },
                Op::Remove {
                    path: "/a/9".into(),
                },
            ],
        )
        .unwrap();
        assert_eq!(doc, json!({"a": [2, 30], "n": 1}));
        let e = run(
            json!({"a": {}}),
            vec![Op::Replace {
                path: "/a/b".into(),
                value: json!(1),
            }],
        )
        .unwrap_err();
        assert!(e.message.contains("missing key"), "{e}");
        assert!(run(
            json!({"a": [1]}),
            vec![Op::Remove {
                path: "/a/x".into()
            }]
        )
        .is_err());
    }

    #[test]
    fn a_failing_patch_changes_nothing() {
        let mut doc = json!({"a": 1});
        let ops = vec![
            add("/b", json!(2)),
            Op::Replace {
                path: "/c".into(),
                value: json!(3),
            },
        ];
        assert!(apply(&mut doc, &ops, Options::kubemod()).is_err());
        assert_eq!(doc, json!({"a": 1}));
    }

    #[test]
    fn every_failing_patch_is_undone_exactly() {
        let doc = json!({"a": [1, {"b": null}], "m": {"k": "v", "n": null, "o": 1}, "s": "x"});
        let replace = |path: &str, value: Value| Op::Replace {
            path: path.into(),
            value,
        };
        let remove = |path: &str| Op::Remove { path: path.into() };
        let pool = vec![
            add("/m/new", json!(1)),
            add("/m/k", json!(2)),
            add("/a/0", json!(0)),
            add("/a/-", json!(9)),
            add("/a/-1", json!(8)),
            add("/a/5/c", json!(1)),
            add("/a/1/b/x", json!(1)),
            add("/m/n/0", json!(1)),
            add("/x/y/z", json!(1)),
            add("/x/-/y", json!(1)),
            add("/s/t", json!(1)),
            replace("/m/k", json!(3)),
            replace("/a/0", json!({"z": 1})),
            replace("/a/-1", json!(2)),
            remove("/m/k"),
            remove("/m/o"),
            remove("/a/0"),
            remove("/a/-1"),
            remove("/missing/x"),
        ];
        let failing = replace("/nope/x", json!(1));
        let text = |v: &Value| serde_json::to_string(v).unwrap();
        let before = text(&doc);
        for a in &pool {
            for b in &pool {
                for c in &pool {
                    let ops = [a.clone(), b.clone(), c.clone(), failing.clone()];
                    let mut patched = doc.clone();
                    assert!(apply(&mut patched, &ops, Options::kubemod()).is_err());
                    assert_eq!(text(&patched), before, "{ops:?}");
                }
            }
        }
    }

    #[test]
    fn plain_rfc_6902_without_extensions() {
        let mut doc = json!({});
        let e = apply(&mut doc, &[add("/a/b", json!(1))], Options::default()).unwrap_err();
        assert!(e.message.contains("parent"), "{e}");
        assert!(apply(
            &mut doc,
            &[Op::Remove { path: "/x".into() }],
            Options::default()
        )
        .is_err());
    }
}
