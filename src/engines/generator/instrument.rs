//! Generator templates rewritten so that a render can be metered. Tera 2 has no step hook
//! and no limit on loops, so kadmit rewrites each template before compiling it: every
//! place where a render repeats work or builds a value passes through a budget function
//! (see [`super::budget`]):
//!
//! - the target of `{% for %}` and of a list comprehension: `__kadmit_loop(v=…, text=N)`
//!   pays for every iteration (and `N` bytes of the loop body's text each) before the
//!   loop starts;
//! - what `{{ }}` prints, what `{% set %}` stores, each item of a list or map literal and
//!   each element a comprehension makes: `__kadmit_value(v=…)` measures the value (a
//!   plain path such as `{{ spec.name }}` is measured by `{{ __kadmit_size(v=…) }}` just
//!   before it, so that Tera's own message for an undefined one stays);
//! - a component body and an `{% include %}`: `{{ __kadmit_step(steps=S, text=N) }}`, one
//!   step for the call and one per tag of the body or the included template;
//! - the result of every filter: `| __kadmit_check` after it measures it, so that a chain
//!   of filters cannot grow a value more than one filter's factor past the limit.
//!
//! The rewrite only inserts text inside tags or next to them (never a line break), so
//! Tera's messages keep their line numbers; a `-` that trims whitespace moves to the
//! inserted tag so that the output is the same. The lexer follows Tera 2's (strings with
//! `\` escapes, `{% raw %}`, comments, `}}` ending an expression wherever it appears). A
//! template is compiled by Tera first, so the rewrite only sees valid templates; one it
//! cannot follow is refused rather than rendered unmetered.

use std::collections::HashMap;

/// Most `~` and `...` operators one tag may use: each can copy a whole value, and a tag's
/// operators run with no budget function between them.
pub const MAX_COPY_OPERATORS: usize = 32;

const LOOP: &str = "__kadmit_loop";
const VALUE: &str = "__kadmit_value";
const STEP: &str = "__kadmit_step";
const SIZE: &str = "__kadmit_size";
const CHECK: &str = "__kadmit_check";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ident,
    Str,
    Number,
    /// `[` or `?[`
    LBracket,
    RBracket,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Assign,
    Pipe,
    /// `.` or `?.`
    Dot,
    Tilde,
    Spread,
    Lt,
    /// `</`
    ClosingLt,
    Other,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

#[derive(Debug)]
struct Tag {
    /// `{% %}` rather than `{{ }}`.
    block: bool,
    start: usize,
    /// Just past the closing delimiter.
    end: usize,
    open_trim: bool,
    close_trim: bool,
    /// Where the closing delimiter (with its `-`) starts.
    close_start: usize,
    line: usize,
    tokens: Vec<Token>,
}

#[derive(Debug)]
enum Item {
    /// Literal text (raw blocks included), by length.
    Text(usize),
    Tag(Tag),
}

/// One insertion or replacement; applied in `(at, order, seq)` order.
struct Edit {
    at: usize,
    /// 0: checks a filter's result, 1: closes something, 2: replaces, 3: opens something.
    order: u8,
    seq: usize,
    end: usize,
    text: String,
}

#[derive(Default)]
struct Edits {
    list: Vec<Edit>,
}

impl Edits {
    fn push(&mut self, at: usize, end: usize, order: u8, text: String) {
        let seq = self.list.len();
        self.list.push(Edit {
            at,
            order,
            seq,
            end,
            text,
        });
    }

    fn check(&mut self, at: usize) {
        self.push(at, at, 0, format!(" | {CHECK}"));
    }

    fn open(&mut self, at: usize, text: String) {
        self.push(at, at, 3, text);
    }

    fn close(&mut self, at: usize, text: String) {
        self.push(at, at, 1, text);
    }

    fn replace(&mut self, at: usize, end: usize, text: &str) {
        self.push(at, end, 2, text.to_owned());
    }

