//! CEL cost as Kubernetes counts it, in three parts. cel 0.15 has no cost tracking, so
//! kadmit's rewriting of each expression (`compile`) inserts the charges.
//!
//! **At run time** (cel-go's `ActualCost`): every comprehension iteration costs one unit
//! weighted by the size of its step (`all`/`exists` per iteration; `map`/`filter`/
//! `exists_one`, whose loop cel-rust runs on its own, for their whole range up front), so
//! nested comprehensions pay for every inner iteration; list builders such as
//! `lists.range(n)` charge `n` before allocating. String functions are charged with the
//! API server's formulas (`k8s.io/apiserver/pkg/cel/library/cost.go` and cel-go's
//! `runtimecost.go`), before they run: `replace` and `split` 0.2 per character of the
//! string, `join` 0.2 per character of the result, `lowerAscii`, `upperAscii`, `trim` and
//! `substring` 0.1 per character, `startsWith`/`endsWith` 0.1 per character of the
//! argument, `contains` the product of 0.1 per character of both, `matches`, `find` and
//! `findAll` 0.1 per character of the string times 0.25 per character of the pattern, and
//! `+` on strings 0.1 per character of the result. Evaluation stops with an error as soon
//! as the per-call limit or the per-validation budget is spent.
//!
//! **A memory limit** (kadmit's own): one evaluation may build at most
//! [`MAX_BUILT_BYTES`] of strings and list elements (results of `replace`, `join`, `split`
//! and `+`, elements of `map`, `filter` and `transform*` results), checked before
//! `replace`, `join` and `split` build theirs. The API server charges `replace` by its input
//! only, so a rule such as `self.s.replace('a', self.s)` passes its cost limit there and
//! builds a string of `size(s)²` characters; kadmit stops it with an evaluation error.
//!
//! **At CRD creation** (cel-go's `EstimateCost`): a rule whose estimated cost times the
//! number of times it can run exceeds [`STATIC_ESTIMATED_COST_LIMIT`] is refused with the
//! API server's `estimated rule cost exceeds budget` error. kadmit's estimate is a lower
//! bound of the server's: it counts identifiers and selections, comprehensions times the
//! largest size of what they range over, and the string functions above, with sizes from
//! the schema the way the server derives them (`maxLength`, `maxItems`, `maxProperties`,
//! else what fits in a 3 MiB request). What it does not model it counts as free, so every
//! rule kadmit refuses the server refuses too, but the server refuses more.

use super::value::escape;
use crate::schema::Schema;
use cel::common::ast::{operators, EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelBytes, CelList, CelMap, CelString};
use cel::common::value::Val;
use cel::ExecutionError;
use std::cell::Cell;

/// Units one expression evaluation may spend (Kubernetes' `PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// Units all the rules of one object may spend (Kubernetes' `RuntimeCELCostBudget`).
pub const VALIDATION_BUDGET: u64 = 10_000_000;
/// Estimated units one rule may cost, times its cardinality (`StaticEstimatedCostLimit`).
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// The request size sizes are estimated from (`DefaultMaxRequestSizeBytes`).
pub const MAX_REQUEST_SIZE_BYTES: u64 = 3 * 1024 * 1024;
/// Bytes of strings and list elements one evaluation may build (kadmit's limit).
pub const MAX_BUILT_BYTES: u64 = 64 << 20;
/// cel-go's text when a limit is hit.
pub const EXCEEDED: &str = "operation cancelled: actual cost limit exceeded";

/// cel-go's `StringTraversalCostFactor` and `RegexStringLengthCostFactor`.
pub const TRAVERSAL: f64 = 0.1;
pub const REGEX: f64 = 0.25;

thread_local! {
    static LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    static BUILT_LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
}

/// Spends `units`, failing when the current evaluation has run out.
pub fn charge(units: u64) -> Result<(), ExecutionError> {
    LEFT.with(|left| {
        let now = left.get();
        if units > now {
            left.set(0);
            Err(ExecutionError::function_error("cost", EXCEEDED))
        } else {
            left.set(now - units);
            Ok(())
        }
    })
}

