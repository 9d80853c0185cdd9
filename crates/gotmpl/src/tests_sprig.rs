//! End-to-end tests of the Sprig functions, with the outputs Sprig v3.2.2 gives.

use super::parse;
use super::tests_exec::execute_both;
use serde_json::json;

fn run(t: &str) -> String {
    let data =
        json!({"n": 3, "f": 1.5, "s": "str", "m": {"a": 1, "b": {"c": "d"}}, "l": ["x", "y"]});
    let tmpl = parse("t", t).unwrap_or_else(|e| panic!("parse {t:?}: {e}"));
    execute_both(&tmpl, &data).unwrap_or_else(|e| panic!("execute {t:?}: {e}"))
}

fn fails(t: &str) -> String {
    let tmpl = parse("t", t).unwrap_or_else(|e| panic!("parse {t:?}: {e}"));
    match execute_both(&tmpl, &json!({})) {
        Ok(out) => panic!("{t:?} rendered {out:?}"),
        Err(e) => e.message,
    }
}

fn cases(list: &[(&str, &str)]) {
    for (t, want) in list {
        assert_eq!(&run(t), want, "{t}");
    }
}

#[test]
fn strings() {
    cases(&[
        ("{{ trim \"  hi  \" }}", "hi"),
        ("{{ trimAll \"$\" \"$5.00$\" }}", "5.00"),
        ("{{ trimPrefix \"-\" \"-hello\" }}{{ trimSuffix \"-\" \"x-\" }}", "hellox"),
        ("{{ upper \"héllo\" }} {{ lower \"HÉLLO\" }}", "HÉLLO héllo"),
        ("{{ title \"hello wide-world\" }} {{ untitle \"Hello World\" }}", "Hello Wide-World hello world"),
        ("{{ repeat 3 \"hi\" }}", "hihihi"),
        ("{{ substr 0 5 \"hello world\" }}|{{ substr 6 -1 \"hello world\" }}", "hello|world"),
        ("{{ nospace \"hello w o r l d\" }}", "helloworld"),
        ("{{ trunc 5 \"hello world\" }}|{{ trunc -5 \"hello world\" }}", "hello|world"),
        ("{{ abbrev 5 \"hello world\" }}", "he..."),
        ("{{ abbrevboth 5 10 \"1234 5678 9123\" }}", "...5678..."),
        ("{{ initials \"First Try\" }}", "FT"),
        ("{{ plural \"one anchovy\" \"many anchovies\" 2 }}", "many anchovies"),
        ("{{ snakecase \"FirstName\" }} {{ kebabcase \"FirstName\" }} {{ camelcase \"http_server\" }}", "first_name first-name HttpServer"),
        ("{{ swapcase \"This Is A.Test\" }}", "tHIS iS a.tEST"),
        ("{{ contains \"cat\" \"catch\" }} {{ hasPrefix \"cat\" \"catch\" }} {{ hasSuffix \"x\" \"catch\" }}", "true true false"),
        ("{{ quote \"hi\" .n }} {{ squote \"hi\" }}", "\"hi\" \"3\" 'hi'"),
        ("{{ cat \"hello\" \"beautiful\" \"world\" .missing 1 }}", "hello beautiful world 1"),
        ("{{ indent 4 \"a\\nb\" }}|{{ nindent 2 \"a\" }}", "    a\n    b|\n  a"),
        ("{{ replace \" \" \"-\" \"I Am Henry VIII\" }}", "I-Am-Henry-VIII"),
        ("{{ wrap 10 \"The quick brown fox\" }}", "The quick\nbrown fox"),
        ("{{ wrapWith 5 \"\\t\" \"Hello World\" }}", "Hello\tWorld"),
        ("{{ toString .n }} {{ toString (list 1 2) }}", "3 [1 2]"),
        ("{{ hello }}", "Hello!"),
        ("{{ \"x\" | printf \"%s\" | upper }}", "X"),
    ]);
}

