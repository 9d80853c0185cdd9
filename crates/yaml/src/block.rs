//! A fast reader for the block-structured YAML that manifests are written in: block
//! mappings and sequences, plain scalars (folded over lines) and one-line quoted scalars,
//! literal block scalars (`|`, `|-`), one-line flow collections of quoted scalars and
//! simple words, comments and blank lines.
//!
//! It answers only for documents it reads completely and with certainty, and answers
//! `None` for anything else: anchors, aliases, tags, merge keys, folded or keeping block
//! scalars, quoted scalars over several lines, complex keys, tabs, carriage returns,
//! duplicate keys, indentation it does not expect, values the resolver refuses, documents
//! near the limits, and every error. [`crate::compose`] then reads the document with
//! `yaml-rust2`, so every value it cannot carry and every error keep their exact reading
//! and text. The differential test `crates/yaml/tests/block_reader.rs` holds the two
//! readers to the same values over every YAML file of the repository and a generated
//! set of tricky inputs.
//!
//! Why it exists: `yaml-rust2` decodes text one `char` at a time into a lookahead buffer
//! and copies every token twice (token, then event); on manifests that was over a third
//! of all pass-through work. Here keys and scalars are sliced from the text and copied
//! once, into the value.

use crate::compose::Composed;
use crate::portable;
use crate::scalar::{resolve_plain, Resolved};
use crate::Limits;
use serde_json::{Map, Value};

/// The document is not one this reader takes; the full parser reads it.
struct Unhandled;

type Read<T> = Result<T, Unhandled>;

/// Deepest nesting read here, far below [`crate::compose::MAX_DEPTH`] so that the
/// composer's own depth error stays its own; deeper documents go to the full parser.
const MAX_BLOCK_DEPTH: usize = 128;

/// YAML allows an implicit (one-line) key of at most 1024 characters; longer ones are an
/// error the full parser words.
const MAX_KEY_BYTES: usize = 1000;

/// The single document of `text` when it is written in the block subset, read exactly as
/// [`crate::compose::compose_with`]'s full parser reads it; `None` otherwise. Text with a
/// character go-yaml refuses, or a flow colon go-yaml reads its own way, is always `None`
/// (the composer deals with those first).
pub fn read_block_document(text: &str, limits: &Limits) -> Option<Vec<Composed>> {
    let scan = crate::prescan::prescan(text);
    if scan.control_at.is_some() || scan.flow_colon || !scan.block_bytes {
        return None;
    }
    read_checked_block_document(text, limits, true)
}

