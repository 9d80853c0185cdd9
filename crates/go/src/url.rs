//! `net/url`: the parsing half — `Parse`, `ParseRequestURI`, `ParseQuery`,
//! `QueryUnescape` — and the accessors that read a parsed URL back (`Hostname`, `Port`,
//! `EscapedPath`, `Query`), with Go's acceptance and `*url.Error` texts.
//!
//! The behaviour is that of Go 1.22 up to 1.24.7 and 1.25.1. Later patch releases
//! (Go 1.24.8 and 1.25.2 onwards, CVE-2025-47912) also require the text inside `[...]`
//! of a host to be an IPv6 address (`invalid host: ...`, `invalid IP-literal`), and
//! newer ones tighten colons and brackets in hosts further; that is not reproduced.
//!
//! Go strings are bytes, and unescaping may produce bytes that are not UTF-8 (`/%ff`),
//! so the unescaped parts of a [`Url`] are byte strings; the raw parts are slices of the
//! input and stay `String`s.

use crate::strconv::quote;
use std::collections::BTreeMap;
use std::fmt;

/// A `*url.Error`: the operation, the URL it was given, and the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub op: &'static str,
    pub url: String,
    pub err: String,
}

impl fmt::Display for Error {
    /// `fmt.Sprintf("%s %q: %s", e.Op, e.URL, e.Err)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.op, quote(&self.url, false), self.err)
    }
}

impl std::error::Error for Error {}

/// The user name and optional password of an authority, unescaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Userinfo {
    pub username: Vec<u8>,
    pub password: Option<Vec<u8>>,
}

/// A parsed URL, as Go's `url.URL`. `host`, `path` and `fragment` are unescaped;
/// `raw_path` and `raw_fragment` keep the original encoding only where it differs from
/// the default one (Go's invariant).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Url {
    /// Lower-cased.
    pub scheme: String,
    /// The part after `scheme:` of a URL whose path does not start with `/`.
    pub opaque: String,
    pub user: Option<Userinfo>,
    /// `host` or `host:port`, unescaped (`[fe80::1%25en0]` reads `[fe80::1%en0]`).
    pub host: Vec<u8>,
    pub path: Vec<u8>,
    pub raw_path: String,
    /// The URL ended in a `?` with nothing after it.
    pub force_query: bool,
    /// Without the `?`; not validated.
    pub raw_query: String,
    pub fragment: Vec<u8>,
    pub raw_fragment: String,
}

/// Go's `encoding`: which component a string is escaped or unescaped for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// `url.Parse`: a URL, absolute or relative; a `#fragment` is cut off first.
pub fn parse(raw: &str) -> Result<Url, Error> {
    let (u, frag) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse_inner(u, false).map_err(|err| Error {
        op: "parse",
        url: u.to_owned(),
        err,
    })?;
    if frag.is_empty() {
        return Ok(url);
    }
    url.set_fragment(frag).map_err(|err| Error {
        op: "parse",
        url: raw.to_owned(),
        err,
    })?;
    Ok(url)
}

/// `url.ParseRequestURI`: an absolute URI or an absolute path, as received in an HTTP
/// request. There is no fragment: a `#` is part of the path, query or host it appears in.
pub fn parse_request_uri(raw: &str) -> Result<Url, Error> {
    parse_inner(raw, true).map_err(|err| Error {
        op: "parse",
        url: raw.to_owned(),
        err,
    })
}

/// Go's `parse(rawURL, viaRequest)`.
fn parse_inner(raw: &str, via_request: bool) -> Result<Url, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".to_owned());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, mut rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();

    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_owned();
        rest = before;
    }

    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // A rootless path after a scheme is opaque (RFC 3986).
            url.opaque = rest.to_owned();
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".to_owned());
        }
        // Avoid confusion with malformed schemes, like cache_object:foo/bar.
        let segment = rest.split_once('/').map_or(rest, |(first, _)| first);
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".to_owned());
        }
    }

    let authority_follows = !url.scheme.is_empty() || (!via_request && !rest.starts_with("///"));
    if authority_follows && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, path) = after.find('/').map_or((after, ""), |i| after.split_at(i));
        let (user, host) = parse_authority(authority)?;
        url.user = user;
        url.host = host;
        rest = path;
    }
    url.set_path(rest)?;
    Ok(url)
}

