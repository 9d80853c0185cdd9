//! `regexp/syntax.Parse` with the `Perl` flags `regexp.Compile` uses: the same scan, the
//! same stack of pending expressions and pseudo-operators, the same checks in the same
//! order, so the first error found is the one Go reports, with Go's fragment.

use super::class::{self, ClassItem};
use super::error::{Error, ErrorCode};
use super::node::{Kind, Node, Repeat};
use std::collections::HashSet;

/// `maxRepeat`: the largest count, and the largest product of nested counts.
const MAX_REPEAT: i32 = 1000;
/// `maxHeight`.
const MAX_HEIGHT: usize = 1000;
/// `maxSize`: 128 MB of 40-byte instructions.
const MAX_SIZE: i64 = (128 << 20) / 40;

/// The flags `(?imsU)` change; `Perl`'s `ClassNL`, `PerlX` and `UnicodeGroups` are
/// always on, `OneLine` is `!multi_line`.
#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    fold_case: bool,
    multi_line: bool,
    dot_nl: bool,
    non_greedy: bool,
}

enum Item {
    Node(Node),
    /// `opLeftParen`: the flags to restore at `)`, and for a capture its name.
    LeftParen {
        flags: Flags,
        capture: Option<Option<String>>,
    },
    /// `opVerticalBar`.
    VerticalBar,
}

struct Parser<'a> {
    whole: &'a str,
    flags: Flags,
    stack: Vec<Item>,
    names: HashSet<String>,
    /// `numRegexp`, `repeats` and whether the size is tracked yet, as in `checkSize`.
    num_regexp: i64,
    repeats: i64,
    tracking_size: bool,
}

/// Parses `s` as Go does.
pub(super) fn parse(s: &str) -> Result<Node, Error> {
    let mut p = Parser {
        whole: s,
        flags: Flags::default(),
        stack: Vec::new(),
        names: HashSet::new(),
        num_regexp: 0,
        repeats: 1,
        tracking_size: false,
    };
    let mut t = s;
    let mut last_repeat = "";
    while let Some(&b) = t.as_bytes().first() {
        let mut repeat = "";
        t = match b {
            b'(' if t.as_bytes().get(1) == Some(&b'?') => p.parse_perl_flags(t)?,
            b'(' => {
                p.op_left_paren(Some(None));
                &t[1..]
            }
            b'|' => {
                p.parse_vertical_bar()?;
                &t[1..]
            }
            b')' => {
                p.parse_right_paren()?;
                &t[1..]
            }
            b'^' | b'$' | b'.' => {
                let kind = match b {
                    b'^' if p.flags.multi_line => Kind::BeginLine,
                    b'^' => Kind::BeginText,
                    b'$' if p.flags.multi_line => Kind::EndLine,
                    b'$' => Kind::EndText,
                    _ if p.flags.dot_nl => Kind::AnyChar,
                    _ => Kind::AnyCharNotNl,
                };
                p.push(Node::new(kind))?;
                &t[1..]
            }
            b'[' => p.parse_class(t)?,
            b'*' | b'+' | b'?' => {
                let op = match b {
                    b'*' => Repeat::Star,
                    b'+' => Repeat::Plus,
                    _ => Repeat::Quest,
                };
                repeat = t;
                p.repeat(op, t, &t[1..], last_repeat)?
            }
            b'{' => match parse_repeat(t) {
                None => {
                    // Not a repetition: `{` is a literal.
                    p.literal(u32::from('{'))?;
                    &t[1..]
                }
                Some((min, max, after)) => {
                    if !(0..=MAX_REPEAT).contains(&min) || max > MAX_REPEAT || max >= 0 && min > max
                    {
                        return Err(Error::new(
                            ErrorCode::InvalidRepeatSize,
                            &t[..t.len() - after.len()],
                        ));
                    }
                    repeat = t;
                    p.repeat(Repeat::Count(min, max), t, after, last_repeat)?
                }
            },
            b'\\' => p.parse_backslash(t)?,
            _ => {
                let c = t.chars().next().expect("t is not empty");
                p.literal(u32::from(c))?;
                &t[c.len_utf8()..]
            }
        };
        last_repeat = repeat;
    }
    p.concat()?;
    if p.swap_vertical_bar() {
        p.stack.pop();
    }
    p.alternate()?;
    match (p.stack.pop(), p.stack.is_empty()) {
        (Some(Item::Node(node)), true) => Ok(node),
        _ => Err(Error::new(ErrorCode::MissingParen, s)),
    }
}

