use super::Format;

fn check(format: &str, good: &[&str], bad: &[&str]) {
    let f = Format::supported(format).unwrap_or_else(|| panic!("{format} is not supported"));
    for s in good {
        assert!(f.validates(s), "{format} should accept {s:?}");
    }
    for s in bad {
        assert!(!f.validates(s), "{format} should reject {s:?}");
    }
}

#[test]
fn names_are_normalised_and_unsupported_formats_stripped() {
    assert_eq!(Format::supported("date-time"), Some(Format::DateTime));
    assert_eq!(Format::supported("datetime"), Some(Format::DateTime));
    assert_eq!(
        Format::supported("k8s-short-name"),
        Some(Format::K8sShortName)
    );
    assert_eq!(Format::supported("u-u-i-d"), Some(Format::Uuid));
    for stripped in [
        "int32",
        "int64",
        "float",
        "double",
        "quantity",
        "k8s-ip-sloppy",
        "",
        "Email",
    ] {
        assert_eq!(Format::supported(stripped), None, "{stripped}");
    }
}

#[test]
fn bsonobjectid() {
    check(
        "bsonobjectid",
        &["507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011"],
        &["507f1f77bcf86cd79943901", "507f1f77bcf86cd79943901g", ""],
    );
}

#[test]
fn uri() {
    check(
        "uri",
        &[
            "http://example.com/a?b#c",
            "/absolute/path",
            "mailto:someone",
            "*",
            "https://user:pa%20ss@host:8080/x",
            "http://[fe80::1%25en0]:80/",
            "http:",
            "a+b://x/",
            "http://a/b c",
            "http://x/?a#%zz",
        ],
        &[
            "",
            "relative/path",
            ":nope",
            "http://ho st/",
            "http://host:80x/",
            "/a%zz",
            "http://[::1/",
            "http://h%41/",
            "/tab\there",
            "1http://x",
            "http://a b",
            "http://x#y@z",
            "http://%zz",
            "#%blah$#@",
        ],
    );
    assert!(
        Format::Uri.validates("//host/path?"),
        "an authority-less absolute path"
    );
}

#[test]
fn email() {
    check(
        "email",
        &[
            "a@b.c",
            "John Doe <john@example.com>",
            "\"quoted name\"@example.com",
            "x@[127.0.0.1]",
            "a@b (comment)",
            "group: a@b.c;",
            "<a@b>",
            "=?utf-8?q?J=C3=BCrgen?= <j@x.y>",
        ],
        &[
            "",
            "plain",
            "a@",
            "@b",
            "a..b@c",
            "a.@b",
            "John Doe",
            "a@b, c@d",
            "group: ;",
            "group: a@b, c@d;",
            "x@[1.2.3]",
            "a@b (unclosed",
            "=?koi8-r?q?x?= <a@b.c>",
        ],
    );
}

#[test]
fn hostname() {
    check(
        "hostname",
        &[
            "localhost",
            "example.com",
            "a-b.example.org",
            "xn--80ak6aa92e.com",
            "münchen.de",
            "a-",
            "☃.com",
            "a.b.c.de",
            &"a".repeat(63),
        ],
        &[
            "",
            "-a",
            "example.c",
            "example.123",
            "a..b",
            "a_b.com",
            "xn--a",
            "a.b-.com",
            ".com",
            "a.com.",
            "ex ample.com",
            &"a".repeat(64),
        ],
    );
    let long = format!("{}.com", vec!["a".repeat(60); 5].join("."));
    assert!(!Format::Hostname.validates(&long), "more than 255 bytes");
}

#[test]
fn ipv4_is_sloppy_and_needs_a_dot() {
    check(
        "ipv4",
        &["1.2.3.4", "010.001.0.1", "::ffff:1.2.3.4"],
        &["1.2.3", "1.2.3.256", "::1", "1.2.3.4 ", "a.b.c.d", ""],
    );
}

#[test]
fn ipv6_is_strict_and_needs_a_colon() {
    check(
        "ipv6",
        &[
            "::",
            "::1",
            "2001:db8::8a2e:370:7334",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:7:8",
        ],
        &[
            "1.2.3.4",
            "fe80::1%eth0",
            "::ffff:01.2.3.4",
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            "12345::",
            "1:2:3:4:5:6:7::8",
            ":1",
            "",
        ],
    );
}

#[test]
fn cidr() {
    check(
        "cidr",
        &[
            "10.0.0.0/8",
            "010.0.0.0/24",
            "::/0",
            "2001:db8::/128",
            "1.2.3.4/032",
        ],
        &["10.0.0.0", "10.0.0.0/33", "::/129", "10.0.0.0/", "x/8"],
    );
}

