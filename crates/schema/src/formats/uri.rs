//! The `uri` format: Go's `url.ParseRequestURI` succeeds, so an absolute URI or an
//! absolute path. Only what can fail is ported: control bytes, the scheme, the
//! authority (userinfo characters, host characters, port digits) and `%` escapes.

pub(super) fn is_request_uri(raw: &str) -> bool {
    if raw.is_empty() || raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return false;
    }
    if raw == "*" {
        return true;
    }
    let Some((scheme, rest)) = split_scheme(raw) else {
        return false;
    };
    let rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        rest.split_once('?').map_or(rest, |(path, _query)| path)
    };
    if !rest.starts_with('/') {
        return !scheme.is_empty();
    }
    let mut path = rest;
    if !scheme.is_empty() && rest.starts_with("//") {
        let authority = &rest[2..];
        let (authority, tail) = authority
            .find('/')
            .map_or((authority, ""), |i| authority.split_at(i));
        if !valid_authority(authority) {
            return false;
        }
        path = tail;
    }
    unescapes(path, false)
}

/// `getScheme`: `Some((scheme, rest))`, the scheme empty when there is none; `None` for
/// a leading `:`.
fn split_scheme(raw: &str) -> Option<(&str, &str)> {
    for (i, b) in raw.bytes().enumerate() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return None,
            b':' => return Some((&raw[..i], &raw[i + 1..])),
            _ => return Some(("", raw)),
        }
    }
    Some(("", raw))
}

fn valid_authority(authority: &str) -> bool {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    valid_host(host) && userinfo.is_none_or(|u| valid_userinfo(u) && unescapes(u, false))
}

fn valid_host(host: &str) -> bool {
    let (literal_end, port) = if host.starts_with('[') {
        match host.rfind(']') {
            Some(i) => (i, &host[i + 1..]),
            None => return false,
        }
    } else {
        (host.len(), host.rfind(':').map_or("", |i| &host[i..]))
    };
    let port_ok =
        port.is_empty() || (port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit()));
    if !port_ok {
        return false;
    }
    match host[..literal_end]
        .find("%25")
        .filter(|_| host.starts_with('['))
    {
        Some(zone) => {
            unescapes(&host[..zone], true)
                && zone_unescapes(&host[zone..literal_end])
                && unescapes(&host[literal_end..], true)
        }
        None => unescapes(host, true),
    }
}

/// An IPv6 zone (`%25en0`): escapes may only spell a space or a byte allowed unescaped.
fn zone_unescapes(zone: &str) -> bool {
    let b = zone.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if i + 2 >= b.len() || !b[i + 1].is_ascii_hexdigit() || !b[i + 2].is_ascii_hexdigit() {
                return false;
            }
            let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            let v = hex(b[i + 1]) << 4 | hex(b[i + 2]);
            if &zone[i..i + 3] != "%25" && v != b' ' && (v >= 0x80 || !host_byte(v)) {
                return false;
            }
            i += 3;
        } else {
            if b[i] < 0x80 && !host_byte(b[i]) {
                return false;
            }
            i += 1;
        }
    }
    true
}

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

/// `unescape`: every `%` starts two hex digits; in a host an escape may only encode a
/// non-ASCII byte (or be `%25`) and unescaped ASCII must be allowed there.
fn unescapes(s: &str, host: bool) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if i + 2 >= b.len() || !b[i + 1].is_ascii_hexdigit() || !b[i + 2].is_ascii_hexdigit() {
                return false;
            }
            let high = (b[i + 1] as char).to_digit(16).unwrap_or(0);
            if host && high < 8 && &s[i..i + 3] != "%25" {
                return false;
            }
            i += 3;
        } else {
            if host && b[i] < 0x80 && !host_byte(b[i]) {
                return false;
            }
            i += 1;
        }
    }
    true
}

/// ASCII that `shouldEscape(c, encodeHost)` leaves alone.
fn host_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'-' | b'_'
                | b'.'
                | b'~'
                | b'!'
                | b'$'
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
        )
}
