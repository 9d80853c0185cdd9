//! Go `text/template`, with the Sprig functions KubeMod exposes, over JSON values.
//!
//! KubeMod renders a ModRule's patch `value` and `rejectMessage` with Go 1.18
//! `text/template` and Sprig v3.2.2's `GenericFuncMap()` (minus `env` and `expandenv`).
//! This crate reimplements that engine so that kadmit renders the same text, fails on
//! the same templates, and says so in Go's words.
//!
//! # Why not the `gtmpl` crate
//!
//! `gtmpl` 0.7.1 was evaluated and rejected. Its parse errors have no Go location format
//! (`template: foo:2:function eq not defined`), it has no Sprig functions and no hook to
//! refuse functions at parse time, it cannot bound execution (no step or output limit),
//! its value model has one number type (so `eq .Target.spec.replicas 3` cannot fail the
//! way Go's does and `%v` of float64 document numbers is not Go's), and its truthiness
//! of floats is wrong (`0.0` is true). Fixing that would mean rewriting most of it, so
//! the engine here is a direct port of Go's `text/template/parse` and `text/template`
//! (lexer, parser to a tree, reflective executor) with the Go types that matter tracked
//! explicitly (see `value.rs`).
//!
//! # API
//!
//! [`parse`] compiles a template (its name is used in error messages, as in Go) and
//! [`Template::execute`] runs it on JSON data, every number a Go `float64` as
//! `encoding/json` would decode it. [`Template::execute_data`] takes a [`Data`] tree
//! instead, which can also hold Go `int`s: KubeMod's `.SelectKeyParts` holds `int` array
//! indexes, and `eq (index .SelectKeyParts 0) 0` is true in Go only because both are
//! `int`. Errors are [`TemplateError`]s whose text is Go's:
//! `template: <name>:<line>: <message>` for parse errors (Go puts no column there) and
//! `template: <name>:<line>:<col>: executing "<name>" at <<node>>: <message>` for
//! execution errors.
//!
//! # Semantics
//!
//! Everything of Go 1.18 text/template: actions, `{{-`/`-}}` trimming, comments,
//! pipelines, variables (`:=` and `=`), `if`/`else if`/`else`, `range` over lists and
//! maps (maps in sorted key order) with one or two variables and `else`,
//! `break`/`continue`, `with`/`else`, `define`/`template`/`block`, parenthesised
//! pipelines, all literal forms except complex numbers, Go truthiness, and the builtins
//! `and or not len index print printf println eq ne lt le gt ge html js urlquery call`
//! (`and`/`or` short-circuit as in 1.18; `slice` is Sprig's, which shadows Go's in KubeMod).
//! A missing map key prints `<no value>`, and so does JSON null printed directly. Go's
//! typed argument checks are kept: `upper .Target.spec.replicas` fails with
//! `wrong type for value; expected string; got float64`, and comparing a document number
//! with an integer literal fails with `incompatible types for comparison` (write `3.0`).
//! Printing uses Go's `fmt` (`%v`: `1e+06`, `map[a:1]`, `[a b]`).
//!
//! # Sprig functions
//!
//! Supported (Sprig v3.2.2 semantics, including its quirks such as `int` literals
//! being ignored by `duration`): strings `abbrev abbrevboth trunc trim upper lower title
//! untitle substr repeat trimall trimAll trimSuffix trimPrefix nospace initials swapcase
//! snakecase camelcase kebabcase wrap wrapWith contains hasPrefix hasSuffix quote squote
//! cat indent nindent replace plural toString hello`; conversions `atoi int int64 float64
//! toDecimal toString toStrings split splitList splitn seq until untilStep`; math `add1
//! add sub div mod mul max biggest min maxf minf floor ceil round add1f addf subf divf
//! mulf`; defaults and flow `default empty coalesce all any ternary fail compact
//! mustCompact`; JSON `toJson toPrettyJson toRawJson fromJson mustToJson
//! mustToPrettyJson mustToRawJson mustFromJson`; encodings and hashes `b64enc b64dec
//! b32enc b32dec sha1sum sha256sum adler32sum`; regular expressions `regexMatch
//! regexFind regexFindAll regexReplaceAll regexReplaceAllLiteral regexSplit
//! regexQuoteMeta` and their `must` forms (RE2 syntax with Go's ASCII `\d\w\s\b`); lists
//! `list tuple first last rest initial append push prepend concat reverse uniq without
//! has compact slice chunk sortAlpha join` and their `must` forms; dicts `dict get set
//! unset hasKey pluck keys values pick omit merge mergeOverwrite mustMerge
//! mustMergeOverwrite deepCopy mustDeepCopy dig`; types `typeOf typeIs typeIsLike kindOf
//! kindIs deepEqual`; paths `base dir clean ext isAbs osBase osDir osClean osExt
//! osIsAbs`; versions `semver semverCompare` (Masterminds/semver v3 constraints); time
//! `duration durationRound` (of `int64` values and strings, as in Sprig).
//!
//! Where Sprig's result order comes from Go map iteration (random), kadmit sorts:
//! `keys` returns the keys sorted, `values` returns values in sorted-key order.
//!
//! Refused at parse time, with `function "<name>" is not allowed: <why>`: anything that
//! reads the clock or the local time zone (`now ago date dateInZone date_in_zone
//! dateModify date_modify mustDateModify must_date_modify htmlDate htmlDateInZone toDate
//! mustToDate unixEpoch`; `date` with an explicit time is refused too, since Sprig
//! formats in the local zone), randomness (`randAlpha randAlphaNum randNumeric randAscii
//! randInt randBytes randSeededNumeric shuffle uuidv4`, and `bcrypt htpasswd` with their
//! random salts), key and certificate generation (`genPrivateKey genCA genCAWithKey
//! genSelfSignedCert genSelfSignedCertWithKey genSignedCert genSignedCertWithKey
//! buildCustomCert`), cryptography (`encryptAES decryptAES derivePassword`) and the
//! network (`getHostByName`). `env` and `expandenv` are not defined at all, as in
//! KubeMod. `urlParse` and `urlJoin` exist in Sprig but are not implemented; using them
//! is a parse error saying so.
//!
//! Maps are shared and mutable as in Go (`{{ $_ := set $d "k" 1 }}` changes `$d`), but a
//! `set` or `merge` that would make a map contain itself is refused, so values stay
//! acyclic.
//!
//! # Limits
//!
//! A hostile template cannot hang or exhaust kadmit: execution stops with an error after
//! [`MAX_STEPS`] steps (nodes walked, range iterations, function calls and list elements
//! produced), when the output passes [`MAX_OUTPUT`] bytes, when any single string value
//! passes [`MAX_OUTPUT`] bytes or all of them together pass [`MAX_STRING_BYTES`], and
//! when `{{template}}` calls nest deeper than [`MAX_TEMPLATE_DEPTH`]. Parsing refuses
//! templates nested more than [`MAX_NESTING`] levels deep, and data or values nested
//! deeper than that are refused too.
//!
//! # Known differences from Go
//!
//! Strings are UTF-8 (`\x` escapes and byte-wise Sprig functions that split a character
//! produce U+FFFD); `unicode.IsPrint` is approximated; complex numbers are not
//! supported; `fromJson`/`mustFromJson` report serde_json's error text;
//! `[][]interface {}` (from `chunk`)
//! reports its type as `[]interface {}`; nil slices returned by Sprig print and encode
//! as empty lists (Go encodes them as `null`); the data root is a map, so a misspelt
//! top-level field (`.target`) prints `<no value>` where KubeMod's context struct would
//! fail, and `.Namespace.x` names `interface {}` rather than `string` in its error; Go's
//! template depth limit of 100000 is [`MAX_TEMPLATE_DEPTH`] here.