    fn apply(mut self, source: &str) -> String {
        self.list.sort_by_key(|e| (e.at, e.order, e.seq));
        let extra: usize = self.list.iter().map(|e| e.text.len()).sum();
        let mut out = String::with_capacity(source.len() + extra);
        let mut at = 0;
        for edit in &self.list {
            out.push_str(&source[at..edit.at.max(at)]);
            out.push_str(&edit.text);
            at = at.max(edit.end);
        }
        out.push_str(&source[at..]);
        out
    }
}

/// What rendering a body or a template once costs at least: its bytes of literal text and
/// its tags.
#[derive(Debug, Clone, Copy, Default)]
pub struct Weight {
    pub text: usize,
    pub tags: usize,
}

/// The weight of a whole template (what an `{% include %}` of it pays).
pub fn weight(source: &str) -> Result<Weight, String> {
    let mut w = Weight::default();
    for item in lex(source)? {
        match item {
            Item::Text(n) => w.text += n,
            Item::Tag(_) => w.tags += 1,
        }
    }
    Ok(w)
}

/// `source` with the budget functions inserted. `included` gives the weight of each
/// template an `{% include %}` may name.
pub fn instrument(source: &str, included: &HashMap<String, Weight>) -> Result<String, String> {
    let items = lex(source)?;
    let mut edits = Edits::default();
    let mut frames: Vec<Frame> = Vec::new();
    for item in &items {
        match item {
            Item::Text(n) => {
                for frame in &mut frames {
                    if let Frame::Body { weight, .. } = frame {
                        weight.text += n;
                    }
                }
            }
            Item::Tag(tag) => {
                let tokens = &tag.tokens;
                let copies = tokens
                    .iter()
                    .filter(|t| matches!(t.kind, Kind::Tilde | Kind::Spread))
                    .count();
                if copies > MAX_COPY_OPERATORS {
                    return Err(format!(
                        "line {}: more than {MAX_COPY_OPERATORS} `~` and `...` operators in one tag \
                         (kadmit's limit: each may copy a whole value)",
                        tag.line
                    ));
                }
                let definition = tag.block
                    && tokens
                        .first()
                        .is_some_and(|t| &source[t.start..t.end] == "component");
                // A component definition's defaults must stay literals.
                if !definition {
                    values_and_loops(source, tokens, &mut edits);
                }
                let open_before = frames.len();
                if tag.block {
                    block_tag(source, tag, included, &mut frames, &mut edits)?;
                } else if plain_path(source, tokens) {
                    // Tera prints a plain path itself, with its own message for an undefined
                    // one: measure it first and leave the print as written.
                    let path = &source[tokens[0].start..tokens[tokens.len() - 1].end];
                    let trim = if tag.open_trim {
                        edits.replace(tag.start + 2, tag.start + 3, "");
                        "-"
                    } else {
                        ""
                    };
                    edits.open(tag.start, format!("{{{{{trim} {SIZE}(v={path}) }}}}"));
                } else if let (Some(first), Some(last)) = (tokens.first(), tokens.last()) {
                    wrap(&mut edits, first.start, last.end);
                }
                // The tag is part of the bodies open around it (not of one it opens or
                // closes).
                let around = open_before.min(frames.len());
                for frame in &mut frames[..around] {
                    if let Frame::Body { weight, .. } = frame {
                        weight.tags += 1;
                    }
                }
            }
        }
    }
    if !frames.is_empty() {
        return Err("an unclosed tag".into());
    }
    Ok(edits.apply(source))
}

