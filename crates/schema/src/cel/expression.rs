//! CEL expressions of admission policies (ValidatingAdmissionPolicy,
//! MutatingAdmissionPolicy; reference admission-policies.md §5, §7): compiled once in an
//! environment that declares a set of dynamically typed variables (`object`, `oldObject`,
//! `request`, `params`, `namespaceObject`, `authorizer`, ...) and optionally the composited
//! `variables`, then evaluated against JSON values.
//!
//! Compilation reuses the CRD rule machinery (`compile`: parsing, Kubernetes libraries,
//! literal checks, cost charges) and adds what the admission environment checks on its own:
//! references to undeclared identifiers (`undeclared reference to 'params' (in container
//! '')`), undefined `variables.<name>`, overloads of operators between operand types that
//! show without a schema (`found no matching overload for '_+_' applied to '(int, string)'`),
//! and the output type of the expression, which [`CompiledExpression::check_output`] compares
//! with the type a field requires (`must evaluate to bool`).
//!
//! Differences from the API server, all on the lenient side:
//! - the type checker is partial: what it cannot type is `dyn`, and a `dyn` output passes
//!   [`CompiledExpression::check_output`] (cel-go requires the exact type, so e.g. a bare
//!   `object.spec.enabled` as a validation is refused there, accepted here);
//! - the estimated (static) cost is not checked; the runtime per-call limit and budget are;
//! - there is no authorizer: `authorizer` can be declared, and is null when evaluated;
//! - of the declared types, only `namespaceObject`'s fields are checked (the server's
//!   trimmed Namespace: `namespaceObject.metadata.managedFields` is `undefined field
//!   'managedFields'`); `object`, `oldObject`, `params` are `dyn` there too, but `request`
//!   and the elements of `namespaceObject`'s lists and maps are not checked here;
//! - optional types are whatever `cel` 0.15 parses;
//! - the MAP `Object` family is not typed against the kind's schema: `Object.spec{x: 1}`
//!   compiles for any field name; only the type names are checked, at evaluation
//!   ([`Invocation::evaluate_apply_configuration`], [`Invocation::evaluate_json_patch`]).
//!
//! MAP expressions ([`Declarations::with_mutation_types`]) may construct `Object{...}`,
//! `Object.<field>...{...}` and `JSONPatch{...}` (see `mutation`); without it a struct
//! literal is an undeclared reference, as in cel-go. `jsonpatch.escapeKey` is in every
//! environment, as the Kubernetes base environment has held the library since 1.32.
//!
//! `variables` ([`Invocation`]): each variable an expression references (by
//! `variables.<name>`, transitively) is evaluated before the expression, once per
//! invocation, and cached; its cost is charged to the invocation's budget. A variable
//! that fails is left out of the `variables` map, and an expression that then fails with
//! `no such key: <name>` reports the variable's error instead. The difference from the
//! server's lazy evaluation: a variable referenced only on a branch that is not taken is
//! still evaluated (and charged), though its error is not reported.

use super::ast::for_each_child_mut;
use super::checker::Ty;
use super::compile::{self, Expression};
use super::cost::{self, EXCEEDED, PER_CALL_LIMIT, VALIDATION_BUDGET};
use super::env;
use super::errors::go_text;
use super::lazy;
use super::mutation;
use super::value::untyped;
use crate::schema::Schema;
use base64::Engine;
use cel::common::ast::{
    operators, CallExpr, EntryExpr, Expr, IdedExpr, LiteralValue, MapExpr, SourceInfo,
};
use cel::common::types::{CelMap, CelMapKey, CelNull};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use cel::objects::Key;
use cel::{Context, Value as CelValue};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The output type of an expression as far as kadmit's partial checker knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultType {
    Dyn,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Null,
    List,
    Map,
    Duration,
    Timestamp,
    Type,
    /// A MAP `Object` (or `Object.<field>...`) value.
    Object,
    /// A MAP `JSONPatch` value.
    JsonPatch,
    /// `list(JSONPatch)`.
    JsonPatchList,
}

impl ResultType {
    /// cel-go's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            ResultType::Dyn => "dyn",
            ResultType::Bool => "bool",
            ResultType::Int => "int",
            ResultType::Uint => "uint",
            ResultType::Double => "double",
            ResultType::String => "string",
            ResultType::Bytes => "bytes",
            ResultType::Null => "null_type",
            ResultType::List => "list(dyn)",
            ResultType::Map => "map(dyn, dyn)",
            ResultType::Duration => "google.protobuf.Duration",
            ResultType::Timestamp => "google.protobuf.Timestamp",
            ResultType::Type => "type",
            ResultType::Object => "Object",
            ResultType::JsonPatch => "JSONPatch",
            ResultType::JsonPatchList => "list(JSONPatch)",
        }
    }

    fn numeric(self) -> bool {
        matches!(
            self,
            ResultType::Int | ResultType::Uint | ResultType::Double
        )
    }

    /// A scalar whose overloads the checker knows.
    fn scalar(self) -> bool {
        !matches!(
            self,
            ResultType::Dyn
                | ResultType::List
                | ResultType::Map
                | ResultType::Type
                | ResultType::Object
                | ResultType::JsonPatch
                | ResultType::JsonPatchList
        )
    }
}

impl fmt::Display for ResultType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether and how `variables` is declared.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum VariablesDecl {
    /// `variables` is not declared (matchConditions).
    #[default]
    Undeclared,
    /// Declared with any field (`dyn`): the variable list is not known.
    Open,
    /// Declared with these fields, in order, with their output types.
    Fields(Vec<(String, ResultType)>),
}

/// What an expression may reference.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Declarations {
    /// Top-level variable names (dynamically typed). A dotted name such as
    /// `authorizer.requestResource` is declared as a qualified name.
    pub names: Vec<String>,
    pub variables: VariablesDecl,
    /// The MAP types: `Object` struct literals and `JSONPatch`.
    pub mutation: bool,
}

