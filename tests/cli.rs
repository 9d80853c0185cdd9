//! The binary, driven the way users and orchestrators drive it.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{json, Value};
use std::path::Path;

fn kadmit() -> Command {
    let mut cmd = Command::cargo_bin("kadmit").expect("binary builds");
    cmd.env_remove("KUSTOMIZE_PLUGIN_CONFIG_ROOT");
    cmd
}

fn transform(input: &str) -> assert_cmd::assert::Assert {
    kadmit().arg("transform").write_stdin(input).assert()
}

/// `transform` with built-in admission off (`--no-builtins`), for inputs holding synthetic
/// built-in objects such as `DEPLOYMENT`: built-in admission is not what those tests are about.
fn transform_no_builtins(input: &str) -> assert_cmd::assert::Assert {
    kadmit()
        .args(["transform", "--no-builtins"])
        .write_stdin(input)
        .assert()
}

fn stdout_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).expect("utf-8 output")
}

fn stderr_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stderr.clone()).expect("utf-8 stderr")
}

/// A synthetic Deployment (no selector, no template: native validation refuses it). The
/// invocations reading it pass `--no-builtins`: they test CLI mechanics, not built-in admission.
const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
";

const CONFIGMAP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-a
data:
  enabled: \"yes\"
";

// 1. Subcommands -------------------------------------------------------------------------

#[test]
fn transform_without_configuration_is_the_identity() {
    let input = format!("{DEPLOYMENT}---\n{CONFIGMAP}");
    // A synthetic object: built-in admission is not what this test is about.
    let a = transform_no_builtins(&input).success();
    assert_eq!(stdout_of(&a), input);
}

#[test]
fn generate_without_virtual_resources_passes_resources_through() {
    let a = kadmit()
        .arg("generate")
        // A synthetic object: built-in admission is not what this test is about.
        .arg("--no-builtins")
        .write_stdin(DEPLOYMENT)
        .assert()
        .success();
    assert_eq!(stdout_of(&a), DEPLOYMENT);
}

#[test]
fn version_and_help() {
    kadmit()
        .arg("version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("kadmit "));
    kadmit()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("127").and(predicate::str::contains("install-plugins")));
}

#[test]
fn unknown_subcommand_exits_127_with_one_line() {
    let a = kadmit().arg("validate").assert().code(127).stdout("");
    let err = stderr_of(&a);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not supported"), "{err}");
}

#[test]
fn no_arguments_and_a_plain_stream_is_not_supported() {
    kadmit()
        .write_stdin(DEPLOYMENT)
        .assert()
        .code(127)
        .stdout("");
    kadmit().write_stdin("a: 1\n").assert().code(127).stdout("");
}

// 2. Invocation protocols ------------------------------------------------------------------

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, text).unwrap();
    path
}

const EMPTY_POLICY_SET: &str = "apiVersion: kadmit.dev/v1alpha1
kind: PolicySet
metadata:
  name: none
";

#[test]
fn legacy_plugin_transformer_reads_stdin_and_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(dir.path(), "kust-plugin-config-123", EMPTY_POLICY_SET);
    let a = kadmit()
        .arg(&config)
        // A synthetic object: built-in admission is not what this test is about.
        .arg("--no-builtins")
        .env("KUSTOMIZE_PLUGIN_CONFIG_ROOT", dir.path())
        .write_stdin(DEPLOYMENT)
        .assert()
        .success();
    assert_eq!(stdout_of(&a), DEPLOYMENT);
}

#[test]
fn legacy_plugin_with_empty_stdin_generates() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        "cfg",
        "apiVersion: nowhere.example.com/v1\nkind: Gadget\nmetadata:\n  name: app\nspec:\n  image: nginx\n",
    );
    // No generator for Gadget exists: generate mode says so (KEP: exit non-0).
    let a = kadmit()
        .arg(&config)
        .write_stdin("")
        .assert()
        .code(2)
        .stdout("");
    assert!(stderr_of(&a).contains("no generator found for group nowhere.example.com kind Gadget"));
    // With stdin, the same configuration is a transformer's: consumed, resources pass.
    let a = kadmit()
        .arg(&config)
        // A synthetic object: built-in admission is not what this test is about.
        .arg("--no-builtins")
        .write_stdin(DEPLOYMENT)
        .assert()
        .success();
    assert_eq!(stdout_of(&a), DEPLOYMENT);
    // An explicit subcommand after the config file wins.
    kadmit()
        .arg(&config)
        .arg("transform")
        .write_stdin("")
        .assert()
        .success()
        .stdout("");
}

