//! From rule text to an evaluable expression tree: parsing with the environment's macros,
//! the cost estimate (see `cost`), then kadmit's rewriting: two-variable comprehensions
//! (`all(i, v, p)`, `transformMap`, ...) expanded into single-variable ones, cost charges
//! inserted (see `cost`), calls of the type conversions `int`, `uint`, `double`, `bool`,
//! `duration` and `timestamp` pointed at cel-go's versions (see `convert`), and literal
//! arguments checked the way Kubernetes checks them when compiling (durations, timestamps,
//! regular expressions) and when instantiating the program (a conversion of a constant,
//! which cel-go's `OptOptimize` evaluates then, and `find` patterns).

use super::checker::{self, Ty};
use super::convert;
use super::cost;
use super::env::{
    self, ADD_COST, BUILT, CONTAINS_COST, COST, COUNT, JOIN_COST, MAP_INSERT, MAP_MERGE, ORDERED,
    PAIRS, PREFIX_COST, REPLACE_COST, SPLIT_COST, STR_COST, TICK,
};
use super::errors::go_text;
use super::library::regex::compile_go;
use super::library::time::is_go_duration;
use crate::schema::Schema;
use cel::common::ast::{
    operators, CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, ListExpr, LiteralValue,
    MapExpr, SourceInfo,
};
use cel::common::types::{CelInt, CelString};

/// A compiled expression.
#[derive(Debug)]
pub struct Expression {
    pub tree: IdedExpr,
    /// Whether it reads `oldSelf`.
    pub uses_old_self: bool,
    /// A lower bound of the API server's estimated cost of one evaluation.
    pub estimated_cost: u64,
}

/// Compiles `source` for `self` of type `this` (the value of `schema`, at a resource root
/// or not); the error is Kubernetes' text (`compilation failed: ERROR: ...`, or
/// `program instantiation failed: ...` when only building the program fails).
pub fn compile(
    source: &str,
    this: &Ty,
    schema: &Schema,
    resource_root: bool,
) -> Result<Expression, String> {
    let (mut tree, info) = env::env()
        .parser()
        .parse_with_source_info(source)
        .map_err(|e| format!("compilation failed: {e}"))?;
    let mut rewriter = Rewriter {
        source,
        info: &info,
        next_id: 1 << 40,
        problem: None,
        instantiation: None,
        uses_old_self: false,
    };
    if let Err((id, message)) = checker::check(&tree, this) {
        rewriter.fail(id, &message);
    }
    let estimated_cost = cost::estimate(&tree, schema, resource_root);
    rewriter.rewrite(&mut tree);
    // cel-go plans the program only once the expression compiled.
    match rewriter.problem.or(rewriter.instantiation) {
        Some(problem) => Err(problem),
        None => Ok(Expression {
            tree,
            uses_old_self: rewriter.uses_old_self,
            estimated_cost,
        }),
    }
}

struct Rewriter<'a> {
    source: &'a str,
    info: &'a SourceInfo,
    next_id: u64,
    /// The first compile error.
    problem: Option<String>,
    /// The first error of instantiating the program (`Env.Program`), reported when the
    /// expression compiled.
    instantiation: Option<String>,
    uses_old_self: bool,
}

