//! The JSONPath half of the parser (KubeMod's `jsonpath/parse.go`): what may follow `$`
//! or `@`. Selectors are read in a loop until a token that cannot continue a path, which
//! is handed back to the expression parser.

use super::ast::{Ambiguous, Node, Path, Plain, Root, Segment};
use super::lexer::Tok;
use super::parser::{ParseError, Parsed, Parser, MAX_DEPTH};
use super::value::Val;

const MAX_INT32: f64 = 2_147_483_647.0;

/// The separator a bracket was read with: `:` range, `?` filter, `,`/`]` keys, or none
/// for `[*]`.
type Separator = Option<char>;

impl Parser<'_> {
    pub(super) fn parse_path(&mut self, root: Root) -> Result<Parsed, ParseError> {
        let (path, depth) = self.parse_path_only(root)?;
        self.node(Node::Path(path), &[depth])
    }

    /// Reads the selectors after `$`/`@`; returns the path and the depth of its keys.
    pub(super) fn parse_path_only(&mut self, root: Root) -> Result<(Path, usize), ParseError> {
        let mut segments = Vec::new();
        let mut depth = 0;
        loop {
            let token = self.scan();
            match token.tok {
                Tok::Punct('.') => self.parse_select(&mut segments, &mut depth)?,
                Tok::Punct('[') => {
                    let (keys, separator) = self.parse_bracket()?;
                    depth = depth.max(keys.iter().map(|k| k.depth).max().unwrap_or(0));
                    let mut keys: Vec<Node> = keys.into_iter().map(|k| k.node).collect();
                    let segment = match separator {
                        Some(':') => {
                            if keys.len() > 3 {
                                return Err(self.error(
                                    "range query has at least the parameter [min:max:step]",
                                ));
                            }
                            let defaults = [0.0, MAX_INT32, 1.0];
                            for d in &defaults[keys.len()..] {
                                keys.push(Node::Const(Val::Num(*d)));
                            }
                            let [a, b, c]: [Node; 3] =
                                keys.try_into().map_err(|_| self.error("bad range"))?;
                            Segment::Ambiguous(Ambiguous::Range(Box::new([a, b, c])))
                        }
                        Some('?') => Segment::Ambiguous(self.filter(keys)?),
                        _ if keys.len() == 1 => Segment::Plain(Plain::Key(keys.remove(0))),
                        _ => Segment::Ambiguous(multi(keys)),
                    };
                    segments.push(segment);
                }
                Tok::Punct('(') => self.parse_script(&mut segments, &mut depth)?,
                _ => {
                    self.camouflage();
                    let wildcards = segments
                        .iter()
                        .filter(|s| matches!(s, Segment::Ambiguous(_)))
                        .count();
                    if wildcards > MAX_DEPTH {
                        return Err(self.error("path has too many wildcard selectors"));
                    }
                    return Ok((Path { root, segments }, depth));
                }
            }
        }
    }

    fn filter(&self, mut keys: Vec<Node>) -> Result<Ambiguous, ParseError> {
        if keys.len() != 1 {
            return Err(self.error("filter needs exactly one key"));
        }
        Ok(Ambiguous::Filter(keys.remove(0)))
    }

    /// After `.`: a name, `*`, or a second `.` (recursive descent).
    fn parse_select(
        &mut self,
        segments: &mut Vec<Segment>,
        depth: &mut usize,
    ) -> Result<(), ParseError> {
        let token = self.scan();
        match token.tok {
            Tok::Ident => segments.push(name(self.text(token))),
            Tok::Punct('*') => segments.push(Segment::Ambiguous(Ambiguous::Star)),
            Tok::Punct('.') => {
                segments.push(Segment::Ambiguous(Ambiguous::Mapper));
                self.parse_mapper(segments, depth)?;
            }
            _ => return Err(self.expected("JSON select", &["identifier", "'.'", "'*'"])),
        }
        Ok(())
    }

    /// After `..`: a name, a bracket (no range), `*`, or a script.
    fn parse_mapper(
        &mut self,
        segments: &mut Vec<Segment>,
        depth: &mut usize,
    ) -> Result<(), ParseError> {
        let token = self.scan();
        match token.tok {
            Tok::Ident => segments.push(name(self.text(token))),
            Tok::Punct('[') => {
                let (keys, separator) = self.parse_bracket()?;
                *depth = (*depth).max(keys.iter().map(|k| k.depth).max().unwrap_or(0));
                let keys: Vec<Node> = keys.into_iter().map(|k| k.node).collect();
                let segment = match separator {
                    Some(':') => {
                        return Err(self.error("mapper can not be combined with range query"))
                    }
                    Some('?') => self.filter(keys)?,
                    _ => multi(keys),
                };
                segments.push(Segment::Ambiguous(segment));
            }
            Tok::Punct('*') => segments.push(Segment::Ambiguous(Ambiguous::Star)),
            Tok::Punct('(') => self.parse_script(segments, depth)?,
            _ => return Err(self.expected("JSON mapper", &["'['", "identifier", "'*'"])),
        }
        Ok(())
    }

    /// `(expr)` after a path: the value of `expr` with `@` bound to the current value.
    fn parse_script(
        &mut self,
        segments: &mut Vec<Segment>,
        depth: &mut usize,
    ) -> Result<(), ParseError> {
        let script = self.parse_expression()?;
        if self.scan().tok != Tok::Punct(')') {
            return Err(self.expected("jsonpath script", &["')'"]));
        }
        *depth = (*depth).max(script.depth);
        segments.push(Segment::Plain(Plain::Script(script.node)));
        Ok(())
    }

    /// `parseBracket`: the keys between `[` and `]` and the separator between them.
    fn parse_bracket(&mut self) -> Result<(Vec<Parsed>, Separator), ParseError> {
        let mut keys: Vec<Parsed> = Vec::new();
        let mut separator: Separator = None;
        loop {
            let mut token = self.scan();
            let mut skip_scan = false;
            match token.tok {
                Tok::Punct('?') => skip_scan = true,
                Tok::Punct(':') => {
                    let i = if keys.len() == 1 { MAX_INT32 } else { 0.0 };
                    keys.push(Parsed::leaf(Node::Const(Val::Num(i))));
                    skip_scan = true;
                }
                Tok::Punct('*') => {
                    if self.scan().tok != Tok::Punct(']') {
                        return Err(self.expected("JSON bracket star", &["']'"]));
                    }
                    return Ok((Vec::new(), None));
                }
                Tok::Punct(']') if separator == Some(':') => skip_scan = true,
                _ => {
                    self.camouflage();
                    keys.push(self.parse_expression()?);
                }
            }
            if !skip_scan {
                token = self.scan();
            }
            let scanned = match token.tok {
                Tok::Punct(c) => Some(c),
                _ => Some('\0'),
            };
            if separator.is_none() {
                separator = scanned;
            }
            match scanned {
                Some(':' | ',') => {}
                Some(']') => return Ok((keys, separator)),
                Some('?') if keys.is_empty() => {}
                Some('?') => return Err(self.expected("JSON filter", &["']'"])),
                _ => return Err(self.expected("JSON bracket separator", &["':'", "','"])),
            }
            if separator != scanned {
                return Err(self.error(format!(
                    "mixed {:?} and {:?} in JSON bracket",
                    separator.unwrap_or('\0'),
                    scanned.unwrap_or('\0')
                )));
            }
        }
    }
}

fn name(text: &str) -> Segment {
    Segment::Plain(Plain::Key(Node::Const(Val::Str(text.to_string()))))
}

/// `[a, b]`; no keys (from `[*]`) is the star selector.
fn multi(keys: Vec<Node>) -> Ambiguous {
    if keys.is_empty() {
        Ambiguous::Star
    } else {
        Ambiguous::Multi(keys)
    }
}
