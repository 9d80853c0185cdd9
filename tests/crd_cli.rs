//! Custom resources and their CRDs through the binary. An invalid CRD is a configuration
//! error (exit 2) with the API server's field errors. A refused custom resource exits 1 with
//! kubectl's text: unknown fields under `--field-validation`, unserved versions, CEL cost
//! limits. Deprecated versions and cluster-scoped namespaces give warnings. Defaults are
//! written and reported, or not written with `--no-defaults`. CRDs come from `--crd` (used,
//! not written out) or from the stream (used and written out). The kubectl-validate
//! fixtures (kubebuilder CronJob, JobSet) pass unchanged.

mod common;

use assert_cmd::Command;
use common::conformance::fixtures;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

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

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

/// Every document of a YAML stream, as JSON.
fn parse(text: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|doc| Value::deserialize(doc).unwrap_or_else(|e| panic!("{e}:\n{text}")))
        .filter(|v| !v.is_null())
        .collect()
}

fn docs(a: &assert_cmd::assert::Assert) -> Vec<Value> {
    parse(&stdout(a))
}

fn contains_all(text: &str, expected: &[&str]) {
    for e in expected {
        assert!(text.contains(e), "expected {e:?} in:\n{text}");
    }
}

/// The JSON report `--report -` prints after the diagnostics on stderr.
fn report(a: &assert_cmd::assert::Assert) -> Value {
    let err = stderr(a);
    let start = if err.starts_with('{') {
        0
    } else {
        err.find("\n{").expect("a JSON report on stderr") + 1
    };
    serde_json::from_str(&err[start..]).unwrap_or_else(|e| panic!("{e}:\n{err}"))
}

/// Writes `text` to a fresh file `name` in `dir`.
fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// CRD `widgets.example.com` (kind Widget, `scope`): `v1` served and stored, with `spec.size`
/// (integer, default 1), `spec.color` and `spec.min`, and a rule `self.size >= self.min`;
/// `v1beta1` served and deprecated (`deprecation` is extra YAML for it, indented four
/// spaces); `v1alpha1` not served.
fn widget_crd(scope: &str, deprecation: &str) -> String {
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: {scope}
  names:
    kind: Widget
    plural: widgets
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
            x-kubernetes-validations:
            - rule: "!has(self.min) || self.size >= self.min"
              messageExpression: "'size ' + string(self.size) + ' is below the minimum ' + string(self.min)"
            properties:
              size:
                type: integer
                default: 1
              min:
                type: integer
              color:
                type: string
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
{deprecation}    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
  - name: v1alpha1
    served: false
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"#
    )
}

fn namespaced_crd() -> String {
    widget_crd("Namespaced", "")
}

/// A Widget `w` of `version` with `spec` (indented two spaces) and extra metadata lines.
fn widget(version: &str, metadata: &str, spec: &str) -> String {
    format!("apiVersion: example.com/{version}\nkind: Widget\nmetadata:\n  name: w\n{metadata}spec:\n{spec}")
}

/// A one-version CRD `gadgets.example.com` whose `spec` schema is `spec_schema` (YAML,
/// indented twelve spaces).
fn gadget_crd(spec_schema: &str) -> String {
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
{spec_schema}"#
    )
}

const GADGET: &str = "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec: {}\n";

/// Runs `transform --crd <crd>` (written to a temporary file) on `input`, plus `args`.
fn with_crd(crd: &str, args: &[&str], input: &str) -> assert_cmd::assert::Assert {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "crd.yaml", crd);
    let mut all = vec!["transform", "--crd", path.as_str()];
    all.extend_from_slice(args);
    kadmit(&all, input)
}

// --- Invalid CRDs: configuration errors -------------------------------------------------

