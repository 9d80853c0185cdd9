//! End-to-end tests of the engine: Go 1.18 text/template semantics and error texts.

use super::{nesting, parse, Data, Template, TemplateError};
use serde_json::{json, Value as Json};
use std::rc::Rc;

/// Runs `tmpl` on `data` converted up front and converted lazily, which must agree.
pub(super) fn execute_both(tmpl: &Template, data: &Json) -> Result<String, TemplateError> {
    let eager = tmpl.execute(data);
    let shared = Data::Shared(Rc::new(data.clone()), nesting(data));
    assert_eq!(tmpl.execute_data(&shared), eager, "{:?}", tmpl.name());
    eager
}

fn data() -> Json {
    json!({
        "Target": {
            "metadata": {"name": "nginx", "labels": {"app": "web", "topology.kubernetes.io/region": "us-west-2"}},
            "spec": {"replicas": 3, "externalIPs": ["123.12.34.1", "123.12.35.2"]}
        },
        "Namespace": "my-namespace",
        "s": "str",
        "n": 3,
        "big": 1000000,
        "f": 1.5,
        "zero": 0,
        "t": true,
        "nul": null,
        "l": ["a", "b"],
        "letters": ["a", "b", "c", "d", "e"],
        "empty": [],
        "m": {"b": [1, "x"], "a": 1},
        "objs": [{"name": "one"}, {"name": "two"}]
    })
}

fn run(t: &str) -> String {
    let tmpl = parse("t", t).unwrap_or_else(|e| panic!("parse {t:?}: {e}"));
    execute_both(&tmpl, &data()).unwrap_or_else(|e| panic!("execute {t:?}: {e}"))
}

fn fails(t: &str) -> String {
    let tmpl = parse("t", t).unwrap_or_else(|e| panic!("parse {t:?}: {e}"));
    match execute_both(&tmpl, &data()) {
        Ok(out) => panic!("{t:?} rendered {out:?}"),
        Err(e) => e.message,
    }
}

#[test]
fn fields_and_missing_keys() {
    assert_eq!(run("{{ .Target.metadata.name }}"), "nginx");
    assert_eq!(
        run("{{ .Target.nope }}|{{ .Target.nope.deeper }}"),
        "<no value>|<no value>"
    );
    assert_eq!(run("{{ .nul }}"), "<no value>");
    assert!(run("{{ . }}").len() > 10);
    assert_eq!(run("{{ $.Namespace }}"), "my-namespace");
    assert_eq!(run("{{ .t }} {{ .zero }}"), "true 0");
}

#[test]
fn values_print_with_go_verbs() {
    assert_eq!(run("{{ .n }} {{ .big }} {{ .f }}"), "3 1e+06 1.5");
    assert_eq!(run("{{ .m }}"), "map[a:1 b:[1 x]]");
    assert_eq!(
        run("{{ .Target.spec.externalIPs }}"),
        "[123.12.34.1 123.12.35.2]"
    );
    assert_eq!(
        run("{{ 3 }} {{ 1.50 }} {{ 'a' }} {{ 0x10 }} {{ 1e3 }}"),
        "3 1.5 97 16 1000"
    );
    assert_eq!(run("{{ \"a\\tb\" }}{{ `r\\n` }}"), "a\tbr\\n");
}

#[test]
fn trimming_and_comments() {
    assert_eq!(run("a  {{- 1 -}}  b"), "a1b");
    assert_eq!(run("a{{/* c */}}b"), "ab");
    assert_eq!(run("a \n{{- /* c */ -}}\n b"), "ab");
    assert_eq!(run("x:\n{{- if .t }}\n  yes\n{{- end }}\n"), "x:\n  yes\n");
}