impl<'a> Parser<'a> {
    fn too_large(&self) -> Error {
        Error::new(ErrorCode::Large, self.whole)
    }

    /// `checkLimits` of a node about to go on the stack.
    fn check_limits(&mut self, node: &Node) -> Result<(), Error> {
        self.check_size(node)?;
        if node.height > MAX_HEIGHT {
            return Err(Error::new(ErrorCode::NestingDepth, self.whole));
        }
        Ok(())
    }

    /// `checkSize`: sizes are only checked once the number of nodes times the product
    /// of all repeat counts could reach the limit.
    fn check_size(&mut self, node: &Node) -> Result<(), Error> {
        if !self.tracking_size {
            if let Kind::Repeat(Repeat::Count(min, max), _, _) = node.kind {
                let n = i64::from(if max == -1 { min } else { max }).max(1);
                self.repeats = if n > MAX_SIZE / self.repeats {
                    MAX_SIZE
                } else {
                    self.repeats * n
                };
            }
            if self.num_regexp < MAX_SIZE / self.repeats {
                return Ok(());
            }
            self.tracking_size = true;
            let stacked = self.stack.iter().any(|item| match item {
                Item::Node(n) => n.size > MAX_SIZE,
                _ => false,
            });
            if stacked {
                return Err(self.too_large());
            }
        }
        if node.size > MAX_SIZE {
            return Err(self.too_large());
        }
        Ok(())
    }

    /// `push`: a parsed expression onto the stack.
    fn push(&mut self, node: Node) -> Result<(), Error> {
        self.num_regexp += 1;
        self.check_limits(&node)?;
        self.stack.push(Item::Node(node));
        Ok(())
    }

    /// `literal`: one rune, under the current flags. Go reuses the node of a rune that
    /// joins a run of literals, so that one does not count towards `numRegexp`.
    fn literal(&mut self, r: u32) -> Result<(), Error> {
        let fold = self.flags.fold_case;
        let node = Node::new(Kind::Literal(vec![r], fold));
        if matches!(self.stack.last(), Some(Item::Node(Node { kind: Kind::Literal(_, f), .. })) if *f == fold)
        {
            self.check_limits(&node)?;
            self.stack.push(Item::Node(node));
            return Ok(());
        }
        self.push(node)
    }

    /// `op(opLeftParen)`: `capture` is `None` for `(?:`, `Some(name)` for a group.
    fn op_left_paren(&mut self, capture: Option<Option<&str>>) {
        self.num_regexp += 1;
        let capture = capture.map(|name| {
            name.filter(|n| rust_capture_name(n) && self.names.insert((*n).to_owned()))
                .map(str::to_owned)
        });
        self.stack.push(Item::LeftParen {
            flags: self.flags,
            capture,
        });
    }

