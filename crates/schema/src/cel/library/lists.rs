//! Kubernetes' `library.Lists` (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`)
//! and cel-go's `ext.Sets` (`sets.contains`, `sets.equivalent`, `sets.intersects`).

use super::Out;
use crate::cel::cost;
use crate::cel::klist::{Element, KList};
use cel::common::types::{CelBool, CelDouble, CelInt, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};
use std::cmp::Ordering;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_member_overload("isSorted", "list_is_sorted", LIST_TYPE, vec![], is_sorted)?;
    env.add_member_overload("sum", "list_sum", LIST_TYPE, vec![], sum)?;
    env.add_member_overload("min", "list_min", LIST_TYPE, vec![], min)?;
    env.add_member_overload("max", "list_max", LIST_TYPE, vec![], max)?;
    let dyn_ = cel::common::types::DYN_TYPE;
    env.add_member_overload(
        "indexOf",
        "list_index_of",
        LIST_TYPE,
        vec![cel::common::types::DYN_TYPE],
        index_of,
    )?;
    env.add_member_overload(
        "lastIndexOf",
        "list_last_index_of",
        LIST_TYPE,
        vec![dyn_],
        last_index_of,
    )?;
    env.add_overload(
        "sets.contains",
        "list_sets_contains_list",
        vec![LIST_TYPE, LIST_TYPE],
        sets_contains,
    )?;
    env.add_overload(
        "sets.equivalent",
        "list_sets_equivalent_list",
        vec![LIST_TYPE, LIST_TYPE],
        sets_equivalent,
    )?;
    env.add_overload(
        "sets.intersects",
        "list_sets_intersects_list",
        vec![LIST_TYPE, LIST_TYPE],
        sets_intersects,
    )?;
    Ok(())
}

/// The elements of list argument `i`, charged to the cost budget.
fn items<'a, 'v>(
    args: &'a [CowVal<'_, 'v>],
    i: usize,
) -> Result<Vec<&'a (dyn Val + 'v)>, ExecutionError> {
    let list = args
        .get(i)
        .ok_or_else(ExecutionError::missing_argument_or_target)?;
    let mut iter = list
        .as_iterable()
        .ok_or_else(|| {
            ExecutionError::no_such_overload("list", vec![list.get_type().name().to_owned()])
        })?
        .iter();
    let mut out = Vec::new();
    while let Some(item) = iter.next() {
        out.push(item);
    }
    cost::charge(out.len() as u64 + 1)?;
    Ok(out)
}

/// The CEL type of a value with its element types (`list(int)`, `map(string, int)`).
pub fn type_name(v: &dyn Val) -> String {
    let first = |v: &dyn Val| -> Option<String> {
        let mut iter = v.as_iterable()?.iter();
        iter.next().map(type_name)
    };
    match v.get_type().name() {
        "list" => format!("list({})", first(v).unwrap_or_else(|| "dyn".into())),
        "map" => {
            // Of the entry with the least key: the same one in every run.
            let entry = v
                .downcast_ref::<cel::common::types::CelMap>()
                .and_then(|m| m.inner().iter().min_by(|(a, _), (b, _)| a.cmp(b)))
                .map(|(k, x)| (type_name(k.inner()), type_name(x.as_ref())));
            let (key, value) = entry.unwrap_or_else(|| ("dyn".into(), "dyn".into()));
            format!("map({key}, {value})")
        }
        other => other.to_owned(),
    }
}

fn no_overload(function: &str, element: &dyn Val) -> ExecutionError {
    ExecutionError::no_such_member_overload(function, vec![format!("list({})", type_name(element))])
}

fn compare(a: &dyn Val, b: &dyn Val, function: &str) -> Result<Ordering, ExecutionError> {
    a.as_comparer()
        .ok_or_else(|| no_overload(function, a))?
        .compare(b)
}

