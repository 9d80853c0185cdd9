//! KRM mode hands back what it did not change as it came: an item no rule changed is
//! written byte for byte from its own lines, and a changed item keeps the lines of every
//! top-level key whose value did not change (docs/yaml.md, "What kadmit writes").

use predicates::prelude::*;

mod common;

use common::{kadmit_bin, kadmit_isolated as kadmit, require_tool, run, shell_quote, write};
use std::process::Command;

const HEAD: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n";

/// Flow style, quotes kadmit would not write, comments, odd spacing, a block scalar.
const SERVICE: &str = r#"- apiVersion: v1
  kind: Service
  metadata: {name: front, labels: {app: web}}
  # the selector
  spec:
    selector:
      app: "front"   # quoted
    ports: [{port: 80, targetPort: 'http'}]
"#;

/// A valid Deployment (native validation refuses one without a selector), in flow style too.
const DEPLOYMENT: &str = r#"- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    labels: {app: web}
    annotations:
      note: |
        two
        lines
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: c, image: "nginx:1.25"}]
"#;

const REPLICAS_RULE: &str = r#"apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: {name: replicas}
spec:
  type: Patch
  match:
  - select: '$.kind'
    matchValue: Deployment
  patch:
  - op: replace
    path: /spec/replicas
    value: '3'
"#;

#[test]
fn unchanged_items_come_back_byte_for_byte() {
    let input = format!("{HEAD}{SERVICE}{DEPLOYMENT}");
    // Native defaults would count as changes: without them no rule changes these items.
    kadmit()
        .args(["transform", "--no-defaults"])
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(input);
}

#[test]
fn indented_item_lists_are_shifted_but_otherwise_kept() {
    let indented: String = format!("{SERVICE}{DEPLOYMENT}")
        .lines()
        .map(|l| format!("    {l}\n"))
        .collect();
    let input = format!("{HEAD}{indented}");
    // Native defaults would count as changes: without them no rule changes these items.
    kadmit()
        .args(["transform", "--no-defaults"])
        .write_stdin(input)
        .assert()
        .success()
        .stdout(format!("{HEAD}{SERVICE}{DEPLOYMENT}"));
}

#[test]
fn a_changed_item_keeps_the_lines_of_its_unchanged_keys() {
    let dir = tempfile::tempdir().unwrap();
    let rule = write(dir.path(), "rule.yaml", REPLICAS_RULE);
    // Native defaults would change the Service and more of the Deployment: only the rule's
    // change is what this test is about.
    let out = kadmit()
        .args(["transform", "--no-defaults", "--config"])
        .arg(&rule)
        .write_stdin(format!("{HEAD}{SERVICE}{DEPLOYMENT}"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    // The Service is untouched; the Deployment's apiVersion, kind and metadata (flow labels,
    // the block scalar) are its own lines; spec changed and is written anew.
    let expected_deployment = "- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    labels: {app: web}
    annotations:
      note: |
        two
        lines
  spec:
    replicas: 3
    selector:
      matchLabels:
        app: web
    template:
      metadata:
        labels:
          app: web
      spec:
        containers:
        - name: c
          image: nginx:1.25
";
    assert_eq!(out, format!("{HEAD}{SERVICE}{expected_deployment}"));
}

/// With built-in admission's defaults on (the default), the native defaults are changes like
/// any rule's: the Deployment gets them, written anew under `spec` while its other top-level
/// keys keep their lines; a ConfigMap has no defaults and comes back byte for byte.
#[test]
fn native_defaults_change_only_the_items_they_apply_to() {
    let config_map = "- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings}   # flow style
  data:
    mode: 'strict'
    limit: \"10\"
";
    let expected_deployment = "- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    labels: {app: web}
    annotations:
      note: |
        two
        lines
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
        - name: c
          image: nginx:1.25
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
";
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    kadmit()
        .args(["transform", "--report"])
        .arg(&report)
        .write_stdin(format!("{HEAD}{config_map}{DEPLOYMENT}"))
        .assert()
        .success()
        .stdout(format!("{HEAD}{config_map}{expected_deployment}"));
    // The report names the defaults as the Deployment's only changes, and nothing else.
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let changes = report["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{report}");
    assert_eq!(changes[0]["resource"]["kind"], "Deployment", "{report}");
    assert!(
        changes[0]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["rule"] == "defaults apps/v1 Deployment"),
        "{report}"
    );
}

#[test]
fn a_failed_call_echoes_the_items_as_they_came() {
    let bad = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: \"x\"}\n  data: {a: 1}\n  data2: [1, 2]\n";
    let dir = tempfile::tempdir().unwrap();
    let rule = write(
        dir.path(),
        "rule.yaml",
        "apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata: {name: no}\nspec:\n  type: Reject\n  rejectMessage: refused\n  match:\n  - select: '$.kind'\n    matchValue: ConfigMap\n",
    );
    let out = kadmit()
        .args(["transform", "--config"])
        .arg(&rule)
        .write_stdin(format!("{HEAD}{SERVICE}{bad}"))
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.starts_with(&format!("{HEAD}{SERVICE}{bad}results:\n")),
        "{out}"
    );
}

#[test]
fn items_whose_lines_do_not_read_back_alone_are_written_anew() {
    // The second item aliases an anchor of the first: its lines alone do not read back, so
    // it is written from its value; the first is still its own bytes.
    let first = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data: &d {k: 'v'}\n";
    let second = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n  data: *d\n";
    kadmit()
        .arg("transform")
        .write_stdin(format!("{HEAD}{first}{second}"))
        .assert()
        .success()
        .stdout(format!(
            "{HEAD}{first}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n  data:\n    k: v\n"
        ));
    // A flow list of items has no lines of its own: all are written anew, as before.
    kadmit()
        .arg("transform")
        .write_stdin(
            format!("{HEAD}  [{{apiVersion: v1, kind: ConfigMap, metadata: {{name: a}}}}]\n")
                .replace("items:\n  [", "items: ["),
        )
        .assert()
        .success()
        .stdout(predicate::str::ends_with(
            "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n",
        ));
}

/// The issue's case: `kpt fn eval --exec kadmit` on a package with flow style and quotes
/// leaves every file as it was when no rule changes anything.
#[test]
fn kpt_in_place_leaves_untouched_files_as_they_were() {
    if !require_tool("kpt") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir(&pkg).unwrap();
    let files = [
        (
            "service.yaml",
            "# the front door\napiVersion: v1\nkind: Service\nmetadata: {name: front, labels: {app: web}}\nspec:\n  selector:\n    app: \"front\"\n  ports: [{port: 80}]\n",
        ),
        (
            "deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: \"web\"}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: 'nginx:1.25'}]\n",
        ),
    ];
    for (name, text) in files {
        write(&pkg, name, text);
    }
    // Native defaults would count as changes: without them no rule changes these files.
    let exec = format!(
        "{} transform --no-defaults",
        shell_quote(&kadmit_bin().display().to_string())
    );
    let ran = run(
        Command::new("kpt")
            .args(["fn", "eval", "pkg", "--exec", &exec])
            .current_dir(dir.path()),
        None,
    );
    assert!(ran.status.success(), "{}: {}", ran.what, ran.stderr);
    for (name, text) in files {
        let after = std::fs::read_to_string(pkg.join(name)).unwrap();
        assert_eq!(after, text, "{name} changed under kpt fn eval");
    }
}
