//! Tests of the lexer and parser: tokens, trimming, line numbers, and Go's parse errors.

mod lexer {
    use super::super::lex::*;

    fn kinds(s: &str) -> Vec<(T, String)> {
        lex(s).into_iter().map(|i| (i.typ, i.val)).collect()
    }

    #[test]
    fn fields_variables_and_text() {
        let items = kinds("a {{ .Target.x | printf \"%v\" $y }}b");
        let types: Vec<T> = items.iter().map(|i| i.0).collect();
        assert_eq!(
            types,
            vec![
                T::Text,
                T::LeftDelim,
                T::Space,
                T::Field,
                T::Field,
                T::Space,
                T::Pipe,
                T::Space,
                T::Identifier,
                T::Space,
                T::String,
                T::Space,
                T::Variable,
                T::Space,
                T::RightDelim,
                T::Text,
                T::Eof
            ]
        );
        assert_eq!(items[3].1, ".Target");
    }

    #[test]
    fn trim_markers_eat_space() {
        let items = kinds("a  \n{{- 3 -}}\n  b");
        assert_eq!(items[0], (T::Text, "a".into()));
        assert_eq!(items[2], (T::Number, "3".into()));
        assert_eq!(items[4], (T::Text, "b".into()));
    }

    #[test]
    fn comments_vanish() {
        let items = kinds("x {{- /* hi\n there */ -}} y");
        assert_eq!(items.len(), 3);
        assert_eq!(items[1], (T::Text, "y".into()));
    }

    #[test]
    fn errors_stop_the_lexer() {
        let items = lex("x {{ .Target");
        let last = items.last().unwrap();
        assert_eq!(last.typ, T::Error);
        assert_eq!(last.val, "unclosed action");
        let bad = lex("{{ .a-b }}");
        assert_eq!(bad.last().unwrap().val, "bad character U+002D '-'");
        assert_eq!(
            lex("{{ 3x }}").last().unwrap().val,
            "bad number syntax: \"3x\""
        );
    }

    #[test]
    fn lines_are_counted() {
        let items = lex("a\nb{{\n.x\n}}");
        let field = items.iter().find(|i| i.typ == T::Field).unwrap();
        assert_eq!(field.line, 3);
        assert_eq!(items.last().unwrap().typ, T::Eof);
    }

    #[test]
    fn item_display_matches_go() {
        let it = Item {
            typ: T::String,
            pos: 0,
            val: "\"a long string value\"".into(),
            line: 1,
        };
        assert_eq!(it.to_string(), r#""\"a long st"..."#);
        let kw = Item {
            typ: T::With,
            pos: 0,
            val: "with".into(),
            line: 1,
        };
        assert_eq!(kw.to_string(), "<with>");
    }
}

mod parser {
    use super::super::node::{Arg, Node, Number};
    use super::super::parse::*;

    fn err(text: &str) -> String {
        parse("t", text).err().unwrap_or_default()
    }

