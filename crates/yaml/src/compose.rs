//! Builds JSON-shaped values from YAML parser events, the way kubectl reads a document:
//! YAML 1.1 scalars, merge keys applied, aliases expanded within limits, keys turned into
//! strings like `sigs.k8s.io/yaml` does, duplicate keys refused.

use super::portable;
use super::scalar::{float_value, resolve_plain, Resolved};
use crate::Limits;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, Scanner, TScalarStyle, Token, TokenType};

/// Deepest nesting of mappings and sequences a document may have.
pub const MAX_DEPTH: usize = 512;
/// Nodes that alias expansion may add to one document, beyond this floor, per parsed node.
const ALIAS_NODES_FLOOR: usize = 10_000;
const ALIAS_NODES_PER_NODE: usize = 10;

#[derive(Debug, Clone, PartialEq)]
pub struct ComposeError {
    pub message: String,
    /// 1-based line within the text handed to [`compose`].
    pub line: usize,
}

/// One document: its value and the 1-based line where its content starts.
#[derive(Debug)]
pub struct Composed {
    pub value: Value,
    pub line: usize,
    /// Every YAML 1.1 and 1.2 reader reads the document's text to `value`, so the text may
    /// be written out again as it is ([`portable`], docs/yaml.md "Untouched documents"):
    /// no tags, anchors, aliases or merge keys, and every plain scalar spelled as the
    /// writer would spell it.
    pub portable: bool,
}

enum Frame {
    Mapping {
        anchor: usize,
        map: Map<String, Value>,
        /// Keys that came from a merge (`<<`) and that an explicit key may still override.
        merged: HashSet<String>,
        pending_key: Option<PendingKey>,
    },
    Sequence {
        anchor: usize,
        items: Vec<Value>,
    },
}

enum PendingKey {
    Plain(String),
    Merge,
}

struct Composer {
    stack: Vec<Frame>,
    anchors: HashMap<usize, Value>,
    parsed_nodes: usize,
    alias_nodes: usize,
    /// [`Limits::max_nodes`]: parsed and alias nodes together, per document.
    max_nodes: usize,
    documents: Vec<Composed>,
    doc_line: usize,
    doc_value: Option<Value>,
    /// Whether the document read so far is [`Composed::portable`].
    portable: bool,
    /// Whether that is worked out at all ([`compose_again`]: it is not).
    judge_portable: bool,
}

fn err(message: impl Into<String>, mark: &Marker) -> ComposeError {
    ComposeError {
        message: message.into(),
        line: mark.line().max(1),
    }
}

/// go-yaml's words for a character its reader refuses.
pub const CONTROL_CHARACTERS: &str = "control characters are not allowed";

/// Byte offset of the first character go-yaml's reader refuses (kubectl and kustomize fail
/// with `yaml: control characters are not allowed`). Allowed are tab, LF, CR, `0x20-0x7E`,
/// NEL (`U+0085`), `U+00A0-U+D7FF`, `U+E000-U+FFFD` and `U+10000` up; refused are the other
/// C0 controls, DEL, the other C1 controls and the non-characters `U+FFFE`, `U+FFFF`.
pub fn control_character_at(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    // Valid UTF-8: 0xC2 and 0xEF are always the first byte of a character.
    bytes.iter().enumerate().position(|(i, &b)| match b {
        b'\t' | b'\n' | b'\r' => false,
        0..=0x1f | 0x7f => true,
        0xc2 => matches!(bytes.get(i + 1), Some(0x80..=0x84 | 0x86..=0x9f)),
        0xef => bytes.get(i + 1) == Some(&0xbf) && matches!(bytes.get(i + 2), Some(0xbe | 0xbf)),
        _ => false,
    })
}

/// Parses every document in `text` (one chunk of a stream, already split on `---` lines),
/// within the default [`Limits`].
pub fn compose(text: &str) -> Result<Vec<Composed>, ComposeError> {
    compose_with(text, &Limits::default())
}

/// Parses every document in `text` within `limits`.
pub fn compose_with(text: &str, limits: &Limits) -> Result<Vec<Composed>, ComposeError> {
    compose_checked(text, limits, true, true)
}

