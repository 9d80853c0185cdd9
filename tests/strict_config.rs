//! Strict configuration (docs/cli.md, "Strict configuration"): a field that no CRD of the
//! document's kind has (a typo the engines would never read) is refused, as kubectl's
//! default `--validate=Strict` refuses it, naming the document, the field path and the
//! field that was probably meant. `--config-validation Warn|Ignore` downgrade it.

mod common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn kadmit() -> Command {
    let mut cmd = Command::cargo_bin("kadmit").unwrap();
    cmd.env_remove("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
        .env_remove("KADMIT_PLUGIN_PATH")
        .env("XDG_CONFIG_HOME", "/nonexistent-kadmit-test");
    cmd
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// `kadmit transform <args>` in `dir` with `stdin`.
fn transform(dir: &Path, args: &[&str], stdin: &str) -> Ran {
    let out = kadmit()
        .current_dir(dir)
        .arg("transform")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A directory holding `files` (name, text).
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const CONFIGMAP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-a
data:
  mode: fast
";

/// A ModRule that labels ConfigMaps, its match item written as `match_item`.
fn modrule(match_item: &str) -> String {
    format!(
        "apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: label-configmaps
  namespace: team-a
spec:
  type: Patch
  match:
  - select: '$.kind'
    {match_item}: ConfigMap
  patch:
  - op: add
    path: /metadata/labels/checked
    value: '\"yes\"'
"
    )
}

/// Runs `--config config.yaml` with `config` and checks the refusal: exit 2, nothing on
/// stdout, and exactly `expected` (one line each) on stderr.
fn refused(config: &str, expected: &[&str]) {
    let dir = dir_with(&[("config.yaml", config)]);
    let ran = transform(dir.path(), &["--config", "config.yaml"], CONFIGMAP);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(ran.stdout, "");
    let lines: Vec<&str> = ran.stderr.lines().collect();
    assert_eq!(lines, expected, "\n{}", ran.stderr);
}

#[test]
fn a_modrule_match_typo_is_refused_instead_of_matching_everything() {
    refused(
        &modrule("matchValu"),
        &[
            r#"error: unknown field "spec.match[0].matchValu" (did you mean "matchValue"?) (ModRule team-a/label-configmaps) [config.yaml, document 1, line 1]"#,
        ],
    );
    // Spelled right, the rule loads and runs.
    let dir = dir_with(&[("config.yaml", &modrule("matchValue"))]);
    let ran = transform(dir.path(), &["--config", "config.yaml"], CONFIGMAP);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("checked: \"yes\""), "{}", ran.stdout);
}

#[test]
fn a_gatekeeper_excluded_namespace_typo_is_refused() {
    refused(
        "apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: pull-always
spec:
  applyTo:
  - groups: ['']
    kinds: [Pod]
    versions: [v1]
  match:
    scope: Namespaced
    excludedNamespace: [kube-system]
  location: spec.containers[name:*].imagePullPolicy
  parameters:
    assign:
      value: Always
",
        &[
            r#"error: unknown field "spec.match.excludedNamespace" (did you mean "excludedNamespaces"?) (Assign pull-always) [config.yaml, document 1, line 1]"#,
        ],
    );
}

/// A CRD of `Widget`s whose `spec` schema carries `extra` (indented YAML).
fn widget_crd(extra: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
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
              size:
                type: integer
{extra}"
    )
}

const WIDGET: &str = "apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  namespace: team-a
spec:
  size: 5
";

const CRD_ERROR: &str = "CustomResourceDefinition in version \"v1\" cannot be handled as a \
                         CustomResourceDefinition: strict decoding error:";
const AT: &str = "spec.versions[0].schema.openAPIV3Schema.properties.spec";

#[test]
fn a_crd_with_maxium_is_refused_with_the_servers_strict_decoding_error() {
    let crd = widget_crd("                maxium: 3\n");
    let dir = dir_with(&[("crd.yaml", &crd)]);
    let ran = transform(dir.path(), &["--crd", "crd.yaml"], WIDGET);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(ran.stdout, "");
    // A schema problem is found when a resource of the kind is admitted: it names that
    // resource too (docs/schema.md "CRDs are compiled when used").
    assert_eq!(
        ran.stderr,
        format!(
            "error: Widget team-a/w: {CRD_ERROR} unknown field \"{AT}.properties.size.maxium\" \
             (CustomResourceDefinition widgets.example.com) [crd.yaml, document 1, line 1]\n"
        )
    );
}

#[test]
fn a_crd_with_x_kubernetes_validation_is_refused_wherever_it_comes_from() {
    let crd =
        widget_crd("            x-kubernetes-validation:\n            - rule: self.size < 3\n");
    let expected = |origin: &str| {
        format!(
            "error: Widget team-a/w: {CRD_ERROR} unknown field \"{AT}.x-kubernetes-validation\" \
             (CustomResourceDefinition widgets.example.com) [{origin}, document 1, line 1]\n"
        )
    };
    let dir = dir_with(&[("crd.yaml", &crd)]);
    for args in [&["--crd", "crd.yaml"][..], &["--config", "crd.yaml"]] {
        let ran = transform(dir.path(), args, WIDGET);
        assert_eq!(
            (ran.code, ran.stderr),
            (2, expected("crd.yaml")),
            "{args:?}"
        );
    }
    // In the stream the CRD is also a resource admitted as the server creates it: refused
    // by the strict decoding of the built-in kind, then (its kind used) as the Widget's CRD.
    let ran = transform(dir.path(), &[], &format!("{crd}---\n{WIDGET}"));
    let as_resource = format!(
        "error: CustomResourceDefinition widgets.example.com: {CRD_ERROR} unknown field \
         \"{AT}.x-kubernetes-validation\" [stdin, document 1, line 1]\n"
    );
    assert_eq!(
        (ran.code, ran.stderr),
        (2, as_resource + &expected("stdin"))
    );
}

#[test]
fn every_unknown_field_of_a_crd_is_listed_at_once_in_decode_order() {
    let crd = widget_crd(
        "                maxium: 3\n            x-kubernetes-validation: []\n    sevred: true\n",
    );
    let dir = dir_with(&[("crd.yaml", &crd)]);
    let ran = transform(dir.path(), &["--crd", "crd.yaml"], WIDGET);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains(&format!(
            "strict decoding error: unknown field \"{AT}.properties.size.maxium\", unknown field \
             \"{AT}.x-kubernetes-validation\", unknown field \"spec.versions[0].sevred\" (Custom"
        )),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_duplicate_field_is_refused_by_the_yaml_reader() {
    let config = "apiVersion: kadmit.dev/v1alpha1
kind: PolicySet
metadata:
  name: platform
spec:
  paths: []
spec:
  paths: [rules]
";
    refused(
        config,
        &[r#"error: cannot read YAML: duplicate key "spec" [config.yaml, document 1, line 7]"#],
    );
    let dir = dir_with(&[]);
    let ran = transform(
        dir.path(),
        &[],
        r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "name": "b"}}"#,
    );
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .starts_with("error: cannot read JSON: duplicate key \"name\""),
        "{}",
        ran.stderr
    );
}