#[test]
fn a_non_structural_crd_is_a_configuration_error() {
    let crd =
        gadget_crd("            properties:\n              size:\n                type: integer\n");
    let a = with_crd(&crd, &[], GADGET).code(2).stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"The CustomResourceDefinition "gadgets.example.com" is invalid: "#,
            "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields",
        ],
    );
    // The same CRD in the stream is as much a configuration error.
    let a = kadmit(&["transform"], &format!("{crd}---\n{GADGET}"))
        .code(2)
        .stdout("");
    contains_all(
        &stderr(&a),
        &["properties[spec].type: Required value: must not be empty for specified object fields"],
    );
}

/// kubectl prints a single cause on the message's line (`MultilineError`), as kadmit does
/// for custom resources.
#[test]
fn a_crd_with_one_error_is_printed_on_one_line_as_kubectl_does() {
    let crd =
        gadget_crd("            properties:\n              size:\n                type: integer\n");
    let a = with_crd(&crd, &[], GADGET).code(2);
    contains_all(
        &stderr(&a),
        &[
            r#"The CustomResourceDefinition "gadgets.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"#,
        ],
    );
}

#[test]
fn a_cel_rule_that_does_not_compile_is_a_configuration_error() {
    let syntax = gadget_crd(
        "            type: object\n            x-kubernetes-validations:\n            - rule: self.size >\n            properties:\n              size:\n                type: integer\n",
    );
    let a = with_crd(&syntax, &[], GADGET).code(2).stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"The CustomResourceDefinition "gadgets.example.com" is invalid"#,
            r#"spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"rule":"self.size \u003e"}: compilation failed: ERROR: <input>:1:12: Syntax error"#,
        ],
    );

    // Type errors are compile errors too, as with the API server's type checker.
    let typed = syntax.replace("rule: self.size >", "rule: self.size == 'big'");
    let a = with_crd(&typed, &[], GADGET).code(2).stdout("");
    contains_all(
        &stderr(&a),
        &["compilation failed: ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(int, string)'"],
    );
    let undefined = syntax.replace("rule: self.size >", "rule: self.sise == 1");
    let a = with_crd(&undefined, &[], GADGET).code(2).stdout("");
    contains_all(
        &stderr(&a),
        &["compilation failed: ERROR: <input>:1:5: undefined field 'sise'"],
    );
}

// --- Unknown fields ------------------------------------------------------------------------

#[test]
fn unknown_fields_are_an_error_under_strict() {
    let input = widget("v1", "", "  color: red\n  foo: 1\n  bar: 2\n");
    for args in [&[][..], &["--field-validation", "Strict"][..]] {
        let a = with_crd(&namespaced_crd(), args, &input).code(1).stdout("");
        contains_all(
            &stderr(&a),
            &[
                r#"Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bar", unknown field "spec.foo""#,
            ],
        );
    }
}

#[test]
fn unknown_fields_are_pruned_with_a_warning_under_warn() {
    let input = widget("v1", "", "  color: red\n  foo: 1\n");
    let a = with_crd(&namespaced_crd(), &["--field-validation", "Warn"], &input).success();
    assert_eq!(
        docs(&a),
        vec![
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"color": "red", "size": 1}})
        ]
    );
    let err = stderr(&a);
    contains_all(&err, &[r#"warning: Widget w: unknown field "spec.foo""#]);
    assert_eq!(err.matches("unknown field").count(), 1, "{err}");
}

#[test]
fn unknown_fields_are_pruned_silently_under_ignore() {
    let input = widget("v1", "", "  color: red\n  foo: 1\n");
    let a = with_crd(&namespaced_crd(), &["--field-validation", "Ignore"], &input)
        .success()
        .stderr("");
    assert_eq!(
        docs(&a),
        vec![
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"color": "red", "size": 1}})
        ]
    );
}

// --- Versions ------------------------------------------------------------------------------

#[test]
fn an_unserved_or_unknown_version_has_no_matches_for_kind() {
    for version in ["v1alpha1", "v2"] {
        let a = with_crd(&namespaced_crd(), &[], &widget(version, "", "  size: 2\n"))
            .code(1)
            .stdout("");
        contains_all(
            &stderr(&a),
            &[&format!(
                r#"no matches for kind "Widget" in version "example.com/{version}" (served: example.com/v1, example.com/v1beta1)"#
            )],
        );
    }
}