impl Rewriter<'_> {
    fn node(&mut self, expr: Expr) -> IdedExpr {
        self.next_id += 1;
        IdedExpr {
            id: self.next_id,
            expr,
        }
    }

    fn ident(&mut self, name: &str) -> IdedExpr {
        self.node(Expr::Ident(name.to_owned()))
    }

    fn call(&mut self, name: &str, args: Vec<IdedExpr>) -> IdedExpr {
        self.node(Expr::Call(CallExpr {
            func_name: name.to_owned(),
            target: None,
            args,
        }))
    }

    fn literal(&mut self, value: LiteralValue) -> IdedExpr {
        self.node(Expr::Literal(value))
    }

    fn list(&mut self, elements: Vec<IdedExpr>) -> IdedExpr {
        self.node(Expr::List(ListExpr::new(elements)))
    }

    fn wrap(&mut self, name: &str, expr: &mut IdedExpr) {
        let inner = std::mem::take(expr);
        *expr = self.call(name, vec![inner]);
    }

    fn fail(&mut self, id: u64, message: &str) {
        if self.problem.is_some() {
            return;
        }
        let mut offset = self
            .info
            .offset_for(id)
            .map_or(0, |(start, _)| start as usize);
        if offset > 0 && self.source.chars().nth(offset - 1) == Some('-') {
            offset -= 1;
        }
        let before: String = self.source.chars().take(offset).collect();
        let line = before.matches('\n').count() + 1;
        let column = before.chars().rev().take_while(|c| *c != '\n').count() + 1;
        self.problem = Some(format!(
            "compilation failed: ERROR: <input>:{line}:{column}: {message}"
        ));
    }

    fn rewrite(&mut self, expr: &mut IdedExpr) {
        match &mut expr.expr {
            Expr::Ident(name) => {
                if name == "oldSelf" {
                    self.uses_old_self = true;
                }
            }
            Expr::Call(call) => {
                if let Some(target) = call.target.as_deref_mut() {
                    self.rewrite(target);
                }
                for arg in call.args.iter_mut() {
                    match &mut arg.expr {
                        // cel-go exempts format()'s argument list from homogeneity.
                        Expr::List(list) if call.func_name == "format" => {
                            list.elements.iter_mut().for_each(|e| self.rewrite(e))
                        }
                        _ => self.rewrite(arg),
                    }
                }
                self.check_literals(call);
                if call.target.is_none()
                    && call.args.len() == 1
                    && convert::is_conversion(&call.func_name)
                {
                    point_conversion(call);
                    self.fold_conversion(expr);
                    return;
                }
                if is_namespace(call, "lists", "range") {
                    if let Some(n) = call.args.first_mut() {
                        self.wrap(COUNT, n);
                    }
                }
                if let Some(expanded) = self.two_variable(call) {
                    *expr = expanded;
                } else {
                    self.meter(expr);
                }
            }
            Expr::Comprehension(c) => {
                for e in [
                    &mut c.iter_range,
                    &mut c.accu_init,
                    &mut c.loop_cond,
                    &mut c.loop_step,
                    &mut c.result,
                ] {
                    self.rewrite(e);
                }
                let accu = c.accu_var.clone();
                if let Some(element) = appended_mut(&mut c.loop_step, &accu) {
                    self.wrap(BUILT, element);
                }
                self.order(c);
                self.charge(c);
            }
            Expr::List(list) => {
                self.homogeneous(list.elements.iter());
                list.elements.iter_mut().for_each(|e| self.rewrite(e));
            }
            Expr::Map(map) => {
                let entries = || {
                    map.entries.iter().filter_map(|e| match &e.expr {
                        EntryExpr::MapEntry(entry) => Some(entry),
                        EntryExpr::StructField(_) => None,
                    })
                };
                self.homogeneous(entries().map(|e| &e.key));
                self.homogeneous(entries().map(|e| &e.value));
                self.rewrite_entries(map);
            }
            Expr::Select(select) => self.rewrite(&mut select.operand),
            Expr::Struct(s) => {
                for entry in s.entries.iter_mut() {
                    if let EntryExpr::StructField(f) = &mut entry.expr {
                        self.rewrite(&mut f.value);
                    }
                }
            }
            Expr::Literal(_) | Expr::Unspecified => {}
        }
    }

    /// Inserts the API server's charge of a string function before the call, or of a `+`
    /// after it (see `cost`). Arguments the charge needs are evaluated for it as well.
    fn meter(&mut self, expr: &mut IdedExpr) {
        let Expr::Call(call) = &mut expr.expr else {
            return;
        };
        let member = call.target.is_some();
        let hook = match (call.func_name.as_str(), member, call.args.len()) {
            ("replace", true, 2 | 3) => Some((REPLACE_COST, true)),
            ("split", true, 1 | 2) => Some((SPLIT_COST, true)),
            ("join", true, 0 | 1) => Some((JOIN_COST, true)),
            ("contains", true, 1) => Some((CONTAINS_COST, true)),
            ("startsWith" | "endsWith", true, 1) => Some((PREFIX_COST, true)),
            ("lowerAscii" | "upperAscii" | "trim", true, 0) | ("substring", true, 1 | 2) => {
                Some((STR_COST, false))
            }
            (operators::ADD, false, 2) => {
                // Not the `@result + [x]` of a comprehension macro: it pays per element.
                let accumulator =
                    matches!(&call.args[0].expr, Expr::Ident(n) if n.starts_with('@'));
                if !accumulator {
                    self.wrap(ADD_COST, expr);
                }
                return;
            }
            _ => None,
        };
        let Some((name, with_args)) = hook else {
            return;
        };
        let Some(target) = call.target.take() else {
            return;
        };
        let mut hook_args = vec![*target];
        if with_args {
            hook_args.extend(call.args.iter().cloned());
        } else {
            let tenths = self.literal(LiteralValue::Int(1.into()));
            hook_args.push(tenths);
        }
        call.target = Some(Box::new(self.call(name, hook_args)));
    }

    /// Makes a comprehension visit a map's keys in order, the same in every run (see
    /// `sorted::ordered`). A list literal (`cel.bind`'s empty range) needs nothing.
    fn order(&mut self, c: &mut ComprehensionExpr) {
        if !matches!(c.iter_range.expr, Expr::List(_)) {
            self.wrap(ORDERED, &mut c.iter_range);
        }
    }

    /// Inserts the cost charge of a comprehension, weighted by the size of its step. A literal
    /// condition lets cel-rust build map/filter results in place, so those pay for their
    /// range up front; the others pay per iteration, which also ends them as soon as the
    /// budget is gone.
    fn charge(&mut self, c: &mut ComprehensionExpr) {
        let weight = LiteralValue::Int((1 + nodes(&c.loop_step) as i64).into());
        let weight = self.literal(weight);
        let (name, target) = if matches!(c.loop_cond.expr, Expr::Literal(_)) {
            (COST, &mut c.iter_range)
        } else {
            (TICK, &mut c.loop_cond)
        };
        let inner = std::mem::take(target);
        *target = self.call(name, vec![inner, weight]);
    }

    /// `HomogeneousAggregateLiterals`: the literal elements of a list or map literal share a
    /// type (elements of other kinds need a type checker).
    fn homogeneous<'e>(&mut self, elements: impl Iterator<Item = &'e IdedExpr>) {
        let mut first: Option<&'static str> = None;
        for element in elements {
            let Expr::Literal(literal) = &element.expr else {
                continue;
            };
            let found = literal_type(literal);
            match first {
                None => first = Some(found),
                Some(expected) if expected != found => {
                    self.fail(
                        element.id,
                        &format!("expected type '{expected}' but found '{found}'"),
                    );
                    return;
                }
                Some(_) => {}
            }
        }
    }

    fn rewrite_entries(&mut self, map: &mut MapExpr) {
        for entry in map.entries.iter_mut() {
            if let EntryExpr::MapEntry(e) = &mut entry.expr {
                self.rewrite(&mut e.key);
                self.rewrite(&mut e.value);
            }
        }
    }

    /// Kubernetes validates literal arguments of these functions when compiling.
    fn check_literals(&mut self, call: &CallExpr) {
        let member = call.target.is_some();
        let Some(arg) = call.args.first() else {
            return;
        };
        let text = match &arg.expr {
            Expr::Literal(LiteralValue::String(s)) => Some(s.inner().to_owned()),
            _ => None,
        };
        match (call.func_name.as_str(), member, call.args.len()) {
            ("duration", false, 1) if text.as_deref().is_some_and(|s| !is_go_duration(s)) => {
                self.fail(arg.id, "invalid duration argument");
            }
            ("timestamp", false, 1) => {
                // cel-go's ValidateTimestampLiterals evaluates the conversion.
                let converted = |arg: Box<dyn cel::common::value::Val>| {
                    env::call_global(convert::TIMESTAMP, vec![arg]).is_ok()
                };
                let valid = match &arg.expr {
                    Expr::Literal(LiteralValue::String(s)) => {
                        converted(Box::new(CelString::from(s.inner().to_owned())))
                    }
                    Expr::Literal(LiteralValue::Int(i)) => {
                        converted(Box::new(CelInt::from(*i.inner())))
                    }
                    _ => true,
                };
                if !valid {
                    self.fail(arg.id, "invalid timestamp argument");
                }
            }
            ("matches", true, 1) if text.as_deref().is_some_and(|p| compile_go(p).is_err()) => {
                self.fail(arg.id, "invalid matches argument");
            }
            ("matches", false, 2) => {
                if let Expr::Literal(LiteralValue::String(p)) = &call.args[1].expr {
                    if compile_go(p.inner()).is_err() {
                        let id = call.args[1].id;
                        self.fail(id, "invalid matches argument");
                    }
                }
            }
            ("find" | "findAll", true, _) => {
                if let Some(Err(e)) = text.as_deref().map(compile_go) {
                    self.instantiation_failed(&e.to_string());
                }
            }
            _ => {}
        }
    }

    fn instantiation_failed(&mut self, error: &str) {
        if self.instantiation.is_none() {
            self.instantiation = Some(format!("program instantiation failed: {error}"));
        }
    }

    /// cel-go's `OptOptimize` (which Kubernetes sets) evaluates a type conversion of a
    /// constant when it plans the program (`maybeOptimizeConstUnary`): an error there is
    /// `program instantiation failed: <error>`, whether or not the call would run.
    fn fold_conversion(&mut self, expr: &IdedExpr) {
        let Expr::Call(call) = &expr.expr else {
            return;
        };
        if self.instantiation.is_some() || !call.args.iter().all(constant) {
            return;
        }
        let context = cel::Context::with_env(env::env());
        if let Err(e) = cel::Value::resolve_val(expr, &context) {
            self.instantiation_failed(&go_text(&e));
        }
    }

    /// `x.all(i, v, p)` and friends, `x.transformList(i, v, [f,] e)`,
    /// `x.transformMap(k, v, [f,] e)`, `x.transformMapEntry(k, v, [f,] {k2: v2})`.
    fn two_variable(&mut self, call: &mut CallExpr) -> Option<IdedExpr> {
        let kind = call.func_name.as_str();
        let arity_ok = match kind {
            "all" | "exists" | "existsOne" | "exists_one" => call.args.len() == 3,
            "transformList" | "transformMap" | "transformMapEntry" => {
                matches!(call.args.len(), 3 | 4)
            }
            _ => false,
        };
        if !arity_ok || call.target.is_none() {
            return None;
        }
        let (Expr::Ident(first), Expr::Ident(second)) = (&call.args[0].expr, &call.args[1].expr)
        else {
            return None;
        };
        let (first, second) = (first.clone(), second.clone());
        let kind = kind.to_owned();
        let target = *call.target.take()?;
        let mut rest: Vec<IdedExpr> = call.args.drain(2..).collect();
        let body = rest.pop()?;
        let filter = rest.pop().map(|f| self.bind_pair(&first, &second, f));
        let body = self.bind_pair(&first, &second, body);
        let range = self.call(PAIRS, vec![target]);
        let accu = "@result";
        let (init, cond, step, result) = match kind.as_str() {
            "all" | "exists" => {
                let all = kind == "all";
                let init = self.literal(LiteralValue::Boolean(all.into()));
                let acc = self.ident(accu);
                let cond = if all {
                    self.call(operators::NOT_STRICTLY_FALSE, vec![acc])
                } else {
                    let not = self.call(operators::LOGICAL_NOT, vec![acc]);
                    self.call(operators::NOT_STRICTLY_FALSE, vec![not])
                };
                let acc = self.ident(accu);
                let op = if all {
                    operators::LOGICAL_AND
                } else {
                    operators::LOGICAL_OR
                };
                let step = self.call(op, vec![acc, body]);
                (init, cond, step, self.ident(accu))
            }
            "existsOne" | "exists_one" => {
                let init = self.literal(LiteralValue::Int(0.into()));
                let cond = self.literal(LiteralValue::Boolean(true.into()));
                let acc = self.ident(accu);
                let one = self.literal(LiteralValue::Int(1.into()));
                let plus = self.call(operators::ADD, vec![acc, one]);
                let acc = self.ident(accu);
                let step = self.call(operators::CONDITIONAL, vec![body, plus, acc]);
                let acc = self.ident(accu);
                let one = self.literal(LiteralValue::Int(1.into()));
                let result = self.call(operators::EQUALS, vec![acc, one]);
                (init, cond, step, result)
            }
            _ => {
                let init = if kind == "transformList" {
                    self.list(Vec::new())
                } else {
                    self.node(Expr::Map(MapExpr {
                        entries: Vec::new(),
                    }))
                };
                let cond = self.literal(LiteralValue::Boolean(true.into()));
                let acc = self.ident(accu);
                let body = self.call(BUILT, vec![body]);
                let grown = match kind.as_str() {
                    "transformList" => {
                        let item = self.list(vec![body]);
                        self.call(operators::ADD, vec![acc, item])
                    }
                    "transformMap" => {
                        let key = self.pair_element(0);
                        self.call(MAP_INSERT, vec![acc, key, body])
                    }
                    _ => self.call(MAP_MERGE, vec![acc, body]),
                };
                let step = match filter {
                    Some(filter) => {
                        let acc = self.ident(accu);
                        self.call(operators::CONDITIONAL, vec![filter, grown, acc])
                    }
                    None => grown,
                };
                (init, cond, step, self.ident(accu))
            }
        };
        let mut comprehension = ComprehensionExpr {
            iter_range: range,
            iter_var: "@it".to_owned(),
            iter_var2: None,
            accu_var: accu.to_owned(),
            accu_init: init,
            loop_cond: cond,
            loop_step: step,
            result,
        };
        self.charge(&mut comprehension);
        Some(self.node(Expr::Comprehension(Box::new(comprehension))))
    }

    /// `@it[i]`.
    fn pair_element(&mut self, i: i64) -> IdedExpr {
        let it = self.ident("@it");
        let index = self.literal(LiteralValue::Int(i.into()));
        self.call(operators::INDEX, vec![it, index])
    }

    /// `body` with `first` bound to `@it[0]` and `second` to `@it[1]`.
    fn bind_pair(&mut self, first: &str, second: &str, body: IdedExpr) -> IdedExpr {
        let value = self.pair_element(1);
        let inner = self.bind(second, value, body);
        let key = self.pair_element(0);
        self.bind(first, key, inner)
    }

    /// `cel.bind(var, init, body)`: a comprehension over nothing whose accumulator is `var`.
    fn bind(&mut self, var: &str, init: IdedExpr, body: IdedExpr) -> IdedExpr {
        let range = self.list(Vec::new());
        let cond = self.literal(LiteralValue::Boolean(false.into()));
        let step = self.ident(var);
        self.node(Expr::Comprehension(Box::new(ComprehensionExpr {
            iter_range: range,
            iter_var: "#unused".to_owned(),
            iter_var2: None,
            accu_var: var.to_owned(),
            accu_init: init,
            loop_cond: cond,
            loop_step: step,
            result: body,
        })))
    }
}