#[test]
fn legacy_plugin_paths_resolve_against_kustomize_config_root() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "policies/empty.yaml", EMPTY_POLICY_SET);
    let config = write(
        &dir.path().join("tmp"),
        "kust-plugin-config-1",
        "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata:\n  name: set\nspec:\n  paths: [policies]\n",
    );
    kadmit()
        .arg(&config)
        // A synthetic object: built-in admission is not what this test is about.
        .arg("--no-builtins")
        .env("KUSTOMIZE_PLUGIN_CONFIG_ROOT", dir.path())
        .write_stdin(DEPLOYMENT)
        .assert()
        .success();
    let a = kadmit()
        .arg(&config)
        .current_dir(dir.path().join("tmp"))
        .write_stdin(DEPLOYMENT)
        .assert()
        .code(2)
        .stdout("");
    assert!(stderr_of(&a).contains("policies: no such file or directory"));
}

/// A KRM call without arguments takes no flags, so the Deployment here is a valid one already
/// holding its native defaults: built-in admission leaves it as it is.
const RESOURCE_LIST: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      config.kubernetes.io/index: \"0\"
      internal.config.kubernetes.io/path: deploy.yaml
      internal.config.kubernetes.io/index: \"0\"
      config.k8s.io/id: \"1\"
  spec:
    replicas: 2
    selector:
      matchLabels:
        app: web
    template:
      metadata:
        labels:
          app: web
      spec:
        containers:
        - name: web
          image: nginx:1.27
          imagePullPolicy: IfNotPresent
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
        dnsPolicy: ClusterFirst
        restartPolicy: Always
        securityContext: {}
        terminationGracePeriodSeconds: 30
        schedulerName: default-scheduler
    strategy:
      type: RollingUpdate
      rollingUpdate:
        maxUnavailable: 25%
        maxSurge: 25%
    revisionHistoryLimit: 10
    progressDeadlineSeconds: 600
- apiVersion: kadmit.dev/v1alpha1
  kind: PolicySet
  metadata:
    name: rules
    annotations:
      config.kubernetes.io/local-config: \"true\"
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
";

#[test]
fn krm_function_round_trips_a_resource_list() {
    for args in [vec![], vec!["transform"]] {
        let a = kadmit()
            .args(&args)
            .write_stdin(RESOURCE_LIST)
            .assert()
            .success();
        assert_eq!(stdout_of(&a), RESOURCE_LIST, "args {args:?}");
    }
}