#[test]
fn splitting_and_joining() {
    cases(&[
        (
            "{{ split \"$\" \"foo$bar$baz\" }}",
            "map[_0:foo _1:bar _2:baz]",
        ),
        ("{{ (split \"$\" \"foo$bar\")._1 }}", "bar"),
        (
            "{{ splitn \"$\" 2 \"foo$bar$baz\" }}",
            "map[_0:foo _1:bar$baz]",
        ),
        ("{{ splitList \"$\" \"foo$bar$baz\" }}", "[foo bar baz]"),
        (
            "{{ join \"-\" (list 1 2 3) }} {{ join \",\" .l }}",
            "1-2-3 x,y",
        ),
        ("{{ sortAlpha (list \"c\" \"a\" \"b\") }}", "[a b c]"),
        (
            "{{ toStrings (list 1 2 3) }} {{ typeOf (toStrings (list 1)) }}",
            "[1 2 3] []string",
        ),
    ]);
}

#[test]
fn regular_expressions() {
    cases(&[
        (
            "{{ regexMatch \"^[a-z]+$\" \"abc\" }} {{ regexMatch \"(\" \"x\" }}",
            "true false",
        ),
        (
            "{{ regexFindAll \"[2,4,6,8]\" \"123456789\" -1 }}",
            "[2 4 6 8]",
        ),
        (
            "{{ regexFindAll \"[2,4,6,8]\" \"123456789\" 3 }}",
            "[2 4 6]",
        ),
        ("{{ regexFind \"[a-zA-Z][1-9]\" \"abcd1234\" }}", "d1"),
        (
            "{{ regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"${1}W\" }}",
            "-W-xxW-",
        ),
        (
            "{{ regexReplaceAllLiteral \"a(x*)b\" \"-ab-axxb-\" \"${1}\" }}",
            "-${1}-${1}-",
        ),
        (
            "{{ regexReplaceAll \"(.+)/(.*)\" \"repo1/nginx:1.14.2\" \"my-repo/${2}\" }}",
            "my-repo/nginx:1.14.2",
        ),
        ("{{ regexSplit \"z+\" \"pizza\" -1 }}", "[pi a]"),
        ("{{ regexQuoteMeta \"1.2.3\" }}", "1\\.2\\.3"),
        ("{{ regexMatch \"^\\\\w+$\" \"héllo\" }}", "false"),
    ]);
    assert!(fails("{{ mustRegexMatch \"(\" \"x\" }}")
        .contains("error calling mustRegexMatch: error parsing regexp"));
    assert!(fails("{{ regexFind \"(\" \"x\" }}")
        .contains("error calling regexFind: regexp: Compile(`(`): error parsing regexp"));
}

#[test]
fn encodings_and_hashes() {
    cases(&[
        (
            "{{ b64enc \"hello\" }} {{ b64dec \"aGVsbG8=\" }}",
            "aGVsbG8= hello",
        ),
        ("{{ b64dec \"!!\" }}", "illegal base64 data at input byte 0"),
        (
            "{{ b32enc \"hello\" }} {{ b32dec \"NBSWY3DP\" }}",
            "NBSWY3DP hello",
        ),
        (
            "{{ sha256sum \"Hello world!\" }}",
            "c0535e4be2b79ffd93291305436bf889314e4a3faec05ecffcbb7df31ad9e51a",
        ),
        (
            "{{ sha1sum \"Hello world!\" }}",
            "d3486ae9136e7856bc42212385ea797094475802",
        ),
        ("{{ adler32sum \"Wikipedia\" }}", "300286872"),
    ]);
}

#[test]
fn json() {
    cases(&[
        ("{{ .m | toJson }}", "{\"a\":1,\"b\":{\"c\":\"d\"}}"),
        ("{{ toPrettyJson (dict \"a\" 1) }}", "{\n  \"a\": 1\n}"),
        (
            "{{ toJson \"<x>\" }} {{ toRawJson \"<x>\" }}",
            "\"\\u003cx\\u003e\" \"<x>\"",
        ),
        (
            "{{ toJson (list 1 \"a\" nil 1.5 .n) }}",
            "[1,\"a\",null,1.5,3]",
        ),
        ("{{ (fromJson \"{\\\"a\\\": 2}\").a }}", "2"),
        ("{{ fromJson \"nope\" }}", "<no value>"),
        ("{{ toJson .missing }}", "null"),
    ]);
    assert!(fails("{{ mustFromJson \"nope\" }}").contains("error calling mustFromJson"));
}