/// Reads again a text [`compose_with`] read before (a document held as its own text until
/// it is admitted): without a node limit (the first reading enforced it) and without
/// working out again whether every reader reads it alike (the first reading's answer
/// stands; here every document is reported not [`Composed::portable`]), which saves
/// a check of every plain scalar.
pub fn compose_again(text: &str) -> Result<Vec<Composed>, ComposeError> {
    let unlimited = Limits {
        max_nodes: usize::MAX,
    };
    compose_checked(text, &unlimited, true, false)
}

/// [`compose_with`] without the block-subset reader of [`crate::block`]: every document
/// goes through yaml-rust2. For the differential test that holds the two readers equal.
#[doc(hidden)]
pub fn compose_with_full_parser(
    text: &str,
    limits: &Limits,
) -> Result<Vec<Composed>, ComposeError> {
    compose_checked(text, limits, false, true)
}

/// `judge_portable`: whether [`Composed::portable`] is worked out (else it is `false`).
fn compose_checked(
    text: &str,
    limits: &Limits,
    block_reader: bool,
    judge_portable: bool,
) -> Result<Vec<Composed>, ComposeError> {
    let scan = crate::prescan::prescan(text);
    if let Some(at) = scan.control_at {
        return Err(ComposeError {
            message: CONTROL_CHARACTERS.to_owned(),
            line: text.as_bytes()[..at]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1,
        });
    }
    // yaml-rust2 follows YAML 1.2 where go-yaml v2 is laxer; text that may need go-yaml's
    // reading is first rewritten into text that means the same to both (see `go_yaml_text`).
    if !scan.flow_colon {
        // Manifests in the block subset are read without yaml-rust2; anything else,
        // errors included, is read by it as before.
        if block_reader && scan.block_bytes {
            if let Some(documents) =
                crate::block::read_checked_block_document(text, limits, judge_portable)
            {
                return Ok(documents);
            }
        }
        match compose_text(text, limits, judge_portable) {
            Err(e) if go_yaml_may_read(&e) => {}
            Ok(mut documents) => {
                // What the events do not show (directives, `...`, `\/`).
                if documents.iter().any(|d| d.portable) && !portable::text(text) {
                    documents.iter_mut().for_each(|d| d.portable = false);
                }
                return Ok(documents);
            }
            result => return result,
        }
    }
    // Text only go-yaml reads as kubectl does is not the same to every reader.
    let mut documents = compose_text(&go_yaml_text(text), limits, judge_portable)?;
    documents.iter_mut().for_each(|d| d.portable = false);
    Ok(documents)
}

fn compose_text(
    text: &str,
    limits: &Limits,
    judge_portable: bool,
) -> Result<Vec<Composed>, ComposeError> {
    let mut parser = Parser::new_from_str(text);
    let mut c = Composer {
        stack: Vec::new(),
        anchors: HashMap::new(),
        parsed_nodes: 0,
        alias_nodes: 0,
        max_nodes: limits.max_nodes,
        documents: Vec::new(),
        doc_line: 1,
        doc_value: None,
        portable: judge_portable,
        judge_portable,
    };
    loop {
        let (event, mark) = parser.next_token().map_err(|e| ComposeError {
            message: if e.info().contains("recursion limit exceeded") {
                "document nests more than 255 flow collections ([...] or {...}) deep".to_owned()
            } else {
                e.info().to_owned()
            },
            line: e.marker().line().max(1),
        })?;
        match event {
            Event::StreamEnd => break,
            Event::StreamStart | Event::Nothing => {}
            Event::DocumentStart => {
                c.doc_line = mark.line().max(1);
                c.anchors.clear();
                c.parsed_nodes = 0;
                c.alias_nodes = 0;
                c.portable = c.judge_portable;
            }
            Event::DocumentEnd => {
                if let Some(value) = c.doc_value.take() {
                    c.documents.push(Composed {
                        value,
                        line: c.doc_line,
                        portable: c.portable,
                    });
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                let plain = style == TScalarStyle::Plain && tag.is_none();
                // The spelling of a plain scalar decides; once the document is not
                // portable nothing more is looked at.
                let spelling = (plain && c.portable && anchor == 0).then(|| text.clone());
                let value = scalar_value(text, style, tag.as_ref(), &mark)?;
                c.portable &= anchor == 0 && tag.is_none();
                if let Some(spelling) = spelling {
                    c.portable &= portable::plain_scalar(&spelling, &value, c.expects_key());
                }
                c.count_parsed(&mark)?;
                if anchor > 0 {
                    c.anchors.insert(anchor, value.clone());
                }
                c.push_value(value, plain, &mark)?;
            }
            Event::Alias(id) => {
                c.portable = false;
                let value = c
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| err("unknown anchor", &mark))?;
                c.alias_nodes += count_nodes(&value);
                c.check_nodes(&mark)?;
                let budget = ALIAS_NODES_FLOOR + ALIAS_NODES_PER_NODE * c.parsed_nodes;
                if c.alias_nodes > budget {
                    return Err(err(
                        format!(
                            "document contains excessive aliasing: aliases expand to more than \
                             {budget} nodes (a YAML alias bomb?)"
                        ),
                        &mark,
                    ));
                }
                c.push_value(value, false, &mark)?;
            }
            Event::SequenceStart(anchor, tag) => {
                c.portable &= anchor == 0 && tag.is_none();
                c.open(
                    Frame::Sequence {
                        anchor,
                        items: Vec::new(),
                    },
                    &mark,
                )?;
            }
            Event::MappingStart(anchor, tag) => {
                c.portable &= anchor == 0 && tag.is_none();
                c.open(
                    Frame::Mapping {
                        anchor,
                        map: Map::new(),
                        merged: HashSet::new(),
                        pending_key: None,
                    },
                    &mark,
                )?;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let frame = c
                    .stack
                    .pop()
                    .ok_or_else(|| err("unbalanced collection", &mark))?;
                let (anchor, value) = match frame {
                    Frame::Sequence { anchor, items } => (anchor, Value::Array(items)),
                    Frame::Mapping { anchor, map, .. } => (anchor, Value::Object(map)),
                };
                if anchor > 0 {
                    c.anchors.insert(anchor, value.clone());
                }
                c.push_value(value, false, &mark)?;
            }
        }
    }
    if let Some(value) = c.doc_value.take() {
        c.documents.push(Composed {
            value,
            line: c.doc_line,
            portable: c.portable,
        });
    }
    Ok(c.documents)
}

