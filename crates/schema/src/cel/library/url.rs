//! Kubernetes' `library.URLs`: `url(s)`, `isURL(s)` and the getters of `kubernetes.URL`,
//! following Go's `net/url.ParseRequestURI` (an absolute URI or an absolute path).

use super::{out, str_arg, Out};
use cel::common::types::{Type, STRING_TYPE};
use cel::common::value::CowVal;
use cel::objects::Opaque;
use cel::{DeclarationError, Env, ExecutionError, Value};
use std::collections::HashMap;
use std::sync::Arc;

const TYPE_NAME: &str = "kubernetes.URL";

/// A parsed URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    scheme: String,
    host: String,
    path: String,
    raw_query: String,
}

impl Opaque for Url {
    fn runtime_type_name(&self) -> &str {
        TYPE_NAME
    }
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    let url = || Type::new_opaque_type(TYPE_NAME);
    env.add_type(url())?;
    env.add_overload("url", "string_to_url", vec![STRING_TYPE], to_url)?;
    env.add_overload("isURL", "is_url_string", vec![STRING_TYPE], is_url)?;
    let getters: [(&str, super::Overload); 6] = [
        ("getScheme", get_scheme),
        ("getHost", get_host),
        ("getHostname", get_hostname),
        ("getPort", get_port),
        ("getEscapedPath", get_escaped_path),
        ("getQuery", get_query),
    ];
    for (name, f) in getters {
        env.add_member_overload(name, &format!("url_{name}"), url(), vec![], f)?;
    }
    Ok(())
}

/// `url(s)`: validated with Go's `url.ParseRequestURI`, then read like `url.Parse`, which
/// drops a `#fragment` that `ParseRequestURI` would leave in the path or query.
pub fn parse(raw: &str) -> Result<Url, String> {
    parse_request_uri(raw)?;
    parse_request_uri(raw.split_once('#').map_or(raw, |(before, _)| before))
}

/// Go's `url.ParseRequestURI`.
fn parse_request_uri(raw: &str) -> Result<Url, String> {
    let fail = |why: &str| Err(format!("parse {raw:?}: {why}"));
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return fail("net/url: invalid control character in URL");
    }
    let (scheme, rest) = split_scheme(raw).map_err(|e| format!("parse {raw:?}: {e}"))?;
    let (rest, raw_query) = match rest.split_once('?') {
        Some((r, q)) => (r, q.to_owned()),
        None => (rest, String::new()),
    };
    if !rest.starts_with('/') {
        return fail("invalid URI for request");
    }
    let (host, path) = match rest.strip_prefix("//").filter(|_| !scheme.is_empty()) {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            let authority = &after[..end];
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            check_host(host).map_err(|e| format!("parse {raw:?}: {e}"))?;
            (host.to_owned(), &after[end..])
        }
        None => (String::new(), rest),
    };
    let path = unescape(path, false).ok_or_else(|| format!("parse {raw:?}: invalid URL escape"))?;
    Ok(Url {
        scheme: scheme.to_owned(),
        host,
        path,
        raw_query,
    })
}

fn split_scheme(raw: &str) -> Result<(&str, &str), &'static str> {
    for (i, c) in raw.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' if i == 0 => return Err("missing protocol scheme"),
            ':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

fn check_host(host: &str) -> Result<(), String> {
    let port = if let Some(rest) = host.strip_prefix('[') {
        let end = rest.find(']').ok_or("missing ']' in host")?;
        &rest[end + 1..]
    } else {
        host.rfind(':').map_or("", |i| &host[i..])
    };
    let valid_port = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()));
    if valid_port {
        Ok(())
    } else {
        Err(format!("invalid port {port:?} after host"))
    }
}

/// Percent-decoding; `plus` turns `+` into a space (query components).
fn unescape(s: &str, plus: bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Go's `EscapedPath` of a path without a distinct raw form.
fn escape_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-_.~$&+,/:;=@".contains(&b);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn this(args: &[CowVal<'_, '_>]) -> Result<Url, ExecutionError> {
    match args.first().map(|a| Value::try_from(a.as_ref())) {
        Some(Ok(Value::Opaque(o))) => o
            .downcast_ref::<Url>()
            .cloned()
            .ok_or_else(|| ExecutionError::function_error("url", "not a URL")),
        _ => Err(ExecutionError::function_error("url", "not a URL")),
    }
}

fn string<'b, 'v>(s: &str) -> Out<'b, 'v> {
    out(Value::String(Arc::new(s.to_owned())))
}

fn to_url<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let url = parse(str_arg(&args, 0)?).map_err(|e| ExecutionError::function_error("url", e))?;
    out(Value::Opaque(Arc::new(url)))
}

fn is_url<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    out(Value::Bool(parse(str_arg(&args, 0)?).is_ok()))
}

fn get_scheme<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(&this(&args)?.scheme)
}

fn get_host<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(&this(&args)?.host)
}

fn split_host(host: &str) -> (&str, &str) {
    if let Some(rest) = host.strip_prefix('[') {
        let end = rest.find(']').unwrap_or(rest.len());
        let port = rest
            .get(end + 1..)
            .and_then(|p| p.strip_prefix(':'))
            .unwrap_or("");
        return (&rest[..end], port);
    }
    match host.rsplit_once(':') {
        Some((h, p)) => (h, p),
        None => (host, ""),
    }
}

fn get_hostname<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(split_host(&this(&args)?.host).0)
}

fn get_port<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(split_host(&this(&args)?.host).1)
}

fn get_escaped_path<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(&escape_path(&this(&args)?.path))
}

/// Go's `url.ParseQuery` (pairs that fail to decode are dropped).
fn get_query<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let url = this(&args)?;
    let mut query: HashMap<cel::objects::Key, Vec<Value>> = HashMap::new();
    for pair in url
        .raw_query
        .split('&')
        .filter(|p| !p.is_empty() && !p.contains(';'))
    {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (Some(k), Some(v)) = (unescape(k, true), unescape(v, true)) else {
            continue;
        };
        query
            .entry(cel::objects::Key::from(k))
            .or_default()
            .push(Value::String(Arc::new(v)));
    }
    let map: HashMap<cel::objects::Key, Value> = query
        .into_iter()
        .map(|(k, v)| (k, Value::List(Arc::new(v))))
        .collect();
    out(Value::from(map))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn request_uris() {
        assert!(parse("/path").is_ok());
        assert!(parse("https://a:b:c/").is_err());
        assert!(parse("../relative-path").is_err());
        assert_eq!(parse("https://example.com").unwrap().path, "");
    }
}