#[test]
fn conditionals() {
    let t = "{{ if eq .s \"a\" }}A{{ else if eq .s \"str\" }}S{{ else }}C{{ end }}";
    assert_eq!(run(t), "S");
    assert_eq!(
        run("{{ if .zero }}y{{ else }}n{{ end }}{{ if .empty }}y{{ else }}n{{ end }}"),
        "nn"
    );
    assert_eq!(
        run("{{ if .nul }}y{{ else }}n{{ end }}{{ if .missing }}y{{ else }}n{{ end }}"),
        "nn"
    );
    assert_eq!(
        run("{{ with .Target.metadata }}{{ .name }}{{ end }}"),
        "nginx"
    );
    assert_eq!(run("{{ with .missing }}x{{ else }}none{{ end }}"), "none");
    assert_eq!(run("{{ with $x := .m }}{{ $x.a }}{{ end }}"), "1");
}

#[test]
fn ranges() {
    assert_eq!(
        run("{{ range $i, $v := .l }}{{ $i }}={{ $v }};{{ end }}"),
        "0=a;1=b;"
    );
    assert_eq!(run("{{ range $k, $v := .m }}{{ $k }};{{ end }}"), "a;b;");
    assert_eq!(run("{{ range .objs }}{{ .name }},{{ end }}"), "one,two,");
    assert_eq!(run("{{ range .empty }}x{{ else }}none{{ end }}"), "none");
    assert_eq!(run("{{ range .missing }}x{{ else }}none{{ end }}"), "none");
    assert_eq!(run("{{ range $v := .l }}{{ $v }}{{ end }}"), "ab");
    assert_eq!(
        run("{{ range .l }}{{ $.Namespace }}{{ end }}"),
        "my-namespacemy-namespace"
    );
    let t = "{{ range .letters }}{{ if eq . \"b\" }}{{ continue }}{{ end }}{{ if eq . \"d\" }}{{ break }}{{ end }}{{ . }}{{ end }}";
    assert_eq!(run(t), "ac");
    assert_eq!(
        fails("{{ range .n }}{{ end }}"),
        "template: t:1:9: executing \"t\" at <{{range .n}}{{end}}>: range can't iterate over 3"
    );
}

#[test]
fn variables() {
    assert_eq!(run("{{ $x := 1 }}{{ $x = 2 }}{{ $x }}"), "2");
    assert_eq!(
        run("{{ $x := \"o\" }}{{ if true }}{{ $x := \"i\" }}{{ $x }}{{ end }}{{ $x }}"),
        "io"
    );
    assert_eq!(
        run("{{ $x := \"o\" }}{{ if true }}{{ $x = \"i\" }}{{ end }}{{ $x }}"),
        "i"
    );
    assert_eq!(run("{{ $x := 5 }}"), "");
    assert_eq!(run("{{ $x := .nul }}{{ $x.a }}"), "<no value>");
}

#[test]
fn templates_and_blocks() {
    assert_eq!(
        run("{{ define \"t2\" }}[{{ . }}]{{ end }}{{ template \"t2\" .s }}"),
        "[str]"
    );
    assert_eq!(
        run("{{ define \"d\" }}{{ . }}{{ end }}{{ template \"d\" }}"),
        "<no value>"
    );
    assert_eq!(run("{{ block \"b\" .s }}<{{ . }}>{{ end }}"), "<str>");
    assert_eq!(
        run("{{ define \"x\" }}{{ $.a }}{{ end }}{{ template \"x\" .m }}"),
        "1"
    );
    assert_eq!(run("  {{ define \"t\" }}body{{ end }}  "), "body");
    let t = "{{ define \"x\" }}{{ index 1 1 }}{{ end }}{{ template \"x\" }}";
    let col = t.find("index").unwrap();
    assert_eq!(
        fails(t),
        format!("template: t:1:{col}: executing \"x\" at <index 1 1>: error calling index: can't index item of type int")
    );
    assert_eq!(
        fails("{{ template \"nope\" }}"),
        "template: t:1:12: executing \"t\" at <{{template \"nope\"}}>: template \"nope\" not defined"
    );
}