#[test]
fn krm_v1beta1_and_json_input() {
    let list = json!({"apiVersion": "config.kubernetes.io/v1beta1", "kind": "ResourceList",
        "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "on"}}]});
    let a = kadmit().write_stdin(list.to_string()).assert().success();
    let out = stdout_of(&a);
    assert!(
        out.starts_with("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"),
        "{out}"
    );
    assert!(out.contains("a: \"on\""), "{out}");
}

#[test]
fn krm_errors_become_results_and_exit_1_with_items_unchanged() {
    let input = RESOURCE_LIST.replace(
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: function-input\n",
        "functionConfig:\n  apiVersion: kadmit.dev/v1alpha1\n  kind: PolicySet\n  metadata:\n    name: broken\n  spec:\n    paths: [../../outside]\n",
    );
    let a = kadmit()
        .arg("transform")
        .write_stdin(input)
        .assert()
        .code(1);
    let out: Value = parse_yaml_via_kadmit(&stdout_of(&a));
    assert_eq!(out["kind"], json!("ResourceList"));
    assert_eq!(out["items"][0]["spec"]["replicas"], json!(2));
    let result = &out["results"][0];
    assert_eq!(result["severity"], json!("error"));
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .contains("spec.paths[0]"),
        "{result}"
    );
    // Human-readable diagnostics still go to stderr (kustomize never shows results).
    assert!(stderr_of(&a).contains("PolicySet broken"));
}

#[test]
fn krm_generate_when_the_only_input_is_configuration() {
    let input = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: nowhere.example.com/v1
  kind: Gadget
  metadata:
    name: app
    annotations:
      config.kubernetes.io/local-config: \"true\"
functionConfig:
  apiVersion: nowhere.example.com/v1
  kind: Gadget
  metadata:
    name: app
";
    let a = kadmit().write_stdin(input).assert().code(1);
    let out = parse_yaml_via_kadmit(&stdout_of(&a));
    let results = out["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        1,
        "functionConfig and its item copy are one virtual resource"
    );
    assert!(results[0]["message"]
        .as_str()
        .unwrap()
        .contains("no generator found"));
    assert_eq!(results[0]["resourceRef"]["kind"], json!("Gadget"));
}

/// Reads kadmit's own YAML output as JSON by running it through `-o json`.
fn parse_yaml_via_kadmit(yaml: &str) -> Value {
    // A ResourceList is configuration-free data here: decode it with the library's reader.
    let source = std::sync::Arc::from("test");
    let (docs, problems) = kadmit::testing::core::decode::decode_all(yaml.as_bytes(), &source);
    assert!(problems.is_empty(), "{problems:?}");
    docs.into_iter().next().expect("one document").value
}

// 3. install-plugins ---------------------------------------------------------------------

#[test]
fn install_plugins_writes_the_legacy_layout_and_reruns() {
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        kadmit()
            .arg("install-plugins")
            .arg(dir.path())
            .assert()
            .success();
    }
    for entry in [
        "api.kubemod.io/v1beta1/modrule/ModRule",
        "mutations.gatekeeper.sh/v1/assign/Assign",
        "mutations.gatekeeper.sh/v1beta1/assignmetadata/AssignMetadata",
        "mutations.gatekeeper.sh/v1alpha1/modifyset/ModifySet",
        "mutations.gatekeeper.sh/v1alpha1/assignimage/AssignImage",
        "expansion.gatekeeper.sh/v1alpha1/expansiontemplate/ExpansionTemplate",
        "kadmit.dev/v1alpha1/policyset/PolicySet",
    ] {
        assert!(dir.path().join(entry).is_file(), "{entry}");
    }
    // The entry runs kadmit as a legacy plugin.
    let config = write(dir.path(), "cfg.yaml", EMPTY_POLICY_SET);
    let a = Command::new(dir.path().join("kadmit.dev/v1alpha1/policyset/PolicySet"))
        .arg(&config)
        // A synthetic object: built-in admission is not what this test is about.
        .arg("--no-builtins")
        .write_stdin(DEPLOYMENT)
        .assert()
        .success();
    assert_eq!(stdout_of(&a), DEPLOYMENT);
}

// 4. Reading like kubectl ------------------------------------------------------------------

#[test]
fn yaml_1_1_scalars_merge_keys_anchors_and_lists() {
    let input = "apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: a}
  data: &d
    plain: yes
- apiVersion: v1
  kind: Service
  metadata:
    name: b
  spec:
    ports:
    - &p {port: 0755, targetPort: 1_000, protocol: TCP}
    - <<: *p
      port: 0x50
";
    // Synthetic objects (a boolean ConfigMap value, unnamed Service ports): the YAML 1.1
    // reading is what this test is about, not built-in admission.
    let a = transform_no_builtins(input).success();
    assert_eq!(
        stdout_of(&a),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  plain: true\n---\n\
         apiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  ports:\n  \
         - port: 493\n    targetPort: 1000\n    protocol: TCP\n  - port: 80\n    targetPort: 1000\n    protocol: TCP\n"
    );
}

#[test]
fn json_input_and_empty_documents() {
    let a = transform("{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"j\"}}\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"k\"}}").success();
    assert_eq!(stdout_of(&a).matches("kind: ConfigMap").count(), 2);
    // A synthetic object: built-in admission is not what this test is about.
    let a = transform_no_builtins(&format!(
        "---\n---\n# nothing\n---\nnull\n---\n{DEPLOYMENT}---\n"
    ))
    .success();
    assert_eq!(stdout_of(&a), DEPLOYMENT);
}

#[test]
fn every_bad_document_is_reported_with_input_document_and_line() {
    let input = format!(
        "{DEPLOYMENT}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n---\n- just\n- a list\n---\nkind: Pod\nmetadata:\n  name: p\n---\napiVersion: v1\nkind: Pod\nmetadata: {{}}\n"
    );
    let a = transform(&input).code(2).stdout("");
    let err = stderr_of(&a);
    assert_eq!(err.lines().count(), 4, "{err}");
    assert!(
        err.lines().next().unwrap().contains("document 2"),
        "in input order: {err}"
    );
    assert!(
        err.contains("duplicate key \"name\" [stdin, document 2, line 12]"),
        "{err}"
    );
    assert!(
        err.contains("must be a mapping, not a sequence [stdin, document 3, line 14]"),
        "{err}"
    );
    assert!(
        err.contains("no apiVersion [stdin, document 4, line 17]"),
        "{err}"
    );
    assert!(
        err.contains("metadata.name (or metadata.generateName) [stdin, document 5, line 21]"),
        "{err}"
    );
}

