//! AdmissionModules in `kadmit transform`: mutating modules change resources (recorded in
//! the report, after KubeMod and Gatekeeper, in configuration order), validating modules
//! reject them (exit 1), a module that fails is an error naming the module and the
//! resource (exit 2), configuration errors name their field, and output is the same
//! byte for byte on every run.

mod common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn modules_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/modules")
}

/// A configuration root holding the test modules under `modules/` (wasm) and `exec/`.
fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["wasm", "exec"] {
        let target = dir
            .path()
            .join(if sub == "wasm" { "modules" } else { "exec" });
        std::fs::create_dir(&target).unwrap();
        for entry in std::fs::read_dir(modules_dir().join(sub)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, target.join(path.file_name().unwrap())).unwrap();
        }
    }
    dir
}

fn module(name: &str, spec: &str) -> String {
    format!("apiVersion: kadmit.dev/v1alpha1\nkind: AdmissionModule\nmetadata:\n  name: {name}\nspec:\n{spec}---\n")
}

/// Set in kadmit's environment; an exec module must not see it.
const CANARY: &str = "KADMIT_TEST_CANARY";

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    report: Value,
}

fn transform(root: &Path, config: &str, input: &str, extra: &[&str]) -> Ran {
    std::fs::write(root.join("admission.yaml"), config).unwrap();
    let report = root.join("report.json");
    let output = Command::cargo_bin("kadmit")
        .unwrap()
        .arg("transform")
        .arg("--config")
        .arg(root.join("admission.yaml"))
        .arg("--report")
        .arg(&report)
        .args(extra)
        .env(CANARY, "must not reach a module")
        .write_stdin(input)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let report = std::fs::read_to_string(&report).unwrap_or_else(|_| "null".into());
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
        report: serde_json::from_str(&report).unwrap(),
    }
}

const CONFIGMAP: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n";
const NOT_ALLOWED: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: team-a\ndata:\n  not-allowed-value: x\n";