/// [`read_block_document`] for text whose [`crate::prescan::Prescan`] found no refused
/// character, no flow colon and only block bytes; `judge_portable`: whether
/// [`Composed::portable`] is worked out (else it is `false`, and no scalar is checked).
pub(crate) fn read_checked_block_document(
    text: &str,
    limits: &Limits,
    judge_portable: bool,
) -> Option<Vec<Composed>> {
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        line: 1,
        line_start: 0,
        indent: None,
        nodes: 0,
        max_nodes: limits.max_nodes,
        depth: 0,
        entries: Vec::new(),
        items: Vec::new(),
        portable: judge_portable,
    };
    reader.next_content_line().ok()?;
    let indent = reader.indent?;
    let line = reader.line;
    let value = reader.block_node(indent).ok()?;
    match reader.indent {
        // Anchors, aliases, tags, merge keys, directives and `...` never get this far.
        None => Some(vec![Composed {
            value,
            line,
            portable: reader.portable,
        }]),
        Some(_) => None,
    }
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// 1-based line of `pos`.
    line: usize,
    /// Byte offset where the line holding `pos` starts.
    line_start: usize,
    /// Column of the first character of the current content line, `None` past the end.
    /// Set by [`Reader::next_content_line`]; every node reader returns with it set.
    indent: Option<usize>,
    nodes: usize,
    max_nodes: usize,
    depth: usize,
    /// Entries of the mappings being read, innermost last.
    entries: Vec<(String, Value)>,
    /// Items of the sequences being read, innermost last.
    items: Vec<Value>,
    /// Whether every reader reads the text read so far alike ([`Composed::portable`]):
    /// each plain scalar is checked as it is resolved.
    portable: bool,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_at(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    fn column(&self) -> usize {
        self.pos - self.line_start
    }

    /// One more node for [`Limits::max_nodes`]; at the limit the full parser words the
    /// error.
    fn count(&mut self) -> Read<()> {
        self.nodes += 1;
        if self.nodes >= self.max_nodes {
            return Err(Unhandled);
        }
        Ok(())
    }

    fn enter(&mut self) -> Read<()> {
        self.count()?;
        self.depth += 1;
        if self.depth > MAX_BLOCK_DEPTH {
            return Err(Unhandled);
        }
        Ok(())
    }

    /// Whether `at` holds white space ending a token: a space, a line break or the end.
    fn blank_or_end(&self, at: usize) -> bool {
        matches!(self.peek_at(at), None | Some(b' ' | b'\n'))
    }

    /// A `-` starting a block sequence item at `pos`.
    fn at_dash(&self) -> bool {
        self.peek() == Some(b'-') && self.blank_or_end(self.pos + 1)
    }

    /// Notes whether the plain scalar `text`, read as `value`, means the same to every
    /// reader ([`portable::plain_scalar`]).
    fn note_plain(&mut self, text: &str, value: &Value, is_key: bool) {
        if self.portable {
            self.portable = portable::plain_scalar(text, value, is_key);
        }
    }

    fn skip_spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.pos += 1;
        }
    }

    fn new_line(&mut self) {
        self.line += 1;
        self.line_start = self.pos;
    }

    /// Moves to the first character of the next line that holds more than blanks and a
    /// comment, and sets `indent` to its column (`None` at the end of the text). `pos` is
    /// at the start of a line.
    fn next_content_line(&mut self) -> Read<()> {
        loop {
            let start = self.pos;
            self.skip_spaces();
            match self.peek() {
                None => {
                    self.indent = None;
                    return Ok(());
                }
                Some(b'\n') => {
                    self.pos += 1;
                    self.new_line();
                }
                Some(b'#') => self.skip_past_line(),
                Some(first) => {
                    let indent = self.pos - start;
                    // Document markers and directives belong to the full parser.
                    let rest = &self.bytes[self.pos..];
                    if indent == 0
                        && (first == b'%' || rest.starts_with(b"---") || rest.starts_with(b"..."))
                    {
                        return Err(Unhandled);
                    }
                    self.indent = Some(indent);
                    return Ok(());
                }
            }
        }
    }

    fn skip_past_line(&mut self) {
        match self.bytes[self.pos..].iter().position(|&b| b == b'\n') {
            Some(at) => {
                self.pos += at + 1;
                self.new_line();
            }
            None => self.pos = self.bytes.len(),
        }
    }

    /// After a token: blanks, perhaps a comment after at least one blank, and the line
    /// break; then on to the next content line.
    fn end_of_line(&mut self) -> Read<()> {
        let start = self.pos;
        self.skip_spaces();
        match self.peek() {
            None => {}
            Some(b'\n') => {
                self.pos += 1;
                self.new_line();
            }
            Some(b'#') if self.pos > start => self.skip_past_line(),
            Some(_) => return Err(Unhandled),
        }
        self.next_content_line()
    }

    /// A mapping or a sequence starting at `pos`, at column `indent`.
    fn block_node(&mut self, indent: usize) -> Read<Value> {
        if self.at_dash() {
            self.block_sequence(indent, false)
        } else {
            self.block_mapping(indent)
        }
    }

    fn block_mapping(&mut self, indent: usize) -> Read<Value> {
        self.enter()?;
        // Entries wait on a stack shared by all levels, so the map is built at its final
        // size instead of growing (and rehashing) entry by entry.
        let first = self.entries.len();
        loop {
            let key = self.key()?;
            let value = self.value_after_indicator(indent, true)?;
            self.entries.push((key, value));
            match self.indent {
                Some(i) if i == indent && !self.at_dash() => {}
                Some(i) if i >= indent => return Err(Unhandled),
                _ => break,
            }
        }
        let mut map = Map::with_capacity(self.entries.len() - first);
        for (key, value) in self.entries.drain(first..) {
            if map.insert(key, value).is_some() {
                // A duplicate key: the full parser words the error.
                return Err(Unhandled);
            }
        }
        self.depth -= 1;
        Ok(Value::Object(map))
    }

    /// `value_of_key`: the sequence is the value of a mapping key at its own column
    /// (`key:` then `- item` below it), so a key at that column ends it.
    fn block_sequence(&mut self, indent: usize, value_of_key: bool) -> Read<Value> {
        self.enter()?;
        let first = self.items.len();
        loop {
            // Past the `-`.
            self.pos += 1;
            let item = self.value_after_indicator(indent, false)?;
            self.items.push(item);
            match self.indent {
                Some(i) if i == indent && self.at_dash() => {}
                Some(i) if i == indent && value_of_key => break,
                Some(i) if i >= indent => return Err(Unhandled),
                _ => break,
            }
        }
        let items = self.items.drain(first..).collect();
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    /// The node after a mapping key's `:` or a sequence item's `-` (`pos` is just past
    /// it), owned by the collection at column `parent`.
    fn value_after_indicator(&mut self, parent: usize, value_of_key: bool) -> Read<Value> {
        let start = self.pos;
        self.skip_spaces();
        let spaced = self.pos > start;
        match self.peek() {
            None | Some(b'\n') => return self.value_below(parent, value_of_key),
            Some(b'#') if spaced => return self.value_below(parent, value_of_key),
            _ if !spaced => return Err(Unhandled),
            _ => {}
        }
        let column = self.column();
        match self.peek() {
            // `- - item`: a sequence in a sequence item.
            Some(b'-') if self.at_dash() && !value_of_key => self.block_sequence(column, false),
            Some(b'|') => self.literal(parent),
            Some(b'[' | b'{') => {
                let value = self.flow()?;
                self.end_of_line()?;
                Ok(value)
            }
            _ => {
                let token_start = self.pos;
                let scalar = self.scalar_token()?;
                if self.at_key_colon() {
                    // `- key: value`: a mapping in a sequence item, read from its first key.
                    if value_of_key {
                        return Err(Unhandled);
                    }
                    self.pos = token_start;
                    return self.block_mapping(column);
                }
                self.count()?;
                if let Scalar::Plain(first) = scalar {
                    if let Some(folded) = self.plain_continuation(first, parent)? {
                        let value = Scalar::Plain(&folded).value()?;
                        self.note_plain(&folded, &value, false);
                        return Ok(value);
                    }
                }
                let plain = match scalar {
                    Scalar::Plain(text) => Some(text),
                    Scalar::Quoted(_) => None,
                };
                let value = scalar.value()?;
                if let Some(text) = plain {
                    self.note_plain(text, &value, false);
                }
                self.end_of_line()?;
                Ok(value)
            }
        }
    }

    /// The lines that continue the plain scalar `first` (a value in the collection at
    /// column `parent`, `pos` just past its text), folded into it as YAML folds them: a
    /// line break becomes a space, `k` blank lines become `k` line breaks. `None` when
    /// no line continues it (`pos` is then unchanged). Lines that would start or hold
    /// something else (an indicator, `: `, ` #`) are left to the full parser.
    fn plain_continuation(&mut self, first: &str, parent: usize) -> Read<Option<String>> {
        let start = (self.pos, self.line, self.line_start);
        let mut at = self.pos;
        while self.peek_at(at) == Some(b' ') {
            at += 1;
        }
        if self.peek_at(at) != Some(b'\n') {
            return Ok(None);
        }
        self.pos = at + 1;
        self.new_line();
        let mut folded: Option<String> = None;
        loop {
            let before_blanks = (self.pos, self.line, self.line_start);
            let mut blanks = 0;
            let spaces = loop {
                let spaces = self.spaces_at(self.pos);
                if self.peek_at(self.pos + spaces) != Some(b'\n') {
                    break spaces;
                }
                blanks += 1;
                self.pos += spaces + 1;
                self.new_line();
            };
            let content = self.pos + spaces;
            let continues = spaces > parent
                && self
                    .peek_at(content)
                    .is_some_and(|b| !matches!(b, b'#' | b'\n'));
            if !continues {
                (self.pos, self.line, self.line_start) = before_blanks;
                break;
            }
            let line_end = self.bytes[content..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(self.bytes.len(), |len| content + len);
            let text = self.text[content..line_end].trim_end_matches(' ');
            let bytes = text.as_bytes();
            let plain_start = !matches!(
                bytes[0],
                b'-' | b'?'
                    | b':'
                    | b','
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'&'
                    | b'*'
                    | b'!'
                    | b'|'
                    | b'>'
                    | b'\''
                    | b'"'
                    | b'%'
                    | b'@'
                    | b'`'
            );
            if !plain_start || text.contains(": ") || text.ends_with(':') || text.contains(" #") {
                return Err(Unhandled);
            }
            let out = folded.get_or_insert_with(|| first.to_owned());
            if blanks == 0 {
                out.push(' ');
            } else {
                out.extend(std::iter::repeat_n('\n', blanks));
            }
            out.push_str(text);
            self.pos = line_end;
            if self.peek() == Some(b'\n') {
                self.pos += 1;
                self.new_line();
            }
        }
        match folded {
            Some(text) => {
                self.next_content_line()?;
                Ok(Some(text))
            }
            None => {
                (self.pos, self.line, self.line_start) = start;
                Ok(None)
            }
        }
    }

    /// Nothing after the indicator on its line: the node is on the lines below, or null.
    fn value_below(&mut self, parent: usize, value_of_key: bool) -> Read<Value> {
        self.end_of_line()?;
        match self.indent {
            Some(i) if i > parent => self.block_node(i),
            Some(i) if i == parent && value_of_key && self.at_dash() => {
                self.block_sequence(i, true)
            }
            _ => {
                self.count()?;
                Ok(Value::Null)
            }
        }
    }

    /// A mapping key at `pos`, through its `:`.
    fn key(&mut self) -> Read<String> {
        let start = self.pos;
        let scalar = self.scalar_token()?;
        if self.pos - start > MAX_KEY_BYTES || !self.at_key_colon() {
            return Err(Unhandled);
        }
        self.skip_spaces();
        // Past the `:`.
        self.pos += 1;
        self.count()?;
        let key = match scalar {
            Scalar::Plain("<<") => return Err(Unhandled),
            Scalar::Plain(text) => {
                let Resolved::Value(value) = resolve_plain(text) else {
                    return Err(Unhandled);
                };
                self.note_plain(text, &value, true);
                match value {
                    Value::String(s) => s,
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) => n.to_string(),
                    _ => return Err(Unhandled),
                }
            }
            Scalar::Quoted(text) => text,
        };
        Ok(key)
    }

    /// Blanks, then a `:` that ends a key (followed by a blank or the end of the line).
    fn at_key_colon(&self) -> bool {
        let mut at = self.pos;
        while self.peek_at(at) == Some(b' ') {
            at += 1;
        }
        self.peek_at(at) == Some(b':') && self.blank_or_end(at + 1)
    }

    /// A one-line plain, single- or double-quoted scalar at `pos`.
    fn scalar_token(&mut self) -> Read<Scalar<'a>> {
        match self.peek() {
            Some(b'\'') => self.single_quoted().map(Scalar::Quoted),
            Some(b'"') => self.double_quoted().map(Scalar::Quoted),
            _ => self.plain().map(Scalar::Plain),
        }
    }

    /// A plain scalar in block context, ended by `: `, ` #` or the line break, trailing
    /// blanks dropped. Indicators that start something else are left to the full parser.
    fn plain(&mut self) -> Read<&'a str> {
        let text: &'a str = self.text;
        let start = self.pos;
        let first = self.peek().ok_or(Unhandled)?;
        let starts_plain = match first {
            b'-' => !self.blank_or_end(start + 1),
            b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
            | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' | b' ' | b'\n' => false,
            _ => true,
        };
        if !starts_plain {
            return Err(Unhandled);
        }
        let mut end = start;
        let mut at = start;
        while let Some(b) = self.peek_at(at) {
            match b {
                b'\n' => break,
                b':' if self.blank_or_end(at + 1) => break,
                b'#' if self.bytes[at - 1] == b' ' => break,
                b' ' => {}
                _ => end = at + 1,
            }
            at += 1;
        }
        self.pos = end;
        Ok(&text[start..end])
    }

    fn single_quoted(&mut self) -> Read<String> {
        let mut out = String::new();
        let mut run = self.pos + 1;
        let mut at = run;
        loop {
            match self.peek_at(at) {
                None | Some(b'\n') => return Err(Unhandled),
                Some(b'\'') => {
                    out.push_str(&self.text[run..at]);
                    if self.peek_at(at + 1) == Some(b'\'') {
                        out.push('\'');
                        at += 2;
                        run = at;
                    } else {
                        self.pos = at + 1;
                        return Ok(out);
                    }
                }
                Some(_) => at += 1,
            }
        }
    }

    fn double_quoted(&mut self) -> Read<String> {
        let mut out = String::new();
        let mut run = self.pos + 1;
        let mut at = run;
        loop {
            match self.peek_at(at) {
                None | Some(b'\n') => return Err(Unhandled),
                Some(b'"') => {
                    out.push_str(&self.text[run..at]);
                    self.pos = at + 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(&self.text[run..at]);
                    // `\/` is YAML 1.2 only: a YAML 1.1 reader refuses it.
                    if self.peek_at(at + 1) == Some(b'/') {
                        self.portable = false;
                    }
                    let (c, len) = self.escape(at + 1)?;
                    out.push(c);
                    at += 1 + len;
                    run = at;
                }
                Some(_) => at += 1,
            }
        }
    }

    /// The escape whose letter is at `at` (YAML 1.2's set, as yaml-rust2 reads it), and
    /// its length in bytes after the backslash.
    fn escape(&self, at: usize) -> Read<(char, usize)> {
        let simple = match self.peek_at(at).ok_or(Unhandled)? {
            b'0' => '\0',
            b'a' => '\x07',
            b'b' => '\x08',
            b't' => '\t',
            b'n' => '\n',
            b'v' => '\x0b',
            b'f' => '\x0c',
            b'r' => '\r',
            b'e' => '\x1b',
            b' ' => ' ',
            b'"' => '"',
            b'/' => '/',
            b'\\' => '\\',
            b'N' => '\u{85}',
            b'_' => '\u{a0}',
            b'L' => '\u{2028}',
            b'P' => '\u{2029}',
            b'x' => return self.hex_escape(at + 1, 2),
            b'u' => return self.hex_escape(at + 1, 4),
            b'U' => return self.hex_escape(at + 1, 8),
            _ => return Err(Unhandled),
        };
        Ok((simple, 1))
    }

    fn hex_escape(&self, at: usize, digits: usize) -> Read<(char, usize)> {
        let hex = self.bytes.get(at..at + digits).ok_or(Unhandled)?;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return Err(Unhandled);
        }
        let hex = std::str::from_utf8(hex).map_err(|_| Unhandled)?;
        let code = u32::from_str_radix(hex, 16).map_err(|_| Unhandled)?;
        let c = char::from_u32(code).ok_or(Unhandled)?;
        Ok((c, 1 + digits))
    }

    /// A one-line flow sequence or mapping of quoted scalars and simple plain words.
    fn flow(&mut self) -> Read<Value> {
        let open = self.peek().ok_or(Unhandled)?;
        self.pos += 1;
        self.enter()?;
        self.skip_spaces();
        if open == b'{' {
            let map = self.flow_mapping()?;
            self.depth -= 1;
            return Ok(Value::Object(map));
        }
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
        loop {
            let value = match self.peek() {
                Some(b'\'') => Value::String(self.single_quoted()?),
                Some(b'"') => Value::String(self.double_quoted()?),
                _ => self.flow_word(false)?,
            };
            self.count()?;
            items.push(value);
            self.skip_spaces();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_spaces();
                    if self.peek() == Some(b']') {
                        // A trailing comma: left to the full parser.
                        return Err(Unhandled);
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(Unhandled),
            }
        }
    }

    /// The entries of a one-line flow mapping after its `{` (and blanks): `key: value`
    /// pairs of quoted scalars and simple plain words.
    fn flow_mapping(&mut self) -> Read<Map<String, Value>> {
        let mut map = Map::new();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(map);
        }
        loop {
            let key = match self.peek() {
                Some(b'\'') => self.single_quoted()?,
                Some(b'"') => self.double_quoted()?,
                _ => match self.flow_word(true)? {
                    Value::String(s) if s != "<<" => s,
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) => n.to_string(),
                    _ => return Err(Unhandled),
                },
            };
            self.count()?;
            self.skip_spaces();
            if self.peek() != Some(b':') || self.peek_at(self.pos + 1) != Some(b' ') {
                return Err(Unhandled);
            }
            self.pos += 1;
            self.skip_spaces();
            let value = match self.peek() {
                Some(b'\'') => Value::String(self.single_quoted()?),
                Some(b'"') => Value::String(self.double_quoted()?),
                _ => self.flow_word(false)?,
            };
            self.count()?;
            if map.insert(key, value).is_some() {
                return Err(Unhandled);
            }
            self.skip_spaces();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_spaces();
                    if self.peek() == Some(b'}') {
                        // A trailing comma: left to the full parser.
                        return Err(Unhandled);
                    }
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(map);
                }
                _ => return Err(Unhandled),
            }
        }
    }

    /// A plain scalar inside a flow collection, kept to word characters so that no flow
    /// indicator, `:` or `#` rule comes into play.
    fn flow_word(&mut self, is_key: bool) -> Read<Value> {
        let start = self.pos;
        let word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-');
        match self.peek() {
            Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/') => {}
            Some(b'-') if self.peek_at(start + 1).is_some_and(word) => {}
            _ => return Err(Unhandled),
        }
        while self.peek().is_some_and(word) {
            self.pos += 1;
        }
        let text = &self.text[start..self.pos];
        match resolve_plain(text) {
            Resolved::Value(value) => {
                self.note_plain(text, &value, is_key);
                Ok(value)
            }
            _ => Err(Unhandled),
        }
    }

    /// A literal block scalar (`|` or `|-`) whose header is at `pos`, in the collection
    /// at column `parent`. Empty ones, keep chomping (`|+`) and indentation indicators are
    /// left to the full parser.
    fn literal(&mut self, parent: usize) -> Read<Value> {
        self.pos += 1;
        let strip = match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                true
            }
            Some(b' ' | b'\n') | None => false,
            Some(_) => return Err(Unhandled),
        };
        let start = self.pos;
        self.skip_spaces();
        match self.peek() {
            Some(b'\n') => {
                self.pos += 1;
                self.new_line();
            }
            Some(b'#') if self.pos > start => self.skip_past_line(),
            _ => return Err(Unhandled),
        }
        if self.pos >= self.bytes.len() {
            return Err(Unhandled);
        }

        // Leading blank lines, then the first content line sets the indentation.
        let mut leading_blanks = 0;
        let mut widest_blank = 0;
        let indent = loop {
            let spaces = self.spaces_at(self.pos);
            match self.peek_at(self.pos + spaces) {
                Some(b'\n') => {
                    widest_blank = widest_blank.max(spaces);
                    leading_blanks += 1;
                    self.pos += spaces + 1;
                    self.new_line();
                }
                None => return Err(Unhandled),
                Some(_) => break spaces,
            }
        };
        if indent <= parent || widest_blank > indent {
            return Err(Unhandled);
        }
        let mut out = "\n".repeat(leading_blanks);
        loop {
            let spaces = self.spaces_at(self.pos);
            match self.peek_at(self.pos + spaces) {
                // The end of the text: kept only after a line break.
                None if spaces == 0 => break,
                None => return Err(Unhandled),
                Some(b'\n') if spaces > indent => return Err(Unhandled),
                Some(b'\n') => {
                    out.push('\n');
                    self.pos += spaces + 1;
                    self.new_line();
                }
                Some(_) if spaces < indent => break,
                Some(_) => {
                    let content = self.pos + indent;
                    let Some(len) = self.bytes[content..].iter().position(|&b| b == b'\n') else {
                        return Err(Unhandled);
                    };
                    out.push_str(&self.text[content..content + len]);
                    out.push('\n');
                    self.pos = content + len + 1;
                    self.new_line();
                }
            }
        }
        let kept = out.trim_end_matches('\n').len();
        out.truncate(kept);
        if !strip {
            out.push('\n');
        }
        self.count()?;
        self.next_content_line()?;
        Ok(Value::String(out))
    }

    fn spaces_at(&self, at: usize) -> usize {
        self.bytes[at..].iter().take_while(|&&b| b == b' ').count()
    }
}

enum Scalar<'t> {
    Plain(&'t str),
    Quoted(String),
}

impl Scalar<'_> {
    /// The value of a scalar in value position: quoted ones are strings, plain ones as
    /// go-yaml v2 resolves them (values JSON cannot carry are the full parser's errors).
    fn value(self) -> Read<Value> {
        match self {
            Scalar::Quoted(text) => Ok(Value::String(text)),
            Scalar::Plain(text) => match resolve_plain(text) {
                Resolved::Value(value) => Ok(value),
                _ => Err(Unhandled),
            },
        }
    }
}