#[test]
fn invalid_separator_alias_bombs_and_deep_nesting_fail_cleanly() {
    transform("a: 1\n--- b: 2\n")
        .code(2)
        .stderr(predicate::str::contains("invalid YAML document separator"));
    let mut bomb = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        bomb.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    transform(&bomb)
        .code(2)
        .stderr(predicate::str::contains("excessive aliasing"));
    let deep = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\ndata: {}1{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    transform(&deep)
        .code(2)
        .stderr(predicate::str::contains("cannot read YAML"));
    let deep_block = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\ndata:\n{}x\n",
        "- ".repeat(10_000)
    );
    transform(&deep_block)
        .code(2)
        .stderr(predicate::str::contains("deeper than 512 levels"));
    let deep_json = format!("{{\"a\": {}1{}}}", "[".repeat(10_000), "]".repeat(10_000));
    transform(&deep_json)
        .code(2)
        .stderr(predicate::str::contains("deeper than 512 levels"));
}

// 5. Writing output that means the same --------------------------------------------------------

#[test]
fn strings_that_look_like_other_types_stay_strings() {
    let input = "apiVersion: v1
kind: ConfigMap
metadata:
  name: tricky
data:
  a: 'yes'
  b: \"on\"
  c: '0755'
  d: '1_000'
  e: '12:30'
  f: 'null'
  g: '1e3'
  h: '~'
  i: ''
  j: '2001-12-14'
  'no': key
  k: \"multi\\nline\\n\"
";
    // Untouched, and the same to every reader: written back as it was.
    assert_eq!(stdout_of(&transform(input).success()), input);
    // A tag makes kadmit write the document anew (docs/yaml.md, "Untouched documents").
    let input = format!("{input}  t: !!str tagged\n");
    let a = transform(&input).success();
    assert_eq!(
        stdout_of(&a),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tricky\ndata:\n  a: \"yes\"\n  b: \"on\"\n  c: \"0755\"\n  d: \"1_000\"\n  e: \"12:30\"\n  f: \"null\"\n  g: \"1e3\"\n  h: \"~\"\n  i: \"\"\n  j: \"2001-12-14\"\n  \"no\": key\n  k: |\n    multi\n    line\n  t: tagged\n"
    );
}

#[test]
fn huge_integers_and_non_finite_floats_are_refused() {
    transform(&format!(
        "{DEPLOYMENT}  x: 123456789012345678901234567890\n"
    ))
    .code(2)
    .stderr(predicate::str::contains("does not fit in 64 bits"))
    .stdout("");
    transform(&format!("{DEPLOYMENT}  x: .inf\n"))
        .code(2)
        .stderr(predicate::str::contains("not a finite number"));
    // A synthetic object (and an unknown field): built-in admission is not what this is about.
    transform_no_builtins(&format!("{DEPLOYMENT}  x: 18446744073709551615\n"))
        .success()
        .stdout(predicate::str::contains("x: 18446744073709551615"));
}

#[test]
fn json_and_resourcelist_output_formats() {
    let a = kadmit()
        // A synthetic object: built-in admission is not what this test is about.
        .args(["transform", "--no-builtins", "-o", "json"])
        .write_stdin(format!("{DEPLOYMENT}---\n{CONFIGMAP}"))
        .assert()
        .success();
    let list: Value = serde_json::from_str(&stdout_of(&a)).unwrap();
    assert_eq!(list["kind"], json!("List"));
    assert_eq!(list["items"][1]["data"]["enabled"], json!("yes"));
    let a = kadmit()
        .args(["transform", "--no-builtins", "-o", "resourcelist"])
        .write_stdin(DEPLOYMENT)
        .assert()
        .success();
    assert!(stdout_of(&a).starts_with(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: apps/v1\n"
    ));
}

#[test]
fn annotations_kadmit_does_not_own_pass_through() {
    let input = "apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  annotations:
    internal.config.kubernetes.io/needsHashSuffix: enabled
    config.kubernetes.io/origin: |
      path: base/cm.yaml
    kustomize.config.k8s.io/id: |
      kind: ConfigMap
      name: c
      version: v1
";
    transform(input).success().stdout(input);
}