/// Go's `uint64(math.Ceil(float64(n) * factor))`.
pub fn scaled(n: u64, factor: f64) -> u64 {
    let x = (n as f64 * factor).ceil();
    if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x as u64
    }
}

/// Counts `bytes` of values built, failing past [`MAX_BUILT_BYTES`] for this evaluation.
pub fn build(bytes: u64) -> Result<(), ExecutionError> {
    BUILT_LEFT.with(|left| {
        let now = left.get();
        if bytes > now {
            Err(ExecutionError::function_error(
                "memory",
                format!(
                    "the rule would build more than {MAX_BUILT_BYTES} bytes of strings and lists \
                     (kadmit's limit for one evaluation)"
                ),
            ))
        } else {
            left.set(now - bytes);
            Ok(())
        }
    })
}

/// Runs `f` with `limit` units to spend (and [`MAX_BUILT_BYTES`] to build) and returns its
/// result and the units it spent.
pub fn metered<T>(limit: u64, f: impl FnOnce() -> T) -> (T, u64) {
    let saved = LEFT.with(|left| left.replace(limit));
    let saved_built = BUILT_LEFT.with(|left| left.replace(MAX_BUILT_BYTES));
    let out = f();
    let left = LEFT.with(|left| left.replace(saved));
    BUILT_LEFT.with(|left| left.set(saved_built));
    (out, limit - left)
}

/// cel-go's `actualSize`: characters of a string, bytes of bytes, elements of a list or
/// map, else 1.
pub fn actual_size(v: &dyn Val) -> u64 {
    if let Some(s) = v.downcast_ref::<CelString>() {
        return s.chars().count() as u64;
    }
    if let Some(b) = v.downcast_ref::<CelBytes>() {
        return b.inner().len() as u64;
    }
    match v.as_sizer() {
        Some(s) => (*s.size().inner()).max(0) as u64,
        None => 1,
    }
}

/// What a value takes to build, roughly: the bytes of its strings plus 16 per element;
/// stops counting past `limit`.
pub fn built_size(v: &dyn Val, limit: u64) -> u64 {
    let mut total = 0u64;
    add_built(v, limit, &mut total);
    total
}

fn add_built(v: &dyn Val, limit: u64, total: &mut u64) {
    if *total > limit {
        return;
    }
    if let Some(s) = v.downcast_ref::<CelString>() {
        *total = total.saturating_add(s.len() as u64);
    } else if let Some(b) = v.downcast_ref::<CelBytes>() {
        *total = total.saturating_add(b.inner().len() as u64);
    } else if let Some(map) = v.downcast_ref::<CelMap>() {
        for (k, item) in map.inner() {
            *total = total.saturating_add(16);
            add_built(k.inner(), limit, total);
            add_built(item.as_ref(), limit, total);
            if *total > limit {
                return;
            }
        }
    } else if let Some(list) = v.downcast_ref::<CelList>() {
        for item in list.inner() {
            *total = total.saturating_add(16);
            add_built(item.as_ref(), limit, total);
            if *total > limit {
                return;
            }
        }
    } else if let Some(iterable) = v.as_iterable() {
        let mut items = iterable.iter();
        while let Some(item) = items.next() {
            *total = total.saturating_add(16);
            add_built(item, limit, total);
            if *total > limit {
                return;
            }
        }
    } else {
        *total = total.saturating_add(16);
    }
}