    /// `repeat`: the top of the stack repeated; `before` starts at the operator, `after`
    /// follows it. Returns what follows the operator and its `?`.
    fn repeat(
        &mut self,
        op: Repeat,
        before: &'a str,
        mut after: &'a str,
        last_repeat: &'a str,
    ) -> Result<&'a str, Error> {
        let mut greedy = !self.flags.non_greedy;
        if let Some(rest) = after.strip_prefix('?') {
            after = rest;
            greedy = !greedy;
        }
        if !last_repeat.is_empty() {
            // `a**` is a syntax error, not a doubled star.
            return Err(Error::new(
                ErrorCode::InvalidRepeatOp,
                &last_repeat[..last_repeat.len() - after.len()],
            ));
        }
        let operator = &before[..before.len() - after.len()];
        let Some(Item::Node(sub)) = self.stack.pop_if_node() else {
            return Err(Error::new(ErrorCode::MissingRepeatArgument, operator));
        };
        let node = Node::new(Kind::Repeat(op, greedy, Box::new(sub)));
        self.num_regexp += 1;
        self.check_limits(&node)?;
        let checked = matches!(op, Repeat::Count(min, max) if min >= 2 || max >= 2);
        if checked && !node.repeat_is_valid(i64::from(MAX_REPEAT)) {
            return Err(Error::new(ErrorCode::InvalidRepeatSize, operator));
        }
        self.stack.push(Item::Node(node));
        Ok(after)
    }

    /// The expressions above the topmost pseudo-operator, taken off the stack.
    fn take_operands(&mut self) -> Vec<Node> {
        let start = self
            .stack
            .iter()
            .rposition(|item| !matches!(item, Item::Node(_)))
            .map_or(0, |i| i + 1);
        self.stack
            .drain(start..)
            .map(|item| match item {
                Item::Node(node) => node,
                _ => unreachable!("only nodes above the topmost pseudo-operator"),
            })
            .collect()
    }

    /// `concat`: the expressions above the topmost `|` or `(` become one.
    fn concat(&mut self) -> Result<(), Error> {
        let subs = self.take_operands();
        let mut merged: Vec<Node> = Vec::with_capacity(subs.len());
        for sub in subs {
            // Adjacent literals with the same case folding are one string, as Go's
            // `maybeConcat` makes them.
            if let (Some(Kind::Literal(runes, fold)), Kind::Literal(more, more_fold)) =
                (merged.last_mut().map(|n| &mut n.kind), &sub.kind)
            {
                if *fold == *more_fold {
                    runes.extend_from_slice(more);
                    let last = merged.pop().expect("just matched");
                    merged.push(Node::new(last.kind));
                    continue;
                }
            }
            merged.push(sub);
        }
        let node = collapse(merged, Kind::Concat).unwrap_or_else(|| Node::new(Kind::Empty));
        self.push(node)
    }

    /// `alternate`: the expressions above the topmost `(` become one alternation.
    fn alternate(&mut self) -> Result<(), Error> {
        let subs = self.take_operands();
        let node = collapse(subs, Kind::Alternate).unwrap_or_else(|| Node::new(Kind::NoMatch));
        self.push(node)
    }

    /// `parseVerticalBar`.
    fn parse_vertical_bar(&mut self) -> Result<(), Error> {
        self.concat()?;
        if !self.swap_vertical_bar() {
            self.num_regexp += 1;
            self.stack.push(Item::VerticalBar);
        }
        Ok(())
    }

    /// `swapVerticalBar`: an expression above a `|` goes below it, with the other
    /// alternatives.
    fn swap_vertical_bar(&mut self) -> bool {
        let n = self.stack.len();
        if n >= 2
            && matches!(self.stack[n - 2], Item::VerticalBar)
            && matches!(self.stack[n - 1], Item::Node(_))
        {
            self.stack.swap(n - 2, n - 1);
            return true;
        }
        false
    }

    /// `parseRightParen`.
    fn parse_right_paren(&mut self) -> Result<(), Error> {
        self.concat()?;
        if self.swap_vertical_bar() {
            self.stack.pop();
        }
        self.alternate()?;
        let unexpected = || Error::new(ErrorCode::UnexpectedParen, self.whole);
        let (Some(Item::Node(inner)), Some(Item::LeftParen { flags, capture })) =
            (self.stack.pop(), self.stack.pop())
        else {
            return Err(unexpected());
        };
        self.flags = flags;
        match capture {
            None => self.push(inner),
            Some(name) => self.push(Node::new(Kind::Capture(name, Box::new(inner)))),
        }
    }

    /// `parsePerlFlags`: `(?P<name>`, `(?<name>`, `(?flags)` or `(?flags:`.
    fn parse_perl_flags(&mut self, s: &'a str) -> Result<&'a str, Error> {
        let b = s.as_bytes();
        let starts_with_p = b.len() > 4 && b[2] == b'P' && b[3] == b'<';
        let starts_with_name = b.len() > 3 && b[2] == b'<';
        if starts_with_p || starts_with_name {
            let begin = if starts_with_name { 3 } else { 4 };
            let Some(end) = s.find('>') else {
                return Err(Error::new(ErrorCode::InvalidNamedCapture, s));
            };
            let capture = &s[..=end];
            let name = &s[begin..end];
            if name.is_empty() || !name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric()) {
                return Err(Error::new(ErrorCode::InvalidNamedCapture, capture));
            }
            self.op_left_paren(Some(Some(name)));
            return Ok(&s[end + 1..]);
        }

        let mut flags = self.flags;
        let mut negated = false;
        let mut saw_flag = false;
        let mut t = &s[2..];
        while let Some(c) = t.chars().next() {
            t = &t[c.len_utf8()..];
            match c {
                'i' => flags.fold_case = !negated,
                'm' => flags.multi_line = !negated,
                's' => flags.dot_nl = !negated,
                'U' => flags.non_greedy = !negated,
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                    continue;
                }
                ':' | ')' if !negated || saw_flag => {
                    if c == ':' {
                        self.op_left_paren(None);
                    }
                    self.flags = flags;
                    return Ok(t);
                }
                _ => break,
            }
            saw_flag = true;
        }
        Err(Error::new(
            ErrorCode::InvalidPerlOp,
            &s[..s.len() - t.len()],
        ))
    }

    /// A `\` outside brackets: an assertion, `\Q…\E`, a class escape or one rune.
    fn parse_backslash(&mut self, t: &'a str) -> Result<&'a str, Error> {
        let kind = match t.as_bytes().get(1) {
            Some(b'A') => Some(Kind::BeginText),
            Some(b'b') => Some(Kind::WordBoundary),
            Some(b'B') => Some(Kind::NoWordBoundary),
            Some(b'z') => Some(Kind::EndText),
            Some(b'C') => return Err(Error::new(ErrorCode::InvalidEscape, &t[..2])),
            Some(b'Q') => {
                // `\Q…\E`: everything up to `\E` (or the end) is literal.
                let quoted = &t[2..];
                let (literal, rest) = quoted.split_once(r"\E").unwrap_or((quoted, ""));
                for c in literal.chars() {
                    self.literal(u32::from(c))?;
                }
                return Ok(rest);
            }
            _ => None,
        };
        if let Some(kind) = kind {
            self.push(Node::new(kind))?;
            return Ok(&t[2..]);
        }
        if let Some((item, rest)) = parse_unicode_class(t)? {
            self.push_class(vec![item], false)?;
            return Ok(rest);
        }
        if let Some(item) = t.get(..2).and_then(class::perl_group) {
            self.push_class(vec![item], false)?;
            return Ok(&t[2..]);
        }
        let (r, rest) = parse_escape(t)?;
        self.literal(r)?;
        Ok(rest)
    }

    fn push_class(&mut self, items: Vec<ClassItem>, negated: bool) -> Result<(), Error> {
        self.push(Node::new(Kind::Class(items, negated, self.flags.fold_case)))
    }

    /// `parseClass`: a bracket expression at the start of `s`.
    fn parse_class(&mut self, s: &'a str) -> Result<&'a str, Error> {
        let mut t = &s[1..];
        let negated = t.starts_with('^');
        if negated {
            t = &t[1..];
        }
        let mut items = Vec::new();
        let mut first = true;
        while t.is_empty() || !t.starts_with(']') || first {
            first = false;
            if t.len() > 2 && t.starts_with("[:") {
                if let Some(end) = t[2..].find(":]") {
                    let name = &t[..end + 4];
                    let item = class::posix_group(name)
                        .ok_or_else(|| Error::new(ErrorCode::InvalidCharRange, name))?;
                    items.push(item);
                    t = &t[end + 4..];
                    continue;
                }
            }
            if let Some((item, rest)) = parse_unicode_class(t)? {
                items.push(item);
                t = rest;
                continue;
            }
            if let Some(item) = t.get(..2).and_then(class::perl_group) {
                items.push(item);
                t = &t[2..];
                continue;
            }
            let range = t;
            let (lo, rest) = parse_class_char(t, s)?;
            t = rest;
            let mut hi = lo;
            // `[a-]` is `a` or `-`.
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (h, rest) = parse_class_char(&t[1..], s)?;
                hi = h;
                t = rest;
                if hi < lo {
                    return Err(Error::new(
                        ErrorCode::InvalidCharRange,
                        &range[..range.len() - t.len()],
                    ));
                }
            }
            items.push(ClassItem::Range(lo, hi));
        }
        self.push_class(items, negated)?;
        Ok(&t[1..])
    }
}