/// `(path, rule)` of every change the report records, in order.
fn changes(report: &Value) -> Vec<(String, String)> {
    report["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| r["changes"].as_array().unwrap().clone())
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_owned(),
                c["rule"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn the_specification_examples_in_a_pipeline() {
    let root = root();
    let config = module(
        "magic-mutator",
        "  module: modules/magic-mutator.wasm\n  mutating: true\n",
    ) + &module(
        "magic-validator",
        "  module: modules/magic-validator.wasm\n",
    );
    let ran = transform(root.path(), &config, CONFIGMAP, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stdout,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n  magic-value: foobar\n",
        "the namespace kadmit lent the module is not written out"
    );
    assert_eq!(
        changes(&ran.report),
        vec![(
            "/data/magic-value".to_owned(),
            "AdmissionModule magic-mutator".to_owned()
        )]
    );
    let ran = transform(
        root.path(),
        &config,
        &format!("{CONFIGMAP}---\n{NOT_ALLOWED}"),
        &[],
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(ran.stdout.is_empty(), "nothing partial: {}", ran.stdout);
    assert!(ran.stderr.contains(
        "error: ConfigMap team-a/bad: admission WASM module \"magic-validator\" denied the request: value not-allowed-value not allowed in configmap (AdmissionModule magic-validator) [stdin, document 2, line"
    ), "{}", ran.stderr);
}

#[test]
fn modules_follow_gatekeeper_in_configuration_order() {
    let root = root();
    let gatekeeper = "apiVersion: mutations.gatekeeper.sh/v1\nkind: AssignMetadata\nmetadata:\n  name: team\nspec:\n  match:\n    kinds: [{apiGroups: [\"\"], kinds: [ConfigMap]}]\n  location: metadata.labels.team\n  parameters:\n    assign:\n      value: platform\n---\n";
    let config = module(
        "jsonpatch-mutator",
        "  module: modules/jsonpatch-mutator.wasm\n  mutating: true\n",
    ) + &module(
        "magic-mutator",
        "  module: modules/magic-mutator.wasm\n  mutating: true\n",
    ) + gatekeeper
        + &module(
            "needs-team",
            "  module: modules/settings-validator.wasm\n  settings:\n    requiredLabels: [team]\n",
        );
    let ran = transform(root.path(), &config, CONFIGMAP, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let rules: Vec<String> = changes(&ran.report)
        .into_iter()
        .map(|(_, rule)| rule)
        .collect();
    assert_eq!(
        rules,
        vec![
            "AssignMetadata team",
            "AdmissionModule jsonpatch-mutator",
            "AdmissionModule magic-mutator"
        ],
        "{:#}",
        ran.report
    );
    assert!(
        ran.stdout.contains("kadmit.dev/checked: \"true\""),
        "{}",
        ran.stdout
    );
    // jsonpatch-mutator always warns: warnings are reported and do not fail the run.
    assert!(
        ran.stderr.contains("warning: ConfigMap settings:"),
        "{}",
        ran.stderr
    );
}

#[test]
fn the_match_block_selects_what_a_module_sees() {
    let root = root();
    let config = module(
        "trap-on-secrets",
        "  module: modules/hostile-trap.wasm\n  match:\n    kinds: [{apiGroups: [\"\"], kinds: [Secret]}]\n",
    );
    let ran = transform(root.path(), &config, CONFIGMAP, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n";
    let ran = transform(root.path(), &config, secret, &[]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("error: Secret default/s:") || ran.stderr.contains("error: Secret s:"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_failing_module_names_itself_and_the_resource() {
    let root = root();
    let cases = [
        (
            "hostile-loop",
            "  timeout: 200ms\n",
            "failed: it ran longer than its timeout of 200ms and was stopped",
        ),
        (
            "hostile-memory",
            "  memoryLimit: 4Mi\n",
            "failed: it needed more memory than its memory limit of 4Mi and was stopped",
        ),
        (
            "hostile-trap",
            "",
            "failed: trapped: wasm `unreachable` instruction executed",
        ),
        (
            "hostile-garbage",
            "",
            "returned an invalid response: the output is not JSON",
        ),
        (
            "hostile-wrong-uid",
            "",
            "returned an invalid response: expected response.uid=",
        ),
        ("hostile-exit", "", "failed: exited with status 3"),
    ];
    for (name, limits, message) in cases {
        let config = module(name, &format!("  module: modules/{name}.wasm\n{limits}"));
        let started = Instant::now();
        let ran = transform(root.path(), &config, CONFIGMAP, &[]);
        assert_eq!(ran.code, 2, "{name}: {}", ran.stderr);
        assert!(ran.stdout.is_empty());
        let expected =
            format!("error: ConfigMap settings: admission WASM module \"{name}\" {message}");
        assert!(
            ran.stderr.contains(&expected),
            "{name}: expected {expected:?} in\n{}",
            ran.stderr
        );
        assert!(
            ran.stderr.contains(&format!("(AdmissionModule {name})")),
            "{}",
            ran.stderr
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{name}: {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn problems_at_load_are_configuration_errors() {
    let root = root();
    std::fs::write(root.path().join("../outside.wasm"), b"").ok();
    let cases = [
        (
            module(
                "no-validate",
                "  module: modules/hostile-no-validate.wasm\n",
            ),
            "missing function 'validate' in module 'no-validate'",
        ),
        (
            module("escape", "  module: ../outside.wasm\n"),
            "spec.module: ../outside.wasm: resolves outside the configuration root",
        ),
        (
            module("absent", "  module: modules/absent.wasm\n"),
            "spec.module: modules/absent.wasm: no such file or directory",
        ),
        (
            module("garbage", "  module: admission.yaml\n"),
            "spec.module: admission.yaml: not a valid WebAssembly module",
        ),
        (
            module(
                "slow",
                "  module: modules/magic-validator.wasm\n  timeout: soon\n",
            ),
            "spec.timeout: Invalid value: invalid duration \"soon\"",
        ),
        (
            module(
                "both",
                "  module: modules/magic-validator.wasm\n  exec:\n    command: [x]\n",
            ),
            "spec.module and spec.exec are mutually exclusive",
        ),
        (
            module(
                "typo",
                "  module: modules/magic-validator.wasm\n  mutate: true\n",
            ),
            // Refused by the strict decode against the AdmissionModule CRD, before the
            // module engine reads the spec.
            "unknown field \"spec.mutate\"",
        ),
    ];
    for (config, message) in cases {
        let ran = transform(root.path(), &config, CONFIGMAP, &[]);
        assert_eq!(ran.code, 2, "{message}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(message),
            "expected {message:?} in\n{}",
            ran.stderr
        );
        assert!(ran.stderr.contains("(AdmissionModule "), "{}", ran.stderr);
    }
}

#[test]
fn a_validating_module_may_not_patch() {
    let root = root();
    let config = module("magic-mutator", "  module: modules/magic-mutator.wasm\n");
    let ran = transform(root.path(), &config, CONFIGMAP, &[]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .contains("validating webhook may not return response.patch"),
        "{}",
        ran.stderr
    );
}

#[test]
fn settings_are_sent_only_when_configured() {
    let root = root();
    let ran = transform(
        root.path(),
        &module(
            "needs-settings",
            "  module: modules/settings-validator.wasm\n",
        ),
        CONFIGMAP,
        &[],
    );
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .contains("envelope error: 'settings are required"),
        "{}",
        ran.stderr
    );
    let with = module(
        "needs-owner",
        "  module: modules/settings-validator.wasm\n  settings:\n    requiredLabels: [owner, team]\n",
    );
    let ran = transform(root.path(), &with, CONFIGMAP, &[]);
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr
            .contains("denied the request: missing required labels: owner, team"),
        "{}",
        ran.stderr
    );
}

const POD_LATEST: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: nginx:latest\n";
const POD_PINNED: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: nginx:1.27\n";

#[test]
fn kubewarden_policies_validate_and_mutate() {
    let root = root();
    let config = module(
        "kubewarden-policy",
        "  module: modules/kubewarden-policy.wasm\n  protocol: kubewarden-wasi\n  mutating: true\n  settings:\n    addLabel: {key: policy, value: checked}\n",
    );
    let ran = transform(root.path(), &config, POD_LATEST, &[]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("container web uses image nginx:latest"),
        "{}",
        ran.stderr
    );
    // The Pod is valid; its native defaults would be reported as changes too and bury the
    // module's patch that this test checks.
    let ran = transform(root.path(), &config, POD_PINNED, &["--no-defaults"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("policy: checked"), "{}", ran.stdout);
    assert_eq!(
        changes(&ran.report),
        vec![(
            "/metadata/labels".to_owned(),
            "AdmissionModule kubewarden-policy".to_owned()
        )]
    );
    let bad = module(
        "kubewarden-policy",
        "  module: modules/kubewarden-policy.wasm\n  protocol: kubewarden-wasi\n  settings:\n    frobnicate: 1\n",
    );
    let ran = transform(root.path(), &bad, POD_PINNED, &[]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .contains("spec.settings: Provided settings are not valid"),
        "{}",
        ran.stderr
    );
}

#[test]
fn exec_modules_run_in_the_configuration_root() {
    if !common::require_tool("python3") {
        return;
    }
    let root = root();
    // Python's start-up can take longer than the default 1 s on a loaded CI machine; the
    // timeout is not what this test is about.
    let config = module(
        "deny-latest",
        "  exec:\n    command: [./exec/deny-latest.py]\n  timeout: 20s\n",
    );
    let ran = transform(root.path(), &config, POD_LATEST, &[]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("admission exec module \"deny-latest\" denied the request"),
        "{}",
        ran.stderr
    );
    assert_eq!(transform(root.path(), &config, POD_PINNED, &[]).code, 0);
    // A module that reports what it was given: argv, working directory, environment.
    std::fs::write(
        root.path().join("exec/report.py"),
        r#"import json, os, sys
review = json.load(sys.stdin)["request"]
request = review["request"]
seen = {"argv": sys.argv[1:], "cwd": os.getcwd(), "env": sorted(os.environ),
        "resource": request["resource"]["resource"], "user": request["userInfo"],
        "dryRun": request["dryRun"], "operation": request["operation"], "namespace": request.get("namespace")}
print(json.dumps({"response": {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
    "response": {"uid": request["uid"], "allowed": True, "warnings": [json.dumps(seen, sort_keys=True)]}}}))
"#,
    )
    .unwrap();
    let config = module(
        "report",
        "  exec:\n    command: [python3, exec/report.py]\n  timeout: 20s\n",
    );
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: mice.example.com\nspec:\n  group: example.com\n  scope: Cluster\n  names: {kind: Mouse, plural: mice, singular: mouse, listKind: MouseList}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}\n---\n";
    let mouse = "apiVersion: example.com/v1\nkind: Mouse\nmetadata:\n  name: jerry\n";
    let ran = transform(
        root.path(),
        &(crd.to_owned() + &config),
        mouse,
        &[
            "--user",
            "alice",
            "--group",
            "devs",
            "--operation",
            "UPDATE",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let warning = ran
        .stderr
        .lines()
        .find(|l| l.starts_with("warning: Mouse jerry: "))
        .expect(&ran.stderr);
    let json = warning.trim_start_matches("warning: Mouse jerry: ");
    let json = &json[..json.rfind(" (AdmissionModule report)").unwrap()];
    let seen: Value = serde_json::from_str(json).unwrap();
    assert_eq!(seen["argv"], serde_json::json!(["validate"]));
    assert_eq!(
        Path::new(seen["cwd"].as_str().unwrap()),
        root.path().canonicalize().unwrap()
    );
    // The interpreter may add its own variables (a pyenv shim does); none of kadmit's pass.
    let env: Vec<&str> = seen["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(env.contains(&"PATH"), "{env:?}");
    for leaked in [CANARY, "HOME", "CARGO_MANIFEST_DIR", "USER"] {
        assert!(
            !env.contains(&leaked),
            "{leaked} reached the module: {env:?}"
        );
    }
    assert_eq!(seen["resource"], "mice", "the CRD's plural");
    assert_eq!(
        seen["user"],
        serde_json::json!({"username": "alice", "groups": ["devs", "system:authenticated"]})
    );
    assert_eq!(seen["dryRun"], true);
    assert_eq!(seen["operation"], "UPDATE");
    assert_eq!(
        seen["namespace"],
        Value::Null,
        "a cluster-scoped kind has no namespace"
    );
}

#[test]
fn two_runs_write_the_same_bytes() {
    let root = root();
    let config = module(
        "magic-mutator",
        "  module: modules/magic-mutator.wasm\n  mutating: true\n",
    ) + &module(
        "jsonpatch-mutator",
        "  module: modules/jsonpatch-mutator.wasm\n  mutating: true\n",
    ) + &module("probe", "  module: modules/hostile-wasi-probe.wasm\n");
    let input = format!("{CONFIGMAP}---\n{}", CONFIGMAP.replace("settings", "other"));
    let first = transform(root.path(), &config, &input, &[]);
    let second = transform(root.path(), &config, &input, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(first.stdout, second.stdout);
    assert_eq!(first.stderr, second.stderr);
    assert_eq!(first.report, second.report);
    // Idempotent: the output admitted again changes nothing.
    let again = transform(root.path(), &config, &first.stdout, &[]);
    assert_eq!(again.stdout, first.stdout);
    assert!(changes(&again.report).is_empty(), "{:#}", again.report);
}
