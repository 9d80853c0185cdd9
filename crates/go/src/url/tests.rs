//! Go's own cases from `net/url/url_test.go` (`parseRequestURLTests`, `TestParseErrors`,
//! `urltests`, `TestRejectControlCharacters`, ...), restated, plus the error texts.

use super::*;

fn s(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap()
}

/// `parseRequestURLTests`: whether `ParseRequestURI` accepts each URL.
#[test]
fn parse_request_uri_accepts_what_go_accepts() {
    let cases: &[(&str, bool)] = &[
        ("http://foo.com", true),
        ("http://foo.com/", true),
        ("http://foo.com/path", true),
        ("/", true),
        ("//not.a.user@not.a.host/just/a/path", true),
        ("//not.a.user@%66%6f%6f.com/just/a/path/also", true),
        ("*", true),
        ("http://192.168.0.1/", true),
        ("http://192.168.0.1:8080/", true),
        ("http://[fe80::1]/", true),
        ("http://[fe80::1]:8080/", true),
        // RFC 6874 zone identifiers.
        ("http://[fe80::1%25en0]/", true),
        ("http://[fe80::1%25en0]:8080/", true),
        ("http://[fe80::1%25%65%6e%301-._~]/", true),
        ("http://[fe80::1%25%65%6e%301-._~]:8080/", true),
        ("foo.html", false),
        ("../dir/", false),
        (" http://foo.com", false),
        ("http://192.168.0.%31/", false),
        ("http://192.168.0.%31:8080/", false),
        ("http://[fe80::%31]/", false),
        ("http://[fe80::%31]:8080/", false),
        ("http://[fe80::%31%25en0]/", false),
        ("http://[fe80::%31%25en0]:8080/", false),
        // RFC 4007 textual zones are not RFC 6874 URI zones.
        ("http://[fe80::1%en0]/", false),
        ("http://[fe80::1%en0]:8080/", false),
    ];
    for (url, valid) in cases {
        assert_eq!(parse_request_uri(url).is_ok(), *valid, "{url}");
    }
    // A path that looks scheme-relative stays a path.
    let u = parse_request_uri("//not.a.user@not.a.host/just/a/path").unwrap();
    assert_eq!(s(&u.path), "//not.a.user@not.a.host/just/a/path");
    assert!(u.host.is_empty() && u.user.is_none());
}