#[test]
fn mac() {
    check(
        "mac",
        &[
            "00:00:5e:00:53:01",
            "00-00-5E-00-53-01",
            "0000.5e00.5301",
            "02:00:5e:10:00:00:00:01",
        ],
        &[
            "00:00:5e:00:53",
            "00:00:5e:00:53:0g",
            "00:00-5e:00:53:01",
            "0000.5e00.530",
            "",
        ],
    );
}

#[test]
fn uuids() {
    check(
        "uuid",
        &[
            "123e4567-e89b-12d3-a456-426614174000",
            "123E4567E89B12D3A456426614174000",
        ],
        &["123e4567-e89b-12d3-a456-42661417400", "xyz"],
    );
    check(
        "uuid3",
        &["a3bb189e-8bf9-3888-9912-ace4e6543002"],
        &["123e4567-e89b-12d3-a456-426614174000"],
    );
    check(
        "uuid4",
        &["110ec58a-a0f2-4ac4-8393-c866d813b8d1"],
        &["110ec58a-a0f2-4ac4-c393-c866d813b8d1"],
    );
    check(
        "uuid5",
        &["886313e1-3b8a-5372-9b90-0c9aee199e5d"],
        &["886313e1-3b8a-4372-9b90-0c9aee199e5d"],
    );
}

#[test]
fn isbns() {
    check(
        "isbn10",
        &["0321751043", "0-321-75104-3", "080442957X"],
        &["0321751044", "032175104"],
    );
    check(
        "isbn13",
        &["978-0321751041", "9780321751041"],
        &["9780321751042"],
    );
    check("isbn", &["0321751043", "978 0321751041"], &["12345"]);
}

#[test]
fn creditcard() {
    check(
        "creditcard",
        &[
            "4111 1111 1111 1111",
            "5500-0000-0000-0004",
            "378282246310005",
        ],
        &["4111111111111112", "1234567890123456"],
    );
}

#[test]
fn ssn() {
    check(
        "ssn",
        &["123-45-6789", "123 45 6789"],
        &["123456789", "123-45-678", "12-345-6789"],
    );
}

#[test]
fn colors() {
    check(
        "hexcolor",
        &["#fff", "FFFFFF", "#a1B2c3"],
        &["#ffff", "#ggg", ""],
    );
    check(
        "rgbcolor",
        &["rgb(0,0,0)", "rgb( 255 , 10 ,1 )"],
        &["rgb(256,0,0)", "rgb(01,0,0)", "rgba(0,0,0,0)"],
    );
}

#[test]
fn byte_is_padded_base64_and_not_empty() {
    check(
        "byte",
        &["aGVsbG8=", "aGk=", "YWJj", "a+/9"],
        &["", "aGVsbG8", "a=bc", "aG=k", "****"],
    );
}

#[test]
fn password_accepts_anything() {
    check("password", &["", "anything at all"], &[]);
}

#[test]
fn date() {
    check(
        "date",
        &["2024-02-29", "0000-01-01", "2023-12-31"],
        &[
            "2023-02-29",
            "2024-13-01",
            "2024-1-01",
            "2024-01-32",
            "24-01-01",
            "2024-01-01T00:00:00Z",
        ],
    );
}

#[test]
fn date_time() {
    check(
        "date-time",
        &[
            "2024-01-01T10:20:30Z",
            "2024-01-01t10:20:30.123+02:00",
            "2024-01-01T23:59:59x5-01:00",
            "2024-01-01T10:20:30ZTgarbage",
        ],
        &[
            "2024-01-01",
            "2024-01-01T24:00:00Z",
            "2024-01-01T10:60:00Z",
            "2024-01-01T10:20:30",
            "2024-02-30T10:20:30Z",
            "abc",
        ],
    );
}

#[test]
fn duration() {
    check(
        "duration",
        &[
            "1h",
            "1.5h",
            "-2m3s",
            "0",
            "300ms",
            "2µs",
            "3 days",
            "1 hour 30 min",
            "x5wk",
            "1.5 days",
        ],
        &["", "1", "h", "1x", "99999999999999999999h5m"],
    );
    assert!(
        !Format::Duration.validates("99999999999999999999 days"),
        "Atoi overflow fails the Scala form"
    );
}

#[test]
fn kubernetes_names() {
    check(
        "k8s-short-name",
        &["a", "my-name-1"],
        &["", "-a", "a-", "A", "a.b", &"a".repeat(64)],
    );
    check(
        "k8s-long-name",
        &["a.b-c.d", "example.com"],
        &["", "a..b", ".a", "a.", "A.b", &"a".repeat(254)],
    );
}