#[test]
fn defaults_and_flow() {
    cases(&[
        ("{{ .missing | default \"foo\" }} {{ \"\" | default \"foo\" }} {{ \"bar\" | default \"foo\" }}", "foo foo bar"),
        ("{{ 0 | default 5 }} {{ default 5 .n }}", "5 3"),
        ("{{ empty \"\" }} {{ empty .m }} {{ empty .missing }} {{ empty 0.0 }}", "true false true true"),
        ("{{ coalesce 0 \"\" \"x\" }} {{ coalesce .missing }}", "x <no value>"),
        ("{{ ternary \"a\" \"b\" true }} {{ ternary \"a\" \"b\" false }}", "a b"),
        ("{{ all 1 \"a\" }} {{ all 1 \"\" }} {{ any 0 \"\" }} {{ any 0 1 }}", "true false false true"),
    ]);
    assert!(fails("{{ fail \"boom\" }}").ends_with("error calling fail: boom"));
}

#[test]
fn lists() {
    cases(&[
        (
            "{{ list 1 2 3 | last }} {{ first .l }} {{ first list }}",
            "3 x <no value>",
        ),
        (
            "{{ rest (list 1 2 3) }} {{ initial (list 1 2 3) }}",
            "[2 3] [1 2]",
        ),
        (
            "{{ append .l \"z\" }} {{ prepend .l \"w\" }} {{ concat .l (list 1) }}",
            "[x y z] [w x y] [x y 1]",
        ),
        (
            "{{ reverse (list 1 2 3) }} {{ uniq (list 1 1 2 1) }}",
            "[3 2 1] [1 2]",
        ),
        (
            "{{ without (list 1 2 3 2) 2 }} {{ has 2 (list 1 2) }} {{ has 5 .missing }}",
            "[1 3] true false",
        ),
        ("{{ compact (list 1 \"\" 0 \"a\" nil) }}", "[1 a]"),
        (
            "{{ slice (list 1 2 3 4) 1 3 }} {{ slice .l 1 }}",
            "[2 3] [y]",
        ),
        ("{{ chunk 2 (list 1 2 3 4 5) }}", "[[1 2] [3 4] [5]]"),
        ("{{ tuple 1 \"a\" }}", "[1 a]"),
    ]);
    assert!(fails("{{ first \"x\" }}")
        .ends_with("error calling first: Cannot find first on type string"));
    assert!(fails("{{ first .missing }}")
        .ends_with("invalid memory address or nil pointer dereference"));
    assert!(fails("{{ slice (list 1 2) 1 5 }}").contains("slice index out of range"));
}

#[test]
fn dicts() {
    cases(&[
        ("{{ $d := dict \"a\" 1 }}{{ $_ := set $d \"b\" 2 }}{{ $d }}", "map[a:1 b:2]"),
        ("{{ $d := dict \"a\" 1 \"b\" 2 }}{{ $_ := unset $d \"a\" }}{{ $d }} {{ hasKey $d \"b\" }}", "map[b:2] true"),
        ("{{ get .m \"a\" }}|{{ get .m \"zz\" }}|", "1||"),
        ("{{ keys (dict \"b\" 1 \"a\" 2) (dict \"c\" 3) }} {{ values (dict \"b\" 1 \"a\" 2) }}", "[a b c] [2 1]"),
        ("{{ pluck \"a\" (dict \"a\" 1) (dict \"b\" 2) (dict \"a\" 3) }}", "[1 3]"),
        ("{{ pick (dict \"a\" 1 \"b\" 2 \"c\" 3) \"a\" \"c\" }} {{ omit (dict \"a\" 1 \"b\" 2) \"a\" }}", "map[a:1 c:3] map[b:2]"),
        ("{{ merge (dict \"a\" 1 \"c\" \"\") (dict \"a\" 2 \"b\" 3 \"c\" 4) }}", "map[a:1 b:3 c:4]"),
        ("{{ mergeOverwrite (dict \"a\" 1) (dict \"a\" 2 \"b\" 3) }}", "map[a:2 b:3]"),
        ("{{ $d := dict \"x\" (dict \"y\" 1) }}{{ $c := deepCopy $d }}{{ $_ := set $c.x \"y\" 2 }}{{ $d }} {{ $c }}", "map[x:map[y:1]] map[x:map[y:2]]"),
        ("{{ dig \"b\" \"c\" \"def\" .m }} {{ dig \"b\" \"zz\" \"def\" .m }}", "d def"),
        ("{{ dict \"a\" }}", "map[a:]"),
    ]);
}

