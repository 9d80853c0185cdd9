//! The lexer of Go 1.18 `text/template/parse`, state for state: `{{`/`}}` delimiters
//! with `-` trim markers, comments, newlines allowed inside actions, `break`/`continue`
//! keywords. It stops after the first error item, as Go's lexer does.

use kadmit_go::strconv::{is_print, quote};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum T {
    Error,
    Bool,
    Char,
    CharConstant,
    Complex,
    Assign,
    Declare,
    Eof,
    Field,
    Identifier,
    LeftDelim,
    LeftParen,
    Number,
    Pipe,
    RawString,
    RightDelim,
    RightParen,
    Space,
    String,
    Text,
    Variable,
    // Keywords.
    Block,
    Break,
    Continue,
    Dot,
    Define,
    Else,
    End,
    If,
    Nil,
    Range,
    Template,
    With,
}

impl T {
    fn is_keyword(self) -> bool {
        self as u8 >= T::Block as u8
    }
}

/// A token with its byte position and the line it starts on.
#[derive(Clone, Debug)]
pub(crate) struct Item {
    pub typ: T,
    pub pos: usize,
    pub val: String,
    pub line: usize,
}

impl std::fmt::Display for Item {
    /// Go's `item.String()`, used in parse errors.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.typ {
            T::Eof => write!(f, "EOF"),
            T::Error => write!(f, "{}", self.val),
            t if t.is_keyword() => write!(f, "<{}>", self.val),
            _ if self.val.chars().count() > 10 => {
                let short: String = self.val.chars().take(10).collect();
                write!(f, "{}...", quote(&short, false))
            }
            _ => write!(f, "{}", quote(&self.val, false)),
        }
    }
}

const LEFT: &str = "{{";
const RIGHT: &str = "}}";
const LEFT_COMMENT: &str = "/*";
const RIGHT_COMMENT: &str = "*/";
const SPACE_CHARS: &[char] = &[' ', '\t', '\r', '\n'];

#[derive(Clone, Copy)]
enum State {
    Text,
    LeftDelim,
    Comment,
    RightDelim,
    InsideAction,
    Space,
    Identifier,
    Field,
    Variable,
    Char,
    Number,
    Quote,
    RawQuote,
}

struct Lexer<'a> {
    input: &'a str,
    pos: usize,
    start: usize,
    width: usize,
    line: usize,
    start_line: usize,
    paren_depth: i64,
    items: Vec<Item>,
}

/// Lexes `input` to the first EOF or error item, inclusive.
pub(crate) fn lex(input: &str) -> Vec<Item> {
    let mut l = Lexer {
        input,
        pos: 0,
        start: 0,
        width: 0,
        line: 1,
        start_line: 1,
        paren_depth: 0,
        items: Vec::new(),
    };
    let mut state = Some(State::Text);
    while let Some(s) = state {
        state = l.step(s);
    }
    l.items
}

fn is_space(c: Option<char>) -> bool {
    matches!(c, Some(' ' | '\t' | '\r' | '\n'))
}

/// Go's `isAlphaNumeric`: `_`, letters and digits (Rust's Unicode classes stand in for
/// Go's `IsLetter` and `IsDigit`).
fn is_alnum(c: Option<char>) -> bool {
    matches!(c, Some(c) if c == '_' || c.is_alphabetic() || c.is_numeric())
}

fn has_left_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(Some(b[1] as char))
}

fn has_right_trim(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && is_space(Some(b[0] as char)) && b[1] == b'-'
}