impl Declarations {
    pub fn new<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        Declarations {
            names: names.into_iter().map(Into::into).collect(),
            variables: VariablesDecl::Undeclared,
            mutation: false,
        }
    }

    /// The admission environment (plugin/cel/compile.go): `object`, `oldObject`, `request`,
    /// `namespaceObject`, plus `params` and `authorizer`/`authorizer.requestResource` when
    /// asked for. `variables` is left undeclared.
    pub fn admission(params: bool, authorizer: bool) -> Self {
        let mut names = vec!["object", "oldObject", "request", "namespaceObject"];
        if params {
            names.push("params");
        }
        if authorizer {
            names.extend(["authorizer", "authorizer.requestResource"]);
        }
        Declarations::new(names)
    }

    pub fn with_variables(mut self, variables: VariablesDecl) -> Self {
        self.variables = variables;
        self
    }

    /// Declares the MutatingAdmissionPolicy types (AP `mutating/compilation.go`): `Object`
    /// and any `Object.<field>...` struct literal, and `JSONPatch{op, path, from, value}`.
    pub fn with_mutation_types(mut self) -> Self {
        self.mutation = true;
        self
    }

    fn declares(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

/// A compile error: `detail` is the API server's text (`compilation failed: ERROR: ...`,
/// `program instantiation failed: ...`); `internal` for the latter (an `InternalError`
/// upstream rather than `Invalid`).
#[derive(Debug, Clone, PartialEq)]
pub struct CompileError {
    pub detail: String,
    pub internal: bool,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for CompileError {}

/// An evaluation error, displayed with the API server's text.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    /// cel-go's text of the failure (`no such key: x`, `no such overload`, ...).
    Failed(String),
    /// The per-expression limit was hit (`operation cancelled: actual cost limit exceeded`).
    CostLimitExceeded,
    /// The invocation's budget is spent.
    BudgetExhausted,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Failed(s) => f.write_str(s),
            EvalError::CostLimitExceeded => f.write_str(EXCEEDED),
            EvalError::BudgetExhausted => f.write_str(
                "validation failed due to running out of cost budget, no further validation rules will be run",
            ),
        }
    }
}

impl std::error::Error for EvalError {}

/// A compiled expression.
#[derive(Debug)]
pub struct CompiledExpression {
    source: String,
    program: Expression,
    output: ResultType,
    names: Vec<String>,
    /// The `variables.<name>` it references.
    variables_used: Vec<String>,
    /// Whether it uses `variables` other than by selecting a field.
    all_variables: bool,
    /// Compiled with the MAP types (runs in their environment).
    mutation: bool,
    /// Every identifier the program reads (variables, comprehension variables, names).
    idents: Vec<String>,
}

/// A value bound to a name of an [`Activation`]. Either converted to CEL up front
/// ([`ActivationValue::from_json`]: cloning it shares the converted value), or borrowing the
/// JSON ([`ActivationValue::borrowing`]: objects and arrays are converted one level at a
/// time, as far as an expression reads them, see `lazy`).
#[derive(Debug, Clone)]
pub struct ActivationValue<'v>(Arc<dyn Val + 'v>);

impl<'v> ActivationValue<'v> {
    /// `value` as CEL sees a value without a schema, converted now.
    pub fn from_json(value: &Value) -> ActivationValue<'v> {
        ActivationValue(Arc::from(untyped(value)))
    }

    /// `value` as CEL sees a value without a schema, read in place when evaluated: binding
    /// it costs nothing, and an expression pays only for the parts it reads.
    pub fn borrowing(value: &'v Value) -> ActivationValue<'v> {
        ActivationValue(Arc::from(lazy::borrowed(value)))
    }

    pub fn null() -> ActivationValue<'v> {
        ActivationValue(Arc::new(CelNull))
    }
}

/// The values of the declared variables for one evaluation; a declared name without a
/// value is null.
#[derive(Debug, Default)]
pub struct Activation<'v> {
    values: Vec<(Cow<'static, str>, Slot<'v>)>,
}

/// A name's value, or how to make it when an expression first reads the name.
enum Slot<'v> {
    Ready(ActivationValue<'v>),
    Deferred {
        make: Deferred<'v>,
        value: OnceLock<ActivationValue<'v>>,
    },
}

type Deferred<'v> = Box<dyn Fn() -> ActivationValue<'v> + Send + Sync + 'v>;

impl fmt::Debug for Slot<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::Ready(v) => v.fmt(f),
            Slot::Deferred { value, .. } => f.debug_tuple("Deferred").field(value).finish(),
        }
    }
}

impl<'v> Activation<'v> {
    pub fn new() -> Self {
        Activation { values: Vec::new() }
    }

    pub fn with(self, name: impl Into<Cow<'static, str>>, value: Value) -> Self {
        self.with_value(name, ActivationValue::from_json(&value))
    }

    /// Binds an already converted value.
    pub fn with_value(
        mut self,
        name: impl Into<Cow<'static, str>>,
        value: ActivationValue<'v>,
    ) -> Self {
        self.set(name.into(), Slot::Ready(value));
        self
    }

    /// Binds the value `make` gives, made when an expression first reads `name` (at most
    /// once): for values that cost something to build and that most expressions never
    /// read, such as `request`.
    pub fn with_deferred(
        mut self,
        name: impl Into<Cow<'static, str>>,
        make: impl Fn() -> ActivationValue<'v> + Send + Sync + 'v,
    ) -> Self {
        let slot = Slot::Deferred {
            make: Box::new(make),
            value: OnceLock::new(),
        };
        self.set(name.into(), slot);
        self
    }

    pub fn insert(&mut self, name: impl Into<Cow<'static, str>>, value: Value) {
        self.set(name.into(), Slot::Ready(ActivationValue::from_json(&value)));
    }

    fn set(&mut self, name: Cow<'static, str>, slot: Slot<'v>) {
        match self.values.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => *v = slot,
            None => self.values.push((name, slot)),
        }
    }

    fn get(&self, name: &str) -> Option<&(dyn Val + 'v)> {
        let (_, slot) = self.values.iter().find(|(n, _)| n == name)?;
        let value = match slot {
            Slot::Ready(v) => v,
            Slot::Deferred { make, value } => value.get_or_init(make),
        };
        Some(value.0.as_ref())
    }
}

/// The variables of one evaluation as the CEL context resolves them: the declared names
/// (without a dot) from the activation, null when it has no value; `variables` when bound.
struct Resolver<'a, 'v> {
    activation: &'a Activation<'v>,
    names: &'a [String],
    variables: Option<Box<dyn Val>>,
}