mod builtins;
mod eval;
mod exec;
mod fmt;
mod funcs;
mod hash;
mod json;
mod lex;
mod node;
mod parse;
mod printf;
mod semver;
mod sprig_dicts;
mod sprig_encoding;
mod sprig_lists;
mod sprig_math;
mod sprig_paths;
mod sprig_strings;
mod sprig_words;
mod value;

#[cfg(test)]
mod tests_exec;
#[cfg(test)]
mod tests_sprig;
#[cfg(test)]
mod tests_syntax;

use std::collections::BTreeMap;
use std::rc::Rc;

/// Most steps one execution may take.
pub const MAX_STEPS: u64 = 1_000_000;
/// Most bytes of output, and of any one string value.
pub const MAX_OUTPUT: usize = 1 << 20;
/// Most bytes of strings that functions may produce in one execution.
pub const MAX_STRING_BYTES: u64 = 64 << 20;
/// Deepest nesting of `{{template}}` calls.
pub const MAX_TEMPLATE_DEPTH: usize = 100;
/// Deepest nesting of template syntax, data and values.
pub const MAX_NESTING: usize = 200;

/// A parse or execution error, with Go's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    pub message: String,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TemplateError {}

/// A parsed template with every template it defines.
#[derive(Debug)]
pub struct Template {
    name: String,
    text: String,
    trees: parse::TreeSet,
}