#[test]
fn comparisons_follow_go_types() {
    assert_eq!(
        fails("{{ eq .Target.spec.replicas 3 }}"),
        "template: t:1:3: executing \"t\" at <eq .Target.spec.replicas 3>: error calling eq: incompatible types for comparison"
    );
    assert_eq!(run("{{ eq .Target.spec.replicas 3.0 }}"), "true");
    assert_eq!(
        run("{{ eq .s \"x\" \"str\" }} {{ ne .s \"str\" }}"),
        "true false"
    );
    assert_eq!(
        run("{{ lt \"a\" \"b\" }} {{ le 2 2 }} {{ gt 3.5 1.0 }} {{ ge 1 2 }}"),
        "true true true false"
    );
    assert_eq!(
        run("{{ eq .missing \"x\" }} {{ eq .nul nil }} {{ eq .s nil }}"),
        "false true false"
    );
    assert!(
        fails("{{ lt .n \"x\" }}").ends_with("error calling lt: incompatible types for comparison")
    );
    assert!(fails("{{ eq .m .m }}").ends_with("error calling eq: invalid type for comparison"));
    assert!(fails("{{ lt true false }}").ends_with("error calling lt: invalid type for comparison"));
    assert!(fails("{{ eq 1 }}").ends_with("error calling eq: missing argument for comparison"));
    assert_eq!(run("{{ eq (len .l) 2 }} {{ eq (add 1 1) 2 }}"), "true true");
}

#[test]
fn builtin_functions() {
    assert_eq!(
        run("{{ index .l 1 }} {{ index .m \"a\" }} {{ index .objs 1 \"name\" }}"),
        "b 1 two"
    );
    assert_eq!(
        run("{{ index .m \"zz\" }}|{{ index \"abc\" 0 }}"),
        "<no value>|97"
    );
    assert_eq!(
        fails("{{ index .Target 1 }}"),
        "template: t:1:3: executing \"t\" at <index .Target 1>: error calling index: value has type int; should be string"
    );
    assert!(fails("{{ index .l .n }}").ends_with("cannot index slice/array with type float64"));
    assert!(fails("{{ index .l 5 }}").ends_with("error calling index: index out of range: 5"));
    assert!(fails("{{ index .missing 0 }}").ends_with("error calling index: index of untyped nil"));
    assert_eq!(
        run("{{ len .l }} {{ len .m }} {{ len \"héllo\" }}"),
        "2 2 6"
    );
    assert!(
        fails("{{ len .missing }}").ends_with("reflect: call of reflect.Value.Type on zero Value")
    );
    assert!(fails("{{ len .nul }}").ends_with("error calling len: len of nil pointer"));
    assert!(fails("{{ len .n }}").ends_with("error calling len: len of type float64"));
    assert_eq!(
        run("{{ and 0 (fail \"x\") }}|{{ or 1 (fail \"x\") }}|{{ and 1 2 }}|{{ or 0 \"\" }}|"),
        "0|1|2||"
    );
    assert_eq!(run("{{ not .missing }} {{ not .t }}"), "true false");
    assert_eq!(run("{{ printf \"%v-%s-%d\" .n \"a\" 3 }}"), "3-a-3");
    assert_eq!(run("{{ printf \"%d\" .n }}"), "%!d(float64=3)");
    assert_eq!(
        run("{{ printf \"%05.1f|%x|%q\" .f 255 .s }}"),
        "001.5|ff|\"str\""
    );
    assert_eq!(run("{{ print 1 2 \"a\" \"b\" 3 }}"), "1 2ab3");
    assert_eq!(run("{{ println 1 \"a\" }}"), "1 a\n");
    assert_eq!(run("{{ print .missing }}"), "<nil>");
    assert_eq!(
        run("{{ html \"<a href='x'>\" }}"),
        "&lt;a href=&#39;x&#39;&gt;"
    );
    assert_eq!(run("{{ js \"a'b<\" }}"), "a\\'b\\u003C");
    assert_eq!(run("{{ urlquery \"a b&c\" }}"), "a+b%26c");
    assert_eq!(run("{{ html .missing }}"), "&lt;no value&gt;");
    assert!(fails("{{ call .s }}").ends_with("error calling call: non-function of type string"));
}