impl Composer {
    /// Whether the next node is a mapping key.
    fn expects_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame::Mapping {
                pending_key: None,
                ..
            })
        )
    }

    fn open(&mut self, frame: Frame, mark: &Marker) -> Result<(), ComposeError> {
        if let Some(Frame::Mapping {
            pending_key: None, ..
        }) = self.stack.last()
        {
            return Err(err(
                "a mapping or sequence cannot be a mapping key (kubectl requires string keys)",
                mark,
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(err(
                format!("document nests deeper than {MAX_DEPTH} levels"),
                mark,
            ));
        }
        self.count_parsed(mark)?;
        self.stack.push(frame);
        Ok(())
    }

    fn count_parsed(&mut self, mark: &Marker) -> Result<(), ComposeError> {
        self.parsed_nodes += 1;
        self.check_nodes(mark)
    }

    /// Refuses the document as soon as it holds more nodes than the limit, before the tree
    /// grows further.
    fn check_nodes(&self, mark: &Marker) -> Result<(), ComposeError> {
        if self.parsed_nodes + self.alias_nodes > self.max_nodes {
            return Err(err(crate::too_many_nodes(self.max_nodes), mark));
        }
        Ok(())
    }

    fn push_value(&mut self, value: Value, plain: bool, mark: &Marker) -> Result<(), ComposeError> {
        match self.stack.last_mut() {
            None => {
                self.doc_value = Some(value);
                Ok(())
            }
            Some(Frame::Sequence { items, .. }) => {
                items.push(value);
                Ok(())
            }
            Some(Frame::Mapping {
                map,
                merged,
                pending_key,
                ..
            }) => match pending_key.take() {
                None => {
                    if plain && matches!(&value, Value::String(s) if s == "<<") {
                        *pending_key = Some(PendingKey::Merge);
                    } else {
                        let key = key_string(value, mark)?;
                        if map.contains_key(&key) && !merged.contains(&key) {
                            return Err(err(format!("duplicate key {key:?}"), mark));
                        }
                        *pending_key = Some(PendingKey::Plain(key));
                    }
                    Ok(())
                }
                // An explicit key replaces a merged value where it stands.
                Some(PendingKey::Plain(key)) => {
                    if !merged.is_empty() {
                        merged.remove(&key);
                    }
                    map.insert(key, value);
                    Ok(())
                }
                // Merged keys never override keys already there, explicit or merged
                // earlier: the YAML merge-key spec, first listed mapping wins.
                Some(PendingKey::Merge) => {
                    for (k, v) in merge_sources(value, mark)? {
                        if !map.contains_key(&k) {
                            merged.insert(k.clone());
                            map.insert(k, v);
                        }
                    }
                    Ok(())
                }
            },
        }
    }
}

fn merge_sources(value: Value, mark: &Marker) -> Result<Vec<(String, Value)>, ComposeError> {
    let not_mapping = || {
        err(
            "map merge requires a mapping or a sequence of mappings after '<<'",
            mark,
        )
    };
    match value {
        Value::Object(map) => Ok(map.into_iter().collect()),
        Value::Array(items) => {
            let mut pairs = Vec::new();
            for item in items {
                match item {
                    Value::Object(map) => pairs.extend(map),
                    _ => return Err(not_mapping()),
                }
            }
            Ok(pairs)
        }
        _ => Err(not_mapping()),
    }
}

/// Keys as `sigs.k8s.io/yaml` turns them into JSON object keys.
fn key_string(value: Value, mark: &Marker) -> Result<String, ComposeError> {
    match value {
        Value::String(s) => Ok(s),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Null => Err(err(
            "a null mapping key is not allowed (kubectl: unsupported map key)",
            mark,
        )),
        _ => Err(err(
            "a mapping or sequence cannot be a mapping key (kubectl requires string keys)",
            mark,
        )),
    }
}

fn scalar_value(
    text: String,
    style: TScalarStyle,
    tag: Option<&Tag>,
    mark: &Marker,
) -> Result<Value, ComposeError> {
    let core_tag = tag.and_then(|t| {
        if t.handle == "tag:yaml.org,2002:" {
            Some(t.suffix.as_str())
        } else {
            None
        }
    });
    match (core_tag, tag) {
        (Some("str"), _) => return Ok(Value::String(text)),
        (Some("binary"), _) => return decode_binary(&text, mark),
        (None, Some(_)) => return Ok(Value::String(text)),
        _ => {}
    }
    if style != TScalarStyle::Plain && core_tag.is_none() {
        return Ok(Value::String(text));
    }
    let resolved = match core_tag {
        Some("float") => match text.replace('_', "").parse::<f64>() {
            Ok(f) => float_value(f),
            Err(_) => resolve_plain(&text),
        },
        _ if text.is_empty() => Resolved::Value(Value::Null),
        _ => resolve_plain(&text),
    };
    let value = match resolved {
        Resolved::Value(v) => v,
        Resolved::NonFinite => {
            return Err(err(
                format!("{text:?} is not a finite number, and JSON cannot carry it; quote it if it is a string"),
                mark,
            ))
        }
        Resolved::IntegerOverflow => {
            return Err(err(
                format!("integer {text} does not fit in 64 bits and would be rounded; quote it if it is a string"),
                mark,
            ))
        }
    };
    check_tag(core_tag, &text, value, mark)
}

/// An explicit core tag must agree with what the text is (go-yaml: "cannot decode !!bool
/// `yes` as a !!int").
fn check_tag(
    tag: Option<&str>,
    text: &str,
    value: Value,
    mark: &Marker,
) -> Result<Value, ComposeError> {
    let fits = match (tag, &value) {
        (None | Some("map" | "seq"), _) => true,
        (Some("int"), Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Some("float"), Value::Number(_)) => true,
        (Some("bool"), Value::Bool(_)) => true,
        (Some("null"), Value::Null) => true,
        (Some("int" | "float" | "bool" | "null"), _) => false,
        (Some(_), _) => true,
    };
    if fits {
        return Ok(value);
    }
    let actual = match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        _ => "str",
    };
    Err(err(
        format!(
            "cannot decode !!{actual} `{text}` as a !!{}",
            tag.unwrap_or_default()
        ),
        mark,
    ))
}