/// The element a `map`-like step appends (`accu + [f]`, possibly under a filter).
fn appended_mut<'e>(step: &'e mut IdedExpr, accu: &str) -> Option<&'e mut IdedExpr> {
    let Expr::Call(call) = &mut step.expr else {
        return None;
    };
    let name = call.func_name.as_str();
    if name == operators::CONDITIONAL && call.args.len() == 3 {
        return appended_mut(&mut call.args[1], accu);
    }
    let accumulates = name == operators::ADD
        && call.args.len() == 2
        && matches!(&call.args[0].expr, Expr::Ident(n) if n == accu);
    if !accumulates {
        return None;
    }
    match &mut call.args[1].expr {
        Expr::List(list) if list.elements.len() == 1 => list.elements.first_mut(),
        _ => None,
    }
}

/// The number of nodes of `expr`: what one evaluation of it costs, roughly, in cel-go units.
/// The metering calls `meter` inserts, and `@ordered`, count as the expression they wrap.
fn nodes(expr: &IdedExpr) -> usize {
    if let Expr::Call(call) = &expr.expr {
        let metering = [
            ADD_COST,
            BUILT,
            CONTAINS_COST,
            JOIN_COST,
            ORDERED,
            PREFIX_COST,
            REPLACE_COST,
            SPLIT_COST,
            STR_COST,
        ];
        if metering.contains(&call.func_name.as_str()) {
            return call.args.first().map_or(0, nodes);
        }
    }
    1 + match &expr.expr {
        Expr::Call(call) => {
            call.target.as_deref().map_or(0, nodes) + call.args.iter().map(nodes).sum::<usize>()
        }
        Expr::Comprehension(c) => nodes(&c.iter_range) + nodes(&c.loop_step) + nodes(&c.result),
        Expr::List(list) => list.elements.iter().map(nodes).sum(),
        Expr::Map(map) => map
            .entries
            .iter()
            .map(|e| match &e.expr {
                EntryExpr::MapEntry(m) => nodes(&m.key) + nodes(&m.value),
                EntryExpr::StructField(f) => nodes(&f.value),
            })
            .sum(),
        Expr::Select(select) => nodes(&select.operand),
        _ => 0,
    }
}