#[test]
fn a_deprecated_version_warns_as_the_api_server_does() {
    let input = widget("v1beta1", "", "  size: 2\n");
    let a = with_crd(&namespaced_crd(), &[], &input)
        .success()
        .stdout(input.clone());
    let err = stderr(&a);
    contains_all(
        &err,
        &["warning: Widget w: example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"],
    );
    assert_eq!(err.matches("deprecated").count(), 1, "one warning: {err}");

    let custom = widget_crd(
        "Namespaced",
        "    deprecationWarning: widgets/v1beta1 goes away in 2027\n",
    );
    let a = with_crd(&custom, &[], &input).success().stdout(input);
    let err = stderr(&a);
    contains_all(
        &err,
        &["warning: Widget w: widgets/v1beta1 goes away in 2027"],
    );
    assert!(!err.contains("is deprecated"), "{err}");
}

/// The create response of another version than the storage one: pruned and defaulted by the
/// storage schema too (reference §1, step 8), so `size` gets v1's default. What the
/// storage defaults set is not in the report's changes.
#[test]

fn defaults_of_the_storage_version_are_reported() {
    let input = widget("v1beta1", "", "  {}\n");
    let a = with_crd(&namespaced_crd(), &["--report", "-"], &input).success();
    assert_eq!(docs(&a)[0]["spec"], json!({"size": 1}));
    assert_eq!(
        report(&a)["changes"][0]["changes"],
        json!([{"path": "/spec/size", "rule": "CustomResourceDefinition widgets.example.com"}])
    );
}

// --- CEL cost --------------------------------------------------------------------------------

/// A rule whose evaluation costs more than the per-call limit (1,000,000) stops with
/// cel-go's cost error and kube-apiserver's text. Without `maxItems` the same rule is refused
/// with the CRD, for its estimated cost, as the API server refuses it.
#[test]
fn a_cel_rule_over_its_cost_limit_is_stopped() {
    let cells_crd = |max_items: &str| {
        gadget_crd(&format!(
            "            type: object\n            properties:\n              cells:\n                type: array\n{max_items}                items:\n                  type: integer\n                x-kubernetes-validations:\n                - rule: self.all(x, self.all(y, x >= 0 && y >= 0))\n                  message: cells are non-negative\n"
        ))
    };
    let crd = cells_crd("                maxItems: 1000\n");
    let cells = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    let gadget = |n: usize| {
        format!(
            "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  cells: [{}]\n",
            cells(n)
        )
    };
    let a = with_crd(&crd, &[], &gadget(1000)).code(1).stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"The Gadget "g" is invalid: spec.cells: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: cells are non-negative"#,
        ],
    );
    // The same rule over a short list is cheap and passes.
    with_crd(&crd, &[], &gadget(30)).success();
    // A negative cell fails the rule itself.
    let a = with_crd(&crd, &[], &gadget(30).replace("[0,", "[-1,"))
        .code(1)
        .stdout("");
    contains_all(
        &stderr(&a),
        &[r#"The Gadget "g" is invalid: spec.cells: Invalid value: cells are non-negative"#],
    );
    // Unbounded, the rule's estimated cost is over the limit: the CRD is invalid.
    let a = with_crd(&cells_crd(""), &[], &gadget(3)).code(2).stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"spec.validation.openAPIV3Schema.properties[spec].properties[cells].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"#,
        ],
    );
}