/// The API server's error for an estimated cost over its limit (`getCostErrorMessage`).
pub fn estimated_cost_error(what: &str, cost: u64) -> String {
    let factor = cost as f64 / STATIC_ESTIMATED_COST_LIMIT as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_owned()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{what} exceeds budget by factor of {factor} (try simplifying the rule, or adding \
         maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

// --- The static estimate ---------------------------------------------------------------------

/// A lower bound of cel-go's estimated cost of `tree` for `self` of `schema` (before
/// kadmit's rewriting; macros expanded as cel-go expands them).
pub fn estimate(tree: &IdedExpr, schema: &Schema, resource_root: bool) -> u64 {
    let mut estimator = Estimator {
        root: schema,
        resource_root,
        scope: Vec::new(),
    };
    estimator.expr(tree).cost
}

/// The largest number of times a rule on a node can run: the product of the `maxItems` and
/// `maxProperties` of the lists and maps above it when they all declare one, else 1 (a
/// lower bound of the server's estimate).
#[derive(Debug, Clone, Copy)]
pub struct Cardinality(Option<u64>);

impl Cardinality {
    pub const ROOT: Cardinality = Cardinality(Some(1));

    /// Below a list or map that declares at most `max` entries (`None`: no maximum).
    pub fn times(self, max: Option<i64>) -> Cardinality {
        match (self.0, max) {
            (Some(c), Some(m)) => Cardinality(Some(c.saturating_mul(m.max(0) as u64))),
            _ => Cardinality(None),
        }
    }

    pub fn apply(self, cost: u64) -> u64 {
        cost.saturating_mul(self.0.unwrap_or(1))
    }
}

/// What the estimate knows of a value: a lower bound of its cost, and where known its
/// largest size (characters of a string, elements of a list or map), its schema, and the
/// largest size of its elements.
#[derive(Debug, Clone, Copy, Default)]
struct Est<'s> {
    cost: u64,
    size: Option<u64>,
    schema: Option<&'s Schema>,
    elem: Option<u64>,
}

struct Estimator<'s> {
    root: &'s Schema,
    resource_root: bool,
    /// Comprehension variables: name, schema, largest size.
    scope: Vec<(String, Option<&'s Schema>, Option<u64>)>,
}

impl<'s> Estimator<'s> {
    fn expr(&mut self, e: &IdedExpr) -> Est<'s> {
        match &e.expr {
            Expr::Literal(LiteralValue::String(s)) => Est {
                size: Some(s.inner().chars().count() as u64),
                ..Est::default()
            },
            Expr::Literal(LiteralValue::Bytes(b)) => Est {
                size: Some(b.inner().len() as u64),
                ..Est::default()
            },
            Expr::Literal(_) | Expr::Unspecified => Est::default(),
            Expr::Ident(name) => self.ident(name),
            Expr::Select(select) => {
                let operand = self.expr(&select.operand);
                if select.test {
                    return Est {
                        cost: operand.cost,
                        ..Est::default()
                    };
                }
                let root = operand.schema.is_some_and(|s| {
                    (std::ptr::eq(s, self.root) && self.resource_root) || s.embedded_resource
                });
                let schema = operand
                    .schema
                    .filter(|_| !(root && select.field == "metadata"))
                    .and_then(|s| property(s, &select.field));
                // cel-go charges a selection on an object or map, not on a `dyn` value.
                let object = operand.schema.is_some_and(|s| {
                    !s.int_or_string
                        && matches!(s.type_.as_deref(), Some("object") | None)
                        && (!s.properties.is_empty()
                            || s.additional_properties.is_some()
                            || s.type_.is_some())
                });
                typed(operand.cost.saturating_add(u64::from(object)), schema)
            }
            Expr::List(list) => {
                let cost = list
                    .elements
                    .iter()
                    .fold(0u64, |c, x| c.saturating_add(self.expr(x).cost));
                Est {
                    cost,
                    size: Some(list.elements.len() as u64),
                    ..Est::default()
                }
            }
            Expr::Map(map) => {
                let mut cost = 0u64;
                for entry in &map.entries {
                    match &entry.expr {
                        EntryExpr::MapEntry(m) => {
                            cost = cost
                                .saturating_add(self.expr(&m.key).cost)
                                .saturating_add(self.expr(&m.value).cost);
                        }
                        EntryExpr::StructField(f) => {
                            cost = cost.saturating_add(self.expr(&f.value).cost)
                        }
                    }
                }
                Est {
                    cost,
                    size: Some(map.entries.len() as u64),
                    ..Est::default()
                }
            }
            Expr::Struct(s) => {
                let mut cost = 0u64;
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        cost = cost.saturating_add(self.expr(&f.value).cost);
                    }
                }
                Est {
                    cost,
                    ..Est::default()
                }
            }
            Expr::Comprehension(c) => {
                let range = self.expr(&c.iter_range);
                let init = self.expr(&c.accu_init);
                let (elem_schema, elem_size) = element(&range);
                self.scope
                    .push((c.iter_var.clone(), elem_schema, elem_size));
                if let Some(second) = &c.iter_var2 {
                    self.scope.push((second.clone(), None, None));
                }
                self.scope.push((c.accu_var.clone(), None, None));
                let cond = self.expr(&c.loop_cond);
                let step = self.expr(&c.loop_step);
                let appended = appended(&c.loop_step, &c.accu_var).map(|f| self.expr(f).size);
                self.scope.pop();
                if c.iter_var2.is_some() {
                    self.scope.pop();
                }
                self.scope.pop();
                self.scope.push((c.accu_var.clone(), None, None));
                let result = self.expr(&c.result);
                self.scope.pop();
                let n = range.size.unwrap_or(0);
                let cost = range
                    .cost
                    .saturating_add(init.cost)
                    .saturating_add(result.cost)
                    .saturating_add(n.saturating_mul(step.cost.saturating_add(cond.cost)));
                Est {
                    cost,
                    size: range.size,
                    schema: None,
                    elem: appended.flatten(),
                }
            }
            Expr::Call(call) => {
                if call.func_name == operators::CONDITIONAL && call.args.len() == 3 {
                    let cond = self.expr(&call.args[0]);
                    let a = self.expr(&call.args[1]);
                    let b = self.expr(&call.args[2]);
                    return Est {
                        cost: cond.cost.saturating_add(a.cost.min(b.cost)),
                        ..Est::default()
                    };
                }
                let target = call.target.as_deref().map(|t| self.expr(t));
                let args: Vec<Est<'s>> = call.args.iter().map(|a| self.expr(a)).collect();
                let children = target
                    .iter()
                    .chain(&args)
                    .fold(0u64, |c, a| c.saturating_add(a.cost));
                let (own, size) = function_cost(&call.func_name, target.as_ref(), &args);
                Est {
                    cost: children.saturating_add(own),
                    size,
                    ..Est::default()
                }
            }
        }
    }

    fn ident(&self, name: &str) -> Est<'s> {
        if let Some((_, schema, size)) = self.scope.iter().rev().find(|(n, ..)| n == name) {
            let mut est = typed(1, *schema);
            if est.size.is_none() {
                est.size = *size;
            }
            return est;
        }
        if name == "self" {
            return typed(1, Some(self.root));
        }
        Est {
            cost: 1,
            ..Est::default()
        }
    }
}

