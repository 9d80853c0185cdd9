//! Fail closed: what kadmit does not run or cannot read is said, never passed silently.

use assert_cmd::Command;
use predicates::prelude::*;

fn kadmit() -> Command {
    let mut cmd = Command::cargo_bin("kadmit").unwrap();
    cmd.env_remove("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
        .env_remove("KADMIT_PLUGIN_PATH")
        .env("XDG_CONFIG_HOME", "/nonexistent-kadmit-test");
    cmd
}

const NO_INPUT: &str = "no input: stdin held no document";

#[test]
fn an_empty_plain_stream_is_an_error_unless_allowed() {
    for subcommand in ["transform", "generate"] {
        for stdin in ["", "\n\n", "# only a comment\n", "---\n---\n"] {
            kadmit()
                .arg(subcommand)
                .write_stdin(stdin)
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicate::str::contains(NO_INPUT));
            kadmit()
                .args([subcommand, "--allow-empty"])
                .write_stdin(stdin)
                .assert()
                .success()
                .stdout("");
        }
    }
}

#[test]
fn the_legacy_plugin_protocol_and_krm_keep_their_meaning_of_empty() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("admission.yaml");
    std::fs::write(
        &config,
        "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata:\n  name: p\n",
    )
    .unwrap();
    // kustomize's legacy exec plugin: argv[1] is the plugin configuration.
    kadmit()
        .arg(&config)
        .current_dir(dir.path())
        .write_stdin("")
        .assert()
        .success();
    kadmit()
        .write_stdin("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n")
        .assert()
        .success();
}

#[test]
fn an_unreadable_stream_is_reported_once() {
    kadmit()
        .arg("transform")
        .write_stdin("a: [\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(NO_INPUT).not());
}

#[test]
fn a_plugin_dir_that_does_not_exist_is_an_error() {
    kadmit()
        .args(["generate", "--plugin-dir", "/nonexistent/plugins"])
        .write_stdin("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--plugin-dir /nonexistent/plugins: no such directory",
        ));
}

#[test]
fn config_and_crd_paths_that_do_not_exist_are_errors() {
    for flag in ["--config", "--crd"] {
        kadmit()
            .args(["transform", flag, "/nonexistent/policies"])
            .write_stdin("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
            .assert()
            .code(2)
            .stderr(predicate::str::contains("/nonexistent/policies"));
    }
}

#[test]
fn transform_says_it_consumed_generator_input_without_generating() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins/team.example.com");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(
        plugins.join("notes.yaml"),
        "\
apiVersion: kadmit.dev/v1alpha1
kind: Generator
metadata: {name: notes}
spec:
  group: team.example.com
  names: {kind: Notes}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
  templates:
  - template: \"apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: notes}\\n\"
",
    )
    .unwrap();
    let input = "apiVersion: team.example.com/v1\nkind: Notes\nmetadata:\n  name: team-notes\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n";
    kadmit()
        .arg("transform")
        .current_dir(dir.path())
        .write_stdin(input)
        .assert()
        .success()
        .stderr(predicate::str::contains("consumed it without generating"))
        .stderr(predicate::str::contains("run `kadmit generate`"));
}