#[test]
fn pipelines_and_chains() {
    assert_eq!(run("{{ \"x\" | printf \"%s-%s\" \"a\" }}"), "a-x");
    assert_eq!(run("{{ (index .l 1) }}{{ (index .objs 0).name }}"), "bone");
    assert_eq!(run("{{ .Target.spec.replicas | add 1 }}"), "4");
    assert_eq!(run("{{ .s | upper | printf \"<%s>\" }}"), "<STR>");
    assert_eq!(run("{{ 3 | printf \"%d\" }}"), "3");
}

#[test]
fn typed_argument_errors() {
    assert_eq!(
        fails("{{ upper .n }}"),
        "template: t:1:9: executing \"t\" at <.n>: wrong type for value; expected string; got float64"
    );
    assert_eq!(
        fails("{{ upper 3 }}"),
        "template: t:1:9: executing \"t\" at <3>: expected string; found 3"
    );
    assert_eq!(
        fails("{{ upper .missing }}"),
        "template: t:1:9: executing \"t\" at <.missing>: invalid value; expected string"
    );
    assert_eq!(
        fails("{{ .s.x }}"),
        "template: t:1:5: executing \"t\" at <.s.x>: can't evaluate field x in type interface {}"
    );
    assert_eq!(
        fails("{{ .nul.b }}"),
        "template: t:1:7: executing \"t\" at <.nul.b>: nil pointer evaluating interface {}.b"
    );
    assert!(fails("{{ nil }}").ends_with("nil is not a command"));
    assert!(fails("{{ .m.a 1 }}").ends_with("a is not a method but has arguments"));
    assert!(fails("{{ $x := 1 }}{{ $x 1 }}").ends_with("can't give argument to non-function $x"));
    assert!(fails("{{ \"a\" 1 }}").ends_with("can't give argument to non-function \"a\""));
    assert!(fails("{{ trunc \"a\" \"b\" }}").ends_with("expected integer; found \"a\""));
    assert!(fails("{{ trunc (add 1 1) \"b\" }}")
        .ends_with("wrong type for value; expected int; got int64"));
    assert!(fails("{{ upper }}").ends_with("wrong number of args for upper: want 1 got 0"));
    assert!(
        fails("{{ printf }}").ends_with("wrong number of args for printf: want at least 1 got 0")
    );
    assert!(fails("{{ ternary 1 2 \"x\" }}").ends_with("expected bool; found \"x\""));
}

#[test]
fn data_ints_are_go_ints() {
    let tmpl = parse(
        "t",
        "{{ eq (index .k 0) 0 }} {{ index .k 0 }} {{ index .k 1 }} {{ typeOf (index .k 0) }}",
    )
    .unwrap();
    let doc = json!({"a": 1});
    let d = Data::Map(vec![
        (
            "k".into(),
            Data::List(vec![Data::Int(0), Data::String("a".into())]),
        ),
        ("Target".into(), Data::Json(&doc)),
    ]);
    assert_eq!(tmpl.execute_data(&d).unwrap(), "true 0 a int");
    let root = parse("t", "{{ . }}").unwrap();
    assert_eq!(root.execute(&Json::Null).unwrap(), "<no value>");
}

#[test]
fn limits_stop_hostile_templates() {
    let e = fails("{{ define \"r\" }}{{ template \"r\" . }}{{ end }}{{ template \"r\" . }}");
    assert!(e.ends_with("exceeded maximum template depth (100)"), "{e}");
    let e = fails("{{ range until 2000 }}{{ range until 1000 }}{{ end }}{{ end }}");
    assert!(e.contains("exceeded 1000000 steps"), "{e}");
    let e = fails("{{ range until 2000 }}{{ repeat 1000 \"x\" }}{{ end }}");
    assert!(e.ends_with("template output exceeds 1048576 bytes"), "{e}");
    let e = fails("{{ repeat 100000000 \"xx\" }}");
    assert!(e.ends_with("result is larger than 1048576 bytes"), "{e}");
    let e = fails("{{ $l := list 1 }}{{ range until 40 }}{{ $l = concat $l $l }}{{ end }}");
    assert!(e.contains("exceeded 1000000 steps"), "{e}");
    let e = fails("{{ $d := dict }}{{ $_ := set $d \"self\" $d }}");
    assert!(e.contains("contains the map itself"), "{e}");
}