/// Regression (finding 07): string functions were not charged, so one rule on a 100 KB
/// object allocated 6.5 GB. `join` is charged as the API server charges it (0.2 per
/// character of the result, here before it is built) and its estimated cost refuses the
/// CRD; `replace`, which the server charges by its input only, is stopped by kadmit's
/// memory limit before the string is built.
#[test]
fn string_functions_are_charged_and_cannot_exhaust_memory() {
    let crd = |rule: &str, s_schema: &str| {
        gadget_crd(&format!(
            "            type: object\n            x-kubernetes-validations:\n            - rule: {rule}\n            properties:\n              items:\n                type: array\n                maxItems: 5000\n                items:\n                  type: string\n                  maxLength: 1\n              s:\n{s_schema}"
        ))
    };
    let string = "                type: string\n";
    let gadget = |s_len: usize, items: usize| {
        format!(
            "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  s: {}\n  items: [{}]\n",
            "a".repeat(s_len),
            vec!["x"; items].join(", ")
        )
    };
    // The finding's map-join rule: refused with the CRD, as the API server refuses it.
    let join = r#"'self.items.map(x, self.s).join("").size() > 0'"#;
    let a = with_crd(&crd(join, string), &[], &gadget(10, 3))
        .code(2)
        .stdout("");
    contains_all(
        &stderr(&a),
        &["x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x"],
    );
    // With `s` bounded its estimate passes (about 2,000,000); joining 5,000 copies of 1,000
    // characters costs 1,000,000 at run time and stops before the string is built.
    let bounded = crd(
        join,
        "                type: string\n                maxLength: 1000\n",
    );
    let a = with_crd(&bounded, &[], &gadget(1000, 5000))
        .code(1)
        .stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"no further validation rules will be run due to call cost exceeds limit for rule: self.items.map(x, self.s).join("").size() > 0"#,
        ],
    );
    with_crd(&bounded, &[], &gadget(1000, 100)).success();
    // The finding's replace rule: 100,000 characters replaced by themselves would be
    // 10^10 bytes. The API server's cost for it is 20,000; kadmit's memory limit stops it.
    let replace = r#"'self.s.replace("a", self.s).size() > 0'"#;
    let started = std::time::Instant::now();
    let a = with_crd(&crd(replace, string), &[], &gadget(100_000, 0))
        .code(1)
        .stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"The Gadget "g" is invalid: spec: Invalid value: "object": the rule would build more than 67108864 bytes of strings and lists (kadmit's limit for one evaluation) evaluating rule: self.s.replace("a", self.s).size() > 0"#,
        ],
    );
    assert!(started.elapsed().as_secs() < 60);
    // Charged by its input, a replace on a short string passes.
    with_crd(&crd(replace, string), &[], &gadget(1000, 0)).success();
}