/// `!!binary` is base64; kubectl hands the decoded bytes on as a string.
fn decode_binary(text: &str, mark: &Marker) -> Result<Value, ComposeError> {
    use base64::Engine as _;
    let compact: String = text.split_whitespace().collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|e| err(format!("!!binary value is not valid base64: {e}"), mark))?;
    String::from_utf8(bytes).map(Value::String).map_err(|_| {
        err(
            "!!binary value is not UTF-8 text, which JSON cannot carry",
            mark,
        )
    })
}

// yaml-rust2's messages for lines indented less than YAML 1.2 requires, where go-yaml
// does not check indentation: a quoted scalar's continuation line (kpt writes a
// single-quoted string ending in a line break with its closing quote at column 0, and
// kubectl reads it), a tab in front of one, and a line inside a flow collection.
const QUOTED_INDENT: &str = "invalid indentation in quoted scalar";
const QUOTED_TAB: &str = "tab cannot be used as indentation";
const INDENT: &str = "invalid indentation";
const FLOW_INDENT: &str = "invalid indentation in flow construct";
const FLOW_TAB: &str = "tabs disallowed within this context (block indentation)";

/// Bounds the work of `go_yaml_text`, which scans the whole text once per under-indented
/// line: at most this many bytes, or 16 times the text, whichever is more (a document with
/// a thousand such lines is still read whole; past the bound, yaml-rust2's error stands).
const GO_YAML_SCAN_BUDGET: usize = 64 << 20;