/// The corpus cases kadmit used to accept, with Go's texts.
#[test]
fn parse_request_uri_refuses_with_go_texts() {
    let cases: &[(&str, &str)] = &[
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
        ("", r#"parse "": empty url"#),
        (":foo", r#"parse ":foo": missing protocol scheme"#),
        ("foo", r#"parse "foo": invalid URI for request"#),
        ("http://[::1", r#"parse "http://[::1": missing ']' in host"#),
        (
            "http://[::1]a/",
            r#"parse "http://[::1]a/": invalid port "a" after host"#,
        ),
        (
            "http://x:namedport",
            r#"parse "http://x:namedport": invalid port ":namedport" after host"#,
        ),
        (
            "http://x:%38%30",
            r#"parse "http://x:%38%30": invalid port ":%38%30" after host"#,
        ),
        (
            "http://%41:8080/",
            r#"parse "http://%41:8080/": invalid URL escape "%41""#,
        ),
        (
            "http://x#y/z",
            r##"parse "http://x#y/z": invalid character "#" in host name"##,
        ),
        ("/a%", r#"parse "/a%": invalid URL escape "%""#),
        ("/a%2", r#"parse "/a%2": invalid URL escape "%2""#),
        ("/a%2g/b", r#"parse "/a%2g/b": invalid URL escape "%2g""#),
        ("/%€", r#"parse "/%€": invalid URL escape "%\xe2\x82""#),
        (
            "http://foo.com/?foo\nbar",
            r#"parse "http://foo.com/?foo\nbar": net/url: invalid control character in URL"#,
        ),
        (
            "http\r://foo.com/",
            r#"parse "http\r://foo.com/": net/url: invalid control character in URL"#,
        ),
        (
            "http://foo\x7f.com/",
            r#"parse "http://foo\x7f.com/": net/url: invalid control character in URL"#,
        ),
        (
            "http://user^:passwo^rd@foo.com/",
            r#"parse "http://user^:passwo^rd@foo.com/": net/url: invalid userinfo"#,
        ),
        (
            "http://u%zz@h/",
            r#"parse "http://u%zz@h/": invalid URL escape "%zz""#,
        ),
        (
            "http://[::1%25%0a]/",
            r#"parse "http://[::1%25%0a]/": invalid URL escape "%0a""#,
        ),
        (
            "http://[::1%25a b]/",
            r#"parse "http://[::1%25a b]/": invalid character " " in host name"#,
        ),
        (
            "http://ex{ample}.com/",
            r#"parse "http://ex{ample}.com/": invalid character "{" in host name"#,
        ),
    ];
    for (url, text) in cases {
        let err = parse_request_uri(url).expect_err(url);
        assert_eq!(err.to_string(), *text, "{url:?}");
    }
}

/// What `ParseRequestURI` leaves alone: it does not look at the characters of a path or
/// query, and a scheme with a rootless rest is an opaque URL.
#[test]
fn parse_request_uri_accepts_paths_queries_and_opaque_urls() {
    for url in [
        "http://a/b c",
        "http://a/?q=x y#z",
        "http://x/?a#%zz",
        "mailto:someone@example.com",
        "http:",
        "a+b-c.d://x/",
        "urn:isbn:0451450523",
        "http://[::1]:/",
        "http://x:/",
        "http://[fe80::1%25en0]",
        "http://hello.世界.com/foo",
        "http://hello.%e4%b8%96%e7%95%8c.com/foo",
        "/ctl\u{80}",
        "http://user:pa%20ss@host:8080/x",
        "http://!$&'()*+,;=hello!:1/path",
        "http://[]/",
        "http://[abc]/",
    ] {
        assert!(parse_request_uri(url).is_ok(), "{url}");
    }
    for url in ["1http://x", "+x:y", "relative/path", "?q", "%41"] {
        assert!(parse_request_uri(url).is_err(), "{url}");
    }
    // The fragment is not cut: it stays in the query or path.
    let u = parse_request_uri("http://h/p?a=b#frag").unwrap();
    assert_eq!(u.raw_query, "a=b#frag");
    let u = parse_request_uri("http://h/p#frag").unwrap();
    assert_eq!(s(&u.path), "/p#frag");
}

/// `TestParseErrors` (run through `Parse`).
#[test]
fn parse_errors_like_go() {
    let cases: &[(&str, bool)] = &[
        ("http://[::1]", false),
        ("http://[::1]:80", false),
        ("http://[::1]:namedport", true),
        ("http://x:namedport", true),
        ("http://[::1]/", false),
        ("http://[::1]a", true),
        ("http://[::1]%23", true),
        ("http://[::1%25en0]", false),
        ("http://[::1]:", false),
        ("http://x:", false),
        ("http://[::1]:%38%30", true),
        ("http://x:%38%30", true),
        ("http://[::1]%25%38%30", true),
        ("http://x%25%38%30", true),
        ("http://%41:8080/", true),
        ("mysql://x@y(z:123)/foo", true),
        (
            "http://[]%20%48%54%54%50/1.0%0d%0ahost:%20a%0d%0a%0d%0a/",
            true,
        ),
        ("http://a b.com/", true),
        ("cache_object://foo", true),
        ("cache_object:foo", true),
        ("cache_object:foo/bar", true),
        ("cache_object/:foo/bar", false),
    ];
    for (url, want_err) in cases {
        assert_eq!(parse(url).is_err(), *want_err, "{url}");
    }
    assert_eq!(
        parse("cache_object:foo").unwrap_err().to_string(),
        r#"parse "cache_object:foo": first path segment in URL cannot contain colon"#
    );
    // Parse names the URL without its fragment, unless the fragment is what failed.
    assert_eq!(
        parse("http://a b/#frag").unwrap_err().to_string(),
        r#"parse "http://a b/": invalid character " " in host name"#
    );
    assert_eq!(
        parse("http://x/?a#%zz").unwrap_err().to_string(),
        r#"parse "http://x/?a#%zz": invalid URL escape "%zz""#
    );
    // But not non-ASCII control bytes.
    assert!(parse("http://foo.com/ctl\u{80}").is_ok());
}

/// A few rows of `urltests`: the parts `Parse` yields.
#[test]
fn parse_yields_go_parts() {
    let u = parse("http://www.google.com/file%20one%26two").unwrap();
    assert_eq!(
        (
            u.scheme.as_str(),
            s(&u.host),
            s(&u.path),
            u.raw_path.as_str()
        ),
        (
            "http",
            "www.google.com",
            "/file one&two",
            "/file%20one%26two"
        )
    );
    let u = parse("http://www.google.com/#file%20one%26two").unwrap();
    assert_eq!((s(&u.path), s(&u.fragment)), ("/", "file one&two"));
    assert_eq!(u.raw_fragment, "file%20one%26two");
    let u = parse("ftp://john%20doe@www.google.com/").unwrap();
    let user = u.user.unwrap();
    assert_eq!((s(&user.username), user.password), ("john doe", None));
    let u = parse("http://www.google.com/?").unwrap();
    assert!(u.force_query && u.raw_query.is_empty());
    let u = parse("http://www.google.com/?foo=bar?").unwrap();
    assert!(!u.force_query);
    assert_eq!(u.raw_query, "foo=bar?");
    let u = parse("mailto:/webmaster@golang.org").unwrap();
    assert_eq!(
        (u.scheme.as_str(), s(&u.path)),
        ("mailto", "/webmaster@golang.org")
    );
    let u = parse("MaIlTo:webmaster@golang.org").unwrap();
    assert_eq!(
        (u.scheme.as_str(), u.opaque.as_str()),
        ("mailto", "webmaster@golang.org")
    );
    let u = parse("/foo?query=http://bad").unwrap();
    assert_eq!(
        (s(&u.path), u.raw_query.as_str()),
        ("/foo", "query=http://bad")
    );
    let u = parse("//foo").unwrap();
    assert_eq!((s(&u.host), s(&u.path)), ("foo", ""));
    let u = parse("///threeslashes").unwrap();
    assert_eq!((s(&u.host), s(&u.path)), ("", "///threeslashes"));
    for (url, name, password) in [
        ("http://j@ne:password@google.com", "j@ne", "password"),
        ("http://jane:p@ssword@google.com", "jane", "p@ssword"),
        ("http://%3Fam:pa%3Fsword@google.com", "?am", "pa?sword"),
    ] {
        let user = parse(url).unwrap().user.unwrap();
        assert_eq!(s(&user.username), name, "{url}");
        assert_eq!(user.password.as_deref().map(s), Some(password), "{url}");
    }
    let u = parse("http://j@ne:password@google.com/p@th?q=@go").unwrap();
    assert_eq!((s(&u.path), u.raw_query.as_str()), ("/p@th", "q=@go"));
    let u = parse("http://www.google.com/?q=go+language#foo%26bar").unwrap();
    assert_eq!(
        (u.raw_query.as_str(), s(&u.fragment)),
        ("q=go+language", "foo&bar")
    );
    let u = parse("file:///C:/FooBar/Baz.txt").unwrap();
    assert_eq!((s(&u.host), s(&u.path)), ("", "/C:/FooBar/Baz.txt"));
    assert_eq!(s(&parse("a/b/c").unwrap().path), "a/b/c");
    for (url, host) in [
        ("http://[fe80::1%25en0]/", "[fe80::1%en0]"),
        (
            "http://[fe80::1%25%65%6e%301-._~]:8080/",
            "[fe80::1%en01-._~]:8080",
        ),
        ("mysql://a,b,c/bar", "a,b,c"),
        ("scheme://!$&'()*+,;=hello!:1/path", "!$&'()*+,;=hello!:1"),
        ("http://192.168.0.2:/foo", "192.168.0.2:"),
        (
            "http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080/foo",
            "2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080",
        ),
        ("http://hello.%E4%B8%96%E7%95%8C.com/foo", "hello.世界.com"),
        ("myscheme://authority<\"hi\">/foo", "authority<\"hi\">"),
        (
            "tcp://[2020::2020:20:2020:2020%25Windows%20Loves%20Spaces]:2020",
            "[2020::2020:20:2020:2020%Windows Loves Spaces]:2020",
        ),
    ] {
        assert_eq!(s(&parse(url).unwrap().host), host, "{url}");
    }
    let u = parse("http://rest.rsc.io/foo%2fbar/baz%2Fquux?alt=media").unwrap();
    assert_eq!(
        (s(&u.path), u.raw_path.as_str()),
        ("/foo/bar/baz/quux", "/foo%2fbar/baz%2Fquux")
    );
    let u = parse("http://host/!$&'()*+,;=:@[hello]").unwrap();
    assert_eq!(u.raw_path, "/!$&'()*+,;=:@[hello]");
    let u = parse("magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn").unwrap();
    assert_eq!(
        (u.opaque.as_str(), u.raw_query.as_str()),
        (
            "",
            "xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn"
        )
    );
    // Unescaping may leave bytes that are not UTF-8, as Go strings hold them.
    assert_eq!(parse("/%ff").unwrap().path, b"/\xff");
}

/// `Hostname`, `Port`, `EscapedPath` and `Query`.
#[test]
fn accessors_like_go() {
    for (url, hostname, port) in [
        ("http://example.com:80/", "example.com", "80"),
        ("http://example.com/", "example.com", ""),
        ("http://example.com:/", "example.com", ""),
        ("http://[::1]:80/", "::1", "80"),
        ("http://[::1]/", "::1", ""),
        ("http://[fe80::1%25en0]:8080/", "fe80::1%en0", "8080"),
        ("/path", "", ""),
    ] {
        let u = parse(url).unwrap();
        assert_eq!((s(u.hostname()), s(u.port())), (hostname, port), "{url}");
    }
    for (url, escaped) in [
        ("https://example.com/path", "/path"),
        ("https://example.com/with space/", "/with%20space/"),
        ("https://example.com", ""),
        (
            "http://www.google.com/file%20one%26two",
            "/file%20one%26two",
        ),
        ("http://example.com/a%2Fb", "/a%2Fb"),
        ("http://example.com/a!b", "/a!b"),
        ("http://example.com/%7Efoo", "/%7Efoo"),
        ("http://example.com/a?b", "/a"),
        ("http://example.com/%ff", "/%ff"),
        ("*", "*"),
        ("mailto:x@y", ""),
    ] {
        assert_eq!(parse(url).unwrap().escaped_path(), escaped, "{url}");
    }
    let q = parse("https://example.com/path?k1=a&k2=b&k2=c&x=%zz&semi=a;b&&k%20=v+w")
        .unwrap()
        .query();
    let got: Vec<(&str, Vec<&str>)> = q
        .iter()
        .map(|(k, v)| (s(k), v.iter().map(|v| s(v)).collect()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("k ", vec!["v w"]),
            ("k1", vec!["a"]),
            ("k2", vec!["b", "c"])
        ]
    );
    let (_, err) = parse_query("%gh&%ij");
    assert_eq!(err.as_deref(), Some(r#"invalid URL escape "%gh""#));
}
