//! Kubernetes' `library.URLs` (`apiserver/pkg/cel/library/urls.go`): `url(s)`, `isURL(s)`
//! and the getters of `kubernetes.URL`, on the port of Go's `net/url` in `kadmit-go`.
//!
//! `isURL(s)` is `url.ParseRequestURI(s) == nil`: an absolute URI or an absolute path.
//! `url(s)` fails where `ParseRequestURI` fails, then reads the URL with `url.Parse`
//! (which cuts a `#fragment` that `ParseRequestURI` leaves in the path or query), with the
//! API server's text: `URL parse error during conversion from string: parse "...": ...`.

use super::{out, str_arg, Out};
use cel::common::types::{Type, STRING_TYPE};
use cel::common::value::CowVal;
use cel::objects::Opaque;
use cel::{DeclarationError, Env, ExecutionError, Value};
use kadmit_go::url as gourl;
use std::collections::HashMap;
use std::sync::Arc;

const TYPE_NAME: &str = "kubernetes.URL";

/// A parsed URL (Go's `*url.URL` from `url.Parse`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url(gourl::Url);

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

/// `url(s)`: the URL, or the API server's error text.
pub fn parse(raw: &str) -> Result<Url, String> {
    let conversion =
        |e: gourl::Error| format!("URL parse error during conversion from string: {e}");
    gourl::parse_request_uri(raw).map_err(conversion)?;
    gourl::parse(raw).map(Url).map_err(conversion)
}

/// Go strings may hold bytes that are not UTF-8 (`%ff` unescaped); CEL strings may not.
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
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
    let valid = gourl::parse_request_uri(str_arg(&args, 0)?).is_ok();
    out(Value::Bool(valid))
}

fn get_scheme<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(&this(&args)?.0.scheme)
}

fn get_host<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(&text(&this(&args)?.0.host))
}

fn get_hostname<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(&text(this(&args)?.0.hostname()))
}

fn get_port<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(&text(this(&args)?.0.port()))
}

fn get_escaped_path<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    string(&this(&args)?.0.escaped_path())
}

/// `URL.Query()`: Go's `url.ParseQuery`, pairs that fail to decode dropped.
fn get_query<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Out<'b, 'v> {
    let map: HashMap<cel::objects::Key, Value> = this(&args)?
        .0
        .query()
        .into_iter()
        .map(|(k, v)| {
            let values = v.iter().map(|v| Value::String(Arc::new(text(v)))).collect();
            (
                cel::objects::Key::from(text(&k)),
                Value::List(Arc::new(values)),
            )
        })
        .collect();
    out(Value::from(map))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn url_fails_where_parse_request_uri_fails_with_the_api_servers_text() {
        assert!(parse("/path").is_ok());
        for (raw, why) in [
            (
                "http://a b",
                r#"parse "http://a b": invalid character " " in host name"#,
            ),
            (
                "http://x#y@z",
                r#"parse "http://x#y@z": net/url: invalid userinfo"#,
            ),
            (
                "http://%zz",
                r#"parse "http://%zz": invalid URL escape "%zz""#,
            ),
            (
                "#%blah$#@",
                r##"parse "#%blah$#@": invalid URI for request"##,
            ),
            (
                "https://a:b:c/",
                r#"parse "https://a:b:c/": invalid port ":c" after host"#,
            ),
            (
                "../relative-path",
                r#"parse "../relative-path": invalid URI for request"#,
            ),
            // ParseRequestURI accepts it (the query is not checked), Parse does not.
            (
                "http://x/?a#%zz",
                r#"parse "http://x/?a#%zz": invalid URL escape "%zz""#,
            ),
        ] {
            assert_eq!(
                parse(raw).unwrap_err(),
                format!("URL parse error during conversion from string: {why}")
            );
        }
    }

    #[test]
    fn the_url_is_read_as_url_parse_reads_it() {
        let u = parse("HTTPS://user@Example.com:8080/a%2Fb?q=1#frag")
            .unwrap()
            .0;
        assert_eq!(u.scheme, "https");
        assert_eq!(u.host, b"Example.com:8080");
        assert_eq!(u.escaped_path(), "/a%2Fb");
        assert_eq!(u.raw_query, "q=1");
        // A scheme-relative reference: ParseRequestURI reads a path, Parse an authority.
        assert_eq!(parse("//host/p").unwrap().0.host, b"host");
    }
}
