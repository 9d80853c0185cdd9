//! Regular expressions with Go RE2 semantics: the standard `matches`, and Kubernetes'
//! `library.Regex` (`find`, `findAll`).

use super::{int_arg, out, str_arg, Out};
use crate::cel::cost;
use cel::common::types::{INT_TYPE, STRING_TYPE};
use cel::common::value::CowVal;
use cel::{DeclarationError, Env, ExecutionError, Value};
use kadmit_go::regexp;
use regex::Regex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload(
        "matches",
        "matches_string",
        vec![STRING_TYPE, STRING_TYPE],
        matches,
    )?;
    env.add_member_overload(
        "matches",
        "string_matches_string",
        STRING_TYPE,
        vec![STRING_TYPE],
        matches,
    )?;
    env.add_member_overload(
        "find",
        "string_find_string",
        STRING_TYPE,
        vec![STRING_TYPE],
        find,
    )?;
    env.add_member_overload(
        "findAll",
        "string_find_all_string",
        STRING_TYPE,
        vec![STRING_TYPE],
        find_all,
    )?;
    env.add_member_overload(
        "findAll",
        "string_find_all_string_int",
        STRING_TYPE,
        vec![STRING_TYPE, INT_TYPE],
        find_all,
    )?;
    Ok(())
}

/// Go's `regexp.Compile`, with its error text.
pub fn compile_go(pattern: &str) -> Result<Regex, String> {
    regexp::compile(pattern).map_err(|e| e.to_string())
}

/// A compiled pattern, cached per thread.
fn compiled(pattern: &str) -> Result<Regex, ExecutionError> {
    thread_local! {
        static CACHE: RefCell<HashMap<String, Regex>> = RefCell::new(HashMap::new());
    }
    CACHE.with(|cache| {
        if let Some(re) = cache.borrow().get(pattern) {
            return Ok(re.clone());
        }
        let re = compile_go(pattern).map_err(|e| ExecutionError::function_error("regex", e))?;
        let mut cache = cache.borrow_mut();
        if cache.len() > 256 {
            cache.clear();
        }
        cache.insert(pattern.to_owned(), re.clone());
        Ok(re)
    })
}

/// The API server's charge for a regular expression over `s` (cel-go's `matches`,
/// Kubernetes' `find`/`findAll`): 0.1 per character of `s` (plus one) times 0.25 per
/// character of the pattern.
fn charge(s: &str, pattern: &str) -> Result<(), ExecutionError> {
    let string = cost::scaled(s.chars().count() as u64 + 1, cost::TRAVERSAL);
    let regex = cost::scaled(pattern.chars().count() as u64, cost::REGEX);
    cost::charge(string.saturating_mul(regex))
}

fn matches<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let (s, pattern) = (str_arg(&args, 0)?, str_arg(&args, 1)?);
    charge(s, pattern)?;
    out(Value::Bool(compiled(pattern)?.is_match(s)))
}

fn find<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let (s, pattern) = (str_arg(&args, 0)?, str_arg(&args, 1)?);
    charge(s, pattern)?;
    let found = compiled(pattern)?.find(s).map_or("", |m| m.as_str());
    out(Value::String(Arc::new(found.to_owned())))
}

fn find_all<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let (s, pattern) = (str_arg(&args, 0)?, str_arg(&args, 1)?);
    let limit = if args.len() > 2 {
        int_arg(&args, 2)?
    } else {
        -1
    };
    charge(s, pattern)?;
    let re = compiled(pattern)?;
    let found: Vec<Value> = re
        .find_iter(s)
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .map(|m| Value::String(Arc::new(m.as_str().to_owned())))
        .collect();
    out(Value::List(Arc::new(found)))
}