impl VariableResolver for Resolver<'_, '_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        if variable == "variables" {
            if let Some(v) = &self.variables {
                return Some(CowVal::Borrowed(v.as_ref()));
            }
        }
        if variable.contains('.') || !self.names.iter().any(|n| n == variable) {
            return None;
        }
        Some(match self.activation.get(variable) {
            Some(v) => CowVal::Borrowed(v),
            None => CowVal::owned(CelNull),
        })
    }
}

/// Compiles `source` with `declarations`.
pub fn compile(
    source: &str,
    declarations: &Declarations,
) -> Result<CompiledExpression, CompileError> {
    let invalid = |detail: String| CompileError {
        detail,
        internal: false,
    };
    let (tree, info) = env::env()
        .parser()
        .parse_with_source_info(source)
        .map_err(|e| invalid(format!("compilation failed: {e}")))?;
    let mut checker = Checker {
        declarations,
        scope: Vec::new(),
        variables_used: Vec::new(),
        all_variables: false,
    };
    let output = checker
        .infer(&tree)
        .map_err(|(id, message)| invalid(located(source, &info, id, &message)))?;
    let mut program =
        compile::compile(source, &Ty::Dyn, &Schema::default(), false).map_err(|e| {
            CompileError {
                internal: e.starts_with("program instantiation failed"),
                detail: e,
            }
        })?;
    let mut next_id = 1 << 50;
    expand_bind(&mut program.tree, &mut next_id);
    let guarded: Vec<&str> = declarations
        .names
        .iter()
        .filter(|n| !n.contains('.'))
        .map(String::as_str)
        .collect();
    guard_null_variables(
        &mut program.tree,
        &guarded,
        declarations,
        &mut Vec::new(),
        &mut next_id,
    );
    if declarations.mutation {
        mutation::rewrite_structs(&mut program.tree, &mut next_id);
    }
    let mut idents = Vec::new();
    collect_idents(&program.tree, &mut idents);
    Ok(CompiledExpression {
        source: source.to_owned(),
        idents,
        program,
        output,
        names: declarations.names.clone(),
        variables_used: checker.variables_used,
        all_variables: checker.all_variables,
        mutation: declarations.mutation,
    })
}

/// The identifiers of `expr`, each once.
fn collect_idents(expr: &IdedExpr, out: &mut Vec<String>) {
    match &expr.expr {
        Expr::Ident(name) => {
            if !out.contains(name) {
                out.push(name.clone());
            }
        }
        Expr::Call(call) => {
            if let Some(t) = call.target.as_deref() {
                collect_idents(t, out);
            }
            call.args.iter().for_each(|a| collect_idents(a, out));
        }
        Expr::Comprehension(c) => {
            for e in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                collect_idents(e, out);
            }
        }
        Expr::List(list) => list.elements.iter().for_each(|e| collect_idents(e, out)),
        Expr::Map(map) => {
            for entry in map.entries.iter() {
                match &entry.expr {
                    EntryExpr::MapEntry(e) => {
                        collect_idents(&e.key, out);
                        collect_idents(&e.value, out);
                    }
                    EntryExpr::StructField(f) => collect_idents(&f.value, out),
                }
            }
        }
        Expr::Struct(s) => {
            for entry in s.entries.iter() {
                match &entry.expr {
                    EntryExpr::MapEntry(e) => {
                        collect_idents(&e.key, out);
                        collect_idents(&e.value, out);
                    }
                    EntryExpr::StructField(f) => collect_idents(&f.value, out),
                }
            }
        }
        Expr::Select(select) => collect_idents(&select.operand, out),
        Expr::Literal(_) | Expr::Unspecified => {}
    }
}

fn is_cel_namespace(target: Option<&IdedExpr>) -> bool {
    matches!(target, Some(IdedExpr { expr: Expr::Ident(n), .. }) if n == "cel")
}

/// `cel.bind(x, init, body)` as cel-go's macro expands it: a comprehension over an empty
/// list whose accumulator `x` starts as `init` and whose result is `body`.
fn expand_bind(expr: &mut IdedExpr, next_id: &mut u64) {
    let mut node = |e: Expr| {
        *next_id += 1;
        IdedExpr {
            id: *next_id,
            expr: e,
        }
    };
    match &mut expr.expr {
        Expr::Call(call) => {
            let bind = call.func_name == "bind"
                && call.args.len() == 3
                && is_cel_namespace(call.target.as_deref())
                && matches!(call.args[0].expr, Expr::Ident(_));
            if bind {
                let mut args = std::mem::take(&mut call.args);
                let mut body = args.pop().unwrap_or_default();
                let mut init = args.pop().unwrap_or_default();
                let Some(IdedExpr {
                    expr: Expr::Ident(var),
                    ..
                }) = args.pop()
                else {
                    return;
                };
                let range = node(Expr::List(cel::common::ast::ListExpr::new(Vec::new())));
                let cond = node(Expr::Literal(LiteralValue::Boolean(false.into())));
                let step = node(Expr::Ident(var.clone()));
                expand_bind(&mut init, next_id);
                expand_bind(&mut body, next_id);
                expr.expr = Expr::Comprehension(Box::new(cel::common::ast::ComprehensionExpr {
                    iter_range: range,
                    iter_var: "#unused".to_owned(),
                    iter_var2: None,
                    accu_var: var,
                    accu_init: init,
                    loop_cond: cond,
                    loop_step: step,
                    result: body,
                }));
                return;
            }
            for_each_child_mut(&mut expr.expr, |child| expand_bind(child, next_id));
        }
        other => for_each_child_mut(other, |child| expand_bind(child, next_id)),
    }
}