trait PopNode {
    /// The top of the stack if it is an expression (not `(` or `|`).
    fn pop_if_node(&mut self) -> Option<Item>;
}

impl PopNode for Vec<Item> {
    fn pop_if_node(&mut self) -> Option<Item> {
        match self.last() {
            Some(Item::Node(_)) => self.pop(),
            _ => None,
        }
    }
}

/// `collapse`: `subs` under `kind`, flattening nested nodes of the same kind; `None`
/// when there are none.
fn collapse(subs: Vec<Node>, kind: fn(Vec<Node>) -> Kind) -> Option<Node> {
    if subs.len() <= 1 {
        return subs.into_iter().next();
    }
    let same = |k: &Kind| std::mem::discriminant(k) == std::mem::discriminant(&kind(Vec::new()));
    let mut flat = Vec::with_capacity(subs.len());
    for sub in subs {
        if same(&sub.kind) {
            match sub.kind {
                Kind::Concat(inner) | Kind::Alternate(inner) => flat.extend(inner),
                _ => unreachable!("same kind"),
            }
        } else {
            flat.push(sub);
        }
    }
    Some(Node::new(kind(flat)))
}

/// Names the `regex` crate accepts: Go also allows a leading digit.
fn rust_capture_name(name: &str) -> bool {
    name.starts_with(|c: char| c == '_' || c.is_ascii_alphabetic())
}