fn boolean<'b, 'v>(b: bool) -> Out<'b, 'v> {
    Ok(CowVal::owned(CelBool::from(b)))
}

fn is_sorted<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let items = items(&args, 0)?;
    for pair in items.windows(2) {
        if compare(pair[0], pair[1], "isSorted")? == Ordering::Greater {
            return boolean(false);
        }
    }
    boolean(true)
}

fn sum<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let items = items(&args, 0)?;
    let Some((first, rest)) = items.split_first() else {
        let element = args[0]
            .downcast_ref::<KList>()
            .map_or(Element::Int, |l| l.element);
        return match element {
            Element::Double => Ok(CowVal::owned(CelDouble::from(0.0))),
            Element::Duration => Ok(CowVal::Owned(
                crate::cel::library::time::duration_from_go("0s").ok_or_else(|| {
                    ExecutionError::function_error("sum", "cannot build a zero duration")
                })?,
            )),
            _ => Ok(CowVal::owned(CelInt::from(0))),
        };
    };
    let summable = |v: &dyn Val| {
        matches!(
            v.get_type().name(),
            "int" | "uint" | "double" | "google.protobuf.Duration"
        )
    };
    if !summable(*first) {
        return Err(no_overload("sum", *first));
    }
    let mut total: Box<dyn Val + 'v> = first.clone_as_boxed();
    for item in rest {
        let next = total
            .as_adder()
            .ok_or_else(|| ExecutionError::no_such_member_overload("sum", vec!["list".into()]))?
            .add(*item)?
            .into_owned();
        total = next;
    }
    Ok(CowVal::Owned(total))
}

fn extreme<'b, 'v>(args: Vec<CowVal<'b, 'v>>, function: &str, keep: Ordering) -> Out<'b, 'v> {
    let items = items(&args, 0)?;
    let Some((first, rest)) = items.split_first() else {
        return Err(ExecutionError::function_error(
            function,
            format!("{function} called on empty list"),
        ));
    };
    if matches!(first.get_type().name(), "list" | "map") {
        return Err(no_overload(function, *first));
    }
    let mut best: &dyn Val = *first;
    for item in rest {
        if compare(*item, best, function)? == keep {
            best = *item;
        }
    }
    Ok(CowVal::Owned(best.clone_as_boxed()))
}

fn min<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    extreme(args, "min", Ordering::Less)
}

fn max<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    extreme(args, "max", Ordering::Greater)
}

fn index<'b, 'v>(args: Vec<CowVal<'b, 'v>>, last: bool) -> Out<'b, 'v> {
    let items = items(&args, 0)?;
    let needle = args
        .get(1)
        .ok_or_else(ExecutionError::missing_argument_or_target)?;
    let found = if last {
        items.iter().rposition(|i| i.equals(needle.as_ref()))
    } else {
        items.iter().position(|i| i.equals(needle.as_ref()))
    };
    Ok(CowVal::owned(CelInt::from(found.map_or(-1, |i| i as i64))))
}

fn index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    index(args, false)
}

fn last_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    index(args, true)
}

fn contains_all(haystack: &[&dyn Val], needles: &[&dyn Val]) -> Result<bool, ExecutionError> {
    cost::charge((haystack.len() as u64).saturating_mul(needles.len() as u64))?;
    Ok(needles
        .iter()
        .all(|n| haystack.iter().any(|h| h.equals(*n))))
}

fn sets_contains<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    boolean(contains_all(&items(&args, 0)?, &items(&args, 1)?)?)
}

fn sets_equivalent<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let (a, b) = (items(&args, 0)?, items(&args, 1)?);
    boolean(contains_all(&a, &b)? && contains_all(&b, &a)?)
}

fn sets_intersects<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let (a, b) = (items(&args, 0)?, items(&args, 1)?);
    cost::charge((a.len() as u64).saturating_mul(b.len() as u64))?;
    boolean(b.iter().any(|n| a.iter().any(|h| h.equals(*n))))
}
