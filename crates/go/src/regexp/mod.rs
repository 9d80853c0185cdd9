//! `regexp`: Go's RE2 syntax, as `regexp.Compile` (and `MustCompile`) accept it, on top
//! of the `regex` crate's matcher.
//!
//! Go's parser is ported (`parse`): it accepts exactly what Go accepts and refuses the
//! rest with Go's `*syntax.Error` text. The parse tree is then written out in the `regex`
//! crate's syntax with the same meaning (`node`, `class`):
//!
//! - a `{` that does not start a valid repeat is a literal (`a{`, `a{,3}`, `x{01}`),
//!   counts above 1000 (also as a product of nested counts) are errors;
//! - `\Q…\E` quotes, escaped punctuation is literal (`\<` is `<`, not a word start),
//!   `\a \f \t \n \r \v`, octal `\123`, `\x7F`, `\x{10FFFF}`;
//! - `\d \w \s \b` and the POSIX classes are ASCII (with `(?i)`, `\w` also takes the
//!   Kelvin sign and the long s, as Go's case folding does);
//! - `\pL`, `\p{Greek}`, `\PL`, `\p{^Greek}` take only the names Go 1.22–1.24 know;
//! - flags `(?imsU)` are resolved while parsing, so `^`, `$`, `.`, case folding and
//!   greediness mean what they mean in Go wherever the text lands;
//! - Go's limits: nesting deeper than 1000 and programs estimated above 128 MB.
//!
//! Matching is leftmost-first and unanchored in both. The `regex` crate's Unicode
//! tables are those of Unicode 16.0, Go 1.22–1.24's those of 15.0.

mod class;
mod error;
mod node;
mod parse;
#[cfg(test)]
mod tests;

pub use error::{Error, ErrorCode};
use node::Node;
use regex::{Regex, RegexBuilder};

/// Nesting the `regex` crate allows: Go's 1000 levels, with room for the groups the
/// translation adds.
const NEST_LIMIT: u32 = 4 * 1000;
/// The compiled size the `regex` crate allows, above its 10 MB default: what Go
/// accepts should compile. Past it, Go's "expression too large".
const SIZE_LIMIT: usize = 256 << 20;

/// Parse trees higher than this are rendered and compiled on a thread of their own with
/// [`DEEP_STACK`]: the `regex` crate's compiler recurses once per level.
const SHALLOW: usize = 100;
const DEEP_STACK: usize = 64 << 20;

/// Go's `regexp.Compile`.
pub fn compile(expr: &str) -> Result<Regex, Error> {
    let node = parse::parse(expr)?;
    if node.height <= SHALLOW {
        return build(expr, &node);
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(DEEP_STACK)
            .spawn_scoped(scope, move || build(expr, &node))
            .expect("a thread to compile a deeply nested regexp")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn build(expr: &str, node: &Node) -> Result<Regex, Error> {
    RegexBuilder::new(&render(expr, node))
        .nest_limit(NEST_LIMIT)
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => Error::new(ErrorCode::Large, expr),
            // The translation only writes syntax the crate accepts.
            _ => Error::new(ErrorCode::InternalError, expr),
        })
}

/// The Go expression `expr` in the `regex` crate's syntax, or Go's parse error.
pub fn translate(expr: &str) -> Result<String, Error> {
    Ok(render(expr, &parse::parse(expr)?))
}

fn render(expr: &str, node: &Node) -> String {
    let mut out = String::with_capacity(expr.len() + 16);
    node.render_bare(&mut out);
    out
}

/// Go's `regexp.QuoteMeta`: `s` with every metacharacter escaped.
pub fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if r"\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