/// cel-go's qualification of a variable bound to null (`refQualify` on a value that is
/// neither a map, a list nor an object): `params.metadata` and `params['metadata']` fail
/// with `no such key: metadata`, and `has(params.metadata)` is false. cel 0.15 reports a
/// missing `_._` overload instead, so the operand of each selection or index on one of
/// `names` becomes `(name == null ? {} : name)`, whose empty map gives cel-go's answers.
/// Comprehension variables (in `scope`) shadow the names; a selection that spells a
/// declared qualified name (`authorizer.requestResource`) is left alone.
fn guard_null_variables(
    expr: &mut IdedExpr,
    names: &[&str],
    declarations: &Declarations,
    scope: &mut Vec<String>,
    next_id: &mut u64,
) {
    let guarded = |e: &IdedExpr, scope: &[String]| match &e.expr {
        Expr::Ident(n) => names.contains(&n.as_str()) && !scope.iter().any(|s| s == n),
        _ => false,
    };
    let guard = |operand: &mut IdedExpr, next_id: &mut u64| {
        let mut node = |e: Expr| {
            *next_id += 1;
            IdedExpr {
                id: *next_id,
                expr: e,
            }
        };
        let Expr::Ident(name) = &operand.expr else {
            return;
        };
        let args = vec![
            node(Expr::Ident(name.clone())),
            node(Expr::Literal(LiteralValue::Null)),
        ];
        let test = node(Expr::Call(CallExpr {
            func_name: operators::EQUALS.to_owned(),
            target: None,
            args,
        }));
        let empty = node(Expr::Map(MapExpr {
            entries: Vec::new(),
        }));
        let value = std::mem::take(operand);
        *operand = node(Expr::Call(CallExpr {
            func_name: operators::CONDITIONAL.to_owned(),
            target: None,
            args: vec![test, empty, value],
        }));
    };
    match &mut expr.expr {
        Expr::Select(select) => {
            if guarded(&select.operand, scope) {
                let qualified = match &select.operand.expr {
                    Expr::Ident(n) => declarations.declares(&format!("{n}.{}", select.field)),
                    _ => false,
                };
                if !qualified {
                    guard(&mut select.operand, next_id);
                }
            } else {
                guard_null_variables(&mut select.operand, names, declarations, scope, next_id);
            }
        }
        Expr::Call(call) => {
            if let Some(t) = call.target.as_deref_mut() {
                guard_null_variables(t, names, declarations, scope, next_id);
            }
            let index = call.func_name == operators::INDEX && call.args.len() == 2;
            for (i, arg) in call.args.iter_mut().enumerate() {
                if i == 0 && index && guarded(arg, scope) {
                    guard(arg, next_id);
                } else {
                    guard_null_variables(arg, names, declarations, scope, next_id);
                }
            }
        }
        Expr::Comprehension(c) => {
            guard_null_variables(&mut c.iter_range, names, declarations, scope, next_id);
            guard_null_variables(&mut c.accu_init, names, declarations, scope, next_id);
            let mark = scope.len();
            scope.push(c.iter_var.clone());
            scope.extend(c.iter_var2.clone());
            scope.push(c.accu_var.clone());
            for e in [&mut c.loop_cond, &mut c.loop_step, &mut c.result] {
                guard_null_variables(e, names, declarations, scope, next_id);
            }
            scope.truncate(mark);
        }
        Expr::List(list) => {
            for e in list.elements.iter_mut() {
                guard_null_variables(e, names, declarations, scope, next_id);
            }
        }
        Expr::Map(map) => {
            for entry in map.entries.iter_mut() {
                match &mut entry.expr {
                    EntryExpr::MapEntry(e) => {
                        guard_null_variables(&mut e.key, names, declarations, scope, next_id);
                        guard_null_variables(&mut e.value, names, declarations, scope, next_id);
                    }
                    EntryExpr::StructField(f) => {
                        guard_null_variables(&mut f.value, names, declarations, scope, next_id)
                    }
                }
            }
        }
        Expr::Struct(s) => {
            for entry in s.entries.iter_mut() {
                if let EntryExpr::StructField(f) = &mut entry.expr {
                    guard_null_variables(&mut f.value, names, declarations, scope, next_id);
                }
            }
        }
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// cel-go's `ERROR: <input>:line:column: message`, after `compilation failed: `.
fn located(source: &str, info: &SourceInfo, id: u64, message: &str) -> String {
    let mut offset = info.offset_for(id).map_or(0, |(start, _)| start as usize);
    if offset > 0 && source.chars().nth(offset - 1) == Some('-') {
        offset -= 1;
    }
    let before: String = source.chars().take(offset).collect();
    let line = before.matches('\n').count() + 1;
    let column = before.chars().rev().take_while(|c| *c != '\n').count() + 1;
    format!("compilation failed: ERROR: <input>:{line}:{column}: {message}")
}

impl CompiledExpression {
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The output type as far as kadmit knows it (`Dyn` when not).
    pub fn output_type(&self) -> ResultType {
        self.output
    }

    /// compile.go's return-type check: `Err("must evaluate to bool")`,
    /// `Err("must evaluate to one of [string null_type]")`, or for the MAP outputs
    /// `Err("must evaluate to Object but got string")` (`list(JSONPatch)` likewise, which a
    /// list literal of untyped elements passes), when the output type is known
    /// and not one of `allowed`. A `dyn` output passes (see the module doc); an empty
    /// `allowed` accepts any type (cel-go's `AnyType`, as for variables).
    pub fn check_output(&self, allowed: &[ResultType]) -> Result<(), String> {
        if allowed.is_empty() || self.output == ResultType::Dyn || allowed.contains(&self.output) {
            return Ok(());
        }
        // A list literal of dynamically typed elements may still hold JSONPatch values.
        if self.output == ResultType::List && allowed.contains(&ResultType::JsonPatchList) {
            return Ok(());
        }
        Err(match allowed {
            [one @ (ResultType::Object | ResultType::JsonPatchList)] => {
                format!("must evaluate to {one} but got {}", self.output)
            }
            [one] => format!("must evaluate to {one}"),
            _ => {
                let names: Vec<&str> = allowed.iter().map(|t| t.name()).collect();
                format!("must evaluate to one of [{}]", names.join(" "))
            }
        })
    }

    /// Whether the program reads the identifier `name` (a declared variable such as
    /// `object`): when it does not, the value bound to the name is never looked at.
    pub fn references(&self, name: &str) -> bool {
        self.idents.iter().any(|i| i == name)
    }

    /// The `variables.<name>` the expression references.
    pub fn variables_used(&self) -> &[String] {
        &self.variables_used
    }

    /// Evaluates without composited variables, with the per-expression cost limit.
    pub fn evaluate(&self, activation: &Activation) -> Result<Value, EvalError> {
        Invocation::new(activation, &[], VALIDATION_BUDGET).evaluate(self)
    }

    fn run(
        &self,
        activation: &Activation,
        variables: Option<Box<dyn Val>>,
        budget: u64,
    ) -> (Result<Value, EvalError>, u64) {
        self.run_with(activation, variables, budget, &|v| {
            to_json(v).map_err(EvalError::Failed)
        })
    }

    /// Evaluates, then converts the CEL result with `convert`.
    fn run_with<T>(
        &self,
        activation: &Activation,
        variables: Option<Box<dyn Val>>,
        budget: u64,
        convert: &dyn Fn(&CelValue) -> Result<T, EvalError>,
    ) -> (Result<T, EvalError>, u64) {
        let resolver = Resolver {
            activation,
            names: &self.names,
            variables,
        };
        let mut context = Context::with_env(if self.mutation {
            env::mutation_env()
        } else {
            env::env()
        });
        context.set_variable_resolver(&resolver);
        let limit = PER_CALL_LIMIT.min(budget);
        let (result, spent) = cost::metered(limit, || {
            CelValue::resolve_val(&self.program.tree, &context)
                .and_then(|v| CelValue::try_from(v.as_ref()))
        });
        if spent >= limit {
            let error = if limit == PER_CALL_LIMIT {
                EvalError::CostLimitExceeded
            } else {
                EvalError::BudgetExhausted
            };
            return (Err(error), spent);
        }
        let result = match result {
            Ok(v) => convert(&v),
            Err(e) => Err(EvalError::Failed(go_text(&e))),
        };
        (result, spent)
    }
}

/// One invocation (a policy, binding and param): the composited variables, evaluated at
/// most once each, and the cost budget all evaluations share.
pub struct Invocation<'a, 'v> {
    activation: &'a Activation<'v>,
    variables: &'a [(String, CompiledExpression)],
    cache: HashMap<String, Result<Value, EvalError>>,
    budget: u64,
}

impl<'a, 'v> Invocation<'a, 'v> {
    /// `variables` in declaration order (each compiled with the earlier ones declared, see
    /// [`VariablesDecl::Fields`]); `budget` in cost units (the API server's
    /// `RuntimeCELCostBudget` is [`VALIDATION_BUDGET`]).
    pub fn new(
        activation: &'a Activation<'v>,
        variables: &'a [(String, CompiledExpression)],
        budget: u64,
    ) -> Self {
        Invocation {
            activation,
            variables,
            cache: HashMap::new(),
            budget,
        }
    }

    /// The budget left.
    pub fn remaining_budget(&self) -> u64 {
        self.budget
    }

    /// Evaluates `expression`, after the variables it references.
    pub fn evaluate(&mut self, expression: &CompiledExpression) -> Result<Value, EvalError> {
        self.evaluate_with(expression, &|v| to_json(v).map_err(EvalError::Failed))
    }

    /// Evaluates a MAP ApplyConfiguration expression (smd.go): the `Object{...}` it returns
    /// as plain JSON, after the type-name check (`type mismatch: unexpected type name
    /// "Object.specx", expected "Object.spec", which matches field name path from root
    /// Object type`). Any other result is `must evaluate to Object but got <type>`.
    pub fn evaluate_apply_configuration(
        &mut self,
        expression: &CompiledExpression,
    ) -> Result<Value, EvalError> {
        self.evaluate_with(expression, &|v| {
            mutation::apply_configuration(v, &to_json).map_err(EvalError::Failed)
        })
    }

    /// Evaluates a MAP JSONPatch expression (json_patch.go): each `JSONPatch` of the list
    /// it returns as an RFC 6902 operation `{op, path, from?, value?}`. Values may be CEL
    /// maps and lists, `Object` initializers (type names checked as for an apply
    /// configuration) or parts of `object`. Anything but a list of `JSONPatch` is
    /// `type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch
    /// types, got element of <type>` (or `... to array, got <type>`).
    pub fn evaluate_json_patch(
        &mut self,
        expression: &CompiledExpression,
    ) -> Result<Vec<Value>, EvalError> {
        self.evaluate_with(expression, &|v| {
            mutation::json_patch(v, &to_json).map_err(EvalError::Failed)
        })
    }

    fn evaluate_with<T>(
        &mut self,
        expression: &CompiledExpression,
        convert: &dyn Fn(&CelValue) -> Result<T, EvalError>,
    ) -> Result<T, EvalError> {
        if self.budget == 0 {
            return Err(EvalError::BudgetExhausted);
        }
        let bound = self.bind(expression)?;
        let (result, spent) = expression.run_with(self.activation, bound, self.budget, convert);
        self.budget = self.budget.saturating_sub(spent);
        match result {
            Err(EvalError::Failed(text)) => {
                // A failed variable is absent from the map: report its own error.
                let failed = self.cache.iter().find_map(|(name, r)| match r {
                    Err(e) if text == format!("no such key: {name}") => Some(e.clone()),
                    _ => None,
                });
                Err(failed.unwrap_or(EvalError::Failed(text)))
            }
            other => other,
        }
    }

    /// The `variables` map for `expression`, evaluating what it needs; `None` when it does
    /// not use `variables`.
    fn bind(&mut self, expression: &CompiledExpression) -> Result<Option<Box<dyn Val>>, EvalError> {
        if !expression.all_variables && expression.variables_used.is_empty() {
            return Ok(None);
        }
        let wanted: Vec<String> = if expression.all_variables {
            self.variables.iter().map(|(n, _)| n.clone()).collect()
        } else {
            expression.variables_used.clone()
        };
        for name in &wanted {
            self.resolve(name, 0)?;
        }
        let mut map: HashMap<CelMapKey<'static>, Box<dyn Val>> = HashMap::new();
        for (name, result) in &self.cache {
            if let Ok(v) = result {
                map.insert(CelMapKey::from(name.clone()), untyped(v));
            }
        }
        Ok(Some(Box::new(CelMap::from(map))))
    }

    /// Evaluates variable `name` (and what it references) once; budget errors stop the
    /// invocation.
    fn resolve(&mut self, name: &str, depth: usize) -> Result<(), EvalError> {
        if self.cache.contains_key(name) || depth > self.variables.len() {
            return Ok(());
        }
        let Some((_, expression)) = self.variables.iter().find(|(n, _)| n == name) else {
            return Ok(());
        };
        let used: Vec<String> = if expression.all_variables {
            self.variables
                .iter()
                .take_while(|(n, _)| n != name)
                .map(|(n, _)| n.clone())
                .collect()
        } else {
            expression.variables_used.clone()
        };
        for n in &used {
            self.resolve(n, depth + 1)?;
        }
        let bound = self.bind_cached();
        let (result, spent) = expression.run(self.activation, Some(bound), self.budget);
        self.budget = self.budget.saturating_sub(spent);
        if result == Err(EvalError::BudgetExhausted) {
            return Err(EvalError::BudgetExhausted);
        }
        self.cache.insert(name.to_owned(), result);
        Ok(())
    }

    fn bind_cached(&self) -> Box<dyn Val> {
        let map: HashMap<CelMapKey<'static>, Box<dyn Val>> = self
            .cache
            .iter()
            .filter_map(|(n, r)| Some((CelMapKey::from(n.clone()), untyped(r.as_ref().ok()?))))
            .collect();
        Box::new(CelMap::from(map))
    }
}

/// A CEL result as JSON (`ConvertToNative` to a JSON value).
fn to_json(value: &CelValue) -> Result<Value, String> {
    Ok(match value {
        CelValue::Null => Value::Null,
        CelValue::Bool(b) => Value::Bool(*b),
        CelValue::Int(i) => Value::from(*i),
        CelValue::UInt(u) => Value::from(*u),
        CelValue::Float(f) => serde_json::Number::from_f64(*f)
            .map(Value::Number)
            .ok_or_else(|| format!("unsupported result: {f}"))?,
        CelValue::String(s) => Value::String(s.to_string()),
        CelValue::Bytes(b) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(b.as_slice()))
        }
        CelValue::List(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        CelValue::Map(map) => {
            // A CEL map iterates in its hash table's order, which differs from run to run:
            // the keys are written sorted, as Go's `encoding/json` writes a map (and so the
            // server stores what such a map became).
            let mut entries: Vec<(String, &CelValue)> = map
                .map
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Key::String(s) => s.to_string(),
                        Key::Int(i) => i.to_string(),
                        Key::Uint(u) => u.to_string(),
                        Key::Bool(b) => b.to_string(),
                    };
                    (key, v)
                })
                .collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let mut out = Map::with_capacity(entries.len());
            for (key, v) in entries {
                out.insert(key, to_json(v)?);
            }
            Value::Object(out)
        }
        CelValue::Duration(d) => {
            let seconds = d.num_milliseconds() as f64 / 1000.0;
            Value::String(format!("{seconds}s"))
        }
        CelValue::Timestamp(t) => {
            let text = t.to_rfc3339();
            Value::String(match text.strip_suffix("+00:00") {
                Some(utc) => format!("{utc}Z"),
                None => text,
            })
        }
        CelValue::Struct(s) => mutation::struct_to_json(s, &to_json)?,
        other => return Err(format!("unsupported result type: {:?}", other.type_of())),
    })
}