/// `parseRepeat`: `{min}`, `{min,}` or `{min,max}` at the start of `s` (max -1 for
/// none, min -1 for a number too large), or `None` when the braces are literal.
fn parse_repeat(s: &str) -> Option<(i32, i32, &str)> {
    let s = s.strip_prefix('{')?;
    let (mut min, s) = parse_int(s)?;
    let (max, s) = match s.strip_prefix(',') {
        None => (min, s),
        Some("") => return None,
        Some(rest) if rest.starts_with('}') => (-1, rest),
        Some(rest) => {
            let (max, rest) = parse_int(rest)?;
            if max < 0 {
                min = -1;
            }
            (max, rest)
        }
    };
    let rest = s.strip_prefix('}')?;
    Some((min, max, rest))
}

/// `parseInt`: decimal digits without a leading zero; -1 past 10^8.
fn parse_int(s: &str) -> Option<(i32, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits >= 2 && s.starts_with('0') {
        return None;
    }
    let mut n: i32 = 0;
    for d in s[..digits].bytes() {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i32::from(d - b'0');
    }
    Some((n, &s[digits..]))
}

/// `parseUnicodeClass`: `\pL`, `\p{Greek}`, `\PL`, `\p{^Greek}` at the start of `s`.
fn parse_unicode_class(s: &str) -> Result<Option<(ClassItem, &str)>, Error> {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'\\' || (b[1] != b'p' && b[1] != b'P') {
        return Ok(None);
    }
    let mut negated = b[1] == b'P';
    let t = &s[2..];
    let (seq, mut name, rest) = match t.chars().next() {
        Some('{') => {
            let Some(end) = s.find('}') else {
                return Err(Error::new(ErrorCode::InvalidCharRange, s));
            };
            (&s[..=end], &s[3..end], &s[end + 1..])
        }
        Some(c) => {
            let len = 2 + c.len_utf8();
            (&s[..len], &s[2..len], &s[len..])
        }
        None => (s, "", ""),
    };
    if let Some(stripped) = name.strip_prefix('^') {
        negated = !negated;
        name = stripped;
    }
    let table =
        class::unicode_table(name).ok_or_else(|| Error::new(ErrorCode::InvalidCharRange, seq))?;
    Ok(Some((ClassItem::Unicode(table, negated), rest)))
}

