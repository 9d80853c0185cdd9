//! The parse tree: Go's `syntax.Regexp` shapes as far as they show through, with Go's
//! height and compiled-size estimates, and its rendering in the `regex` crate's syntax.
//! Flags are resolved at parse time, so every node renders the same wherever it lands.

use super::class::{self, ClassItem};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Repeat {
    Star,
    Plus,
    Quest,
    /// `{min,max}`; `max` is -1 for `{min,}`.
    Count(i32, i32),
}

#[derive(Debug)]
pub(super) enum Kind {
    NoMatch,
    Empty,
    /// A run of runes; with `fold`, matched case-insensitively.
    Literal(Vec<u32>, bool),
    /// A bracket expression or class escape: items, negated, fold.
    Class(Vec<ClassItem>, bool, bool),
    AnyCharNotNl,
    AnyChar,
    BeginLine,
    EndLine,
    BeginText,
    EndText,
    WordBoundary,
    NoWordBoundary,
    /// A capturing group, with the name the `regex` crate can carry (Go also allows
    /// names starting with a digit and repeated names; those groups stay unnamed).
    Capture(Option<String>, Box<Node>),
    Repeat(Repeat, bool, Box<Node>),
    Concat(Vec<Node>),
    Alternate(Vec<Node>),
}

#[derive(Debug)]
pub(super) struct Node {
    pub kind: Kind,
    /// `calcHeight`.
    pub height: usize,
    /// `calcSize`: the compiled size Go estimates, in instructions.
    pub size: i64,
}

impl Node {
    pub fn new(kind: Kind) -> Node {
        let (height, size) = match &kind {
            Kind::Literal(runes, _) => (1, runes.len() as i64),
            Kind::Capture(_, sub) => (1 + sub.height, 2 + sub.size),
            Kind::Repeat(op, _, sub) => (1 + sub.height, repeat_size(*op, sub.size)),
            Kind::Concat(subs) => (1 + max_height(subs), subs.iter().map(|s| s.size).sum()),
            Kind::Alternate(subs) => (
                1 + max_height(subs),
                subs.iter().map(|s| s.size).sum::<i64>() + subs.len() as i64 - 1,
            ),
            _ => (1, 0),
        };
        Node {
            kind,
            height,
            size: size.max(1),
        }
    }

    /// `repeatIsValid`: nested counted repetitions multiply to at most `n` copies.
    pub fn repeat_is_valid(&self, mut n: i64) -> bool {
        if let Kind::Repeat(Repeat::Count(min, max), _, _) = self.kind {
            let mut m = i64::from(max);
            if m == 0 {
                return true;
            }
            if m < 0 {
                m = i64::from(min);
            }
            if m > n {
                return false;
            }
            if m > 0 {
                n /= m;
            }
        }
        self.subs().iter().all(|sub| sub.repeat_is_valid(n))
    }

    fn subs(&self) -> &[Node] {
        match &self.kind {
            Kind::Capture(_, sub) | Kind::Repeat(_, _, sub) => std::slice::from_ref(sub),
            Kind::Concat(subs) | Kind::Alternate(subs) => subs,
            _ => &[],
        }
    }

    /// The expression in the `regex` crate's syntax, safe to concatenate with others.
    pub fn render(&self, out: &mut String) {
        match &self.kind {
            Kind::NoMatch => out.push_str(class::NOTHING),
            Kind::Empty => out.push_str("(?:)"),
            Kind::Literal(runes, fold) => {
                let text: String = runes
                    .iter()
                    .map(|&r| match char::from_u32(r) {
                        Some(_) => class::rune(r),
                        None => class::NOTHING.to_owned(),
                    })
                    .collect();
                folded(out, *fold, &text);
            }
            Kind::Class(items, negated, fold) => {
                folded(out, *fold, &class::render(items, *negated));
            }
            Kind::AnyCharNotNl => out.push_str(r"[^\n]"),
            Kind::AnyChar => out.push_str("(?s:.)"),
            Kind::BeginLine => out.push_str("(?m:^)"),
            Kind::EndLine => out.push_str("(?m:$)"),
            Kind::BeginText => out.push_str(r"\A"),
            Kind::EndText => out.push_str(r"\z"),
            // Go's word boundaries are ASCII.
            Kind::WordBoundary => out.push_str(r"(?-u:\b)"),
            Kind::NoWordBoundary => out.push_str(r"(?-u:\B)"),
            Kind::Capture(name, sub) => {
                match name {
                    Some(name) => {
                        out.push_str("(?P<");
                        out.push_str(name);
                        out.push('>');
                    }
                    None => out.push('('),
                }
                sub.render_bare(out);
                out.push(')');
            }
            Kind::Repeat(op, greedy, sub) => {
                out.push_str("(?:");
                sub.render_bare(out);
                out.push(')');
                match op {
                    Repeat::Star => out.push('*'),
                    Repeat::Plus => out.push('+'),
                    Repeat::Quest => out.push('?'),
                    Repeat::Count(min, max) if min == max => out.push_str(&format!("{{{min}}}")),
                    Repeat::Count(min, -1) => out.push_str(&format!("{{{min},}}")),
                    Repeat::Count(min, max) => out.push_str(&format!("{{{min},{max}}}")),
                }
                if !greedy {
                    out.push('?');
                }
            }
            Kind::Concat(subs) => subs.iter().for_each(|sub| sub.render(out)),
            Kind::Alternate(_) => {
                out.push_str("(?:");
                self.render_bare(out);
                out.push(')');
            }
        }
    }

    /// Like `render`, where the text is a whole group's body (an alternation needs no
    /// group of its own there).
    pub fn render_bare(&self, out: &mut String) {
        match &self.kind {
            Kind::Alternate(subs) => {
                for (i, sub) in subs.iter().enumerate() {
                    if i > 0 {
                        out.push('|');
                    }
                    sub.render(out);
                }
            }
            _ => self.render(out),
        }
    }
}

fn folded(out: &mut String, fold: bool, text: &str) {
    if fold {
        out.push_str("(?i:");
        out.push_str(text);
        out.push(')');
    } else {
        out.push_str(text);
    }
}

fn max_height(subs: &[Node]) -> usize {
    subs.iter().map(|s| s.height).max().unwrap_or(0)
}

/// `calcSize` of a repetition of something of size `sub`.
fn repeat_size(op: Repeat, sub: i64) -> i64 {
    match op {
        Repeat::Star => 2 + sub,
        Repeat::Plus | Repeat::Quest => 1 + sub,
        Repeat::Count(0, -1) => 2 + sub,
        Repeat::Count(min, -1) => 1 + i64::from(min) * sub,
        Repeat::Count(min, max) => i64::from(max) * sub + i64::from(max - min),
    }
}