/// Regression: `isURL` accepted what Go's `url.ParseRequestURI` refuses, `url()` did not
/// fail there, and conversions of bad strings printed cel-rust's texts (`string parse
/// error: ...`, a Rust debug dump for `duration`). Each now reads as the API server's.
#[test]
fn url_and_conversion_errors_read_as_the_api_servers() {
    let field = |name: &str, rule: &str| {
        format!("              {name}:\n                type: string\n                x-kubernetes-validations:\n                - rule: \"{rule}\"\n")
    };
    let crd = gadget_crd(&format!(
        "            type: object\n            properties:\n{}{}{}{}{}",
        field("endpoint", "isURL(self)"),
        field("callback", "url(self).getScheme() == 'https'"),
        field("replicas", "int(self) > 0"),
        field("timeout", "duration(self) < duration('1h')"),
        field("enabled", "bool(self) || !bool(self)"),
    ));
    let gadget = |endpoint: &str, callback: &str, replicas: &str, timeout: &str, enabled: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  endpoint: '{endpoint}'\n  callback: '{callback}'\n  replicas: '{replicas}'\n  timeout: '{timeout}'\n  enabled: '{enabled}'\n"
        )
    };
    // What Go accepts passes: an absolute path, strconv's and ParseDuration's spellings.
    with_crd(
        &crd,
        &[],
        &gadget("/healthz", "https://example.com/cb#x", "+3", ".5h", "T"),
    )
    .success();
    for endpoint in ["http://a b", "http://x#y@z", "http://%zz", "#%blah$#@"] {
        let input = gadget(endpoint, "https://example.com/", "3", "30m", "true");
        let a = with_crd(&crd, &[], &input).code(1).stdout("");
        let line = format!(
            r#"The Gadget "g" is invalid: spec.endpoint: Invalid value: {}: failed rule: isURL(self)"#,
            json!(endpoint)
        );
        contains_all(&stderr(&a), &[&line]);
    }
    let a = with_crd(&crd, &[], &gadget("/", "http://a b", "acd", "abc", "yes"))
        .code(1)
        .stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"spec.callback: Invalid value: "string": URL parse error during conversion from string: parse "http://a b": invalid character " " in host name evaluating rule: url(self).getScheme() == 'https'"#,
            r#"spec.replicas: Invalid value: "string": type conversion error from 'string' to 'int' evaluating rule: int(self) > 0"#,
            r#"spec.timeout: Invalid value: "string": type conversion error from 'string' to 'google.protobuf.Duration' evaluating rule: duration(self) < duration('1h')"#,
            r#"spec.enabled: Invalid value: "string": type conversion error from 'string' to 'bool' evaluating rule: bool(self) || !bool(self)"#,
        ],
    );
    // A conversion of a constant fails when the API server builds the program: the CRD is
    // refused.
    let constant = gadget_crd(&format!(
        "            type: object\n            properties:\n{}",
        field("replicas", "int('acd') == 1"),
    ));
    let a = with_crd(&constant, &[], GADGET).code(2).stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"spec.validation.openAPIV3Schema.properties[spec].properties[replicas].x-kubernetes-validations[0].rule: Invalid value: {"rule":"int('acd') == 1"}: program instantiation failed: type conversion error from 'string' to 'int'"#,
        ],
    );
}

// --- Defaults --------------------------------------------------------------------------------

#[test]
fn defaults_are_written_and_reported() {
    let input = widget("v1", "", "  color: red\n");
    let a = with_crd(&namespaced_crd(), &["--report", "-"], &input)
        .success()
        .stdout(format!("{input}  size: 1\n"));
    let written = report(&a);
    assert_eq!(written["exitCode"], 0);
    assert_eq!(
        written["changes"],
        json!([{
            "resource": {"apiVersion": "example.com/v1", "kind": "Widget", "namespace": null, "name": "w"},
            "changes": [{"path": "/spec/size", "rule": "CustomResourceDefinition widgets.example.com"}]
        }])
    );

    // A value that is there is not a default's to change.
    let sized = widget("v1", "", "  size: 4\n");
    let a = with_crd(&namespaced_crd(), &["--report", "-"], &sized)
        .success()
        .stdout(sized);
    assert_eq!(report(&a)["changes"], json!([]));
}