/// One document of every configuration kind kadmit reads, each with one unknown field, and
/// the line it is refused with.
const EVERY_KIND: &[(&str, &str)] = &[
    (
        "apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: {name: m, namespace: team-a}
spec:
  type: Reject
  match: [{select: '$.kind'}]
  rejectMesage: no
",
        r#"unknown field "spec.rejectMesage" (did you mean "rejectMessage"?) (ModRule team-a/m)"#,
    ),
    (
        "apiVersion: mutations.gatekeeper.sh/v1beta1
kind: Assign
metadata: {name: a}
spec:
  applyTo: [{groups: [''], kinds: [Pod], versions: [v1]}]
  location: spec.dnsPolicy
  parameters:
    assign: {value: Default}
    pathTest: []
",
        r#"unknown field "spec.parameters.pathTest" (did you mean "pathTests"?) (Assign a)"#,
    ),
    (
        "apiVersion: mutations.gatekeeper.sh/v1
kind: AssignMetadata
metadata: {name: am}
spec:
  location: metadata.labels.owner
  parameters:
    assign: {value: platform}
  applyTo: [{groups: [''], kinds: [Pod], versions: [v1]}]
",
        r#"unknown field "spec.applyTo" (AssignMetadata am)"#,
    ),
    (
        "apiVersion: mutations.gatekeeper.sh/v1alpha1
kind: ModifySet
metadata: {name: ms}
spec:
  applyTo: [{groups: [''], kinds: [Pod], versions: [v1]}]
  location: spec.containers[name:*].args
  parameters:
    operaton: merge
    values: {fromList: [--verbose]}
",
        r#"unknown field "spec.parameters.operaton" (did you mean "operation"?) (ModifySet ms)"#,
    ),
    (
        "apiVersion: mutations.gatekeeper.sh/v1
kind: AssignImage
metadata: {name: ai}
spec:
  applyTo: [{groups: [''], kinds: [Pod], versions: [v1]}]
  location: spec.containers[name:*].image
  parameters:
    assignDomain: registry.example.com
    asignTag: ':v1'
",
        r#"unknown field "spec.parameters.asignTag" (did you mean "assignTag"?) (AssignImage ai)"#,
    ),
    (
        "apiVersion: expansion.gatekeeper.sh/v1beta1
kind: ExpansionTemplate
metadata: {name: et}
spec:
  applyTo: [{groups: [apps], kinds: [Deployment], versions: [v1]}]
  templateSource: spec.template
  generatedGVK: {kind: Pod, group: '', version: v1, plural: pods}
",
        r#"unknown field "spec.generatedGVK.plural" (ExpansionTemplate et)"#,
    ),
    (
        "apiVersion: kadmit.dev/v1alpha1
kind: PolicySet
metadata: {name: ps}
spec:
  path: [rules]
",
        r#"unknown field "spec.path" (did you mean "paths"?) (PolicySet ps)"#,
    ),
    (
        "apiVersion: kadmit.dev/v1alpha1
kind: Generator
metadata: {name: g}
spec:
  group: team.example.com
  names: {kind: App}
  versions:
  - name: v1
    schema:
      openAPIV3Schema: {type: object}
  templates:
  - template: 'x: 1'
  value: {}
",
        r#"unknown field "spec.value" (did you mean "values"?) (Generator g)"#,
    ),
    (
        "apiVersion: kadmit.dev/v1alpha1
kind: AdmissionModule
metadata: {name: am}
spec:
  exec: {command: [./check.sh]}
  timout: 2s
",
        r#"unknown field "spec.timout" (did you mean "timeout"?) (AdmissionModule am)"#,
    ),
];