/// Whether yaml-rust2's error may be one `go_yaml_text` removes.
fn go_yaml_may_read(e: &ComposeError) -> bool {
    [QUOTED_INDENT, QUOTED_TAB, INDENT, FLOW_INDENT, FLOW_TAB].contains(&e.message.as_str())
}

/// `text` rewritten where go-yaml v2 and yaml-rust2 would read it differently, so that
/// yaml-rust2 reads it as go-yaml does. The rewrites change no line number:
///
/// - in a flow collection, go-yaml ends a plain scalar at `:` only before white space, so
///   `[001:db8::, x]` holds the string `001:db8::`; YAML 1.2 (yaml-rust2) also ends it
///   before `,[]{}` and reads the mapping `{"001:db8:": null}`. Such a scalar, with its
///   final `:`, is single-quoted: it is a string to go-yaml whatever its text (no boolean,
///   number or null contains a `:`), and single quotes fold lines as a plain scalar does;
/// - a line that yaml-rust2 finds indented too little inside a quoted scalar or a flow
///   collection gets spaces in front, and tabs in front of such a line become spaces.
///   Leading white space there is not content: quoted and plain scalars drop it when they
///   fold lines, and between flow tokens it means nothing.
///
/// Token positions come from yaml-rust2's own scanner, so only real scalars and real flow
/// collections are touched. The scanner stops at an indentation error, so each one costs a
/// pass over the text (bounded by `GO_YAML_SCAN_BUDGET`).
fn go_yaml_text(text: &str) -> Cow<'_, str> {
    let budget = GO_YAML_SCAN_BUDGET.max(text.len().saturating_mul(16));
    let mut scanned = 0;
    let mut text = Cow::Borrowed(text);
    while scanned <= budget {
        scanned += text.len();
        let edits = go_yaml_edits(&text);
        if edits.is_empty() {
            break;
        }
        let mut out = String::with_capacity(text.len() + edits.len() * 4);
        let mut done = 0;
        for edit in edits {
            out.push_str(&text[done..edit.start]);
            out.push_str(&edit.text);
            done = edit.end;
        }
        out.push_str(&text[done..]);
        text = Cow::Owned(out);
    }
    text
}

/// Replaces `start..end` (byte offsets, in order, not overlapping) with `text`.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

fn go_yaml_edits(text: &str) -> Vec<Edit> {
    let mut scanner = Scanner::new(text.chars());
    let mut offsets = CharOffsets {
        text,
        index: 0,
        byte: 0,
    };
    let mut edits = Vec::new();
    let mut plain_start = None;
    // Columns of the open flow collections' `[` and `{`.
    let mut flows = Vec::new();
    loop {
        let token = match scanner.next_token() {
            Ok(Some(token)) => token,
            Ok(None) => break,
            Err(e) => {
                let mark = e.marker();
                let line_start = mark.index().saturating_sub(mark.col());
                let fix = match e.info() {
                    QUOTED_INDENT => quoted_indent_edits(&mut offsets, mark),
                    QUOTED_TAB => blank_tab_edits(&mut offsets, line_start),
                    // Only inside a flow collection (its `[` or `{` was handed out and its
                    // end was not: tokens the scanner still holds are not known here, and
                    // then nothing is changed). In block context go-yaml refuses these too.
                    INDENT | FLOW_INDENT => match flows.first() {
                        Some(&column) => pad_edit(&mut offsets, line_start, column + 1)
                            .into_iter()
                            .collect(),
                        None => Vec::new(),
                    },
                    FLOW_TAB if !flows.is_empty() => blank_tab_edits(&mut offsets, line_start),
                    _ => Vec::new(),
                };
                edits.extend(fix);
                break;
            }
        };
        match token {
            Token(mark, TokenType::Value) => {
                if let Some(start) = plain_start.take() {
                    edits.extend(flow_colon_edit(&mut offsets, start, mark.index()));
                }
            }
            Token(mark, TokenType::Scalar(TScalarStyle::Plain, _)) => {
                plain_start = Some(mark.index());
            }
            Token(mark, TokenType::FlowSequenceStart | TokenType::FlowMappingStart) => {
                flows.push(mark.col());
                plain_start = None;
            }
            Token(_, TokenType::FlowSequenceEnd | TokenType::FlowMappingEnd) => {
                flows.pop();
                plain_start = None;
            }
            _ => plain_start = None,
        }
    }
    edits
}