/// An open construct.
enum Frame {
    /// A `for` loop or a component definition, with the weight of its body so far.
    Body { weight: Weight, end: BodyEnd },
    /// The `else` branch of a `for` loop (runs at most once).
    ForElse,
    /// `if`, a `set` block, `filter`, `block` or a component call with a body.
    Other(&'static str),
}

enum BodyEnd {
    /// Where the `for` target ends (its `__kadmit_loop(` is already open).
    Loop(usize),
    /// The component definition's tag.
    Component {
        end: usize,
        close_trim: Option<usize>,
    },
}

fn block_tag(
    source: &str,
    tag: &Tag,
    included: &HashMap<String, Weight>,
    frames: &mut Vec<Frame>,
    edits: &mut Edits,
) -> Result<(), String> {
    let tokens = &tag.tokens;
    let Some(first) = tokens.first() else {
        return Err(format!("line {}: an empty tag", tag.line));
    };
    let word = if first.kind == Kind::Ident {
        &source[first.start..first.end]
    } else {
        ""
    };
    let unbalanced = || format!("line {}: an unbalanced `{word}`", tag.line);
    match (first.kind, word) {
        (Kind::Ident, "for") => {
            let target = tokens
                .iter()
                .skip(1)
                .position(|t| t.kind == Kind::Ident && &source[t.start..t.end] == "in")
                .map(|i| i + 2)
                .filter(|&i| i < tokens.len())
                .ok_or_else(|| format!("line {}: a `for` without a target", tag.line))?;
            let (start, end) = (tokens[target].start, tokens[tokens.len() - 1].end);
            edits.open(start, format!("{LOOP}(v="));
            frames.push(Frame::Body {
                weight: Weight::default(),
                end: BodyEnd::Loop(end),
            });
        }
        (Kind::Ident, "else") => {
            if let Some(Frame::Body {
                end: BodyEnd::Loop(_),
                ..
            }) = frames.last()
            {
                if let Some(Frame::Body { weight, end }) = frames.pop() {
                    frames.push(Frame::ForElse);
                    close_body(weight, end, edits);
                }
            }
        }
        (Kind::Ident, "endfor") => match frames.pop() {
            Some(Frame::Body {
                weight,
                end: end @ BodyEnd::Loop(_),
            }) => close_body(weight, end, edits),
            Some(Frame::ForElse) => {}
            _ => return Err(unbalanced()),
        },
        (Kind::Ident, "component") => frames.push(Frame::Body {
            weight: Weight::default(),
            end: BodyEnd::Component {
                end: tag.end,
                close_trim: tag.close_trim.then_some(tag.close_start),
            },
        }),
        (Kind::Ident, "endcomponent") => match frames.pop() {
            Some(Frame::Body {
                weight,
                end: end @ BodyEnd::Component { .. },
            }) => close_body(weight, end, edits),
            _ => return Err(unbalanced()),
        },
        (Kind::Ident, "set" | "set_global") => {
            let assigned = tokens.get(2).is_some_and(|t| t.kind == Kind::Assign);
            match (assigned, tokens.get(3)) {
                (true, Some(value)) => wrap(edits, value.start, tokens[tokens.len() - 1].end),
                (true, None) => return Err(format!("line {}: a `set` without a value", tag.line)),
                (false, _) => frames.push(Frame::Other("endset")),
            }
        }
        (Kind::Ident, "if") => frames.push(Frame::Other("endif")),
        (Kind::Ident, "filter") => frames.push(Frame::Other("endfilter")),
        (Kind::Ident, "block") => frames.push(Frame::Other("endblock")),
        (Kind::Lt, _) => frames.push(Frame::Other("</")),
        (Kind::Ident, "endif" | "endset" | "endfilter" | "endblock") | (Kind::ClosingLt, _) => {
            let expected = if first.kind == Kind::ClosingLt {
                "</"
            } else {
                word
            };
            match frames.pop() {
                Some(Frame::Other(end)) if end == expected => {}
                _ => return Err(unbalanced()),
            }
        }
        (Kind::Ident, "include") => {
            let w = tokens
                .get(1)
                .filter(|t| t.kind == Kind::Str)
                .and_then(|t| included.get(&source[t.start + 1..t.end - 1]).copied())
                .unwrap_or_else(|| {
                    included.values().fold(Weight::default(), |a, b| Weight {
                        text: a.text + b.text,
                        tags: a.tags + b.tags,
                    })
                });
            let trim = if tag.open_trim {
                edits.replace(tag.start + 2, tag.start + 3, "");
                "-"
            } else {
                ""
            };
            edits.open(tag.start, format!("{{{{{trim} {} }}}}", step(w)));
        }
        (Kind::Ident, "elif" | "extends" | "break" | "continue") => {}
        _ => {
            return Err(format!(
                "line {}: a tag kadmit does not know (`{}`)",
                tag.line,
                &source[first.start..first.end]
            ))
        }
    }
    Ok(())
}

fn step(w: Weight) -> String {
    format!("{STEP}(steps={}, text={})", w.tags + 1, w.text)
}

/// Ends a loop's or component's body: the loop's target gets its text size, the
/// component body starts with a step that pays for its weight.
fn close_body(w: Weight, end: BodyEnd, edits: &mut Edits) {
    match end {
        BodyEnd::Loop(at) => edits.close(at, format!(", text={})", w.text)),
        BodyEnd::Component { end, close_trim } => {
            let trim = match close_trim {
                Some(at) => {
                    edits.replace(at, at + 1, "");
                    "-"
                }
                None => "",
            };
            edits.open(end, format!("{{{{ {} {trim}}}}}", step(w)));
        }
    }
}

fn wrap(edits: &mut Edits, start: usize, end: usize) {
    edits.open(start, format!("{VALUE}(v="));
    edits.close(end, ")".into());
}

/// Inside one tag: the items of list and map literals and the elements of comprehensions
/// are measured, and comprehension targets are paid for.
fn values_and_loops(source: &str, tokens: &[Token], edits: &mut Edits) {
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            Kind::LBracket => {
                let literal = t.end - t.start == 1
                    && i.checked_sub(1)
                        .is_none_or(|p| starts_operand(source, &tokens[p]));
                if !literal {
                    continue;
                }
                if let Some((element_end, target, target_end)) = comprehension(source, tokens, i) {
                    wrap(edits, tokens[i + 1].start, tokens[element_end - 1].end);
                    edits.open(tokens[target].start, format!("{LOOP}(v="));
                    edits.close(tokens[target_end - 1].end, ", text=0)".into());
                } else {
                    items(tokens, i, edits);
                }
            }
            Kind::LBrace => map_values(tokens, i, edits),
            // A filter: its result is measured before anything else uses it.
            Kind::Pipe if tokens.get(i + 1).is_some_and(|t| t.kind == Kind::Ident) => {
                let end = match tokens.get(i + 2) {
                    Some(t) if t.kind == Kind::LParen => matching(tokens, i + 2),
                    _ => Some(i + 1),
                };
                if let Some(end) = end {
                    edits.check(tokens[end].end);
                }
            }
            _ => {}
        }
    }
}