#[test]
fn no_defaults_keeps_the_resource_untouched_but_validates_with_the_defaults() {
    let input = widget("v1", "", "  color: red\n");
    let a = with_crd(
        &namespaced_crd(),
        &["--no-defaults", "--report", "-"],
        &input,
    )
    .success()
    .stdout(input);
    assert_eq!(report(&a)["changes"], json!([]));

    // Invalid only once defaulted: the default size 1 is below min 3.
    let a = with_crd(
        &namespaced_crd(),
        &["--no-defaults"],
        &widget("v1", "", "  min: 3\n"),
    )
    .code(1)
    .stdout("");
    contains_all(
        &stderr(&a),
        &[r#"The Widget "w" is invalid: spec: Invalid value: size 1 is below the minimum 3"#],
    );
}

// --- Where CRDs come from ------------------------------------------------------------------

/// `--crd DIR`: every CRD under it is used; every other document there (a ConfigMap, even a
/// Widget that would be invalid) is ignored, and nothing of it is written out.
#[test]
fn crd_directories_use_their_crds_and_ignore_everything_else() {
    let dir = tempfile::tempdir().unwrap();
    file(&dir, "widgets.yaml", &namespaced_crd());
    file(
        &dir,
        "other.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-crd\ndata:\n  a: b\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: Not_A_Name\nspec:\n  size: big\n",
    );
    let crds = dir.path().display().to_string();
    let input = widget("v1", "", "  color: red\n");
    kadmit(&["transform", "--crd", &crds], &input)
        .success()
        .stdout(format!("{input}  size: 1\n"))
        .stderr("");
    // Used: the Widget is validated against it.
    let a = kadmit(
        &["transform", "--crd", &crds],
        &widget("v1", "", "  size: big\n"),
    )
    .code(1);
    contains_all(
        &stderr(&a),
        &[
            r#"spec.size: Invalid value: "string": spec.size in body must be of type integer: "string""#,
        ],
    );
}

#[test]
fn crd_is_repeatable() {
    let dir = tempfile::tempdir().unwrap();
    let widgets = file(&dir, "widgets.yaml", &namespaced_crd());
    let gadgets = file(
        &dir,
        "gadgets.yaml",
        &gadget_crd("            type: object\n            properties:\n              level:\n                type: integer\n                default: 5\n"),
    );
    let input = format!("{}---\n{GADGET}", widget("v1", "", "  color: red\n"));
    let a = kadmit(&["transform", "--crd", &widgets, "--crd", &gadgets], &input).success();
    let out = docs(&a);
    assert_eq!(out.len(), 2, "{}", stdout(&a));
    assert_eq!(out[0]["spec"], json!({"color": "red", "size": 1}));
    assert_eq!(out[1]["spec"], json!({"level": 5}));
}

/// A CRD in the stream is a resource like any other: written out, and used for the custom
/// resources next to it.
#[test]
fn a_crd_in_the_stream_is_written_out_and_used() {
    let crd = namespaced_crd();
    let input = widget("v1", "", "  color: red\n");
    let a = kadmit(&["transform"], &format!("{crd}---\n{input}"))
        .success()
        .stdout(format!("{crd}---\n{input}  size: 1\n"));
    assert_eq!(stderr(&a), "");
    let a = kadmit(
        &["transform"],
        &format!("{crd}---\n{}", widget("v1", "", "  size: big\n")),
    )
    .code(1)
    .stdout("");
    contains_all(
        &stderr(&a),
        &["The Widget \"w\" is invalid: \n* spec.size: Invalid value: \"string\""],
    );
}

/// A CRD in `--config` (here through a PolicySet's paths) is configuration: used, not
/// written out.
#[test]
fn a_crd_in_config_is_used_and_not_written_out() {
    let dir = tempfile::tempdir().unwrap();
    file(&dir, "widgets.yaml", &namespaced_crd());
    let policy = file(
        &dir,
        "policy.yaml",
        "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata:\n  name: crds\nspec:\n  paths:\n  - widgets.yaml\n",
    );
    let input = widget("v1", "", "  color: red\n");
    kadmit(&["transform", "--config", &policy], &input)
        .success()
        .stdout(format!("{input}  size: 1\n"));
    let a = kadmit(
        &["transform", "--config", &policy],
        &widget("v1", "", "  color: 7\n"),
    )
    .code(1)
    .stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"spec.color: Invalid value: "integer": spec.color in body must be of type string: "integer""#,
        ],
    );
}

// --- Namespaces ------------------------------------------------------------------------------

/// The API server drops the namespace of a cluster-scoped object silently; kadmit says so,
/// and does not validate it.
#[test]
fn a_cluster_scoped_resource_with_a_namespace_warns() {
    let crd = widget_crd("Cluster", "");
    let input = widget("v1", "  namespace: Not_A_Namespace\n", "  size: 2\n");
    let a = with_crd(&crd, &[], &input).success().stdout(input);
    contains_all(
        &stderr(&a),
        &["warning: Widget Not_A_Namespace/w: metadata.namespace is ignored: Widget is cluster-scoped (the API server drops it)"],
    );
    // Without a namespace there is nothing to say.
    let bare = widget("v1", "", "  size: 2\n");
    with_crd(&crd, &[], &bare).success().stdout(bare).stderr("");
}