    #[test]
    fn go_parse_errors() {
        assert_eq!(err("x {{ .Target"), "template: t:1: unclosed action");
        assert_eq!(
            err("{{ .Target }"),
            "template: t:1: unexpected \"}\" in operand"
        );
        assert_eq!(
            err("{{ nope 1 }}"),
            "template: t:1: function \"nope\" not defined"
        );
        assert_eq!(err("{{ if 1 }}"), "template: t:1: unexpected EOF");
        assert_eq!(err("{{ end }}"), "template: t:1: unexpected {{end}}");
        assert_eq!(err("{{ else }}"), "template: t:1: unexpected {{else}}");
        assert_eq!(err("{{ $x }}"), "template: t:1: undefined variable \"$x\"");
        assert_eq!(err("{{ }}"), "template: t:1: missing value for command");
        assert_eq!(
            err("{{ 1 | 2 }}"),
            "template: t:1: non executable command in pipeline stage 2"
        );
        assert_eq!(
            err("{{ break }}"),
            "template: t:1: {{break}} outside {{range}}"
        );
        assert_eq!(
            err("{{ \"a\".b }}"),
            "template: t:1: unexpected . after term \"\\\"a\\\"\""
        );
        assert_eq!(err("{{ 08 }}"), "template: t:1: integer overflow: 08");
        assert_eq!(err("{{ ( 1 }}"), "template: t:1: unclosed left paren");
        assert_eq!(
            err("a\n\n{{ .x\n| 3 }}\n"),
            "template: t:4: non executable command in pipeline stage 2"
        );
        assert_eq!(err("{{ .x | }}"), "");
        assert_eq!(
            err("{{ with 1 }}{{ else with 2 }}{{ end }}"),
            "template: t:1: unexpected <with> in else"
        );
        assert_eq!(
            err("{{ if 1 }}{{ define \"x\" }}{{ end }}{{ end }}"),
            "template: t:1: unexpected <define> in command"
        );
        assert_eq!(
            err("{{ 1 2 }}{{ .a.b c }}"),
            "template: t:1: function \"c\" not defined"
        );
        assert_eq!(err("{{ 3 .x }}x"), "");
        assert_eq!(
            err("{{ if 1 }}{{ else }}{{ else }}{{ end }}"),
            "template: t:1: expected end; found {{else}}"
        );
        assert_eq!(
            err("{{define \"a\"}}x{{end}}{{define \"a\"}}y{{end}}"),
            "template: t:1: template: multiple definition of template \"a\""
        );
        assert_eq!(
            err("{{ with $x := 1 }}{{ end }}{{ $x }}"),
            "template: t:1: undefined variable \"$x\""
        );
        assert_eq!(
            err("{{ range $i, $v, $w := . }}{{ end }}"),
            "template: t:1: too many declarations in range"
        );
        assert_eq!(
            err("{{\n.a\n"),
            "template: t:3: unclosed action started at t:1"
        );
    }

    #[test]
    fn forbidden_functions_fail_at_parse_time() {
        let e = err("{{ now }}");
        assert!(
            e.starts_with("template: t:1: function \"now\" is not allowed: "),
            "{e}"
        );
        assert_eq!(
            err("{{ env \"HOME\" }}"),
            "template: t:1: function \"env\" not defined"
        );
    }

    #[test]
    fn trees_and_fields() {
        let trees = parse(
            "t",
            "{{define \"x\"}}X{{end}}{{ .a.b }}{{ template \"x\" . }}",
        )
        .unwrap();
        assert_eq!(trees.len(), 2);
        let root = &trees["t"];
        match &root[0] {
            Node::Action(_, p) => assert_eq!(p.to_string(), ".a.b"),
            other => panic!("{other:?}"),
        }
        assert_eq!(root[1].to_string(), "{{template \"x\" .}}");
        let trees = parse("t", "{{ if .a }}x{{ else if .b }}y{{ else }}z{{ end }}").unwrap();
        assert_eq!(
            trees["t"][0].to_string(),
            "{{if .a}}x{{else}}{{if .b}}y{{else}}z{{end}}{{end}}"
        );
    }

    #[test]
    fn numbers_have_every_reading() {
        let trees = parse("t", "{{ 3.0 }}{{ 'a' }}{{ 0x1F }}").unwrap();
        let nums: Vec<Number> = trees["t"]
            .iter()
            .map(|n| match n {
                Node::Action(_, p) => match &p.cmds[0].args[0] {
                    Arg::Number(_, n) => n.clone(),
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(nums[0].is_int && nums[0].is_float && nums[0].int == 3);
        assert_eq!(nums[1].int, 97);
        assert_eq!(nums[2].int, 31);
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{{{{ {}1{} }}}}", "(".repeat(200), ")".repeat(200));
        assert!(err(&deep).contains("nested more than"));
    }
}