/// `parseClassChar`: one rune, escaped or not, inside brackets starting at `whole`.
fn parse_class_char<'s>(s: &'s str, whole: &str) -> Result<(u32, &'s str), Error> {
    match s.chars().next() {
        None => Err(Error::new(ErrorCode::MissingBracket, whole)),
        Some('\\') => parse_escape(s),
        Some(c) => Ok((u32::from(c), &s[c.len_utf8()..])),
    }
}

/// `parseEscape`: the rune of the escape at the start of `s`.
fn parse_escape(s: &str) -> Result<(u32, &str), Error> {
    let mut t = &s[1..];
    let Some(c) = t.chars().next() else {
        return Err(Error::new(ErrorCode::TrailingBackslash, ""));
    };
    t = &t[c.len_utf8()..];
    let invalid = |t: &str| {
        Err(Error::new(
            ErrorCode::InvalidEscape,
            &s[..s.len() - t.len()],
        ))
    };
    let octal = |t: &str| {
        t.as_bytes()
            .first()
            .is_some_and(|b| (b'0'..=b'7').contains(b))
    };
    match c {
        // A lone `\1`-`\7` would be a backreference: not supported.
        '1'..='7' if !octal(t) => invalid(t),
        '0'..='7' => {
            let mut r = u32::from(c) - u32::from('0');
            for _ in 1..3 {
                if !octal(t) {
                    break;
                }
                r = r * 8 + u32::from(t.as_bytes()[0] - b'0');
                t = &t[1..];
            }
            Ok((r, t))
        }
        'x' => {
            let Some(c) = t.chars().next() else {
                return invalid(t);
            };
            t = &t[c.len_utf8()..];
            if c == '{' {
                // Any number of hex digits in braces, at least one, up to U+10FFFF.
                let mut r = 0u32;
                let mut digits = 0;
                loop {
                    let Some(c) = t.chars().next() else {
                        return invalid(t);
                    };
                    t = &t[c.len_utf8()..];
                    if c == '}' {
                        break;
                    }
                    let Some(v) = c.to_digit(16) else {
                        return invalid(t);
                    };
                    r = r * 16 + v;
                    if r > 0x10ffff {
                        return invalid(t);
                    }
                    digits += 1;
                }
                if digits == 0 {
                    return invalid(t);
                }
                return Ok((r, t));
            }
            // Exactly two hex digits.
            let x = c.to_digit(16);
            let y = t.chars().next();
            if let Some(y) = y {
                t = &t[y.len_utf8()..];
            }
            match (x, y.and_then(|y| y.to_digit(16))) {
                (Some(x), Some(y)) => Ok((x * 16 + y, t)),
                _ => invalid(t),
            }
        }
        'a' => Ok((0x07, t)),
        'f' => Ok((0x0c, t)),
        'n' => Ok((0x0a, t)),
        'r' => Ok((0x0d, t)),
        't' => Ok((0x09, t)),
        'v' => Ok((0x0b, t)),
        // Escaped punctuation is always itself (`\<` is a `<`, `\_` an underscore).
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((u32::from(c), t)),
        _ => invalid(t),
    }
}