/// A namespaced resource without a namespace is created in the request's namespace:
/// kadmit's `--namespace`, which is validated as the object's. The output does not gain it.
#[test]
fn a_namespaced_resource_without_namespace_is_validated_in_the_namespace_flag() {
    let input = widget("v1", "", "  size: 2\n");
    with_crd(&namespaced_crd(), &["--namespace", "team-a"], &input)
        .success()
        .stdout(input.clone())
        .stderr("");
    let a = with_crd(&namespaced_crd(), &["--namespace", "Team_A"], &input)
        .code(1)
        .stdout("");
    contains_all(
        &stderr(&a),
        &[
            r#"The Widget "w" is invalid: metadata.namespace: Invalid value: "Team_A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'"#,
        ],
    );
    // The resource's own namespace wins over the flag.
    let placed = widget("v1", "  namespace: team-a\n", "  size: 2\n");
    with_crd(&namespaced_crd(), &["--namespace", "Team_A"], &placed)
        .success()
        .stdout(placed);
}

// --- kubectl-validate fixtures -------------------------------------------------------------

fn kubectl_validate(relative: &str) -> PathBuf {
    fixtures("kubectl-validate").join(relative)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// kubectl-validate's decode test: the kubebuilder CronJob against its CRD is valid, nothing
/// is pruned and no default applies, so it comes out byte for byte as it went in, its
/// comment too (docs/yaml.md, "Untouched documents: their own text").
#[test]
fn the_kubebuilder_cronjob_round_trips_unchanged() {
    if !common::peer_fixtures_present("kubectl-validate") {
        return;
    }
    let cr = kubectl_validate("pkg/validator/testdata/cronjob.yaml");
    let crd = kubectl_validate("pkg/validator/testdata/crds/cronjob.yaml");
    let input = read(&cr);
    let expected = input.clone();
    assert!(
        input.contains('#'),
        "the fixture has the comment this test expects"
    );
    let crd_arg = crd.display().to_string();
    let a = kadmit(&["transform", "--crd", &crd_arg, "--report", "-"], &input)
        .success()
        .stdout(expected.clone());
    let report = report(&a);
    assert_eq!(report["changes"], json!([]));
    assert_eq!(report["diagnostics"], json!([]));
    // The same with --no-defaults and every --field-validation: nothing to prune.
    for mode in ["Strict", "Warn", "Ignore"] {
        kadmit(
            &[
                "transform",
                "--crd",
                &crd_arg,
                "--no-defaults",
                "--field-validation",
                mode,
            ],
            &input,
        )
        .success()
        .stdout(expected.clone())
        .stderr("");
    }
    // The CRD is what checks it: a bad concurrencyPolicy is refused.
    let bad = input.replace("concurrencyPolicy: Allow", "concurrencyPolicy: Sometimes");
    let a = kadmit(&["transform", "--crd", &crd_arg], &bad).code(1);
    contains_all(
        &stderr(&a),
        &[
            r#"The CronJob "cronjob-sample" is invalid: spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace""#,
        ],
    );
}

/// Through `kpt fn eval`, which puts comments back, the CronJob's file is byte for byte
/// unchanged and no file is added (the CRD is not written out).
#[test]
fn the_kubebuilder_cronjob_round_trips_through_kpt_byte_for_byte() {
    if !common::peer_fixtures_present("kubectl-validate") {
        return;
    }
    if !common::require_tool("kpt") {
        return;
    }
    let cr = kubectl_validate("pkg/validator/testdata/cronjob.yaml");
    let crd = kubectl_validate("pkg/validator/testdata/crds/cronjob.yaml");
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    let original = read(&cr);
    common::write(&pkg, "cronjob.yaml", &original);
    let exec = format!(
        "{} transform --crd {}",
        common::shell_quote(&common::kadmit_bin().display().to_string()),
        common::shell_quote(&crd.display().to_string())
    );
    let ran = common::run(
        std::process::Command::new("kpt").args([
            "fn",
            "eval",
            &pkg.display().to_string(),
            "--exec",
            &exec,
        ]),
        None,
    )
    .expect_success();
    let files = common::snapshot(&pkg);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        vec!["cronjob.yaml"],
        "{}",
        ran.describe()
    );
    assert_eq!(
        String::from_utf8(files["cronjob.yaml"].clone()).unwrap(),
        original,
        "{}",
        ran.describe()
    );
}