#[test]
fn each_configuration_kind_refuses_an_unknown_field() {
    for (config, expected) in EVERY_KIND {
        refused(
            config,
            &[&format!(
                "error: {expected} [config.yaml, document 1, line 1]"
            )],
        );
    }
}

#[test]
fn the_same_documents_on_stdin_are_refused_too() {
    let stream: String = EVERY_KIND
        .iter()
        .map(|(config, _)| format!("---\n{config}"))
        .collect();
    let dir = dir_with(&[]);
    let ran = transform(dir.path(), &[], &format!("{stream}---\n{CONFIGMAP}"));
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    let lines: Vec<&str> = ran.stderr.lines().collect();
    assert_eq!(lines.len(), EVERY_KIND.len(), "{}", ran.stderr);
    for (line, (_, expected)) in lines.iter().zip(EVERY_KIND) {
        assert!(line.starts_with(&format!("error: {expected} [stdin, document ")));
    }
}

#[test]
fn did_you_mean_only_when_one_known_field_is_close() {
    let rule = |extra: &str| {
        format!(
            "apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: {{name: m, namespace: team-a}}
spec:
  type: Reject
  match: [{{select: '$.kind'}}]
  {extra}: x
"
        )
    };
    let line =
        |text: &str| format!("error: {text} (ModRule team-a/m) [config.yaml, document 1, line 1]");
    // Far from every field of the spec: no suggestion.
    refused(
        &rule("frobnicate"),
        &[&line(r#"unknown field "spec.frobnicate""#)],
    );
    // A difference of case alone is close.
    refused(
        &rule("Type"),
        &[&line(r#"unknown field "spec.Type" (did you mean "type"?)"#)],
    );
    // A letter swapped with its neighbour is one edit.
    refused(
        &rule("rejcetMessage"),
        &[&line(
            r#"unknown field "spec.rejcetMessage" (did you mean "rejectMessage"?)"#,
        )],
    );
    // Unknown keys of the metadata are checked against ObjectMeta.
    let labelz = rule("type").replace(
        "metadata: {name: m, namespace: team-a}",
        "metadata: {name: m, namespace: team-a, labelz: {a: b}}",
    );
    refused(
        &labelz.replace("  type: x\n", ""),
        &[&line(
            r#"unknown field "metadata.labelz" (did you mean "labels"?)"#,
        )],
    );
    // The root of the document too.
    refused(
        &format!("{}specs: {{}}\n", modrule("matchValue")),
        &[
            r#"error: unknown field "specs" (did you mean "spec"?) (ModRule team-a/label-configmaps) [config.yaml, document 1, line 1]"#,
        ],
    );
}

#[test]
fn every_unknown_field_of_a_document_is_reported() {
    let config = modrule("matchValu").replace("  - op: add\n", "  - op: add\n    valeu: x\n");
    refused(
        &config,
        &[
            r#"error: unknown field "spec.match[0].matchValu" (did you mean "matchValue"?) (ModRule team-a/label-configmaps) [config.yaml, document 1, line 1]"#,
            r#"error: unknown field "spec.patch[0].valeu" (did you mean "value"?) (ModRule team-a/label-configmaps) [config.yaml, document 1, line 1]"#,
        ],
    );
}

#[test]
fn a_generator_schema_is_decoded_as_a_crd_version() {
    let config = "apiVersion: kadmit.dev/v1alpha1
kind: Generator
metadata: {name: app}
spec:
  group: team.example.com
  names: {kind: App}
  versions:
  - name: v1
    sevred: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, maxium: 3}
  templates:
  - template: 'x: 1'
    nmae: t
";
    let at = "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas";
    refused(
        config,
        &[
            r#"error: unknown field "spec.templates[0].nmae" (did you mean "name"?) (Generator app) [config.yaml, document 1, line 1]"#,
            &format!(
                r#"error: unknown field "{at}.maxium" (did you mean "maximum"?) (Generator app) [config.yaml, document 1, line 1]"#
            ),
            r#"error: unknown field "spec.versions[0].sevred" (did you mean "served"?) (Generator app) [config.yaml, document 1, line 1]"#,
        ],
    );
}

#[test]
fn a_mutator_version_its_crd_lacks_is_checked_against_the_storage_version() {
    // Upstream serves AssignImage as v1alpha1 only; kadmit reads every mutator version.
    let config = EVERY_KIND[4].0;
    assert!(config.contains("apiVersion: mutations.gatekeeper.sh/v1\n"));
    refused(
        config,
        &[&format!(
            "error: {} [config.yaml, document 1, line 1]",
            EVERY_KIND[4].1
        )],
    );
}

#[test]
fn warn_reports_each_field_and_goes_on_without_it() {
    let dir = dir_with(&[("config.yaml", &modrule("matchValu"))]);
    let ran = transform(
        dir.path(),
        &["--config", "config.yaml", "--config-validation", "Warn"],
        CONFIGMAP,
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "warning: unknown field \"spec.match[0].matchValu\" (did you mean \"matchValue\"?) \
         (ModRule team-a/label-configmaps) [config.yaml, document 1, line 1]\n"
    );
    // Without its matchValue the rule matches every kind: what the warning is about.
    assert!(ran.stdout.contains("checked: \"yes\""), "{}", ran.stdout);
}

#[test]
fn warn_on_a_crd_uses_it_without_the_unknown_fields() {
    let crd = widget_crd("                maxium: 3\n                maximum: 4\n");
    let dir = dir_with(&[("crd.yaml", &crd)]);
    let ran = transform(
        dir.path(),
        &["--crd", "crd.yaml", "--config-validation", "warn"],
        WIDGET,
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        format!(
            "warning: unknown field \"{AT}.properties.size.maxium\" (CustomResourceDefinition \
             widgets.example.com) [crd.yaml, document 1, line 1]\n\
             error: Widget team-a/w: The Widget \"w\" is invalid: spec.size: Invalid value: 5: \
             spec.size in body should be less than or equal to 4 [stdin, document 1, line 1]\n"
        )
    );
}

#[test]
fn ignore_is_silent() {
    let crd = widget_crd("                maxium: 3\n");
    let dir = dir_with(&[("config.yaml", &modrule("matchValu")), ("crd.yaml", &crd)]);
    let ran = transform(
        dir.path(),
        &[
            "--config",
            "config.yaml",
            "--crd",
            "crd.yaml",
            "--config-validation",
            "Ignore",
        ],
        &format!("{CONFIGMAP}---\n{WIDGET}"),
    );
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    assert!(ran.stdout.contains("checked: \"yes\""), "{}", ran.stdout);
}

#[test]
fn a_bad_mode_is_a_usage_error() {
    let dir = dir_with(&[]);
    let ran = transform(dir.path(), &["--config-validation", "Lax"], CONFIGMAP);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.starts_with(
            "error: invalid value 'Lax' for '--config-validation <CONFIG_VALIDATION>'"
        ),
        "{}",
        ran.stderr
    );
}

#[test]
fn kustomizes_plugin_fields_are_allowed_in_the_plugin_configuration_only() {
    let config = "apiVersion: kadmit.dev/v1alpha1
kind: PolicySet
metadata:
  name: platform
argsOneLiner: transform --namespace team-a
";
    let dir = dir_with(&[("admission.yaml", config)]);
    let out = kadmit()
        .current_dir(dir.path())
        .arg(dir.path().join("admission.yaml"))
        .write_stdin(CONFIGMAP)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    refused(
        config,
        &[
            r#"error: unknown field "argsOneLiner" (PolicySet platform) [config.yaml, document 1, line 1]"#,
        ],
    );
}

/// Every configuration document of the peers' fixtures decodes strictly: the fixture files
/// (one run per file) and the documents written inline in their `cases.yaml` (one run).
/// Gatekeeper's two kubebuilder placeholder samples (`spec.foo: bar`) are the exception:
/// they are no mutators at all (no location; gator refuses them too).
#[test]
fn every_peer_fixture_decodes_strictly() {
    const PLACEHOLDERS: [&str; 2] = [
        "gatekeeper/config/samples/mutations_v1alpha1_assign.yaml",
        "gatekeeper/config/samples/mutations_v1alpha1_assignmetadata.yaml",
    ];
    if !common::peer_fixtures_present("gatekeeper") || !common::peer_fixtures_present("kubemod") {
        return;
    }
    let root = common::peer_fixtures("gatekeeper").join("..");
    let mut files = Vec::new();
    for peer in ["gatekeeper", "kubemod"] {
        collect_yaml(&root.join(peer), &mut files);
    }
    let mut checked = 0;
    let mut inline = String::new();
    for file in &files {
        let relative = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if relative.contains("/crd/") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        if relative.ends_with("cases.yaml") {
            let docs = common::conformance::load_yaml(file);
            let mut found = Vec::new();
            for doc in &docs {
                configuration_documents(doc, &mut found);
            }
            for (i, mut doc) in found.into_iter().enumerate() {
                // Unique names, so that no two documents collide as rules.
                doc["metadata"]["name"] = Value::String(format!("case-{i}"));
                inline.push_str(&format!("---\n{doc}\n"));
                checked += 1;
            }
            continue;
        }
        if !is_configuration(&text) {
            continue;
        }
        let ran = transform(
            file.parent().unwrap(),
            &["--config", &file.to_string_lossy(), "--allow-empty"],
            "",
        );
        let refused = ran.stderr.contains("unknown field \"");
        let placeholder = PLACEHOLDERS.contains(&relative.as_str());
        assert_eq!(refused, placeholder, "{relative}:\n{}", ran.stderr);
        checked += 1;
    }
    let dir = dir_with(&[]);
    let ran = transform(dir.path(), &["--allow-empty"], &inline);
    let unknown: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| l.contains("unknown field \""))
        .collect();
    assert!(unknown.is_empty(), "{unknown:#?}");
    assert!(checked > 300, "only {checked} fixture documents were found");
}

fn collect_yaml(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_yaml(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

const CONFIGURATION_GROUPS: [&str; 3] = [
    "api.kubemod.io/",
    "mutations.gatekeeper.sh/",
    "expansion.gatekeeper.sh/",
];

fn is_configuration(text: &str) -> bool {
    CONFIGURATION_GROUPS
        .iter()
        .any(|g| text.contains(&format!("apiVersion: {g}")))
}

/// The objects of a configuration group anywhere inside `value`.
fn configuration_documents(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
            let is_config = CONFIGURATION_GROUPS
                .iter()
                .any(|g| api_version.starts_with(g))
                && map.get("metadata").is_some_and(Value::is_object);
            if is_config {
                out.push(value.clone());
            }
            map.values().for_each(|v| configuration_documents(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| configuration_documents(v, out)),
        _ => {}
    }
}

#[test]
fn a_generator_found_under_a_plugin_root_is_decoded_as_strictly() {
    let definition = "apiVersion: kadmit.dev/v1alpha1
kind: Generator
metadata: {name: app}
spec:
  group: team.example.com
  names: {kind: App}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, maxium: 3}
  templates:
  - template: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: '{{ resource.metadata.name }}'}
    nmae: t
";
    let app = "apiVersion: team.example.com/v1
kind: App
metadata: {name: web, namespace: team-a}
spec: {replicas: 5}
";
    let dir = dir_with(&[("plugins/team.example.com/app.yaml", definition)]);
    let generate = |mode: &str| {
        kadmit()
            .current_dir(dir.path())
            .args([
                "generate",
                "--plugin-dir",
                "plugins",
                "--config-validation",
                mode,
            ])
            .write_stdin(app)
            .output()
            .unwrap()
    };
    let lines = |severity: &str| {
        let at = "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas";
        let origin = "(Generator app) [plugins/team.example.com/app.yaml, document 1, line 1]";
        format!(
            "{severity}: unknown field \"spec.templates[0].nmae\" (did you mean \"name\"?) {origin}\n\
             {severity}: unknown field \"{at}.maxium\" (did you mean \"maximum\"?) {origin}\n"
        )
    };
    let strict = generate("Strict");
    assert_eq!(strict.status.code(), Some(2));
    assert_eq!(String::from_utf8(strict.stderr).unwrap(), lines("error"));
    assert!(strict.stdout.is_empty());
    let warn = generate("Warn");
    assert_eq!(warn.status.code(), Some(0));
    assert_eq!(String::from_utf8(warn.stderr).unwrap(), lines("warning"));
    assert!(String::from_utf8(warn.stdout)
        .unwrap()
        .contains("name: web"));
}