/// Go's `getScheme`: the scheme (empty when there is none) and the rest.
fn get_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok(("", raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".to_owned());
                }
                return Ok((&raw[..i], &raw[i + 1..]));
            }
            // Not a scheme character, so there is no scheme.
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `parseAuthority`: `[userinfo@]host[:port]`.
fn parse_authority(authority: &str) -> Result<(Option<Userinfo>, Vec<u8>), String> {
    let at = authority.rfind('@');
    let host = parse_host(at.map_or(authority, |i| &authority[i + 1..]))?;
    let Some(i) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..i];
    if !valid_userinfo(userinfo) {
        return Err("net/url: invalid userinfo".to_owned());
    }
    let user = match userinfo.split_once(':') {
        None => Userinfo {
            username: unescape(userinfo, Mode::UserPassword)?,
            password: None,
        },
        Some((name, password)) => Userinfo {
            username: unescape(name, Mode::UserPassword)?,
            password: Some(unescape(password, Mode::UserPassword)?),
        },
    };
    Ok((Some(user), host))
}

/// Go's `parseHost`: `host[:port]`, where the host may be an IP-literal in brackets with
/// an RFC 6874 zone (`%25` and anything escaped that could be written plainly).
fn parse_host(host: &str) -> Result<Vec<u8>, String> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err("missing ']' in host".to_owned());
        };
        let colon_port = &host[i + 1..];
        if !valid_optional_port(colon_port) {
            return Err(format!(
                "invalid port {} after host",
                quote(colon_port, false)
            ));
        }
        if let Some(zone) = host[..i].find("%25") {
            let mut out = unescape(&host[..zone], Mode::Host)?;
            out.extend(unescape(&host[zone..i], Mode::Zone)?);
            out.extend(unescape(&host[i..], Mode::Host)?);
            return Ok(out);
        }
    } else if let Some(i) = host.rfind(':') {
        let colon_port = &host[i..];
        if !valid_optional_port(colon_port) {
            return Err(format!(
                "invalid port {} after host",
                quote(colon_port, false)
            ));
        }
    }
    unescape(host, Mode::Host)
}

/// Go's `validOptionalPort`: empty, or `:` and decimal digits (possibly none).
fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Go's `validUserinfo` (RFC 3986 §3.2.1, escapes checked later by `unescape`).
fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

/// An `EscapeError`.
fn escape_error(s: &str) -> String {
    format!("invalid URL escape {}", quote(s, false))
}

/// `strconv.Quote` of a Go string that may not be UTF-8.
fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in b.utf8_chunks() {
        let valid = quote(chunk.valid(), false);
        out.push_str(&valid[1..valid.len() - 1]);
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

/// Go's `unescape`: decodes `%XX` (and `+` in a query component) after checking every
/// escape, the host and zone rules included.
fn unescape(s: &str, mode: Mode) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len()
                    || !b[i + 1].is_ascii_hexdigit()
                    || !b[i + 2].is_ascii_hexdigit()
                {
                    // At most three bytes, as Go slices them (which may cut a
                    // multi-byte character: Go quotes the loose bytes as `\xNN`).
                    let end = (i + 3).min(b.len());
                    return Err(format!("invalid URL escape {}", quote_bytes(&b[i..end])));
                }
                let escape = &s[i..i + 3];
                // In a host, escapes may only spell non-ASCII bytes, except `%25` (RFC 6874).
                if mode == Mode::Host && unhex(b[i + 1]) < 8 && escape != "%25" {
                    return Err(escape_error(escape));
                }
                if mode == Mode::Zone {
                    // In a zone, only what could be written unescaped (or a space).
                    let v = unhex(b[i + 1]) << 4 | unhex(b[i + 2]);
                    if escape != "%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(escape_error(escape));
                    }
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!(
                        "invalid character {} in host name",
                        quote(&(c as char).to_string(), false)
                    ));
                }
                i += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                out.push(unhex(b[i + 1]) << 4 | unhex(b[i + 2]));
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Go's `shouldEscape(c, mode)`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone) {
        // Sub-delims, `:` of the port, `[ ]` of an IP-literal, and `< > "`, which hosts
        // cannot %-encode.
        if matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        ) {
            return false;
        }
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