/// kubectl-validate's jobset case: valid against `testcases/crds` (which also holds a
/// PodDisruptionBudget that is not a CRD and must be ignored).
#[test]
fn the_jobset_manifest_validates_with_the_testcases_crds() {
    if !common::peer_fixtures_present("kubectl-validate") {
        return;
    }
    let crds = kubectl_validate("testcases/crds").display().to_string();
    let input = read(&kubectl_validate("testcases/manifests/jobset.yaml"));
    let a = kadmit(&["transform", "--crd", &crds, "--report", "-"], &input).success();
    assert_eq!(docs(&a), parse(&input), "one JobSet, unchanged");
    let report = report(&a);
    assert_eq!(report["changes"], json!([]));
    assert_eq!(report["diagnostics"], json!([]));

    let bad = input.replace("enableDNSHostnames: true", "enableDNSHostnames: maybe");
    assert_ne!(bad, input);
    let a = kadmit(&["transform", "--crd", &crds], &bad)
        .code(1)
        .stdout("");
    contains_all(
        &stderr(&a),
        &[concat!(
            "The JobSet \"js-hostnames\" is invalid: \n",
            r#"* spec.jobs[0].network.enableDNSHostnames: Invalid value: "string": spec.jobs[0].network.enableDNSHostnames in body must be of type boolean: "string""#
        )],
    );
}

// --- Go regular expressions in `pattern` -------------------------------------------------

/// A Gadget CRD whose `spec.name` must match `pattern`.
fn patterned_gadget_crd(pattern: &str) -> String {
    gadget_crd(&format!(
        "            type: object\n            properties:\n              name:\n                type: string\n                pattern: '{pattern}'\n"
    ))
}

fn named_gadget(name: &str) -> String {
    GADGET.replace("spec: {}\n", &format!("spec:\n  name: '{name}'\n"))
}

/// Patterns are Go's RE2: a `{` that starts no repeat is a literal, `\Q…\E` quotes, `\<`
/// is a plain `<`, `\w` is ASCII.
#[test]
fn patterns_are_go_regular_expressions() {
    for (pattern, good, bad) in [
        ("^a{$", "a{", "a"),
        (r"^\Qa.b\E$", "a.b", "axb"),
        (r"^a\<b$", "a<b", "ab"),
        ("^a{,3}$", "a{,3}", "aaa"),
        (r"^\w+$", "abc_1", "äbc"),
    ] {
        let crd = patterned_gadget_crd(pattern);
        with_crd(&crd, &[], &named_gadget(good)).success();
        let a = with_crd(&crd, &[], &named_gadget(bad)).code(1).stdout("");
        contains_all(
            &stderr(&a),
            &[&format!("spec.name in body should match '{pattern}'")],
        );
    }
}

#[test]
fn a_pattern_go_refuses_makes_the_crd_invalid_with_gos_text() {
    let a = with_crd(&patterned_gadget_crd("x{2,1}"), &[], GADGET)
        .code(2)
        .stdout("");
    contains_all(
        &stderr(&a),
        &["spec.validation.openAPIV3Schema.properties[spec].properties[name].pattern: Invalid value: \"x{2,1}\": must be a valid regular expression, but isn't: error parsing regexp: invalid repeat count: `{2,1}`"],
    );
}
