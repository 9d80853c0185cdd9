//! The trust boundary (docs/security.md): what arrives in the resource stream may not run a
//! program, leave its directory, or learn what exists outside it. Each test is the
//! reproducer of one finding of the fuzzing and probing campaign (`findings/<n>-…` in the
//! shared notes), with its input inline, and fails on the code before the fix.

use predicates::prelude::*;

mod common;

use common::{kadmit_isolated as kadmit, write};

/// Finding 04: an exec module whose command writes a file, then answers "allowed".
const EXEC_MODULE: &str = "\
apiVersion: kadmit.dev/v1alpha1
kind: AdmissionModule
metadata: {name: innocent}
spec:
  exec:
    command: [sh, -c, \"id > PWNED; cat >/dev/null; echo '{}'\"]
";

const CONFIGMAP: &str = "\
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: default}
data: {a: b}
";

#[test]
fn finding_04_an_exec_module_in_the_stream_is_refused_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    kadmit()
        .arg("transform")
        .current_dir(dir.path())
        .write_stdin(format!("{EXEC_MODULE}---\n{CONFIGMAP}"))
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "an exec module runs a program with your rights, and this one came from the resource stream",
        ))
        .stderr(predicate::str::contains("AdmissionModule innocent"))
        .stderr(predicate::str::contains("--allow-exec"));
    assert!(!dir.path().join("PWNED").exists(), "the command ran");
}

#[test]
fn finding_04_an_exec_module_as_a_krm_item_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let indented = |text: &str| {
        text.lines()
            .enumerate()
            .map(|(i, l)| match i {
                0 => format!("- {l}\n"),
                _ => format!("  {l}\n"),
            })
            .collect::<String>()
    };
    let list = format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{}{}",
        indented(EXEC_MODULE),
        indented(CONFIGMAP)
    );
    kadmit()
        .current_dir(dir.path())
        .write_stdin(list)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("came from the resource stream"));
    assert!(!dir.path().join("PWNED").exists(), "the command ran");
}

#[test]
fn finding_04_a_file_named_by_a_stream_policy_set_is_as_untrusted_as_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "policies/module.yaml", EXEC_MODULE);
    let set = "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata: {name: s}\nspec:\n  paths: [policies]\n";
    kadmit()
        .arg("transform")
        .current_dir(dir.path())
        .write_stdin(format!("{set}---\n{CONFIGMAP}"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("came from the resource stream"));
    assert!(!dir.path().join("PWNED").exists(), "the command ran");
}

#[test]
fn finding_04_exec_modules_run_from_trusted_configuration_and_with_the_flag() {
    // The module's answer is not a valid review (that is beside the point here): what
    // matters is that it ran, and was not refused as the stream's.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "policies/module.yaml", EXEC_MODULE);
    kadmit()
        .args(["transform", "--config", "policies"])
        .current_dir(dir.path())
        .write_stdin(CONFIGMAP)
        .assert()
        .stderr(predicate::str::contains("came from the resource stream").not());
    // Exec modules run in their configuration root.
    assert!(
        dir.path().join("policies/PWNED").exists(),
        "--config modules run"
    );
    kadmit()
        .args(["transform", "--allow-exec"])
        .current_dir(dir.path())
        .write_stdin(format!("{EXEC_MODULE}---\n{CONFIGMAP}"))
        .assert()
        .stderr(predicate::str::contains("came from the resource stream").not());
    assert!(
        dir.path().join("PWNED").exists(),
        "--allow-exec lets the stream's run"
    );
}

#[test]
fn stream_paths_stay_inside_the_root_even_with_allow_paths_outside_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    write(
        dir.path(),
        "outside/rule.yaml",
        "apiVersion: kadmit.dev/v1alpha1\nkind: Frobnicator\nmetadata: {name: outside}\n",
    );
    let set = "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata: {name: s}\nspec:\n  paths: [../outside]\n";
    kadmit()
        .args(["transform", "--allow-paths-outside-root"])
        .current_dir(&root)
        .write_stdin(format!("{set}---\n{CONFIGMAP}"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "resolves outside the configuration root",
        ))
        .stderr(predicate::str::contains("Frobnicator").not());
    // The same PolicySet from --config may leave the root with the flag.
    write(&root, "set.yaml", set);
    kadmit()
        .args([
            "transform",
            "--allow-paths-outside-root",
            "--config",
            "set.yaml",
        ])
        .current_dir(&root)
        .write_stdin(CONFIGMAP)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Frobnicator"));
}