// 6/7. Identity, scope, configuration ------------------------------------------------------

#[test]
fn namespaceless_resources_are_written_back_unchanged() {
    kadmit()
        // A synthetic object: built-in admission is not what this test is about.
        .args(["transform", "--no-builtins", "--namespace", "team-b"])
        .write_stdin(DEPLOYMENT)
        .assert()
        .success()
        .stdout(DEPLOYMENT);
}

#[test]
fn configuration_is_consumed_unless_kept() {
    let local = "apiVersion: example.com/v1\nkind: Settings\nmetadata:\n  name: s\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n";
    let input = format!("{EMPTY_POLICY_SET}---\n{local}---\n{DEPLOYMENT}");
    // A synthetic object: built-in admission is not what this test is about.
    transform_no_builtins(&input).success().stdout(DEPLOYMENT);
    kadmit()
        .args(["transform", "--no-builtins", "--keep-config"])
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(input);
    // local-config: "false" is a real resource.
    let not_local = local.replace("\"true\"", "\"false\"");
    transform(&not_local).success().stdout(not_local.clone());
}

#[test]
fn unusable_rules_are_refused_not_ignored() {
    let assign = "apiVersion: mutations.gatekeeper.sh/v1\nkind: Assign\nmetadata:\n  name: always-pull\nspec: {}\n";
    let a = transform(&format!("{assign}---\n{DEPLOYMENT}"))
        .code(2)
        .stdout("");
    assert!(
        stderr_of(&a).contains("empty path") && stderr_of(&a).contains("Assign always-pull"),
        "{}",
        stderr_of(&a)
    );
    let assign = "apiVersion: mutations.gatekeeper.sh/v2\nkind: Assign\nmetadata:\n  name: a\n";
    transform(assign).code(2).stderr(predicate::str::contains(
        "not a version kadmit reads (known: v1, v1beta1, v1alpha1)",
    ));
    transform("apiVersion: kadmit.dev/v1alpha1\nkind: Frobnicator\nmetadata:\n  name: f\n")
        .code(2)
        .stderr(predicate::str::contains(
            "unknown kind kadmit.dev/v1alpha1 Frobnicator",
        ));
}

#[test]
fn config_paths_and_policy_sets_are_loaded_and_confined() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    write(&root, "rules/a.yaml", EMPTY_POLICY_SET);
    write(
        &root,
        "rules/nested/b.yml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n",
    );
    write(&root, "rules/ignored.txt", "not yaml at all: [");
    write(dir.path(), "outside/x.yaml", EMPTY_POLICY_SET);
    write(&root, "set.yaml", "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata:\n  name: s\nspec:\n  paths:\n  - rules\n  - ../outside\n");
    kadmit()
        .arg("transform")
        // A synthetic object: built-in admission is not what this test is about.
        .arg("--no-builtins")
        .arg("--config")
        .arg(root.join("rules"))
        .write_stdin(DEPLOYMENT)
        .assert()
        .success()
        .stdout(DEPLOYMENT);
    let a = kadmit()
        .arg("transform")
        .arg("--config")
        .arg(root.join("set.yaml"))
        .write_stdin(DEPLOYMENT)
        .assert()
        .code(2)
        .stdout("");
    let err = stderr_of(&a);
    assert!(
        err.contains("spec.paths[1]: ../outside: resolves outside the configuration root"),
        "{err}"
    );
    kadmit()
        .arg("transform")
        .arg("--allow-paths-outside-root")
        .arg("--no-builtins")
        .arg("--config")
        .arg(root.join("set.yaml"))
        .write_stdin(DEPLOYMENT)
        .assert()
        .success();
}

// 8. Pipeline, report, annotate ---------------------------------------------------------------

#[test]
fn report_lists_diagnostics_and_changes() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    kadmit()
        // A synthetic object: built-in admission is not what this test is about.
        .args(["transform", "--no-builtins", "--annotate", "--report"])
        .arg(&report)
        .write_stdin(DEPLOYMENT)
        .assert()
        .success()
        .stdout(DEPLOYMENT);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["kind"], json!("Report"));
    assert_eq!(r["changes"], json!([]));
    assert_eq!(r["summary"], json!({"errors": 0, "warnings": 0}));

    let a = kadmit()
        .args(["transform", "--report", "-"])
        .write_stdin("apiVersion: v1\nkind: Pod\n")
        .assert()
        .code(2);
    let err = stderr_of(&a);
    let json_start = err.find('{').unwrap();
    let r: Value = serde_json::from_str(&err[json_start..]).unwrap();
    assert_eq!(r["diagnostics"][0]["category"], json!("input"));
    assert_eq!(
        r["diagnostics"][0]["file"],
        json!({"path": "stdin", "index": 0, "line": 1})
    );
}