/// `name` or `name.attr.attr`: what Tera prints with its own instruction.
fn plain_path(source: &str, tokens: &[Token]) -> bool {
    tokens.len() % 2 == 1
        && tokens.iter().enumerate().all(|(i, t)| {
            if i % 2 == 0 {
                t.kind == Kind::Ident
            } else {
                t.kind == Kind::Dot && &source[t.start..t.end] == "."
            }
        })
}

/// Whether a `[` after `previous` starts a list literal (rather than a subscript).
fn starts_operand(source: &str, previous: &Token) -> bool {
    match previous.kind {
        Kind::Ident => matches!(
            &source[previous.start..previous.end],
            "in" | "and" | "or" | "not" | "if" | "else" | "is"
        ),
        Kind::Str | Kind::Number | Kind::RParen | Kind::RBracket | Kind::RBrace => false,
        _ => true,
    }
}

/// The closing token index of the bracket opened at `open` (exclusive end of its content).
fn matching(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.kind {
            Kind::LBracket | Kind::LBrace | Kind::LParen => depth += 1,
            Kind::RBracket | Kind::RBrace | Kind::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The parts at depth one between `open` and its closing bracket, split at commas:
/// `(first token, end token)` pairs.
fn parts(tokens: &[Token], open: usize) -> Vec<(usize, usize)> {
    let Some(close) = matching(tokens, open) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = open + 1;
    for (i, t) in tokens.iter().enumerate().take(close).skip(open + 1) {
        match t.kind {
            Kind::LBracket | Kind::LBrace | Kind::LParen => depth += 1,
            Kind::RBracket | Kind::RBrace | Kind::RParen => depth -= 1,
            Kind::Comma if depth == 0 => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, close));
    out.retain(|(s, e)| s < e);
    out
}

/// A list literal's items (spreads left alone: they copy what is already measured).
fn items(tokens: &[Token], open: usize, edits: &mut Edits) {
    for (start, end) in parts(tokens, open) {
        if tokens[start].kind != Kind::Spread {
            wrap(edits, tokens[start].start, tokens[end - 1].end);
        }
    }
}

/// A map literal's values (`key: value`); a component attribute's `{expression}` has no
/// top-level `:` and is left alone.
fn map_values(tokens: &[Token], open: usize, edits: &mut Edits) {
    for (start, end) in parts(tokens, open) {
        if tokens[start].kind == Kind::Spread {
            continue;
        }
        if start + 2 < end && tokens[start + 1].kind == Kind::Colon {
            wrap(edits, tokens[start + 2].start, tokens[end - 1].end);
        }
    }
}

/// For a list literal opened at `open` that is a comprehension `[E for k, v in T if C]`:
/// (end of E, start of T, end of T) as token indexes.
fn comprehension(source: &str, tokens: &[Token], open: usize) -> Option<(usize, usize, usize)> {
    let close = matching(tokens, open)?;
    let is = |i: usize, word: &str| {
        tokens[i].kind == Kind::Ident && &source[tokens[i].start..tokens[i].end] == word
    };
    let mut depth = 0usize;
    let mut for_at = None;
    for (i, t) in tokens.iter().enumerate().take(close).skip(open + 1) {
        match t.kind {
            Kind::LBracket | Kind::LBrace | Kind::LParen => depth += 1,
            Kind::RBracket | Kind::RBrace | Kind::RParen => depth -= 1,
            Kind::Ident if depth == 0 && is(i, "for") && tokens[i - 1].kind != Kind::Dot => {
                for_at = Some(i);
                break;
            }
            _ => {}
        }
    }
    let for_at = for_at?;
    if for_at == open + 1 {
        return None;
    }
    let in_at = (for_at + 1..close).find(|&i| is(i, "in"))?;
    let target = in_at + 1;
    let mut depth = 0usize;
    let mut target_end = close;
    for (i, t) in tokens.iter().enumerate().take(close).skip(target) {
        match t.kind {
            Kind::LBracket | Kind::LBrace | Kind::LParen => depth += 1,
            Kind::RBracket | Kind::RBrace | Kind::RParen => depth -= 1,
            Kind::Ident if depth == 0 && is(i, "if") => {
                target_end = i;
                break;
            }
            _ => {}
        }
    }
    (target < target_end).then_some((for_at, target, target_end))
}

/// Tera 2's lexer, as far as the rewrite needs it.
fn lex(source: &str) -> Result<Vec<Item>, String> {
    let b = source.as_bytes();
    let mut items = Vec::new();
    let mut i = 0;
    // Line numbers for messages, counted once through the source.
    let (mut line, mut counted) = (1, 0);
    let mut line_at = |at: usize| {
        line += source[counted..at].matches('\n').count();
        counted = at;
        line
    };
    while i < b.len() {
        let marker = (i..b.len().saturating_sub(1))
            .find(|&k| b[k] == b'{' && matches!(b[k + 1], b'{' | b'%' | b'#'));
        let Some(at) = marker else {
            items.push(Item::Text(b.len() - i));
            break;
        };
        if at > i {
            items.push(Item::Text(at - i));
        }
        let open_trim = b.get(at + 2) == Some(&b'-');
        let after = at + 2 + usize::from(open_trim);
        match b[at + 1] {
            b'#' => {
                let end = source[after..]
                    .find("#}")
                    .ok_or_else(|| format!("line {}: an unclosed comment", line_at(at)))?;
                i = after + end + 2;
            }
            b'%' if skip_tag(&source[after..], "raw").is_some() => {
                let body = after + skip_tag(&source[after..], "raw").unwrap_or(0);
                let mut search = body;
                let mut end = None;
                while let Some(found) = source[search..].find("{%") {
                    let tag = search + found + 2;
                    if let Some(len) = skip_tag(&source[tag..], "endraw") {
                        end = Some((search + found, tag + len));
                        break;
                    }
                    search = tag;
                }
                let (body_end, tag_end) =
                    end.ok_or_else(|| format!("line {}: an unclosed raw block", line_at(at)))?;
                items.push(Item::Text(body_end - body));
                i = tag_end;
            }
            block => {
                let block = block == b'%';
                let (tag, end) = lex_tag(source, at, after, block, open_trim)
                    .map_err(|e| format!("line {}: {e}", line_at(at)))?;
                let mut tag = tag;
                tag.line = line_at(at);
                items.push(Item::Tag(tag));
                i = end;
            }
        }
    }
    Ok(items)
}

/// Tera's `skip_tag`: the length of `-? name -?%}` at the start of `rest`.
fn skip_tag(rest: &str, name: &str) -> Option<usize> {
    let mut p = rest.strip_prefix('-').unwrap_or(rest);
    p = p.trim_start_matches(|c: char| c.is_ascii_whitespace());
    p = p.strip_prefix(name)?;
    p = p.trim_start_matches(|c: char| c.is_ascii_whitespace());
    p = p.strip_prefix('-').unwrap_or(p);
    p = p.strip_prefix("%}")?;
    Some(rest.len() - p.len())
}

fn lex_tag(
    source: &str,
    start: usize,
    mut i: usize,
    block: bool,
    open_trim: bool,
) -> Result<(Tag, usize), String> {
    let b = source.as_bytes();
    let closer: &[u8] = if block { b"%}" } else { b"}}" };
    let mut tokens = Vec::new();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            return Err("an unclosed tag".into());
        }
        let rest = &b[i..];
        let trimmed_close = rest.first() == Some(&b'-') && rest.get(1..3) == Some(closer);
        if trimmed_close || rest.get(..2) == Some(closer) {
            let end = i + 2 + usize::from(trimmed_close);
            let tag = Tag {
                block,
                start,
                end,
                open_trim,
                close_trim: trimmed_close,
                close_start: i,
                line: 0,
                tokens,
            };
            return Ok((tag, end));
        }
        let (kind, len) = if rest.starts_with(b"...") {
            (Kind::Spread, 3)
        } else {
            match rest.get(..2) {
                Some(b"//" | b"**" | b"==" | b"!=" | b">=" | b"<=") => (Kind::Other, 2),
                Some(b"</") => (Kind::ClosingLt, 2),
                Some(b"?.") => (Kind::Dot, 2),
                Some(b"?[") => (Kind::LBracket, 2),
                _ => match rest[0] {
                    b'[' => (Kind::LBracket, 1),
                    b']' => (Kind::RBracket, 1),
                    b'(' => (Kind::LParen, 1),
                    b')' => (Kind::RParen, 1),
                    b'{' => (Kind::LBrace, 1),
                    b'}' => (Kind::RBrace, 1),
                    b',' => (Kind::Comma, 1),
                    b':' => (Kind::Colon, 1),
                    b'=' => (Kind::Assign, 1),
                    b'|' => (Kind::Pipe, 1),
                    b'.' => (Kind::Dot, 1),
                    b'~' => (Kind::Tilde, 1),
                    b'<' => (Kind::Lt, 1),
                    b'+' | b'-' | b'*' | b'/' | b'%' | b'!' | b'>' | b'@' => (Kind::Other, 1),
                    q @ (b'\'' | b'"' | b'`') => (Kind::Str, string_len(rest, q)?),
                    c if c.is_ascii_digit() => {
                        let mut dot = false;
                        let n = rest
                            .iter()
                            .take_while(|&&c| {
                                if !dot && c == b'.' {
                                    dot = true;
                                    true
                                } else {
                                    c.is_ascii_digit()
                                }
                            })
                            .count();
                        (Kind::Number, n)
                    }
                    c if c == b'_' || c.is_ascii_alphabetic() => {
                        let n = rest
                            .iter()
                            .take_while(|&&c| c == b'_' || c.is_ascii_alphanumeric())
                            .count();
                        (Kind::Ident, n)
                    }
                    _ => return Err("an unexpected character".into()),
                },
            }
        };
        tokens.push(Token {
            kind,
            start: i,
            end: i + len,
        });
        i += len;
    }
}

