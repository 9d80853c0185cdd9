//! Go regular expressions through the binary: CRD `pattern`s and ModRule `matchRegex`
//! take Go's RE2 syntax (a `{` that starts no repeat is a literal, `\Q…\E` quotes, `\<`
//! is a plain `<`), and refuse what Go refuses with Go's `regexp` error text.

use assert_cmd::Command;

fn kadmit(args: &[&str], input: &str) -> assert_cmd::assert::Assert {
    Command::cargo_bin("kadmit")
        .unwrap()
        .args(args)
        .write_stdin(input)
        .assert()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

/// A CRD `gadgets.example.com` whose `spec.name` must match `pattern`, and a Gadget
/// with that `name`.
fn gadget(pattern: &str, name: &str) -> String {
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    kind: Gadget
    plural: gadgets
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              name:
                type: string
                pattern: '{pattern}'
---
apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g
spec:
  name: '{name}'
"#
    )
}

fn accepted(pattern: &str, name: &str) {
    kadmit(&["transform"], &gadget(pattern, name)).success();
}

fn refused(pattern: &str, name: &str) {
    let a = kadmit(&["transform"], &gadget(pattern, name))
        .code(1)
        .stdout("");
    let err = stderr(&a);
    let want = format!("spec.name in body should match '{pattern}'");
    assert!(err.contains(&want), "expected {want:?} in:\n{err}");
}

#[test]
fn crd_patterns_are_go_syntax() {
    accepted("^a{$", "a{");
    refused("^a{$", "a");
    accepted(r"^\Qa.b\E$", "a.b");
    refused(r"^\Qa.b\E$", "axb");
    accepted(r"^a\<b$", "a<b");
    refused(r"^a\<b$", "ab");
    accepted("a{,3}", "a{,3}");
    refused("^a{,3}$", "aaa");
    accepted(r"^\w+$", "abc_1");
    refused(r"^\w+$", "äbc");
}

#[test]
fn crd_patterns_go_refuses_are_refused_with_gos_text() {
    let a = kadmit(&["transform"], &gadget("x{2,1}", "x"))
        .code(2)
        .stdout("");
    let err = stderr(&a);
    let want = "spec.validation.openAPIV3Schema.properties[spec].properties[name].pattern: Invalid value: \"x{2,1}\": must be a valid regular expression, but isn't: error parsing regexp: invalid repeat count: `{2,1}`";
    assert!(err.contains(want), "expected {want:?} in:\n{err}");
}

const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: team-a
  annotations:
    note: 'a{b'
spec:
  containers:
  - name: app
    image: nginx
";

/// A Reject ModRule in team-a matching the Pod's `note` annotation against `regex`.
fn reject_rule(regex: &str) -> String {
    format!(
        "apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata:\n  name: braces\n  namespace: team-a\nspec:\n  type: Reject\n  match:\n  - select: '$.metadata.annotations.note'\n    matchRegex: '{regex}'\n---\n"
    )
}

#[test]
fn modrule_match_regex_is_go_syntax() {
    // `a{` is a literal `a{` in Go, not a syntax error.
    let a = kadmit(&["transform"], &(reject_rule("a{") + POD))
        .code(1)
        .stdout("");
    let err = stderr(&a);
    assert!(
        err.contains("Pod team-a/web: rejected by ModRule team-a/braces"),
        "{err}"
    );
    kadmit(&["transform"], &(reject_rule("a{c") + POD)).success();
    kadmit(&["transform"], &(reject_rule(r"^\Qa{b\E$") + POD)).code(1);
}

#[test]
fn modrule_match_regex_go_refuses_is_a_configuration_error_with_gos_text() {
    let a = kadmit(&["transform"], &(reject_rule("(?=a)") + POD))
        .code(2)
        .stdout("");
    let err = stderr(&a);
    for want in [
        "ModRule team-a/braces",
        "spec.match[0].matchRegex",
        "invalid regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
    ] {
        assert!(err.contains(want), "expected {want:?} in:\n{err}");
    }
}