/// Identifiers that name a type (`type(x) == int`).
const TYPE_NAMES: [&str; 11] = [
    "bool",
    "bytes",
    "double",
    "dyn",
    "int",
    "list",
    "map",
    "null_type",
    "string",
    "type",
    "uint",
];
/// Namespaces of library functions (`lists.range`, `optional.of`, `format.named`, ...).
const NAMESPACES: [&str; 10] = [
    "base64",
    "cel",
    "ext",
    "format",
    "jsonpatch",
    "lists",
    "math",
    "optional",
    "sets",
    "strings",
];

/// A declared type the checker knows the fields of.
#[derive(Debug)]
enum Shape {
    Object(&'static [(&'static str, Shape)]),
    Leaf(ResultType),
}

impl Shape {
    fn field(&self, name: &str) -> Option<&Shape> {
        match self {
            Shape::Object(fields) => fields.iter().find(|(n, _)| *n == name).map(|(_, s)| s),
            Shape::Leaf(_) => None,
        }
    }

    /// The type of a value of this shape: objects are `dyn` to the rest of the checker.
    fn result_type(&self) -> ResultType {
        match self {
            Shape::Object(_) => ResultType::Dyn,
            Shape::Leaf(t) => *t,
        }
    }
}

const NAMESPACE_OBJECT: &str = "namespaceObject";