/// The length of the string literal at the start of `rest`, quotes included.
fn string_len(rest: &[u8], quote: u8) -> Result<usize, String> {
    let mut escaped = false;
    for (k, &c) in rest.iter().enumerate().skip(1) {
        if escaped {
            escaped = false;
        } else if c == b'\\' {
            escaped = true;
        } else if c == quote {
            return Ok(k + 1);
        }
    }
    Err("an unclosed string".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(source: &str) -> String {
        let inc = Weight { text: 7, tags: 2 };
        instrument(source, &HashMap::from([("inc".to_owned(), inc)])).unwrap()
    }

    #[test]
    fn prints_sets_and_loops_call_the_budget() {
        assert_eq!(
            rewrite("a{{ x | upper }}b{%- set y = x ~ 'z' -%}"),
            "a{{ __kadmit_value(v=x | upper | __kadmit_check) }}b{%- set y = __kadmit_value(v=x ~ 'z') -%}"
        );
        assert_eq!(
            rewrite("a {{- spec.name -}} b"),
            "a {{- __kadmit_size(v=spec.name) }}{{ spec.name -}} b"
        );
        assert_eq!(
            rewrite("{% for k, v in m | items %}ab{{ v }}{% else %}cc{% endfor %}"),
            "{% for k, v in __kadmit_loop(v=m | items | __kadmit_check, text=2) %}ab{{ __kadmit_size(v=v) }}{{ v }}{% else %}cc{% endfor %}"
        );
        assert_eq!(
            rewrite("{% for i in r %}x{% for j in r %}yy{% endfor %}{% endfor %}"),
            "{% for i in __kadmit_loop(v=r, text=3) %}x{% for j in __kadmit_loop(v=r, text=2) %}yy{% endfor %}{% endfor %}"
        );
    }

    #[test]
    fn literals_and_comprehensions_are_measured() {
        assert_eq!(
            rewrite(r#"{{ [a, ...b, {"k": c, ...d}] }}"#),
            r#"{{ __kadmit_value(v=[__kadmit_value(v=a), ...b, __kadmit_value(v={"k": __kadmit_value(v=c), ...d})]) }}"#
        );
        assert_eq!(
            rewrite("{{ [x ~ 1 for x in xs if x] }}"),
            "{{ __kadmit_value(v=[__kadmit_value(v=x ~ 1) for x in __kadmit_loop(v=xs, text=0) if x]) }}"
        );
        // Subscripts and slices are not lists.
        assert_eq!(
            rewrite("{{ a[0] ~ b[1:2] ~ c?[k] }}"),
            "{{ __kadmit_value(v=a[0] ~ b[1:2] ~ c?[k]) }}"
        );
    }

    #[test]
    fn steps_keep_whitespace_control() {
        assert_eq!(
            rewrite("x {%- include \"inc\" %}"),
            "x {{- __kadmit_step(steps=3, text=7) }}{% include \"inc\" %}"
        );
        assert_eq!(
            rewrite("{% component c() -%} ab {% endcomponent %}"),
            "{% component c() %}{{ __kadmit_step(steps=1, text=4) -}} ab {% endcomponent %}"
        );
    }

    #[test]
    fn raw_comments_and_strings_are_not_rewritten() {
        let source = "{% raw %}{{ x }}{% endraw %}{# {{ y }} #}{{ \"}}\" ~ '%}' }}";
        assert_eq!(
            rewrite(source),
            "{% raw %}{{ x }}{% endraw %}{# {{ y }} #}{{ __kadmit_value(v=\"}}\" ~ '%}') }}"
        );
        assert_eq!(weight(source).unwrap().text, 7);
    }

    #[test]
    fn too_many_copies_in_one_tag_are_refused() {
        let source = format!("\n{{{{ a{} }}}}", " ~ a".repeat(MAX_COPY_OPERATORS + 1));
        assert!(instrument(&source, &HashMap::new())
            .unwrap_err()
            .starts_with("line 2: more than 32"));
    }
}