// 9. Failing safely --------------------------------------------------------------------------

#[test]
fn failure_writes_no_stream_and_reports_every_problem() {
    let input = format!("{DEPLOYMENT}---\nkind: A\n---\n{CONFIGMAP}---\nkind: B\n");
    let a = transform(&input).code(2).stdout("");
    assert_eq!(stderr_of(&a).matches("error:").count(), 2);
}

// Regressions found while documenting ------------------------------------------------------

#[test]
fn config_file_given_by_bare_name_resolves_against_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "rules/empty.yaml", EMPTY_POLICY_SET);
    write(
        dir.path(),
        "set.yaml",
        "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata:\n  name: s\nspec:\n  paths: [rules]\n",
    );
    kadmit()
        // A synthetic object: built-in admission is not what this test is about.
        .args(["transform", "--no-builtins", "--config", "set.yaml"])
        .current_dir(dir.path())
        .write_stdin(DEPLOYMENT)
        .assert()
        .success()
        .stdout(DEPLOYMENT);
}

#[cfg(unix)]
#[test]
fn symbolic_links_in_config_directories_are_followed_inside_the_root_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    write(
        &root,
        "real/rule.yaml",
        "apiVersion: kadmit.dev/v1alpha1\nkind: Frobnicator\nmetadata:\n  name: inside\n",
    );
    write(dir.path(), "outside.yaml", EMPTY_POLICY_SET);
    std::fs::create_dir_all(root.join("links")).unwrap();
    std::os::unix::fs::symlink(root.join("real/rule.yaml"), root.join("links/in.yaml")).unwrap();
    // The link inside the root is read: its (unknown) kind is reported.
    kadmit()
        .arg("transform")
        .arg("--config")
        .arg(&root)
        .write_stdin(DEPLOYMENT)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Frobnicator"));
    std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
    write(dir.path(), "elsewhere/x.yaml", EMPTY_POLICY_SET);
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), root.join("linked-dir")).unwrap();
    kadmit()
        .arg("transform")
        // A synthetic object: built-in admission is not what this test is about.
        .arg("--no-builtins")
        .arg("--config")
        .arg(root.join("linked-dir"))
        .write_stdin(DEPLOYMENT)
        .assert()
        .success();
    kadmit()
        .arg("transform")
        .arg("--config")
        .arg(&root)
        .write_stdin(DEPLOYMENT)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "linked-dir: a symbolic link out of the configuration root",
        ));
    std::fs::remove_file(root.join("linked-dir")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside.yaml"), root.join("links/out.yaml"))
        .unwrap();
    kadmit()
        .arg("transform")
        .arg("--config")
        .arg(root.join("links"))
        .write_stdin(DEPLOYMENT)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a symbolic link out of the configuration root",
        ));
}

#[test]
fn context_objects_in_config_files_are_not_generator_input() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "ns.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n",
    );
    kadmit()
        .arg("generate")
        // A synthetic object: built-in admission is not what this test is about.
        .arg("--no-builtins")
        .arg("--config")
        .arg(dir.path())
        .write_stdin(DEPLOYMENT)
        .assert()
        .success()
        .stdout(DEPLOYMENT);
}

const FRESH_KPT_PACKAGE: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: p
    annotations:
      config.kubernetes.io/local-config: \"true\"
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kptfile.kpt.dev
    annotations:
      config.kubernetes.io/local-config: \"true\"
  data:
    name: p
";

#[test]
fn a_fresh_kpt_package_passes_through_without_a_subcommand() {
    kadmit()
        .write_stdin(FRESH_KPT_PACKAGE)
        .assert()
        .success()
        .stdout(FRESH_KPT_PACKAGE);
    kadmit()
        .arg("generate")
        .write_stdin(FRESH_KPT_PACKAGE)
        .assert()
        .success();
}