/// Template data when plain JSON is not enough: a JSON subtree keeps `encoding/json`'s
/// types (float64 numbers), [`Data::Int`] is a Go `int`.
#[derive(Debug, Clone)]
pub enum Data<'a> {
    Json(&'a serde_json::Value),
    /// JSON like [`Data::Json`], converted only where the template reaches into it. The
    /// number is at least the document's [`nesting`]; the document is measured only when
    /// that bound is too high for [`MAX_NESTING`].
    Shared(Rc<serde_json::Value>, usize),
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    List(Vec<Data<'a>>),
    Map(Vec<(String, Data<'a>)>),
}

/// Go's `json.Marshal` of a document as `encoding/json` decoded it (numbers float64):
/// compact, keys sorted, `<`, `>`, `&` escaped. KubeMod rewrites the
/// last-applied-configuration annotation this way.
pub fn marshal_json(value: &serde_json::Value) -> Result<String, TemplateError> {
    value::from_json(value, 0)
        .and_then(|v| json::marshal(&v, true, false))
        .map_err(|message| TemplateError { message })
}

/// How many levels `value` nests (0 for a scalar or an empty container), counted up to
/// one past [`MAX_NESTING`]: data nesting deeper than that is refused.
pub fn nesting(value: &serde_json::Value) -> usize {
    value::nesting(value, MAX_NESTING + 1)
}

/// Parses `text` as the template `name`.
pub fn parse(name: &str, text: &str) -> Result<Template, TemplateError> {
    let trees = parse::parse(name, text).map_err(|message| TemplateError { message })?;
    Ok(Template {
        name: name.to_string(),
        text: text.to_string(),
        trees,
    })
}

impl Template {
    /// The name given to [`parse`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs the template with `data` as `.`, decoded as Go's `encoding/json` would.
    pub fn execute(&self, data: &serde_json::Value) -> Result<String, TemplateError> {
        self.execute_data(&Data::Json(data))
    }

    /// Runs the template with `data` as `.`.
    pub fn execute_data(&self, data: &Data<'_>) -> Result<String, TemplateError> {
        let root = to_value(data, 0).map_err(|e| TemplateError {
            message: format!("template: {}: {e}", self.name),
        })?;
        exec::execute(&self.name, &self.text, &self.trees, root)
            .map_err(|message| TemplateError { message })
    }
}

fn to_value(data: &Data<'_>, depth: usize) -> Result<value::Value, String> {
    use value::Value;
    if depth > MAX_NESTING {
        return Err(format!(
            "data is nested more than {MAX_NESTING} levels deep"
        ));
    }
    Ok(match data {
        Data::Json(v) => value::from_json(v, depth)?,
        Data::Shared(v, levels) => value::from_json_shared(v.clone(), *levels, depth)?,
        Data::Nil => Value::Nil,
        Data::Bool(b) => Value::Bool(*b),
        Data::Int(i) => Value::Int(*i),
        Data::Float(f) => Value::Float(*f),
        Data::String(s) => Value::str(s.as_str()),
        Data::List(items) => Value::list(
            items
                .iter()
                .map(|d| to_value(d, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Data::Map(entries) => {
            let mut map = BTreeMap::new();
            for (k, v) in entries {
                map.insert(k.clone(), to_value(v, depth + 1)?);
            }
            Value::map(map)
        }
    })
}