/// A value of `schema` (sizes from it) that cost `cost` to reach.
fn typed(cost: u64, schema: Option<&Schema>) -> Est<'_> {
    Est {
        cost,
        size: schema.and_then(max_elements),
        schema,
        elem: schema.and_then(element_schema).and_then(max_elements),
    }
}

/// The schema and largest size of what iterating over `range` binds.
fn element<'s>(range: &Est<'s>) -> (Option<&'s Schema>, Option<u64>) {
    match range.schema {
        Some(s) if s.type_.as_deref() == Some("array") => {
            let items = s.items.as_deref();
            (items, items.and_then(max_elements))
        }
        Some(_) => (None, None),
        None => (None, range.elem),
    }
}

/// The items or `additionalProperties` schema of a list or map.
fn element_schema(s: &Schema) -> Option<&Schema> {
    match s.type_.as_deref() {
        Some("array") => s.items.as_deref(),
        _ => s.additional_schema(),
    }
}

/// The element a `map`-like step appends: `accu + [f]`, possibly under a filter.
fn appended<'e>(step: &'e IdedExpr, accu: &str) -> Option<&'e IdedExpr> {
    let Expr::Call(call) = &step.expr else {
        return None;
    };
    match (call.func_name.as_str(), call.args.as_slice()) {
        (operators::ADD, [a, b]) if matches!(&a.expr, Expr::Ident(n) if n == accu) => {
            match &b.expr {
                Expr::List(list) if list.elements.len() == 1 => Some(&list.elements[0]),
                _ => None,
            }
        }
        (operators::CONDITIONAL, [_, grown, _]) => appended(grown, accu),
        _ => None,
    }
}