/// A plain scalar starting at character `start` that yaml-rust2 ended at the `:` at
/// character `colon` because a flow indicator follows; go-yaml keeps the `:` in the scalar.
fn flow_colon_edit(offsets: &mut CharOffsets, start: usize, colon: usize) -> Option<Edit> {
    let text = offsets.text;
    let start = offsets.byte(start)?;
    let colon = offsets.byte(colon)?;
    let bytes = text.as_bytes();
    if bytes.get(colon) != Some(&b':') || colon <= start {
        return None;
    }
    let adjacent = !matches!(bytes[colon - 1], b' ' | b'\t' | b'\n' | b'\r');
    let before_flow = matches!(bytes.get(colon + 1), Some(b',' | b'[' | b']' | b'{' | b'}'));
    if !adjacent || !before_flow {
        return None;
    }
    let scalar = &text[start..=colon];
    Some(Edit {
        start,
        end: colon + 1,
        text: format!("'{}'", scalar.replace('\'', "''")),
    })
}

/// Spaces in front of each continuation line of the quoted scalar at `mark`, enough to put
/// it right of the opening quote (yaml-rust2 accepted the first line, so its indentation
/// requirement is at most that column). A line that is a document marker keeps its
/// column 0: go-yaml refuses it too (`found unexpected document indicator`).
fn quoted_indent_edits(offsets: &mut CharOffsets, mark: &Marker) -> Vec<Edit> {
    let text = offsets.text;
    let Some(start) = offsets.byte(mark.index()) else {
        return Vec::new();
    };
    let single = match text.as_bytes().get(start) {
        Some(b'\'') => true,
        Some(b'"') => false,
        _ => return Vec::new(),
    };
    let wanted = mark.col() + 1;
    let mut edits = Vec::new();
    let mut line_start = false;
    let mut chars = text[start + 1..].char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let at = start + 1 + i;
        if line_start && !matches!(c, '\n' | '\r') {
            line_start = false;
            let rest = &text[at..];
            let marker = (rest.starts_with("---") || rest.starts_with("..."))
                && matches!(
                    rest.as_bytes().get(3),
                    None | Some(b' ' | b'\t' | b'\n' | b'\r')
                );
            if !marker {
                edits.extend(pad(rest, at, wanted));
            }
        }
        match c {
            '\n' | '\r' => line_start = true,
            // The closing quote, unless doubled (`''` is a quote inside the scalar).
            '\'' if single && chars.next_if(|&(_, next)| next == '\'').is_none() => return edits,
            '"' if !single => return edits,
            // An escape: the escaped character is no closing quote (an escaped line break
            // still starts a line).
            '\\' if !single => {
                chars.next_if(|&(_, next)| !matches!(next, '\n' | '\r'));
            }
            _ => {}
        }
    }
    // No closing quote: leave the error to the parser.
    Vec::new()
}

/// The line starting at character `line_start`, moved right so that its first non-blank
/// character is at column `wanted` or beyond.
fn pad_edit(offsets: &mut CharOffsets, line_start: usize, wanted: usize) -> Option<Edit> {
    let at = offsets.byte(line_start)?;
    pad(&offsets.text[at..], at, wanted)
}

/// Spaces to insert at byte `at`, where the line `rest` starts, so that its leading spaces
/// reach `wanted` (tabs after them then sit at `wanted` or beyond too).
fn pad(rest: &str, at: usize, wanted: usize) -> Option<Edit> {
    let spaces = rest.bytes().take_while(|&b| b == b' ').count();
    (spaces < wanted).then(|| Edit {
        start: at,
        end: at,
        text: " ".repeat(wanted - spaces),
    })
}