#[test]
fn numbers() {
    cases(&[
        ("{{ add 1 2 3 }} {{ add1 .n }} {{ sub 5 2 }} {{ div 7 2 }} {{ mod 7 2 }} {{ mul 2 3 4 }}", "6 4 3 3 1 24"),
        ("{{ max 1 5 3 }} {{ min 4 2 8 }} {{ biggest 1 2 }}", "5 2 2"),
        ("{{ floor 1.5 }} {{ ceil 1.5 }} {{ round 3.14159 2 }} {{ round 2.5 0 }}", "1 2 3.14 3"),
        ("{{ maxf 1 2.5 }} {{ minf 1 2.5 }}", "2.5 1"),
        ("{{ addf 1.1 2.2 }} {{ divf 10 4 }} {{ mulf 1.1 3 }} {{ subf 3 1.1 }} {{ add1f 0.1 }}", "3.3 2.5 3.3 1.9 1.1"),
        ("{{ int \"42\" }} {{ int64 \"0x10\" }} {{ float64 \"1.5\" }} {{ atoi \"12\" }} {{ toDecimal \"0777\" }}", "42 16 1.5 12 511"),
        ("{{ int .f }} {{ typeOf (int .f) }} {{ typeOf (add 1 1) }} {{ typeOf (float64 1) }}", "1 int int64 float64"),
        ("{{ seq 5 }}|{{ seq 5 1 }}|{{ seq 1 2 10 }}|{{ seq 0 }}", "1 2 3 4 5|5 4 3 2 1|1 3 5 7 9|1 0"),
        ("{{ until 3 }} {{ untilStep 0 10 3 }} {{ untilStep 3 0 -1 }}", "[0 1 2] [0 3 6 9] [3 2 1]"),
    ]);
    assert!(fails("{{ div 1 0 }}")
        .ends_with("error calling div: runtime error: integer divide by zero"));
}

#[test]
fn reflection_and_versions() {
    cases(&[
        ("{{ typeOf .n }} {{ typeOf 1 }} {{ typeOf .m }} {{ typeOf .l }} {{ typeOf .missing }}", "float64 int map[string]interface {} []interface {} <nil>"),
        ("{{ kindOf .m }} {{ kindOf .l }} {{ kindOf \"s\" }} {{ kindIs \"map\" .m }}", "map slice string true"),
        ("{{ typeIs \"string\" \"x\" }} {{ typeIsLike \"semver.Version\" (semver \"1.0.0\") }}", "true true"),
        ("{{ deepEqual (list 1 \"a\") (list 1 \"a\") }} {{ deepEqual 1 1.0 }}", "true false"),
        ("{{ (semver \"v1.2.3-beta+b1\").Major }} {{ semver \"1.2\" }} {{ (semver \"1.2.3\").Prerelease }}|", "1 1.2.0 |"),
        ("{{ semverCompare \"^1.2.0\" \"1.5.0\" }} {{ semverCompare \">=2\" \"1.5.0\" }}", "true false"),
        ("{{ (semver \"1.2.3\").LessThan (semver \"1.3.0\") }}", "true"),
    ]);
    assert!(fails("{{ semver \"x\" }}").ends_with("error calling semver: Invalid Semantic Version"));
}

#[test]
fn paths_and_durations() {
    cases(&[
        ("{{ base \"/a/b.txt\" }} {{ dir \"/a/b.txt\" }} {{ ext \"b.tar.gz\" }} {{ clean \"a//b/../c\" }} {{ isAbs \"/x\" }}", "b.txt /a .gz a/c true"),
        ("{{ duration 95 }} {{ duration \"95\" }} {{ duration (int64 3600) }}", "0s 1m35s 1h0m0s"),
        ("{{ durationRound \"2h10m\" }} {{ durationRound \"36h\" }}", "2h 1d"),
    ]);
}

