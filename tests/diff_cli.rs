//! `kadmit diff` through the binary: hunks naming the rules whose changes fall in them,
//! rejections and warnings in place, the summary line, exit codes as `transform`'s,
//! `--color` and `NO_COLOR`, and a golden diff of the shipped examples/kubemod.
//!
//! The golden file is tests/golden/kubemod.diff. Regenerate it from the repository root
//! with the binary under test, then read the change:
//! `kadmit diff --config examples/kubemod/admission.yaml < examples/kubemod/workloads.yaml > tests/golden/kubemod.diff`.

mod common;

use assert_cmd::Command;
use std::path::Path;

fn kadmit(args: &[&str], input: &str) -> assert_cmd::assert::Assert {
    Command::cargo_bin("kadmit")
        .unwrap()
        .env_remove("NO_COLOR")
        .args(args)
        .write_stdin(input)
        .assert()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

/// A configuration file in a fresh directory.
fn config(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("admission.yaml");
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap().to_owned();
    (dir, path)
}

const ADD_TEAM: &str = "apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: add-team
  namespace: team-a
spec:
  type: Patch
  match:
  - select: '$.kind'
    matchValue: 'Pod'
  patch:
  - op: add
    path: /metadata/labels/team
    value: a
";

const REJECT_EXTERNAL_IPS: &str = "apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: no-external-ips
spec:
  type: Reject
  rejectMessage: 'external IPs are not allowed'
  match:
  - select: '$.kind'
    matchValue: 'Service'
  - select: 'length($.spec.externalIPs) > 0'
";

const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: team-a
spec:
  containers:
  - name: app
    image: nginx:1.14.2
";

const SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  name: intercept
  namespace: team-a
spec:
  ports:
  - port: 80
  externalIPs:
  - 8.8.8.8
";

const CONFIG_MAP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-a
data:
  mode: fast
";

#[test]
fn hunks_name_the_modrule_and_the_defaults_that_changed_them() {
    let (_dir, path) = config(ADD_TEAM);
    let a = kadmit(&["diff", "--config", &path], POD).success();
    let out = stdout(&a);
    assert!(
        out.starts_with(
            "--- Pod team-a/web (stdin, document 1, line 1)\n\
             +++ Pod team-a/web (admitted)\n\
             @@ -3,7 +3,18 @@ defaults v1 Pod, ModRule team-a/add-team\n \
             metadata:\n   \
             name: web\n   \
             namespace: team-a\n\
             +  labels:\n\
             +    team: a\n \
             spec:\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("\n+    imagePullPolicy: IfNotPresent\n"),
        "{out}"
    );
    assert!(
        out.ends_with("\n1 of 1 resource changed by 2 rules\n"),
        "{out}"
    );
    assert_eq!(stderr(&a), "");
}

#[test]
fn hunks_far_apart_each_name_their_own_rule() {
    let add_volume = "apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: add-volume
  namespace: team-a
spec:
  type: Patch
  match:
  - select: '$.kind'
    matchValue: 'Pod'
  patch:
  - op: add
    path: /spec/volumes/-1
    value: |-
      name: extra
      emptyDir: {}
";
    let (_dir, path) = config(&format!("{ADD_TEAM}---\n{add_volume}"));
    let pod = format!(
        "{POD}  volumes:\n{}",
        (0..6)
            .map(|i| format!("  - name: v{i}\n    emptyDir: {{}}\n"))
            .collect::<String>()
    );
    let a = kadmit(&["diff", "--no-builtins", "--config", &path], &pod).success();
    let out = stdout(&a);
    let headers: Vec<&str> = out.lines().filter(|l| l.starts_with("@@")).collect();
    assert_eq!(
        headers,
        [
            "@@ -3,6 +3,8 @@ ModRule team-a/add-team",
            "@@ -20,3 +22,5 @@ ModRule team-a/add-volume"
        ],
        "{out}"
    );
    assert!(
        out.ends_with(
            "\n+  - name: extra\n+    emptyDir: {}\n1 of 1 resource changed by 2 rules\n"
        ),
        "{out}"
    );
}

#[test]
fn a_rejected_resource_is_shown_in_place_and_exits_1() {
    let (_dir, path) = config(&format!("{ADD_TEAM}---\n{REJECT_EXTERNAL_IPS}"));
    let input = format!("{POD}---\n{SERVICE}---\n{CONFIG_MAP}");
    let a = kadmit(&["diff", "--no-builtins", "--config", &path], &input).code(1);
    assert_eq!(
        stdout(&a),
        "--- Pod team-a/web (stdin, document 1, line 1)\n\
         +++ Pod team-a/web (admitted)\n\
         @@ -3,6 +3,8 @@ ModRule team-a/add-team\n \
         metadata:\n   \
         name: web\n   \
         namespace: team-a\n\
         +  labels:\n\
         +    team: a\n \
         spec:\n   \
         containers:\n   \
         - name: app\n\
         error: Service team-a/intercept: rejected by ModRule no-external-ips: \"external IPs are not allowed\" (ModRule no-external-ips) [stdin, document 2, line 11]\n\
         1 of 3 resources changed by 1 rule; 1 rejected\n"
    );
    // In place, not again on stderr; transform writes nothing at all then.
    assert!(!stderr(&a).contains("rejected by"), "{}", stderr(&a));
    let t = kadmit(&["transform", "--no-builtins", "--config", &path], &input).code(1);
    assert_eq!(stdout(&t), "");
}

#[test]
fn warnings_are_shown_in_place_after_the_resource() {
    let skipped = ADD_TEAM.replace(
        "    value: a\n",
        "    value: a\n  - op: replace\n    path: /spec/nothing/here\n    value: x\n",
    );
    let (_dir, path) = config(&skipped);
    let input = format!("{POD}---\n{CONFIG_MAP}");
    let a = kadmit(&["diff", "--no-builtins", "--config", &path], &input).success();
    assert_eq!(
        stdout(&a),
        "warning: Pod team-a/web: rule skipped, it changed nothing: replace /spec/nothing/here: a parent does not exist (ModRule team-a/add-team) [stdin, document 1, line 1]\n\
         0 of 2 resources changed\n"
    );
    assert_eq!(stderr(&a), "");
}

#[test]
fn an_unchanged_stream_says_so() {
    let input = format!("{CONFIG_MAP}---\n{SERVICE}");
    let a = kadmit(&["diff", "--no-builtins"], &input).success();
    assert_eq!(stdout(&a), "0 of 2 resources changed\n");
    // Formatting alone is no change: both sides are written as kadmit writes YAML.
    let loose = "apiVersion: 'v1'\nkind:   ConfigMap\nmetadata: {name: s}\ndata:\n    a: \"b\"\n    n: !!str 1\n";
    let a = kadmit(&["diff", "--no-builtins"], loose).success();
    assert_eq!(stdout(&a), "0 of 1 resource changed\n");
}

#[test]
fn bad_input_exits_2_with_no_diff() {
    let a = kadmit(&["diff"], "kind: [unclosed\n").code(2);
    assert_eq!(stdout(&a), "");
    assert!(stderr(&a).starts_with("error: "), "{}", stderr(&a));
    let a = kadmit(&["diff", "-o", "json"], POD).code(2);
    assert_eq!(stdout(&a), "");
    assert!(
        stderr(&a).contains("--output does not apply to `kadmit diff`"),
        "{}",
        stderr(&a)
    );
    let a = kadmit(&["diff", "--color", "sometimes"], POD).code(2);
    assert!(stderr(&a).contains("--color"), "{}", stderr(&a));
}

#[test]
fn color_always_and_never() {
    let (_dir, path) = config(ADD_TEAM);
    let coloured = stdout(
        &kadmit(
            &[
                "diff",
                "--no-builtins",
                "--color",
                "always",
                "--config",
                &path,
            ],
            POD,
        )
        .success(),
    );
    assert!(
        coloured.starts_with(
            "\x1b[1m--- Pod team-a/web (stdin, document 1, line 1)\x1b[0m\n\
             \x1b[1m+++ Pod team-a/web (admitted)\x1b[0m\n\
             \x1b[36m@@ -3,6 +3,8 @@ ModRule team-a/add-team\x1b[0m\n \
             metadata:\n"
        ),
        "{coloured:?}"
    );
    assert!(
        coloured.contains("\n\x1b[32m+  labels:\x1b[0m\n\x1b[32m+    team: a\x1b[0m\n"),
        "{coloured:?}"
    );
    let plain = stdout(
        &kadmit(
            &[
                "diff",
                "--no-builtins",
                "--color",
                "never",
                "--config",
                &path,
            ],
            POD,
        )
        .success(),
    );
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert_eq!(
        coloured
            .replace("\x1b[1m", "")
            .replace("\x1b[36m", "")
            .replace("\x1b[32m", "")
            .replace("\x1b[0m", ""),
        plain
    );
    // Removed lines are red; so is a rejection.
    let (_dir2, reject) = config(REJECT_EXTERNAL_IPS);
    let red = stdout(
        &kadmit(
            &[
                "diff",
                "--no-builtins",
                "--color",
                "always",
                "--config",
                &reject,
            ],
            SERVICE,
        )
        .code(1),
    );
    assert!(
        red.starts_with("\x1b[31merror: Service team-a/intercept: rejected by"),
        "{red:?}"
    );
    // Not a terminal: auto (the default) writes no colour.
    let auto = stdout(&kadmit(&["diff", "--no-builtins", "--config", &path], POD).success());
    assert_eq!(auto, plain);
}

#[test]
fn no_color_turns_auto_off_but_not_always() {
    let (_dir, path) = config(ADD_TEAM);
    let with = |args: &[&str]| {
        let a = Command::cargo_bin("kadmit")
            .unwrap()
            .env("NO_COLOR", "1")
            .args(args)
            .write_stdin(POD)
            .assert()
            .success();
        stdout(&a)
    };
    let auto = with(&["diff", "--no-builtins", "--config", &path]);
    assert!(!auto.contains('\x1b'), "{auto:?}");
    let always = with(&[
        "diff",
        "--no-builtins",
        "--color",
        "always",
        "--config",
        &path,
    ]);
    assert!(always.contains("\x1b[36m@@"), "{always:?}");
}

/// On a terminal (a pseudo-terminal through `script`), auto colours unless NO_COLOR is set.
#[test]
fn auto_colours_a_terminal_unless_no_color() {
    if !common::require_tool("script") {
        return;
    }
    let (dir, path) = config(ADD_TEAM);
    let input = dir.path().join("pod.yaml");
    std::fs::write(&input, POD).unwrap();
    let binary = assert_cmd::cargo::cargo_bin("kadmit");
    let line = format!(
        "{} diff --no-builtins --config {path} < {}",
        binary.display(),
        input.display()
    );
    let on_terminal = |no_color: Option<&str>| {
        let mut command = std::process::Command::new("script");
        command
            .args(["-qec", &line, "/dev/null"])
            .env_remove("NO_COLOR");
        if let Some(value) = no_color {
            command.env("NO_COLOR", value);
        }
        let output = command.output().unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let coloured = on_terminal(None);
    assert!(
        coloured.contains("\x1b[36m@@ -3,6 +3,8 @@ ModRule team-a/add-team\x1b[0m"),
        "{coloured:?}"
    );
    // An empty NO_COLOR is unset (no-color.org).
    assert!(on_terminal(Some("")).contains("\x1b[36m@@"));
    let plain = on_terminal(Some("1"));
    assert!(
        plain.contains("@@ -3,6 +3,8 @@ ModRule team-a/add-team"),
        "{plain:?}"
    );
    assert!(!plain.contains('\x1b'), "{plain:?}");
}

/// The shipped KubeMod example, byte for byte (see the header for how to regenerate).
#[test]
fn golden_kubemod_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workloads = std::fs::read_to_string(root.join("examples/kubemod/workloads.yaml")).unwrap();
    let a = Command::cargo_bin("kadmit")
        .unwrap()
        .current_dir(root)
        .env_remove("NO_COLOR")
        .args(["diff", "--config", "examples/kubemod/admission.yaml"])
        .write_stdin(workloads)
        .assert()
        .success();
    let golden = std::fs::read_to_string(root.join("tests/golden/kubemod.diff")).unwrap();
    assert_eq!(
        stdout(&a),
        golden,
        "regenerate tests/golden/kubemod.diff if the change is intended"
    );
    assert_eq!(
        stderr(&a),
        "info: 1 rule matched no object: ModRule reject-malicious-external-ips\n"
    );
}