/// The type the API server declares `namespaceObject` with (plugin/cel/compile.go
/// `BuildNamespaceType`: `kubernetes.Namespace`, trimmed to what `CreateNamespaceObject`
/// copies; the metadata field of the uid is declared as `UID`).
static NAMESPACE: Shape = {
    use ResultType as T;
    use Shape::{Leaf, Object};
    Object(&[
        (
            "metadata",
            Object(&[
                ("name", Leaf(T::String)),
                ("generateName", Leaf(T::String)),
                ("namespace", Leaf(T::String)),
                ("labels", Leaf(T::Map)),
                ("annotations", Leaf(T::Map)),
                ("UID", Leaf(T::String)),
                ("creationTimestamp", Leaf(T::Timestamp)),
                ("deletionGracePeriodSeconds", Leaf(T::Int)),
                ("deletionTimestamp", Leaf(T::Timestamp)),
                ("generation", Leaf(T::Int)),
                ("resourceVersion", Leaf(T::String)),
                ("finalizers", Leaf(T::List)),
            ]),
        ),
        ("spec", Object(&[("finalizers", Leaf(T::List))])),
        (
            "status",
            Object(&[("conditions", Leaf(T::List)), ("phase", Leaf(T::String))]),
        ),
    ])
};

struct Checker<'a> {
    declarations: &'a Declarations,
    /// Comprehension variables in scope.
    scope: Vec<String>,
    variables_used: Vec<String>,
    all_variables: bool,
}

type Problem = (u64, String);

fn mismatch(id: u64, function: &str, args: &[ResultType]) -> Problem {
    let names: Vec<&str> = args.iter().map(|t| t.name()).collect();
    (
        id,
        format!(
            "found no matching overload for '{function}' applied to '({})'",
            names.join(", ")
        ),
    )
}

