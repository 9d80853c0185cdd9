//! The `email` format: Go's `net/mail.ParseAddress` succeeds with a non-empty address.
//! A port of its parser (RFC 5322 with Go's leniencies): an addr-spec is tried first,
//! then `display-name <addr-spec>`, then a group `name: addr;` holding one address.

use base64::engine::{general_purpose::GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

pub(super) fn is_address(s: &str) -> bool {
    let mut p = Parser { s };
    let Some(count) = p.address(true) else {
        return false;
    };
    p.skip_cfws() && p.s.is_empty() && count == 1
}

struct Parser<'a> {
    s: &'a str,
}

impl Parser<'_> {
    /// `parseAddress`: how many addresses were read (a group may hold several).
    fn address(&mut self, handle_group: bool) -> Option<usize> {
        self.skip_space();
        if self.s.is_empty() {
            return None;
        }
        if self.addr_spec() {
            self.skip_space();
            if self.s.starts_with('(') && !self.display_name_comment() {
                return None;
            }
            return Some(1);
        }
        if !self.s.starts_with('<') && !self.phrase() {
            return None;
        }
        self.skip_space();
        if handle_group && self.consume(b':') {
            return self.group_list();
        }
        if !self.consume(b'<') || !self.addr_spec() || !self.consume(b'>') {
            return None;
        }
        Some(1)
    }

    fn group_list(&mut self) -> Option<usize> {
        self.skip_space();
        if self.consume(b';') {
            return self.skip_cfws().then_some(0);
        }
        let mut count = 0;
        loop {
            self.skip_space();
            count += self.address(false)?;
            if !self.skip_cfws() {
                return None;
            }
            if self.consume(b';') {
                return self.skip_cfws().then_some(count);
            }
            if !self.consume(b',') {
                return None;
            }
        }
    }

    /// `consumeAddrSpec`; leaves the input untouched on failure.
    fn addr_spec(&mut self) -> bool {
        let orig = self.s;
        let ok = self.addr_spec_inner();
        if !ok {
            self.s = orig;
        }
        ok
    }

    fn addr_spec_inner(&mut self) -> bool {
        self.skip_space();
        if self.s.is_empty() {
            return false;
        }
        let local = if self.s.starts_with('"') {
            matches!(self.quoted_string(), Some(q) if !q.is_empty())
        } else {
            self.atom(true, false).is_some()
        };
        if !local || !self.consume(b'@') {
            return false;
        }
        self.skip_space();
        if self.s.is_empty() {
            return false;
        }
        if self.s.starts_with('[') {
            self.domain_literal()
        } else {
            self.atom(true, false).is_some()
        }
    }

    /// `consumePhrase`: one or more words; later failures end the phrase quietly.
    fn phrase(&mut self) -> bool {
        let mut words = 0;
        loop {
            if words > 0 && !self.skip_cfws() {
                return false;
            }
            self.skip_space();
            if self.s.is_empty() {
                break;
            }
            let ok = if self.s.starts_with('"') {
                self.quoted_string().is_some()
            } else {
                self.atom(true, true)
                    .is_some_and(|word| !unknown_charset(word))
            };
            if !ok {
                break;
            }
            words += 1;
        }
        words > 0
    }

    fn quoted_string(&mut self) -> Option<String> {
        let mut out = String::new();
        let mut escaped = false;
        let mut chars = self.s.char_indices().skip(1);
        loop {
            let (i, c) = chars.next()?;
            if escaped {
                if !is_vchar(c) && !is_wsp(c) {
                    return None;
                }
                out.push(c);
                escaped = false;
            } else if is_qtext(c) || is_wsp(c) {
                out.push(c);
            } else if c == '"' {
                self.s = &self.s[i + 1..];
                return Some(out);
            } else if c == '\\' {
                escaped = true;
            } else {
                return None;
            }
        }
    }

    /// `consumeAtom`: a dot-atom when `dot`; `permissive` allows stray dots.
    fn atom(&mut self, dot: bool, permissive: bool) -> Option<&str> {
        let end = self
            .s
            .char_indices()
            .find(|&(_, c)| !is_atext(c, dot))
            .map_or(self.s.len(), |(i, _)| i);
        if end == 0 {
            return None;
        }
        let (atom, rest) = self.s.split_at(end);
        if !permissive && (atom.starts_with('.') || atom.ends_with('.') || atom.contains("..")) {
            return None;
        }
        self.s = rest;
        Some(atom)
    }

    fn domain_literal(&mut self) -> bool {
        self.s = &self.s[1..];
        let Some(end) = self.s.find(']') else {
            return false;
        };
        let dtext = &self.s[..end];
        if !dtext.chars().all(is_dtext) {
            return false;
        }
        self.s = &self.s[end + 1..];
        super::net::parse_ip(dtext)
    }

    /// A `(comment)` after an addr-spec: its words must not be RFC 2047 words in an
    /// unknown charset.
    fn display_name_comment(&mut self) -> bool {
        self.s = &self.s[1..];
        match self.comment() {
            Some(comment) => comment
                .split([' ', '\t'])
                .filter(|w| !w.is_empty())
                .all(|w| !unknown_charset(w)),
            None => false,
        }
    }

    /// `consumeComment` after its `(`: the text up to the balancing `)`.
    fn comment(&mut self) -> Option<String> {
        let mut depth = 1;
        let mut comment = String::new();
        let bytes = self.s.as_bytes();
        let mut i = 0;
        while i < bytes.len() && depth > 0 {
            if bytes[i] == b'\\' && bytes.len() - i > 1 {
                i += 1;
            } else if bytes[i] == b'(' {
                depth += 1;
            } else if bytes[i] == b')' {
                depth -= 1;
            }
            if depth > 0 {
                comment.push(char::from(bytes[i]));
            }
            i += 1;
        }
        self.s = self.s.get(i..).unwrap_or("");
        (depth == 0).then_some(comment)
    }

    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume(b'(') {
            if self.comment().is_none() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }

    fn consume(&mut self, c: u8) -> bool {
        match self.s.as_bytes().first() {
            Some(&b) if b == c => {
                self.s = &self.s[1..];
                true
            }
            _ => false,
        }
    }
}