/// Go's `%#U` of a rune, as the lexer's errors show it: `U+0023 '#'`.
fn describe_rune(c: char) -> String {
    if is_print(c) {
        format!("U+{:04X} '{c}'", c as u32)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

impl Lexer<'_> {
    fn next(&mut self) -> Option<char> {
        let c = self.input[self.pos..].chars().next();
        match c {
            None => {
                self.width = 0;
                None
            }
            Some(c) => {
                self.width = c.len_utf8();
                self.pos += self.width;
                if c == '\n' {
                    self.line += 1;
                }
                Some(c)
            }
        }
    }

    fn peek(&mut self) -> Option<char> {
        let c = self.next();
        self.backup();
        c
    }

    fn backup(&mut self) {
        self.pos -= self.width;
        if self.width == 1 && self.input.as_bytes()[self.pos] == b'\n' {
            self.line -= 1;
        }
    }

    fn emit(&mut self, typ: T) {
        self.items.push(Item {
            typ,
            pos: self.start,
            val: self.input[self.start..self.pos].to_string(),
            line: self.start_line,
        });
        self.start = self.pos;
        self.start_line = self.line;
    }

    fn ignore(&mut self) {
        self.line += self.input[self.start..self.pos].matches('\n').count();
        self.start = self.pos;
        self.start_line = self.line;
    }

    fn accept(&mut self, valid: &str) -> bool {
        match self.next() {
            Some(c) if valid.contains(c) => true,
            _ => {
                self.backup();
                false
            }
        }
    }

    fn accept_run(&mut self, valid: &str) {
        while matches!(self.next(), Some(c) if valid.contains(c)) {}
        self.backup();
    }

    fn errorf(&mut self, msg: String) -> Option<State> {
        self.items.push(Item {
            typ: T::Error,
            pos: self.start,
            val: msg,
            line: self.start_line,
        });
        None
    }

    fn at_right_delim(&self) -> (bool, bool) {
        let rest = &self.input[self.pos..];
        if has_right_trim(rest) && rest[2..].starts_with(RIGHT) {
            return (true, true);
        }
        (rest.starts_with(RIGHT), false)
    }

    fn at_terminator(&mut self) -> bool {
        let r = self.peek();
        if is_space(r) {
            return true;
        }
        matches!(
            r,
            None | Some('.' | ',' | '|' | ':' | ')' | '(') | Some('}')
        )
    }

    fn step(&mut self, state: State) -> Option<State> {
        match state {
            State::Text => self.lex_text(),
            State::LeftDelim => self.lex_left_delim(),
            State::Comment => self.lex_comment(),
            State::RightDelim => self.lex_right_delim(),
            State::InsideAction => self.lex_inside_action(),
            State::Space => self.lex_space(),
            State::Identifier => self.lex_identifier(),
            State::Field => self.lex_field_or_variable(T::Field),
            State::Variable => {
                if self.at_terminator() {
                    self.emit(T::Variable);
                    return Some(State::InsideAction);
                }
                self.lex_field_or_variable(T::Variable)
            }
            State::Char => {
                self.lex_quoted('\'', T::CharConstant, "unterminated character constant")
            }
            State::Quote => self.lex_quoted('"', T::String, "unterminated quoted string"),
            State::RawQuote => self.lex_raw_quote(),
            State::Number => self.lex_number(),
        }
    }

    fn lex_text(&mut self) -> Option<State> {
        self.width = 0;
        if let Some(x) = self.input[self.pos..].find(LEFT) {
            self.pos += x;
            let mut trim = 0;
            if has_left_trim(&self.input[self.pos + LEFT.len()..]) {
                let text = &self.input[self.start..self.pos];
                trim = text.len() - text.trim_end_matches(SPACE_CHARS).len();
            }
            self.pos -= trim;
            if self.pos > self.start {
                self.line += self.input[self.start..self.pos].matches('\n').count();
                self.emit(T::Text);
            }
            self.pos += trim;
            self.ignore();
            return Some(State::LeftDelim);
        }
        self.pos = self.input.len();
        if self.pos > self.start {
            self.line += self.input[self.start..self.pos].matches('\n').count();
            self.emit(T::Text);
        }
        self.emit(T::Eof);
        None
    }

    fn lex_left_delim(&mut self) -> Option<State> {
        self.pos += LEFT.len();
        let trim = has_left_trim(&self.input[self.pos..]);
        let after = if trim { 2 } else { 0 };
        if self.input[self.pos + after..].starts_with(LEFT_COMMENT) {
            self.pos += after;
            self.ignore();
            return Some(State::Comment);
        }
        self.emit(T::LeftDelim);
        self.pos += after;
        self.ignore();
        self.paren_depth = 0;
        Some(State::InsideAction)
    }

    fn lex_comment(&mut self) -> Option<State> {
        self.pos += LEFT_COMMENT.len();
        let Some(i) = self.input[self.pos..].find(RIGHT_COMMENT) else {
            return self.errorf("unclosed comment".into());
        };
        self.pos += i + RIGHT_COMMENT.len();
        let (delim, trim) = self.at_right_delim();
        if !delim {
            return self.errorf("comment ends before closing delimiter".into());
        }
        if trim {
            self.pos += 2;
        }
        self.pos += RIGHT.len();
        if trim {
            let rest = &self.input[self.pos..];
            self.pos += rest.len() - rest.trim_start_matches(SPACE_CHARS).len();
        }
        self.ignore();
        Some(State::Text)
    }

    fn lex_right_delim(&mut self) -> Option<State> {
        let trim = has_right_trim(&self.input[self.pos..]);
        if trim {
            self.pos += 2;
            self.ignore();
        }
        self.pos += RIGHT.len();
        self.emit(T::RightDelim);
        if trim {
            let rest = &self.input[self.pos..];
            self.pos += rest.len() - rest.trim_start_matches(SPACE_CHARS).len();
            self.ignore();
        }
        Some(State::Text)
    }

    fn lex_inside_action(&mut self) -> Option<State> {
        let (delim, _) = self.at_right_delim();
        if delim {
            if self.paren_depth == 0 {
                return Some(State::RightDelim);
            }
            return self.errorf("unclosed left paren".into());
        }
        let r = self.next();
        match r {
            None => return self.errorf("unclosed action".into()),
            Some(c) if is_space(Some(c)) => {
                self.backup();
                return Some(State::Space);
            }
            Some('=') => self.emit(T::Assign),
            Some(':') => {
                if self.next() != Some('=') {
                    return self.errorf("expected :=".into());
                }
                self.emit(T::Declare);
            }
            Some('|') => self.emit(T::Pipe),
            Some('"') => return Some(State::Quote),
            Some('`') => return Some(State::RawQuote),
            Some('$') => return Some(State::Variable),
            Some('\'') => return Some(State::Char),
            Some('.') => {
                if let Some(b) = self.input.as_bytes().get(self.pos) {
                    if !b.is_ascii_digit() {
                        return Some(State::Field);
                    }
                }
                self.backup();
                return Some(State::Number);
            }
            Some('+' | '-' | '0'..='9') => {
                self.backup();
                return Some(State::Number);
            }
            Some(c) if is_alnum(Some(c)) => {
                self.backup();
                return Some(State::Identifier);
            }
            Some('(') => {
                self.emit(T::LeftParen);
                self.paren_depth += 1;
            }
            Some(')') => {
                self.emit(T::RightParen);
                self.paren_depth -= 1;
                if self.paren_depth < 0 {
                    return self.errorf("unexpected right paren U+0029 ')'".into());
                }
            }
            Some(c) if c.is_ascii() && !c.is_ascii_control() => self.emit(T::Char),
            Some(c) => {
                return self.errorf(format!(
                    "unrecognized character in action: {}",
                    describe_rune(c)
                ))
            }
        }
        Some(State::InsideAction)
    }

    fn lex_space(&mut self) -> Option<State> {
        let mut spaces = 0;
        while is_space(self.peek()) {
            self.next();
            spaces += 1;
        }
        let rest = &self.input[self.pos - 1..];
        if has_right_trim(rest) && rest[2..].starts_with(RIGHT) {
            self.backup();
            if spaces == 1 {
                return Some(State::RightDelim);
            }
        }
        self.emit(T::Space);
        Some(State::InsideAction)
    }

    fn lex_identifier(&mut self) -> Option<State> {
        loop {
            let r = self.next();
            if is_alnum(r) {
                continue;
            }
            self.backup();
            if !self.at_terminator() {
                let c = r.unwrap_or('\u{FFFD}');
                return self.errorf(format!("bad character {}", describe_rune(c)));
            }
            let word = &self.input[self.start..self.pos];
            let typ = match word {
                "block" => T::Block,
                "break" => T::Break,
                "continue" => T::Continue,
                "define" => T::Define,
                "else" => T::Else,
                "end" => T::End,
                "if" => T::If,
                "range" => T::Range,
                "nil" => T::Nil,
                "template" => T::Template,
                "with" => T::With,
                "true" | "false" => T::Bool,
                _ => T::Identifier,
            };
            self.emit(typ);
            return Some(State::InsideAction);
        }
    }

    fn lex_field_or_variable(&mut self, typ: T) -> Option<State> {
        if self.at_terminator() {
            self.emit(if typ == T::Variable {
                T::Variable
            } else {
                T::Dot
            });
            return Some(State::InsideAction);
        }
        let mut r;
        loop {
            r = self.next();
            if !is_alnum(r) {
                self.backup();
                break;
            }
        }
        if !self.at_terminator() {
            let c = r.unwrap_or('\u{FFFD}');
            return self.errorf(format!("bad character {}", describe_rune(c)));
        }
        self.emit(typ);
        Some(State::InsideAction)
    }

    fn lex_quoted(&mut self, quote: char, typ: T, unterminated: &str) -> Option<State> {
        loop {
            match self.next() {
                Some('\\') => {
                    if !matches!(self.next(), None | Some('\n')) {
                        continue;
                    }
                    return self.errorf(unterminated.into());
                }
                None | Some('\n') => return self.errorf(unterminated.into()),
                Some(c) if c == quote => break,
                _ => {}
            }
        }
        self.emit(typ);
        Some(State::InsideAction)
    }

    fn lex_raw_quote(&mut self) -> Option<State> {
        loop {
            match self.next() {
                None => return self.errorf("unterminated raw quoted string".into()),
                Some('`') => break,
                _ => {}
            }
        }
        self.emit(T::RawString);
        Some(State::InsideAction)
    }

    fn lex_number(&mut self) -> Option<State> {
        if !self.scan_number() {
            let text = self.input[self.start..self.pos].to_string();
            return self.errorf(format!("bad number syntax: {}", quote(&text, false)));
        }
        if matches!(self.peek(), Some('+' | '-')) {
            if !self.scan_number() || !self.input[..self.pos].ends_with('i') {
                let text = self.input[self.start..self.pos].to_string();
                return self.errorf(format!("bad number syntax: {}", quote(&text, false)));
            }
            self.emit(T::Complex);
        } else {
            self.emit(T::Number);
        }
        Some(State::InsideAction)
    }

    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if is_alnum(self.peek()) {
            self.next();
            return false;
        }
        true
    }
}