/// The tabs among the leading blanks of the line starting at character `line_start`, which
/// yaml-rust2 found inside a quoted scalar or a flow collection, become spaces.
fn blank_tab_edits(offsets: &mut CharOffsets, line_start: usize) -> Vec<Edit> {
    let Some(at) = offsets.byte(line_start) else {
        return Vec::new();
    };
    let text = offsets.text;
    text[at..]
        .bytes()
        .take_while(|&b| b == b' ' || b == b'\t')
        .enumerate()
        .filter(|&(_, b)| b == b'\t')
        .map(|(i, _)| Edit {
            start: at + i,
            end: at + i + 1,
            text: " ".to_owned(),
        })
        .collect()
}

/// Byte offsets of yaml-rust2's character indices, asked for in increasing order.
struct CharOffsets<'a> {
    text: &'a str,
    index: usize,
    byte: usize,
}

impl CharOffsets<'_> {
    fn byte(&mut self, index: usize) -> Option<usize> {
        if index < self.index {
            return None;
        }
        while self.index < index {
            let c = self.text[self.byte..].chars().next()?;
            self.byte += c.len_utf8();
            self.index += 1;
        }
        Some(self.byte)
    }
}

fn count_nodes(value: &Value) -> usize {
    let mut count = 0;
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        count += 1;
        match v {
            Value::Array(items) => pending.extend(items.iter()),
            Value::Object(map) => pending.extend(map.values()),
            _ => {}
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Value {
        let mut docs = compose(text).expect("parses");
        assert_eq!(docs.len(), 1);
        docs.remove(0).value
    }

    #[test]
    fn a_text_read_again_is_the_same_value_without_the_portability_question() {
        // The block reader's subset, the composer's (a flow mapping, an anchor), and text
        // only go-yaml reads (a flow colon): each read again is the value read first.
        for text in [
            "a: 1\nb: [x, y]\nc:\n  d: 'q'\n",
            "a: {b: 1, c: [2, 3]}\n",
            "a: &x 1\nb: *x\n",
            "a: {b:1}\n",
            "k: yes\nl: 0755\n",
        ] {
            let first = compose_with(text, &Limits::default()).expect(text);
            let again = compose_again(text).expect(text);
            assert_eq!(first.len(), again.len(), "{text}");
            for (f, a) in first.iter().zip(&again) {
                assert_eq!((&f.value, f.line), (&a.value, a.line), "{text}");
                assert!(!a.portable, "{text}");
            }
        }
        assert!(compose_with("a: 1\n", &Limits::default()).unwrap()[0].portable);
    }

    #[test]
    fn scalars_keys_and_styles() {
        let v = one("a: yes\nb: 'yes'\nc: 0755\nd: !!str 0755\non: 1\n1: x\ne:\nf: \"\"\n");
        assert_eq!(
            v,
            json!({"a": true, "b": "yes", "c": 493, "d": "0755", "true": 1, "1": "x", "e": null, "f": ""})
        );
    }

    #[test]
    fn merge_keys_and_aliases() {
        let v = one("base: &b {p: 1, q: 2}\nother:\n  <<: *b\n  q: 3\nlist: [*b]\n");
        assert_eq!(v["other"], json!({"p": 1, "q": 3}));
        assert_eq!(v["list"], json!([{"p": 1, "q": 2}]));
        // go-yaml v2 reads the key `y` as the boolean true, so kubectl sees "true".
        assert_eq!(one("y: 1\n"), json!({"true": 1}));
        let v = one("a: &a {k: 1}\nb: &b {k: 2, j: 2}\nc:\n  <<: [*a, *b]\n");
        assert_eq!(v["c"], json!({"k": 1, "j": 2}));
    }

    #[test]
    fn duplicate_keys_are_errors_with_lines() {
        let e = compose("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("duplicate key \"a\""), "{}", e.message);
        assert!(compose("yes: 1\ntrue: 2\n").is_err());
    }

    #[test]
    fn alias_bombs_and_deep_nesting_are_refused() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            bomb.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let e = compose(&bomb).unwrap_err();
        assert!(e.message.contains("excessive aliasing"), "{}", e.message);

        let deep = "- ".repeat(10_000) + "x\n";
        let e = compose(&deep).unwrap_err();
        assert!(e.message.contains("deeper than"), "{}", e.message);
    }

    #[test]
    fn documents_over_the_node_limit_are_refused_before_the_tree_grows() {
        let limits = Limits { max_nodes: 10 };
        // 1 mapping + 1 key + 1 sequence + 7 items = 10 nodes: at the limit.
        assert!(compose_with("l: [1, 2, 3, 4, 5, 6, 7]\n", &limits).is_ok());
        let e = compose_with("l: [1, 2, 3, 4, 5, 6, 7, 8]\n", &limits).unwrap_err();
        assert_eq!(
            e.message,
            "document holds more than 10 nodes (keys, values and collections)"
        );
        // Aliases count as the nodes they expand to.
        let e = compose_with("a: &a [1, 2, 3]\nb: *a\nc: *a\n", &limits).unwrap_err();
        assert!(
            e.message.starts_with(crate::TOO_MANY_NODES),
            "{}",
            e.message
        );
        // The count is per document.
        let two = "l: [1, 2, 3, 4, 5, 6, 7]\n---\nl: [1, 2, 3, 4, 5, 6, 7]\n";
        assert_eq!(compose_with(two, &limits).unwrap().len(), 2);
    }

    #[test]
    fn tags_are_checked_and_binary_is_decoded() {
        assert_eq!(one("a: !!binary aGVsbG8=\n"), json!({"a": "hello"}));
        assert_eq!(
            one("a: !!int 7\nb: !!float 1\nc: !!bool off\n"),
            json!({"a": 7, "b": 1, "c": false})
        );
        let e = compose("a: !!int yes\n").unwrap_err();
        assert_eq!(e.message, "cannot decode !!bool `yes` as a !!int");
        assert!(compose("a: !!int 1.5\n").is_err());
        assert!(compose("a: !!binary '%%%'\n").is_err());
    }

    #[test]
    fn control_characters_are_refused_where_go_yaml_refuses_them() {
        for c in (0u32..0x20)
            .chain(0x7f..0xa0)
            .chain([0xfffe, 0xffff])
            .filter_map(char::from_u32)
        {
            let refused = !matches!(c, '\t' | '\n' | '\r' | '\u{85}');
            let text = format!("a: 1\nb: \"x{c}  y\"\n");
            match compose(&text) {
                Err(e) => {
                    assert!(refused, "{c:?}: {}", e.message);
                    assert_eq!(
                        (e.message.as_str(), e.line),
                        (CONTROL_CHARACTERS, 2),
                        "{c:?}"
                    );
                }
                Ok(_) => assert!(!refused, "{c:?} is accepted"),
            }
        }
        for text in [
            "a: \"\u{feff}\u{a0}\u{fdd0}\u{fffd}\u{10ffff}\"\n",
            "# \u{2028}\na: 1\n",
        ] {
            assert!(compose(text).is_ok(), "{text:?}");
        }
        // Escapes are not raw characters.
        assert_eq!(one("a: \"\\x01\\u007F\"\n"), json!({"a": "\u{1}\u{7f}"}));
    }

    #[test]
    fn go_yaml_readings_touch_only_real_scalars() {
        // A flow colon and a quoted scalar at column 0 make the document go through the
        // rewrite; the block scalar, the comment and the plain scalar look alike but stay.
        let text = "a: [001:db8::, x]\nb: |\n  'q\n  [z:, w]\n# [c:, d] 'e\nc: 'line\n\n'\nd: it's [f:, g]\n";
        assert_eq!(
            one(text),
            json!({"a": ["001:db8::", "x"], "b": "'q\n[z:, w]\n", "c": "line\n", "d": "it's [f:, g]"})
        );
        assert_eq!(
            one("k: {a:, \"b\":c:, 'd': [e:]}\n"),
            json!({"k": {"a:": null, "b": "c:", "d": ["e:"]}})
        );
        // Line numbers of later errors are unchanged by the rewrites.
        let e = compose("a: [x:]\nb: 'y\n'\nc: 1\nc: 2\n").unwrap_err();
        assert_eq!(e.line, 5, "{}", e.message);
    }

    #[test]
    fn non_finite_and_huge_numbers_are_refused() {
        assert!(compose("a: .inf\n").unwrap_err().message.contains("finite"));
        assert!(compose("a: 123456789012345678901234\n")
            .unwrap_err()
            .message
            .contains("64 bits"));
        assert_eq!(one("a: '.inf'\n"), json!({"a": ".inf"}));
    }
}