fn literal_type(literal: &LiteralValue) -> &'static str {
    match literal {
        LiteralValue::Boolean(_) => "bool",
        LiteralValue::Bytes(_) => "bytes",
        LiteralValue::Double(_) => "double",
        LiteralValue::Int(_) => "int",
        LiteralValue::Null => "null_type",
        LiteralValue::String(_) => "string",
        LiteralValue::UInt(_) => "uint",
    }
}

/// Points a global call of `int`, `uint`, `double`, `bool`, `duration` or `timestamp` with
/// one argument at cel-go's version of it (see `convert`).
fn point_conversion(call: &mut CallExpr) {
    if let Some(internal) = convert::internal_name(&call.func_name) {
        call.func_name = internal.to_owned();
    }
}

/// A constant for cel-go's planner: a literal, or a type conversion of a constant (which
/// the planner has already folded).
fn constant(expr: &IdedExpr) -> bool {
    match &expr.expr {
        Expr::Literal(_) => true,
        Expr::Call(call) => {
            call.target.is_none()
                && call.args.len() == 1
                && convert::is_conversion(&call.func_name)
                && constant(&call.args[0])
        }
        _ => false,
    }
}

fn is_namespace(call: &CallExpr, namespace: &str, function: &str) -> bool {
    call.func_name == function
        && matches!(call.target.as_deref(), Some(IdedExpr { expr: Expr::Ident(n), .. }) if n == namespace)
}

impl Expression {
    /// Why the expression cannot be a rule, where its result type shows without a checker
    /// (a literal, list or map at the top).
    pub fn non_bool_result(&self) -> Option<&'static str> {
        match &self.tree.expr {
            Expr::Literal(LiteralValue::Boolean(_)) => None,
            Expr::Literal(_) | Expr::List(_) | Expr::Map(_) => {
                Some("cel expression must evaluate to a bool")
            }
            _ => None,
        }
    }
}