/// The property `field` (a CEL name, escaped) of an object schema.
fn property<'s>(s: &'s Schema, field: &str) -> Option<&'s Schema> {
    s.properties
        .iter()
        .find(|(name, _)| escape(name).as_deref() == Some(field))
        .map(|(_, p)| p)
}

/// A function's own estimated cost (cel-go's checker and Kubernetes' `EstimateCallCost`)
/// where its operands' sizes are known, and its result's size where it follows.
fn function_cost(name: &str, target: Option<&Est<'_>>, args: &[Est<'_>]) -> (u64, Option<u64>) {
    let size = |e: Option<&Est<'_>>| e.and_then(|e| e.size);
    let t = size(target);
    let a0 = size(args.first());
    match (name, target.is_some()) {
        ("replace" | "split", true) => (t.map_or(0, |t| scaled(t, 2.0 * TRAVERSAL)), None),
        ("lowerAscii" | "upperAscii" | "trim" | "substring", true) => {
            (t.map_or(0, |t| scaled(t, TRAVERSAL)), t)
        }
        ("join", true) => {
            let joined = match (target.and_then(|t| t.size), target.and_then(|t| t.elem)) {
                (Some(n), Some(e)) => {
                    let separators = n.saturating_sub(1).saturating_mul(a0.unwrap_or(0));
                    Some(n.saturating_mul(e).saturating_add(separators))
                }
                _ => None,
            };
            (joined.map_or(0, |j| scaled(j, TRAVERSAL)), joined)
        }
        ("matches" | "find" | "findAll", true) => (regex_cost(t, a0), None),
        ("matches", false) => (regex_cost(a0, size(args.get(1))), None),
        ("contains", true) => match (t, a0) {
            (Some(t), Some(a)) => (
                scaled(t, TRAVERSAL).saturating_mul(scaled(a, TRAVERSAL)),
                None,
            ),
            _ => (0, None),
        },
        ("isSorted" | "sum" | "min" | "max" | "indexOf" | "lastIndexOf", true) => {
            let list = target.is_some_and(|t| {
                t.schema
                    .is_some_and(|s| s.type_.as_deref() == Some("array"))
            });
            match (list, t) {
                (true, Some(n)) => (n, None),
                (false, Some(n)) => (scaled(n, TRAVERSAL), None),
                _ => (0, None),
            }
        }
        _ => (0, None),
    }
}

fn regex_cost(string: Option<u64>, pattern: Option<u64>) -> u64 {
    match (string, pattern) {
        (Some(s), Some(p)) => {
            scaled(s.saturating_add(1), TRAVERSAL).saturating_mul(scaled(p, REGEX))
        }
        _ => 0,
    }
}

/// The largest size of a value of `s` as the API server estimates it (`SchemaDeclType`):
/// characters of a string, items of a list, entries of a map.
fn max_elements(s: &Schema) -> Option<u64> {
    let request = MAX_REQUEST_SIZE_BYTES - 2;
    if s.int_or_string {
        return Some(match s.max_length {
            Some(m) => m.max(0) as u64 * 4,
            None => request,
        });
    }
    match s.type_.as_deref() {
        Some("string") => Some(match s.format.as_deref() {
            Some("byte") => s.max_length.map_or(request, |m| m.max(0) as u64),
            Some("duration") => 32,
            Some("date") => 12,
            Some("date-time") => 32,
            _ => match (s.max_length, &s.enum_) {
                (Some(m), _) => m.max(0) as u64 * 4,
                (None, Some(values)) if !values.is_empty() => values
                    .iter()
                    .filter_map(|v| v.as_str())
                    .map(|v| v.len() as u64)
                    .max()
                    .unwrap_or(0),
                _ => request,
            },
        }),
        Some("array") => {
            let items = s.items.as_deref()?;
            let min = min_size(items)?;
            Some(match s.max_items {
                Some(m) => m.max(0) as u64,
                None => request / (min + 1),
            })
        }
        Some("object") => {
            let additional = s.additional_schema()?;
            let min = min_size(additional)?;
            Some(match s.max_properties {
                Some(m) => m.max(0) as u64,
                None => request / (min + 6),
            })
        }
        _ => None,
    }
}