/// Go's `escape(s, mode)` for the modes that do not turn spaces into `+`.
fn escape(s: &[u8], mode: Mode) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &c in s {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push('+');
        } else if should_escape(c, mode) {
            out.push('%');
            out.push(HEX[usize::from(c >> 4)] as char);
            out.push(HEX[usize::from(c & 15)] as char);
        } else {
            out.push(c as char);
        }
    }
    out
}

/// Go's `validEncoded`: `s` holds no byte that encoding in `mode` would escape.
fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes().all(|c| {
        matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'['
                | b']'
                | b'%'
        ) || !should_escape(c, mode)
    })
}

/// Go's `splitHostPort`: a port only when it is numeric; brackets stripped.
fn split_host_port(host_port: &[u8]) -> (&[u8], &[u8]) {
    let mut host = host_port;
    let mut port: &[u8] = b"";
    if let Some(colon) = host.iter().rposition(|&b| b == b':') {
        if host[colon + 1..].iter().all(u8::is_ascii_digit) {
            port = &host[colon + 1..];
            host = &host[..colon];
        }
    }
    if host.len() >= 2 && host.starts_with(b"[") && host.ends_with(b"]") {
        host = &host[1..host.len() - 1];
    }
    (host, port)
}

impl Url {
    /// Go's `setPath`: `path` unescaped, `raw_path` kept when it is not the default
    /// encoding of `path`.
    fn set_path(&mut self, p: &str) -> Result<(), String> {
        self.path = unescape(p, Mode::Path)?;
        self.raw_path = if escape(&self.path, Mode::Path) == p {
            String::new()
        } else {
            p.to_owned()
        };
        Ok(())
    }

    /// Go's `setFragment`.
    fn set_fragment(&mut self, f: &str) -> Result<(), String> {
        self.fragment = unescape(f, Mode::Fragment)?;
        self.raw_fragment = if escape(&self.fragment, Mode::Fragment) == f {
            String::new()
        } else {
            f.to_owned()
        };
        Ok(())
    }

    /// `URL.Hostname()`: the host without its port and brackets.
    pub fn hostname(&self) -> &[u8] {
        split_host_port(&self.host).0
    }

    /// `URL.Port()`: the numeric port, or empty.
    pub fn port(&self) -> &[u8] {
        split_host_port(&self.host).1
    }

    /// `URL.EscapedPath()`: the path as it was written when that is a valid encoding of
    /// it, else its default encoding.
    pub fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == b"*" {
            return "*".to_owned();
        }
        escape(&self.path, Mode::Path)
    }

    /// `URL.Query()`: `ParseQuery` of the raw query, pairs that fail to decode dropped.
    pub fn query(&self) -> Values {
        parse_query(&self.raw_query).0
    }
}

/// `url.Values`: every key's values in order (keys sorted, as a Go map has no order).
pub type Values = BTreeMap<Vec<u8>, Vec<Vec<u8>>>;

/// `url.ParseQuery`: the values that decode, and the first error (a pair containing `;`,
/// or a bad escape), as Go keeps going after one.
pub fn parse_query(query: &str) -> (Values, Option<String>) {
    let mut values = Values::new();
    let mut first_error = None;
    for pair in query.split('&') {
        if pair.contains(';') {
            first_error = Some("invalid semicolon separator in query".to_owned());
            continue;
        }
        if pair.is_empty() {
            continue;
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match (query_unescape(key), query_unescape(value)) {
            (Ok(key), Ok(value)) => values.entry(key).or_default().push(value),
            (Err(e), _) | (_, Err(e)) => {
                first_error.get_or_insert(e);
            }
        }
    }
    (values, first_error)
}

/// `url.QueryUnescape`: `%XX` decoded and `+` read as a space.
pub fn query_unescape(s: &str) -> Result<Vec<u8>, String> {
    unescape(s, Mode::QueryComponent)
}

#[cfg(test)]
mod tests;