/// net/mail fails an address only when an RFC 2047 encoded-word decodes but names a
/// charset other than UTF-8, ISO-8859-1 and US-ASCII; other text is kept as it is.
fn unknown_charset(word: &str) -> bool {
    if word.len() < 8
        || !word.starts_with("=?")
        || !word.ends_with("?=")
        || word.matches('?').count() != 4
    {
        return false;
    }
    let inner = &word[2..word.len() - 2];
    let (charset, rest) = inner.split_once('?').unwrap_or((inner, ""));
    let (encoding, text) = rest.split_once('?').unwrap_or((rest, ""));
    if charset.is_empty() || encoding.len() != 1 {
        return false;
    }
    let decodes = match encoding.as_bytes()[0] {
        b'B' | b'b' => {
            let lenient = GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true);
            GeneralPurpose::new(&base64::alphabet::STANDARD, lenient)
                .decode(text)
                .is_ok()
        }
        b'Q' | b'q' => q_decodes(text.as_bytes()),
        _ => false,
    };
    decodes
        && !matches!(
            charset.to_ascii_lowercase().as_str(),
            "utf-8" | "iso-8859-1" | "us-ascii"
        )
}

fn q_decodes(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'=' => {
                if i + 2 >= s.len()
                    || !s[i + 1].is_ascii_hexdigit()
                    || !s[i + 2].is_ascii_hexdigit()
                {
                    return false;
                }
                i += 2;
            }
            b'_' | b' '..=b'~' | b'\n' | b'\r' | b'\t' => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

fn is_atext(c: char, dot: bool) -> bool {
    match c {
        '.' => dot,
        '(' | ')' | '<' | '>' | '[' | ']' | ':' | ';' | '@' | '\\' | ',' | '"' => false,
        _ => is_vchar(c),
    }
}

fn is_qtext(c: char) -> bool {
    c != '\\' && c != '"' && is_vchar(c)
}

fn is_dtext(c: char) -> bool {
    !matches!(c, '[' | ']' | '\\') && is_vchar(c)
}

fn is_vchar(c: char) -> bool {
    ('!'..='~').contains(&c) || c as u32 >= 0x80
}

fn is_wsp(c: char) -> bool {
    c == ' ' || c == '\t'
}