/// The smallest JSON a value of `s` serializes to (`MinSerializedSize`), or `None` when the
/// schema is not visible to CEL.
fn min_size(s: &Schema) -> Option<u64> {
    if s.int_or_string {
        return Some(1);
    }
    match s.type_.as_deref() {
        Some("string") => Some(match s.format.as_deref() {
            Some("duration") => 3,
            Some("date") => 12,
            Some("date-time") => 21,
            _ => 2,
        }),
        Some("boolean") => Some(4),
        Some("integer" | "number") => Some(1),
        Some("array") => s.items.as_deref().and_then(min_size).map(|_| 2),
        Some("object") => {
            if let Some(additional) = &s.additional_properties {
                return match additional {
                    crate::schema::AdditionalProperties::Schema(a) => min_size(a).map(|_| 2),
                    crate::schema::AdditionalProperties::Allowed(_) => Some(2),
                };
            }
            let mut total = 2u64;
            for (name, p) in &s.properties {
                if s.required.contains(name) && p.default.is_none() {
                    if let Some(m) = min_size(p) {
                        total = total.saturating_add(name.len() as u64 + m + 4);
                    }
                }
            }
            Some(total)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cost_of(rule: &str, schema: serde_json::Value) -> u64 {
        let schema = Schema::from_value(&schema).unwrap();
        let tree = super::super::env::env().parser().parse(rule).unwrap();
        estimate(&tree, &schema, false)
    }

    #[test]
    fn sizes_follow_the_api_server() {
        let s = |v: serde_json::Value| max_elements(&Schema::from_value(&v).unwrap());
        assert_eq!(s(json!({"type": "string"})), Some(3_145_726));
        assert_eq!(s(json!({"type": "string", "maxLength": 10})), Some(40));
        assert_eq!(s(json!({"type": "string", "enum": ["a", "bbb"]})), Some(3));
        assert_eq!(
            s(json!({"type": "array", "items": {"type": "string"}})),
            Some(1_048_575)
        );
        assert_eq!(
            s(json!({"type": "array", "items": {"type": "integer"}, "maxItems": 7})),
            Some(7)
        );
        assert_eq!(
            s(json!({"type": "object", "additionalProperties": {"type": "boolean"}})),
            Some(314_572)
        );
    }

    #[test]
    fn string_functions_and_comprehensions_are_estimated() {
        let schema = json!({"type": "object", "properties": {
            "s": {"type": "string"},
            "short": {"type": "string", "maxLength": 10},
            "items": {"type": "array", "items": {"type": "string"}}}});
        // 0.2 per character of a string of up to 3 MiB, plus `self` and `.s` twice.
        assert_eq!(
            cost_of("self.s.replace('a', self.s).size() > 0", schema.clone()),
            629_146 + 4
        );
        assert_eq!(
            cost_of("self.short.lowerAscii() == 'a'", schema.clone()),
            4 + 2
        );
        // A join of up to 1,048,575 strings of up to 3 MiB each.
        let joined = cost_of(
            "self.items.map(x, self.s).join('').size() > 0",
            schema.clone(),
        );
        assert!(joined > 100 * STATIC_ESTIMATED_COST_LIMIT, "{joined}");
        // Every iteration of a comprehension over up to 1,048,575 items.
        let nested = cost_of("self.items.all(x, self.items.all(y, x == y))", schema);
        assert!(nested > 100 * STATIC_ESTIMATED_COST_LIMIT, "{nested}");
    }

    #[test]
    fn cost_errors_read_like_the_api_server() {
        assert_eq!(
            estimated_cost_error("estimated rule cost", 12_000_000),
            "estimated rule cost exceeds budget by factor of 1.200000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
        );
        assert!(estimated_cost_error("x", 25_000_000).contains("factor of 2.5x"));
        assert!(estimated_cost_error("x", u64::MAX).contains("factor of more than 100x"));
        assert_eq!(scaled(3, TRAVERSAL), 1);
        assert_eq!(scaled(3_145_726, 2.0 * TRAVERSAL), 629_146);
    }
}