#[test]
fn refused_functions() {
    for (name, why) in [
        ("now", "clock"),
        ("date", "clock"),
        ("ago", "clock"),
        ("randAlphaNum", "random"),
        ("uuidv4", "random"),
        ("shuffle", "random"),
        ("randInt", "random"),
        ("getHostByName", "network"),
        ("genCA", "certificates"),
        ("htpasswd", "salt"),
        ("derivePassword", "cryptography"),
        ("urlParse", "not supported"),
    ] {
        let e = parse("v", &format!("x {{{{ {name} }}}}"))
            .unwrap_err()
            .message;
        assert!(
            e.starts_with(&format!("template: v:1: function \"{name}\" ")),
            "{e}"
        );
        assert!(e.contains(why), "{e}");
    }
    for name in ["env", "expandenv", "nope"] {
        let e = parse("v", &format!("{{{{ {name} \"X\" }}}}"))
            .unwrap_err()
            .message;
        assert_eq!(e, format!("template: v:1: function \"{name}\" not defined"));
    }
}

/// Every name in Sprig v3.2.2's `GenericFuncMap()`: KubeMod removes `env` and
/// `expandenv`; kadmit implements or explicitly refuses each of the others.
const SPRIG_3_2_2: &str = "hello ago date date_in_zone date_modify dateInZone dateModify duration \
    durationRound htmlDate htmlDateInZone must_date_modify mustDateModify mustToDate now toDate \
    unixEpoch abbrev abbrevboth trunc trim upper lower title untitle substr repeat trimall trimAll \
    trimSuffix trimPrefix nospace initials randAlphaNum randAlpha randAscii randNumeric swapcase \
    shuffle snakecase camelcase kebabcase wrap wrapWith contains hasPrefix hasSuffix quote squote \
    cat indent nindent replace plural sha1sum sha256sum adler32sum toString atoi int64 int float64 \
    seq toDecimal split splitList splitn toStrings until untilStep add1 add sub div mod mul randInt \
    add1f addf subf divf mulf biggest max min maxf minf ceil floor round join sortAlpha default \
    empty coalesce all any compact mustCompact fromJson toJson toPrettyJson toRawJson mustFromJson \
    mustToJson mustToPrettyJson mustToRawJson ternary deepCopy mustDeepCopy typeOf typeIs \
    typeIsLike kindOf kindIs deepEqual env expandenv getHostByName base dir clean ext isAbs osBase \
    osClean osDir osExt osIsAbs b64enc b64dec b32enc b32dec tuple list dict get set unset hasKey \
    pluck keys pick omit merge mergeOverwrite mustMerge mustMergeOverwrite values append push \
    mustAppend mustPush prepend mustPrepend first mustFirst rest mustRest last mustLast initial \
    mustInitial reverse mustReverse uniq mustUniq without mustWithout has mustHas slice mustSlice \
    concat dig chunk mustChunk bcrypt htpasswd genPrivateKey derivePassword buildCustomCert genCA \
    genCAWithKey genSelfSignedCert genSelfSignedCertWithKey genSignedCert genSignedCertWithKey \
    encryptAES decryptAES randBytes uuidv4 semver semverCompare fail regexMatch mustRegexMatch \
    regexFindAll mustRegexFindAll regexFind mustRegexFind regexReplaceAll mustRegexReplaceAll \
    regexReplaceAllLiteral mustRegexReplaceAllLiteral regexSplit mustRegexSplit regexQuoteMeta \
    urlParse urlJoin";

#[test]
fn every_sprig_function_is_implemented_or_refused() {
    let (mut implemented, mut refused) = (0, 0);
    for name in SPRIG_3_2_2.split_whitespace() {
        let known = super::funcs::lookup(name).is_some();
        let refusal = super::funcs::refusal(name).is_some();
        match name {
            "env" | "expandenv" => assert!(!known && !refusal, "{name}"),
            _ => assert!(
                known != refusal,
                "{name}: implemented {known}, refused {refusal}"
            ),
        }
        implemented += usize::from(known);
        refused += usize::from(refusal);
    }
    assert_eq!((implemented, refused), (170, 38));
}