#[test]
fn krm_failure_echoes_every_item_but_only_as_a_resource_list() {
    let input = RESOURCE_LIST.replace(
        "items:\n",
        "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {}\n",
    );
    let a = kadmit()
        .arg("transform")
        .write_stdin(input.clone())
        .assert()
        .code(1);
    let out = parse_yaml_via_kadmit(&stdout_of(&a));
    assert_eq!(
        out["items"].as_array().unwrap().len(),
        3,
        "the unidentified item is echoed too"
    );
    assert_eq!(
        out["items"][0],
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})
    );
    kadmit()
        .args(["transform", "-o", "yaml"])
        .write_stdin(input)
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn a_broken_resource_list_reports_its_syntax_error() {
    kadmit()
        .write_stdin("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read YAML"));
}

#[test]
fn custom_resources_are_checked_against_their_crd_in_the_stream() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    kind: Widget\n    plural: widgets\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          size:\n            type: integer\n            maximum: 10\n            default: 1\n";
    let widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";
    transform(&format!("{crd}---\n{widget}"))
        .success()
        .stdout(format!("{crd}---\n{widget}size: 1\n"));
    let a = transform(&format!("{crd}---\n{widget}size: 11\n"))
        .code(1)
        .stdout("");
    assert!(
        stderr_of(&a).contains(
            "The Widget \"w\" is invalid: size: Invalid value: 11: size in body should be less than or equal to 10"
        ),
        "{}",
        stderr_of(&a)
    );
    let no_versions = crd.split("  versions:").next().unwrap().to_owned();
    let b = transform(&format!("{no_versions}---\n{widget}")).code(2);
    assert!(
        stderr_of(&b).contains("The CustomResourceDefinition \"widgets.example.com\" is invalid"),
        "{}",
        stderr_of(&b)
    );
}

#[test]
fn a_configmap_function_config_is_settings_not_generator_input() {
    let input = RESOURCE_LIST.replace(
        "name: function-input",
        "name: my-settings\n  data:\n    mode: strict",
    );
    let a = kadmit().write_stdin(input).assert().success();
    assert!(stderr_of(&a).contains("functionConfig ConfigMap my-settings is ignored"));
}

#[test]
fn version_names_the_commit_and_its_date() {
    let a = kadmit().arg("version").assert().success();
    let line = stdout_of(&a);
    assert!(
        line.starts_with(concat!("kadmit ", env!("CARGO_PKG_VERSION"), " (commit ")),
        "{line}"
    );
    assert_eq!(line.lines().count(), 1, "{line}");
    let b = kadmit().arg("--version").assert().success();
    assert_eq!(stdout_of(&b), line);
}

#[test]
fn completion_scripts_for_bash_zsh_and_fish() {
    for (shell, marker) in [
        ("bash", "complete -F _kadmit"),
        ("zsh", "#compdef kadmit"),
        ("fish", "complete -c kadmit"),
    ] {
        let a = kadmit().args(["completion", shell]).assert().success();
        let script = stdout_of(&a);
        assert!(script.contains(marker), "{shell}: {script}");
        // Flags without their dashes: fish spells `--config` as `-l config`.
        for word in ["transform", "diff", "config", "report-format"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    kadmit()
        .args(["completion", "powershell7"])
        .assert()
        .code(2);
}

#[test]
fn quiet_prints_only_errors() {
    // A rule that matched no object is an info line; a deprecated-field drop a warning.
    let input = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
    let dir = tempfile::tempdir().unwrap();
    let rule = dir.path().join("rule.yaml");
    std::fs::write(
        &rule,
        "apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata: {name: r}\nspec:\n  type: Patch\n  match:\n  - select: '$.kind'\n    matchValue: Secret\n  patch:\n  - op: add\n    path: /metadata/labels/x\n    value: '\"y\"'\n",
    )
    .unwrap();
    let loud = kadmit()
        .args(["transform", "--config", rule.to_str().unwrap()])
        .write_stdin(input)
        .assert()
        .success();
    assert!(stderr_of(&loud).contains("info:"), "{}", stderr_of(&loud));
    let quiet = kadmit()
        .args(["transform", "-q", "--config", rule.to_str().unwrap()])
        .write_stdin(input)
        .assert()
        .success();
    assert_eq!(stderr_of(&quiet), "");
    assert_eq!(stdout_of(&quiet), stdout_of(&loud));
    // Errors still reach stderr.
    kadmit()
        .args(["transform", "--quiet"])
        .write_stdin("apiVersion: v1\nkind: ConfigMap\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error:"));
}