/// Finding 05: a Generator whose kind climbs out of the plugin directory.
#[test]
fn finding_05_install_plugins_never_writes_outside_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "plugins/demo.example.com/g.yaml",
        "\
apiVersion: kadmit.dev/v1alpha1
kind: Generator
metadata: {name: g}
spec:
  group: demo.example.com
  names: {kind: \"../../ESCAPED\"}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
  templates:
  - template: \"apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: x}\\n\"
",
    );
    kadmit()
        .args(["install-plugins", "home", "--plugin-dir", "plugins"])
        .current_dir(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("spec.names.kind"))
        .stderr(predicate::str::contains("Generator g"));
    assert!(
        !dir.path().join("ESCAPED").exists(),
        "written outside home/"
    );
    assert!(
        !dir.path().join("escaped").exists(),
        "written outside home/"
    );
}

/// Finding 08: a committed `policies/vendor -> /` made kadmit walk the whole filesystem.
#[cfg(unix)]
#[test]
fn finding_08_a_directory_link_out_of_the_root_is_refused_at_the_link() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "policies/rule.yaml",
        "apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata: {name: r, namespace: default}\nspec:\n  type: Reject\n  match:\n  - select: '$.kind'\n    matchValue: Secret\n",
    );
    std::os::unix::fs::symlink("/", dir.path().join("policies/vendor")).unwrap();
    let started = std::time::Instant::now();
    let a = kadmit()
        .args(["transform", "--config", "policies"])
        .current_dir(dir.path())
        .write_stdin(CONFIGMAP)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert_eq!(
        stderr.lines().count(),
        1,
        "one error, at the link, no descent (took {:?}):\n{stderr}",
        started.elapsed()
    );
    assert!(stderr.contains("policies/vendor: a symbolic link out of the configuration root"));
}

/// Finding 10c: whether a path outside the root exists must not show in the message.
#[test]
fn finding_10c_outside_paths_get_the_same_refusal_whether_or_not_they_exist() {
    let dir = tempfile::tempdir().unwrap();
    let message_for = |path: &str| {
        let set = format!("apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata: {{name: probe}}\nspec:\n  paths: [{path}]\n");
        let a = kadmit()
            .arg("transform")
            .current_dir(dir.path())
            .write_stdin(set)
            .assert()
            .code(2);
        String::from_utf8_lossy(&a.get_output().stderr).replace(path, "PATH")
    };
    assert_eq!(
        message_for("/etc/passwd"),
        message_for("/etc/nonexistent-xyz")
    );
    assert_eq!(
        message_for("../../../../etc/passwd"),
        message_for("../../../../etc/nonexistent-xyz")
    );
    assert!(message_for("/etc/passwd").contains("absolute paths are not allowed"));
}

/// Finding 11: a dense document (one flow list of millions of integers) cost 39x its size
/// in memory. A document over `--max-document-nodes` (default 2,000,000) is refused as soon
/// as the count passes the limit, before its tree grows further.
#[test]
fn finding_11_a_document_over_the_node_limit_is_refused_naming_the_flag() {
    let list = "1,".repeat(2_000_000);
    let json = format!("{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"big\"}}, \"data\": {{\"l\": [{list}1]}}}}\n");
    kadmit()
        .arg("transform")
        .write_stdin(json)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "cannot read JSON: document holds more than 2000000 nodes (keys, values and \
             collections); --max-document-nodes raises the limit",
        ));
    let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: small\ndata:\n  a: x\n  b: y\n";
    kadmit()
        .args(["transform", "--max-document-nodes", "8"])
        .write_stdin(yaml)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "error: cannot read YAML: document holds more than 8 nodes (keys, values and \
             collections); --max-document-nodes raises the limit [stdin, document 1, line 4]",
        ));
    // A synthetic object (`y` reads as a boolean, not a string, as kubectl reads it): built-in
    // admission is not what this test is about.
    kadmit()
        .args(["transform", "--no-builtins", "--max-document-nodes", "15"])
        .write_stdin(yaml)
        .assert()
        .success();
}