#[test]
fn kubemod_shapes() {
    assert_eq!(
        run("{{ index .Target.metadata.labels \"topology.kubernetes.io/region\"}}"),
        "us-west-2"
    );
    assert_eq!(
        run("One or more of the following external IPs are not allowed {{ .Target.spec.externalIPs }}"),
        "One or more of the following external IPs are not allowed [123.12.34.1 123.12.35.2]"
    );
    assert_eq!(
        run("hello: {{ .Namespace }}\nhello2: {{ .Target.metadata.generateName }}"),
        "hello: my-namespace\nhello2: <no value>"
    );
    assert_eq!(
        run("{{ .objs | toJson }}"),
        "[{\"name\":\"one\"},{\"name\":\"two\"}]"
    );
}

#[test]
fn templates_are_shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<super::Template>();
    assert_send_sync::<super::TemplateError>();
    let e = parse("n", "{{ .x").unwrap_err();
    assert_eq!(e.to_string(), "template: n:1: unclosed action");
    let _: &dyn std::error::Error = &e;
}

#[test]
fn lazily_converted_maps_are_go_maps() {
    // Every `run` compares with eager conversion; these read, change and compare maps
    // that are only partly converted.
    assert_eq!(
        run("{{ $_ := set .Target.metadata.labels \"x\" \"y\" }}{{ .Target.metadata.labels.x }} {{ len .Target.metadata.labels }}"),
        "y 3"
    );
    assert_eq!(
        run("{{ $m := .Target.metadata }}{{ $_ := unset $m \"name\" }}{{ .Target.metadata.name }} {{ keys .Target.metadata }}"),
        "<no value> [labels]"
    );
    assert_eq!(
        run("{{ $o := index .objs 0 }}{{ $_ := set $o \"name\" \"z\" }}{{ (index .objs 0).name }} {{ .objs }}"),
        "z [map[name:z] map[name:two]]"
    );
    assert_eq!(
        run("{{ .Target.spec.replicas }} {{ range $k, $v := .Target.spec }}{{ $k }}={{ $v }};{{ end }}"),
        "3 externalIPs=[123.12.34.1 123.12.35.2];replicas=3;"
    );
    assert_eq!(
        run("{{ deepEqual .Target.metadata .Target.metadata }} {{ hasKey .m \"a\" }} {{ empty .m }} {{ if .Target }}t{{ end }}"),
        "true true false t"
    );
    assert_eq!(
        run("{{ $d := merge (dict) .Target.metadata }}{{ $_ := set $d \"name\" \"x\" }}{{ .Target.metadata.name }} {{ dig \"labels\" \"app\" \"-\" .Target.metadata }}"),
        "nginx web"
    );
    let e = fails("{{ $_ := set .Target.metadata \"self\" .Target }}");
    assert!(e.contains("contains the map itself"), "{e}");
}

#[test]
fn shared_data_is_measured_like_converted_data() {
    let mut deep = json!(1);
    for _ in 0..super::MAX_NESTING {
        deep = json!([deep]);
    }
    assert_eq!(nesting(&deep), super::MAX_NESTING);
    let tmpl = parse("t", "{{ 1 }}").unwrap();
    let as_target = |data| Data::Map(vec![("Target".into(), data)]);
    let eager = tmpl.execute_data(&as_target(Data::Json(&deep)));
    assert!(eager
        .unwrap_err()
        .message
        .contains("nested more than 200 levels"));
    let shared = Rc::new(deep.clone());
    for bound in [super::MAX_NESTING, super::MAX_NESTING + 7] {
        let lazy = tmpl.execute_data(&as_target(Data::Shared(shared.clone(), bound)));
        assert!(lazy
            .unwrap_err()
            .message
            .contains("nested more than 200 levels"));
    }
    let shallow = Rc::new(json!({"a": [{"b": 1}]}));
    assert_eq!(nesting(&shallow), 3);
    let lazy = tmpl.execute_data(&as_target(Data::Shared(shallow, super::MAX_NESTING + 7)));
    assert_eq!(lazy.unwrap(), "1");
}
