//! KubeMod's `select` language: gval v1.0.1 expressions with KubeMod's JSONPath fork,
//! reproduced so that a ModRule's `match[].select` and `patch[].select` mean here what
//! they mean in KubeMod v0.20.0.
//!
//! # API
//!
//! - [`compile`]`(source) -> Result<`[`Select`]`, `[`SelectError`]`>` compiles a match
//!   select in the full KubeMod language; [`compile_with`] takes a [`Dialect`] (the bare
//!   JSONPath language of the fork's own tests, with or without placeholders).
//! - [`Select::evaluate`]`(doc) -> Result<`[`Outcome`]`, String>` evaluates it; an `Err`
//!   is an evaluation error (index out of range, type error, …), which a match item
//!   treats as "no match" (see `crate::engines::kubemod::matching`).
//! - [`Outcome`] is the evaluator's value: [`Val::Undefined`] (KubeMod's sentinel for
//!   a missing key), `Null`, `Bool`, `Num` (float64), `Int` (a Go int, from `length()`),
//!   `Str`, `Time` (from `date()`), `List` (a Go `[]interface{}` built by wildcards or
//!   array literals), `Map` (an object literal) or `Json` (a borrowed document subtree).
//!   [`Val::format`] is Go's `%v` of it; [`Val::to_json`] converts it.
//! - [`compile_placeholder`]`(source) -> Result<`[`PlaceholderSelect`]`, SelectError>`
//!   compiles a patch select (KubeMod wraps it as `{#: <select>}`, so it must be a
//!   JSONPath starting with `$` or `@`); [`PlaceholderSelect::select`] returns one
//!   `(Vec<`[`KeyPart`]`>, Value)` per match, and [`path_from_key_parts`] fills `#N` in a
//!   patch path from the key parts.
//! - [`SelectError`] carries a message and the 1-based column (in characters, on its
//!   line) of the offending token; it displays as `column N: message`.
//!
//! # The language, in short
//!
//! `$` is the document and `@` the current element; `.name`, `[expr]`, `[a, b]`, `*`,
//! `[start:end:step]`, `[?filter]`, `..` and `(script)` select; `+ - * / % **`,
//! `== != < <= > >=`, `=~ !~` (unanchored RE2), `&& || !` (bool-only), `& | ^ << >> ~`,
//! `in`, `??` and `c ? a : b` combine; `length`, `isDefined`, `isUndefined`, `isEmpty`,
//! `isNotEmpty` and `date` are the functions; bare identifiers are variables looked up
//! from the document root. The details and quirks (numeric `==` coercion, greedy
//! operator gluing, Undefined vs nil, filter truthiness) follow gval v1.0.1 and the fork
//! and are documented where they are implemented (`parser`, `ops`, `eval`).
//!
//! # Where kadmit chooses
//!
//! - **Order.** Where KubeMod iterates a Go map (`*` and `..` over objects, the entries
//!   of a patch select's result), the order is random; kadmit uses the document's key
//!   order, and match order for patch selects.
//! - **`%` in patch paths.** KubeMod turns a patch path into a `fmt.Sprintf` format to
//!   fill `#N`, which mangles a literal `%`; [`path_from_key_parts`] keeps it as written.
//! - **Time zone.** `date()` parses in the local zone in KubeMod; kadmit uses UTC.
//! - **Limits.** Expressions may nest at most 100 levels, and a path may have at most 100
//!   wildcard selectors, so hostile input cannot exhaust the stack.
//! - **Strings.** Go strings may hold invalid UTF-8 (from `"\xff"` escapes); such bytes
//!   become U+FFFD.

mod ast;
mod date;
mod eval;
mod lexer;
mod ops;
mod parse_path;
mod parser;
mod placeholder;
mod value;

use serde_json::Value;

pub use placeholder::{
    compile_placeholder, key_parts, path_from_key_parts, KeyPart, PlaceholderSelect,
};
pub use value::Val;

/// The result of evaluating a select: the evaluator's value type.
pub type Outcome<'a> = Val<'a>;

/// Which gval language a select is read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// KubeMod's full select language (`NewKubeModJSONPathLanguage`).
    KubeMod,
    /// The fork's bare `jsonpath.Language()`: `gval.Base()` (`==`/`!=` by DeepEqual, no
    /// other operators, no functions) plus `$` and `@`.
    JsonPath,
    /// `jsonpath.PlaceholderExtension()`: the bare language plus `{…}` objects with
    /// `#`/`#N` keys.
    JsonPathPlaceholders,
}

/// A compiled select expression.
#[derive(Debug)]
pub struct Select {
    node: ast::Node,
    source: String,
    dialect: Dialect,
}

/// A select that does not compile: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectError {
    pub message: String,
    /// 1-based column, in characters, of the offending token on its line.
    pub column: usize,
}

impl SelectError {
    fn at(source: &str, pos: usize, message: String) -> SelectError {
        let (line, column) = lexer::line_column(source, pos);
        let message = if line > 1 {
            format!("line {line}: {message}")
        } else {
            message
        };
        SelectError { message, column }
    }
}

impl std::fmt::Display for SelectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for SelectError {}

/// Compiles a select in the full KubeMod language.
pub fn compile(source: &str) -> Result<Select, SelectError> {
    compile_with(source, Dialect::KubeMod)
}

/// Compiles a select in the given dialect.
pub fn compile_with(source: &str, dialect: Dialect) -> Result<Select, SelectError> {
    parser::parse(source, dialect)
        .map(|node| Select {
            node,
            source: source.to_owned(),
            dialect,
        })
        .map_err(|e| SelectError::at(source, e.pos, e.message))
}

impl Select {
    /// Evaluates the select against a document. `Err` is an evaluation error.
    pub fn evaluate<'a>(&self, doc: &'a Value) -> Result<Outcome<'a>, String> {
        eval::eval(&self.node, eval::Ctx::new(doc))
    }

    /// What the select was compiled from: selects with the same source and dialect
    /// always evaluate alike.
    pub fn source(&self) -> (&str, Dialect) {
        (&self.source, self.dialect)
    }
}

#[cfg(test)]
mod tests;