impl Checker<'_> {
    fn in_scope(&self, name: &str) -> bool {
        self.scope.iter().any(|n| n == name)
    }

    /// The declared shape of `expr` when it is `namespaceObject` or a selection of its
    /// object-typed fields (`namespaceObject.metadata`).
    fn namespace_shape(&self, expr: &IdedExpr) -> Option<&'static Shape> {
        match &expr.expr {
            Expr::Ident(name)
                if name == NAMESPACE_OBJECT
                    && !self.in_scope(name)
                    && self.declarations.declares(name) =>
            {
                Some(&NAMESPACE)
            }
            Expr::Select(select) if !select.test => self
                .namespace_shape(&select.operand)?
                .field(&select.field)
                .filter(|f| matches!(f, Shape::Object(_))),
            _ => None,
        }
    }

    fn variables_declared(&self) -> bool {
        self.declarations.variables != VariablesDecl::Undeclared && !self.in_scope("variables")
    }

    fn infer(&mut self, expr: &IdedExpr) -> Result<ResultType, Problem> {
        Ok(match &expr.expr {
            Expr::Literal(literal) => match literal {
                LiteralValue::Boolean(_) => ResultType::Bool,
                LiteralValue::Bytes(_) => ResultType::Bytes,
                LiteralValue::Double(_) => ResultType::Double,
                LiteralValue::Int(_) => ResultType::Int,
                LiteralValue::Null => ResultType::Null,
                LiteralValue::String(_) => ResultType::String,
                LiteralValue::UInt(_) => ResultType::Uint,
            },
            Expr::Ident(name) => {
                if self.in_scope(name) || self.declarations.declares(name) {
                    ResultType::Dyn
                } else if name == "variables" && self.variables_declared() {
                    self.all_variables = true;
                    ResultType::Map
                } else if TYPE_NAMES.contains(&name.as_str()) {
                    ResultType::Type
                } else {
                    return Err((
                        expr.id,
                        format!("undeclared reference to '{name}' (in container '')"),
                    ));
                }
            }
            Expr::Select(select) => {
                if let Expr::Ident(operand) = &select.operand.expr {
                    if operand == "variables"
                        && self.variables_declared()
                        && !self.declarations.declares("variables")
                    {
                        let ty = match &self.declarations.variables {
                            VariablesDecl::Fields(fields) => {
                                match fields.iter().find(|(n, _)| *n == select.field) {
                                    Some((_, t)) => *t,
                                    None => {
                                        return Err((
                                            expr.id,
                                            format!("undefined field '{}'", select.field),
                                        ))
                                    }
                                }
                            }
                            _ => ResultType::Dyn,
                        };
                        if !self.variables_used.contains(&select.field) {
                            self.variables_used.push(select.field.clone());
                        }
                        return Ok(if select.test { ResultType::Bool } else { ty });
                    }
                    let qualified = format!("{operand}.{}", select.field);
                    if !self.in_scope(operand) && self.declarations.declares(&qualified) {
                        return Ok(ResultType::Dyn);
                    }
                    if operand == "google" && !self.in_scope(operand) {
                        return Ok(ResultType::Type);
                    }
                }
                if let Some(shape) = self.namespace_shape(&select.operand) {
                    let Some(field) = shape.field(&select.field) else {
                        return Err((expr.id, format!("undefined field '{}'", select.field)));
                    };
                    return Ok(if select.test {
                        ResultType::Bool
                    } else {
                        field.result_type()
                    });
                }
                let operand = self.infer(&select.operand)?;
                if operand.scalar() {
                    // cel-go's checker: `null.x`, `'s'.x`, `1.x`, ...
                    return Err((
                        expr.id,
                        format!("type '{operand}' does not support field selection"),
                    ));
                }
                if operand == ResultType::JsonPatch
                    && !mutation::JSON_PATCH_FIELDS.contains(&select.field.as_str())
                {
                    return Err((expr.id, format!("undefined field '{}'", select.field)));
                }
                if select.test {
                    ResultType::Bool
                } else if operand == ResultType::Type {
                    ResultType::Type
                } else {
                    ResultType::Dyn
                }
            }
            Expr::Call(call) => return self.call(expr.id, call),
            Expr::Comprehension(c) => {
                self.infer(&c.iter_range)?;
                let init = self.infer(&c.accu_init)?;
                let mark = self.scope.len();
                self.scope.push(c.iter_var.clone());
                if let Some(v) = &c.iter_var2 {
                    self.scope.push(v.clone());
                }
                self.scope.push(c.accu_var.clone());
                let body = (|| {
                    self.infer(&c.loop_cond)?;
                    self.infer(&c.loop_step)?;
                    self.infer(&c.result)
                })();
                self.scope.truncate(mark);
                let result = body?;
                match &c.result.expr {
                    Expr::Ident(n) if *n == c.accu_var => init,
                    _ => result,
                }
            }
            Expr::List(list) => {
                let mut all_patches = !list.elements.is_empty();
                for e in &list.elements {
                    all_patches &= self.infer(e)? == ResultType::JsonPatch;
                }
                if all_patches {
                    ResultType::JsonPatchList
                } else {
                    ResultType::List
                }
            }
            Expr::Map(map) => {
                for entry in &map.entries {
                    match &entry.expr {
                        EntryExpr::MapEntry(e) => {
                            self.infer(&e.key)?;
                            self.infer(&e.value)?;
                        }
                        EntryExpr::StructField(f) => {
                            self.infer(&f.value)?;
                        }
                    }
                }
                ResultType::Map
            }
            Expr::Struct(s) => {
                let name = s.type_name.as_str();
                let ty = if self.declarations.mutation && name == mutation::JSON_PATCH {
                    ResultType::JsonPatch
                } else if self.declarations.mutation && mutation::is_object_type(name) {
                    ResultType::Object
                } else {
                    return Err((
                        expr.id,
                        format!("undeclared reference to '{name}' (in container '')"),
                    ));
                };
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        if ty == ResultType::JsonPatch
                            && !mutation::JSON_PATCH_FIELDS.contains(&f.field.as_str())
                        {
                            return Err((entry.id, format!("undefined field '{}'", f.field)));
                        }
                        self.infer(&f.value)?;
                    }
                }
                ty
            }
            Expr::Unspecified => ResultType::Dyn,
        })
    }

    fn call(&mut self, id: u64, call: &cel::common::ast::CallExpr) -> Result<ResultType, Problem> {
        use ResultType as T;
        let name = call.func_name.as_str();
        // Two-variable comprehensions: `x.all(i, v, p)`, `x.transformList(i, v, [f,] e)`, ...
        let two_variable = match name {
            "all" | "exists" | "existsOne" | "exists_one" => call.args.len() == 3,
            "transformList" | "transformMap" | "transformMapEntry" => {
                matches!(call.args.len(), 3 | 4)
            }
            _ => false,
        };
        if name == "bind" && call.args.len() == 3 && is_cel_namespace(call.target.as_deref()) {
            if let Expr::Ident(var) = &call.args[0].expr {
                self.infer(&call.args[1])?;
                self.scope.push(var.clone());
                let body = self.infer(&call.args[2]);
                self.scope.pop();
                return body;
            }
        }
        if two_variable && call.target.is_some() {
            if let (Expr::Ident(a), Expr::Ident(b)) = (&call.args[0].expr, &call.args[1].expr) {
                if let Some(target) = &call.target {
                    self.infer(target)?;
                }
                let mark = self.scope.len();
                self.scope.extend([a.clone(), b.clone()]);
                let body = call.args[2..]
                    .iter()
                    .try_for_each(|e| self.infer(e).map(|_| ()));
                self.scope.truncate(mark);
                body?;
                return Ok(match name {
                    "transformList" => T::List,
                    "transformMap" | "transformMapEntry" => T::Map,
                    _ => T::Bool,
                });
            }
        }
        if let Some(target) = &call.target {
            let namespace = matches!(&target.expr, Expr::Ident(n)
                if NAMESPACES.contains(&n.as_str()) && !self.in_scope(n) && !self.declarations.declares(n));
            if !namespace {
                self.infer(target)?;
            }
        }
        let mut args = Vec::with_capacity(call.args.len());
        for arg in &call.args {
            args.push(self.infer(arg)?);
        }
        let member = call.target.is_some();
        Ok(match (name, args.as_slice()) {
            (operators::LOGICAL_AND | operators::LOGICAL_OR, [a, b]) => {
                if (a.scalar() && *a != T::Bool) || (b.scalar() && *b != T::Bool) {
                    return Err(mismatch(id, name, &args));
                }
                T::Bool
            }
            (operators::LOGICAL_NOT, [a]) => {
                if a.scalar() && *a != T::Bool {
                    return Err(mismatch(id, name, &args));
                }
                T::Bool
            }
            (operators::EQUALS | operators::NOT_EQUALS, [a, b]) => {
                let comparable = !a.scalar()
                    || !b.scalar()
                    || a == b
                    || *a == T::Null
                    || *b == T::Null
                    || (a.numeric() && b.numeric());
                if !comparable {
                    return Err(mismatch(id, name, &args));
                }
                T::Bool
            }
            (
                operators::LESS
                | operators::LESS_EQUALS
                | operators::GREATER
                | operators::GREATER_EQUALS,
                [a, b],
            ) => {
                let ordered = |t: &T| {
                    t.numeric()
                        || matches!(
                            t,
                            T::String | T::Bytes | T::Bool | T::Duration | T::Timestamp
                        )
                };
                if a.scalar() && b.scalar() {
                    let ok = ordered(a) && ordered(b) && (a == b || (a.numeric() && b.numeric()));
                    if !ok {
                        return Err(mismatch(id, name, &args));
                    }
                }
                T::Bool
            }
            (operators::IN, _) => T::Bool,
            (
                operators::ADD
                | operators::SUBSTRACT
                | operators::MULTIPLY
                | operators::DIVIDE
                | operators::MODULO,
                [a, b],
            ) => {
                if a.scalar() && b.scalar() {
                    match arithmetic(name, *a, *b) {
                        Some(t) => t,
                        None => return Err(mismatch(id, name, &args)),
                    }
                } else if name == operators::ADD && (*a == T::List || *b == T::List) {
                    T::List
                } else {
                    T::Dyn
                }
            }
            (operators::NEGATE, [a]) => match a {
                T::Int | T::Double => *a,
                T::Dyn => T::Dyn,
                _ if a.scalar() => return Err(mismatch(id, name, &args)),
                _ => T::Dyn,
            },
            (operators::CONDITIONAL, [_, a, b]) if a == b => *a,
            ("size", _) | ("indexOf" | "lastIndexOf", _) if member || name == "size" => T::Int,
            ("int", [_]) if !member => T::Int,
            ("uint", [_]) if !member => T::Uint,
            ("double", [_]) if !member => T::Double,
            ("string", [_]) if !member => T::String,
            ("bytes", [_]) if !member => T::Bytes,
            ("bool", [_]) if !member => T::Bool,
            ("duration", [_]) if !member => T::Duration,
            ("timestamp", [_]) if !member => T::Timestamp,
            ("type", [_]) if !member => T::Type,
            (
                "startsWith" | "endsWith" | "contains" | "matches" | "isSorted" | "isURL" | "isIP"
                | "isCIDR" | "isQuantity" | "isSemver",
                _,
            ) => T::Bool,
            (
                "lowerAscii" | "upperAscii" | "trim" | "replace" | "substring" | "join" | "format"
                | "charAt" | "quote",
                _,
            ) if member || name == "quote" => T::String,
            ("split", _) if member => T::List,
            ("escapeKey", [_]) if matches!(call.target.as_deref(), Some(IdedExpr { expr: Expr::Ident(n), .. }) if n == "jsonpatch") => {
                T::String
            }
            _ => T::Dyn,
        })
    }
}

/// The result of a CEL arithmetic operator on scalars, `None` when there is no overload.
fn arithmetic(op: &str, a: ResultType, b: ResultType) -> Option<ResultType> {
    use ResultType as T;
    let same_numeric = a == b && a.numeric();
    match op {
        operators::ADD => match (a, b) {
            _ if same_numeric => Some(a),
            (T::String, T::String) | (T::Bytes, T::Bytes) | (T::Duration, T::Duration) => Some(a),
            (T::Timestamp, T::Duration) | (T::Duration, T::Timestamp) => Some(T::Timestamp),
            _ => None,
        },
        operators::SUBSTRACT => match (a, b) {
            _ if same_numeric => Some(a),
            (T::Duration, T::Duration) | (T::Timestamp, T::Timestamp) => Some(T::Duration),
            (T::Timestamp, T::Duration) => Some(T::Timestamp),
            _ => None,
        },
        operators::MODULO => (a == b && matches!(a, T::Int | T::Uint)).then_some(a),
        _ => same_numeric.then_some(a),
    }
}
