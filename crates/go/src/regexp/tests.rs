use super::*;

fn err(expr: &str) -> String {
    match compile(expr) {
        Ok(re) => panic!("{expr:?} compiled as {:?}", re.as_str()),
        Err(e) => e.to_string(),
    }
}

fn matches(expr: &str, yes: &[&str], no: &[&str]) {
    let re = compile(expr).unwrap_or_else(|e| panic!("{expr:?}: {e}"));
    for s in yes {
        assert!(
            re.is_match(s),
            "{expr:?} should match {s:?} (as {:?})",
            re.as_str()
        );
    }
    for s in no {
        assert!(
            !re.is_match(s),
            "{expr:?} should not match {s:?} (as {:?})",
            re.as_str()
        );
    }
}

#[test]
fn error_texts_are_gos() {
    let cases = [
        ("+", "missing argument to repetition operator: `+`"),
        ("a|*", "missing argument to repetition operator: `*`"),
        ("a|*?", "missing argument to repetition operator: `*?`"),
        ("(*)", "missing argument to repetition operator: `*`"),
        ("(?i)*", "missing argument to repetition operator: `*`"),
        ("{2}", "missing argument to repetition operator: `{2}`"),
        ("a**", "invalid nested repetition operator: `**`"),
        ("a+*?", "invalid nested repetition operator: `+*?`"),
        ("a{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
        ("a*{2}", "invalid nested repetition operator: `*{2}`"),
        ("x++", "invalid nested repetition operator: `++`"),
        ("a(b", "missing closing ): `a(b`"),
        ("(a|b", "missing closing ): `(a|b`"),
        ("ab)", "unexpected ): `ab)`"),
        (")", "unexpected ): `)`"),
        ("x[ab", "missing closing ]: `[ab`"),
        ("[]", "missing closing ]: `[]`"),
        ("[a-", "missing closing ]: `[a-`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
        (r"\pX", r"invalid character class range: `\pX`"),
        (r"\p{Foo}", r"invalid character class range: `\p{Foo}`"),
        (r"\p{greek}", r"invalid character class range: `\p{greek}`"),
        (
            r"\p{Letter}",
            r"invalid character class range: `\p{Letter}`",
        ),
        (r"\p{Greek", r"invalid character class range: `\p{Greek`"),
        (r"x\p", r"invalid character class range: `\p`"),
        (r"\q", r"invalid escape sequence: `\q`"),
        (r"a\1", r"invalid escape sequence: `\1`"),
        (r"\8", r"invalid escape sequence: `\8`"),
        (r"\C", r"invalid escape sequence: `\C`"),
        (r"\Z", r"invalid escape sequence: `\Z`"),
        (r"\é", r"invalid escape sequence: `\é`"),
        (r"[\b]", r"invalid escape sequence: `\b`"),
        (r"[\Q]", r"invalid escape sequence: `\Q`"),
        (r"[a-\d]", r"invalid escape sequence: `\d`"),
        (r"\xZ1", r"invalid escape sequence: `\xZ1`"),
        (r"\x5", r"invalid escape sequence: `\x5`"),
        // A multi-byte character in an escape (finding 01 of the campaign: no byte slicing).
        (r"\x1é", r"invalid escape sequence: `\x1é`"),
        (r"\x", r"invalid escape sequence: `\x`"),
        (r"\x{}", r"invalid escape sequence: `\x{}`"),
        (r"\x{12", r"invalid escape sequence: `\x{12`"),
        (r"\x{12G}", r"invalid escape sequence: `\x{12G`"),
        (r"\x{110000}", r"invalid escape sequence: `\x{110000`"),
        ("ab\\", "trailing backslash at end of expression: ``"),
        ("[a\\", "trailing backslash at end of expression: ``"),
        ("x{2,1}", "invalid repeat count: `{2,1}`"),
        ("x{1001}", "invalid repeat count: `{1001}`"),
        ("x{1000,1001}", "invalid repeat count: `{1000,1001}`"),
        (
            "x{1,100000000000}",
            "invalid repeat count: `{1,100000000000}`",
        ),
        ("(a{100}){100}", "invalid repeat count: `{100}`"),
        ("((a{2}){2}){300}", "invalid repeat count: `{300}`"),
        ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
        ("(?!a)", "invalid or unsupported Perl syntax: `(?!`"),
        ("(?P=a)", "invalid or unsupported Perl syntax: `(?P`"),
        ("(?z)", "invalid or unsupported Perl syntax: `(?z`"),
        ("(?x)a", "invalid or unsupported Perl syntax: `(?x`"),
        ("(?i-)", "invalid or unsupported Perl syntax: `(?i-)`"),
        ("(?-)", "invalid or unsupported Perl syntax: `(?-)`"),
        ("(?--i)", "invalid or unsupported Perl syntax: `(?--`"),
        ("(?i", "invalid or unsupported Perl syntax: `(?i`"),
        ("a(?", "invalid or unsupported Perl syntax: `(?`"),
        ("(?<=a)b", "invalid named capture: `(?<=a)b`"),
        ("(?P<>a)", "invalid named capture: `(?P<>`"),
        ("(?<>a)", "invalid named capture: `(?<>`"),
        ("(?P<a-b>x)", "invalid named capture: `(?P<a-b>`"),
        ("(?P<name", "invalid named capture: `(?P<name`"),
    ];
    for (expr, want) in cases {
        assert_eq!(
            err(expr),
            format!("error parsing regexp: {want}"),
            "{expr:?}"
        );
    }
}

#[test]
fn the_first_error_in_go_order_wins() {
    // The repeat count is checked before the stacking of operators and the operand.
    assert_eq!(
        err("a*{1001}"),
        "error parsing regexp: invalid repeat count: `{1001}`"
    );
    assert_eq!(
        err("*{1001}"),
        "error parsing regexp: missing argument to repetition operator: `*`"
    );
    // A scan left to right: the escape comes before the unclosed group.
    assert_eq!(
        err(r"(\q"),
        r"error parsing regexp: invalid escape sequence: `\q`"
    );
}

#[test]
fn braces_that_are_not_repeats_are_literals() {
    matches("^a{$", &["a{"], &["a", "aa"]);
    matches("a{,3}", &["a{,3}"], &["aaa"]);
    matches("^{$", &["{"], &[""]);
    matches("^x{01}$", &["x{01}"], &["x"]);
    matches("^x{1,x}$", &["x{1,x}"], &["x"]);
    matches("^a{2$", &["a{2"], &["aa"]);
    matches("^a{1000}$", &[&"a".repeat(1000)], &["a"]);
    matches("^a{2,}$", &["aa", "aaa"], &["a"]);
    matches("^}$", &["}"], &[]);
}

#[test]
fn quoting_and_escapes() {
    matches(r"^\Qa.b\E$", &["a.b"], &["axb"]);
    matches(r"^\Q*\E+$", &["**"], &["*+"]);
    matches(r"^\Qa(b", &["a(b"], &["ab"]);
    matches(r"^a\Q\E*$", &["", "aa"], &["b"]);
    matches(r"^a\<b$", &["a<b"], &["ab"]);
    matches(r"\<x\>", &["<x>"], &["x"]);
    matches(
        r"^\_\-\ \!\@\#\%\&\~\=\:\;\,\'\`$",
        &["_- !@#%&~=:;,'`"],
        &[],
    );
    matches(r"^\x41\101\x{42}\0$", &["AAB\0"], &[]);
    matches(r"^\1234$", &["S4"], &[]);
    matches(r"^\a\f\t\n\r\v$", &["\x07\x0c\t\n\r\x0b"], &[]);
    matches(r"^\x{10FFFF}$", &["\u{10FFFF}"], &[]);
    // A surrogate is a valid escape in Go and matches nothing.
    matches(r"a|\x{D800}", &["a"], &["b"]);
    matches(r"^[\x{D7FF}-\x{E000}]$", &["\u{D7FF}", "\u{E000}"], &["a"]);
}

#[test]
fn perl_and_posix_classes_are_ascii() {
    matches(r"^\w+$", &["abc_1"], &["äbc"]);
    matches(r"^\d$", &["7"], &["١"]);
    matches(
        r"^\s$",
        &[" ", "\t", "\n", "\r", "\x0c"],
        &["\x0b", "\u{a0}"],
    );
    matches(r"^[\d.]+$", &["1.2"], &["x"]);
    matches(r"^[\w]+$", &["ab"], &["é"]);
    matches(r"^[^\d]$", &["a", "\n"], &["1"]);
    matches(r"^[\D]$", &["a"], &["1"]);
    matches(r"^[\d-z]+$", &["1-z"], &["y"]);
    matches(r"^[a-]+$", &["a-"], &["b"]);
    matches(r"^[]a]+$", &["]a"], &["b"]);
    matches(r"^[^]a]$", &["b"], &["]"]);
    matches(r"^[[:alpha:]]+$", &["abZ"], &["1", "é"]);
    matches(r"^[[:^alpha:]]$", &["1"], &["a"]);
    matches(r"^[[:space:]]$", &["\x0b"], &["a"]);
    matches(r"^[[:word:][:punct:]]+$", &["a_!"], &[" "]);
    matches(r"x\b", &["x", "xé", "x-"], &["xa"]);
    matches(r"x\B", &["xa"], &["x", "xé"]);
    matches(
        r"\w{2,}-[^ ]{3}e[[:lower:]]+?[[:xdigit:]]+",
        &["my-namespace"],
        &[],
    );
}

#[test]
fn unicode_classes() {
    matches(r"^\pL+$", &["aé"], &["1"]);
    matches(r"^\p{Greek}$", &["α"], &["a"]);
    matches(r"^\PL$", &["1"], &["a"]);
    matches(r"^\p{^Greek}$", &["a"], &["α"]);
    matches(r"^\P{^Greek}$", &["α"], &["a"]);
    matches(r"^[\p{Greek}\d]+$", &["α1"], &["a"]);
    matches(r"^\p{Any}$", &["x", "\n"], &[""]);
    matches(r"^[^\P{Any}]$", &["x"], &[]);
    // Go's C is Cc, Cf, Co and Cs: not the unassigned code points.
    matches(r"^\pC$", &["\0", "\u{ad}"], &["\u{378}", "a"]);
    matches(r"^\PC$", &["\u{378}", "a"], &["\0"]);
    matches(r"^\p{Cs}|x$", &["x"], &["a"]);
}

#[test]
fn flags() {
    matches("(?i)k", &["K", "\u{212A}"], &["x"]);
    matches(r"(?i)^\w$", &["\u{212A}", "\u{17F}"], &["é"]);
    matches(r"(?i)^\W$", &["é"], &["\u{212A}", "\u{17F}"]);
    matches("(?i)^[[:upper:]]$", &["a"], &["1"]);
    matches("^(?i:a)b$", &["Ab"], &["AB"]);
    matches("^a(?i)b|c$", &["aB", "C"], &["AB"]);
    matches("^(?i)a(?-i)b$", &["Ab"], &["AB"]);
    matches("^(a(?i)b)c$", &["aBc"], &["aBC"]);
    matches("(?m)^b$", &["a\nb\nc"], &["abc"]);
    matches("^b$", &["b"], &["a\nb\nc"]);
    matches("(?s)^.$", &["\n"], &[]);
    matches("^.$", &["x"], &["\n"]);
    matches("(?i)(?-i:a)", &["a"], &["A"]);
    let find = |expr: &str, s: &str| {
        compile(expr)
            .unwrap()
            .find(s)
            .map(|m| m.as_str().to_owned())
    };
    assert_eq!(find("a+", "aaa").as_deref(), Some("aaa"));
    assert_eq!(find("a+?", "aaa").as_deref(), Some("a"));
    assert_eq!(find("(?U)a+", "aaa").as_deref(), Some("a"));
    assert_eq!(find("(?U)a+?", "aaa").as_deref(), Some("aaa"));
    assert_eq!(find("(?U)a{1,3}", "aaa").as_deref(), Some("a"));
    // Flags go with the group: `a(?i)*` repeats the `a`.
    assert_eq!(find("a(?i)*", "aaa").as_deref(), Some("aaa"));
}

#[test]
fn groups_and_alternation() {
    matches("^(|a)$", &["", "a"], &["b"]);
    matches("^a||b$", &["a", "b"], &[]);
    matches("^()$", &[""], &["a"]);
    matches("^(?:a|b)+$", &["abba"], &["c"]);
    matches("^(?)a$", &["a"], &[]);
    matches("^*a", &["a"], &[]);
    matches(r"\b*a", &["a"], &[]);
    let re = compile("(?P<first>a)(?<second>b)(c)").unwrap();
    let caps = re.captures("abc").unwrap();
    assert_eq!(&caps["first"], "a");
    assert_eq!(&caps["second"], "b");
    assert_eq!(&caps[3], "c");
    // Go allows a leading digit and repeated names; the groups still count.
    let re = compile("(?P<1x>a)(?P<n>b)(?P<n>c)").unwrap();
    assert_eq!(re.captures_len(), 4);
    assert_eq!(&re.captures("abc").unwrap()[3], "c");
    // Alternation is leftmost-first, as in Go.
    assert_eq!(compile("a|ab").unwrap().find("ab").unwrap().as_str(), "a");
}

#[test]
fn limits() {
    let nested = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
    assert!(compile(&nested(999)).unwrap().is_match("a"));
    assert_eq!(
        compile(&nested(1000)).unwrap_err().code,
        ErrorCode::NestingDepth
    );
    // Non-capturing groups add no height in Go.
    let flat = format!("{}a{}", "(?:".repeat(5000), ")".repeat(5000));
    assert!(compile(&flat).unwrap().is_match("a"));
    let big = "x{1000}".repeat(3400);
    let e = compile(&big).unwrap_err();
    assert_eq!(e.code, ErrorCode::Large);
    assert_eq!(e.expr, big);
}

#[test]
fn matching_is_unanchored() {
    matches("prod", &["my-production"], &["dev"]);
    matches("", &["", "x"], &[]);
}

#[test]
fn quote_meta_escapes_what_go_escapes() {
    assert_eq!(quote_meta(r"a.b*c\d{1}"), r"a\.b\*c\\d\{1\}");
    assert!(compile(&quote_meta("1.5+[x]"))
        .unwrap()
        .is_match("v1.5+[x]"));
}

/// Whatever Go accepts, the translation must hand the `regex` crate something it takes.
#[test]
fn every_accepted_expression_compiles() {
    let alphabet: Vec<char> = r"ab(){}[]^$.*+?|\-,:0129pPQEdwsbBxz<>_imsU=!PL'é "
        .chars()
        .collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    let mut accepted = 0;
    for _ in 0..10_000 {
        let len = next() % 12;
        let expr: String = (0..len)
            .map(|_| alphabet[next() % alphabet.len()])
            .collect();
        match compile(&expr) {
            Ok(_) => accepted += 1,
            Err(e) => assert_ne!(e.code, ErrorCode::InternalError, "{expr:?}"),
        }
    }
    assert!(accepted > 500, "only {accepted} accepted");
}
