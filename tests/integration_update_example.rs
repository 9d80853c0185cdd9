//! examples/update as its README runs it: both branches rendered by the real `kubectl
//! kustomize`, the change admitted with `--old` (UPDATEs, a CREATE, a DELETE reported and
//! never written, the written stream free of server fields), the refused change with the
//! UPDATE's and the DELETE's messages, and `kadmit diff` showing the change against the
//! base. Skips loudly without kubectl (fails under `CI=true`).

mod common;

use common::{kadmit_bin, require_tool, run, yaml_docs};
use std::path::{Path, PathBuf};
use std::process::Command;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/update")
}

/// `kubectl kustomize DIR` of the example, checked to succeed.
fn render(dir: &str) -> String {
    let ran = run(
        Command::new("kubectl")
            .args(["kustomize", dir])
            .current_dir(example()),
        None,
    );
    assert!(ran.success(), "{}", ran.describe());
    ran.stdout
}

/// `kadmit SUBCOMMAND --config policies.yaml --old base.yaml` on `stream`.
fn kadmit(subcommand: &str, stream: &str, base: &Path) -> common::Ran {
    run(
        Command::new(kadmit_bin())
            .args([subcommand, "--config", "policies.yaml", "--old"])
            .arg(base)
            .current_dir(example()),
        Some(stream.as_bytes()),
    )
}

fn base_file() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("base.yaml");
    std::fs::write(&path, render("base")).unwrap();
    (dir, path)
}

#[test]
fn the_change_is_admitted_as_updates_a_create_and_a_reported_delete() {
    if !require_tool("kubectl") {
        return;
    }
    let (_dir, base) = base_file();
    let ran = kadmit("transform", &render("change"), &base).expect_success();
    let written: Vec<String> = yaml_docs(&ran.stdout)
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["kind"].as_str().unwrap(),
                d["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        written,
        [
            "ConfigMap feature-flags",
            "ConfigMap payment-settings",
            "Service web",
            "Deployment web"
        ],
        "the DELETE of legacy-settings is never written"
    );
    for field in ["uid:", "resourceVersion:", "generation:", "status:"] {
        assert!(!ran.stdout.contains(field), "{field} in {}", ran.stdout);
    }
    assert!(
        ran.stderr.contains("warning: ConfigMap shop/legacy-settings: Validation failed for ValidatingAdmissionPolicy 'announce-deletions' with binding 'announce-deletions': this change deletes ConfigMap legacy-settings [")
            && ran.stderr.contains("base.yaml, document 2, line 11]"),
        "{}",
        ran.describe()
    );
    assert!(!ran.stderr.contains("error"), "{}", ran.describe());
}

#[test]
fn the_rejected_change_names_the_update_and_the_delete() {
    if !require_tool("kubectl") {
        return;
    }
    let (_dir, base) = base_file();
    let ran = kadmit("transform", &render("rejected"), &base);
    assert_eq!(ran.status.code(), Some(1), "{}", ran.describe());
    assert!(ran.stdout.is_empty(), "nothing partial: {}", ran.stdout);
    for line in [
        "error: Deployment shop/web: ValidatingAdmissionPolicy 'gradual-scale-down' with binding 'gradual-scale-down' denied request: replicas may not drop by more than half in one change: 6 -> 2 [stdin, document 2, line 13]",
        "error: ConfigMap shop/feature-flags: ValidatingAdmissionPolicy 'protected-configmaps' with binding 'protected-configmaps' denied request: ConfigMap feature-flags is protected: remove its protected label first [",
    ] {
        assert!(ran.stderr.contains(line), "{line}\n{}", ran.describe());
    }
    assert!(
        !ran.stderr.contains("legacy-settings is protected"),
        "{}",
        ran.describe()
    );
}

#[test]
fn the_diff_shows_the_change_against_the_base() {
    if !require_tool("kubectl") {
        return;
    }
    let (_dir, base) = base_file();
    let ran = kadmit("diff", &render("change"), &base).expect_success();
    for expected in [
        "--- Deployment shop/web (--old)\n+++ Deployment shop/web (UPDATE, admitted; stdin, document 4, line 31)\n",
        "-  replicas: 6\n+  replicas: 4\n",
        "-      - image: registry.example.com/shop/web:1.4.0\n+      - image: registry.example.com/shop/web:1.5.0\n",
        "--- ConfigMap shop/payment-settings (not in --old)\n",
        "DELETE ConfigMap shop/legacy-settings (",
        "; 1 CREATE, 3 UPDATE, 1 DELETE\n",
    ] {
        assert!(ran.stdout.contains(expected), "{expected}\n{}", ran.stdout);
    }
    // The base has no defaults, the admitted Deployment has them: the old object is
    // defaulted as the server stores it, so no default shows as a change.
    assert!(
        !ran.stdout.contains("+        imagePullPolicy"),
        "{}",
        ran.stdout
    );
    assert!(
        !ran.stdout.contains("--- Service"),
        "the Service did not change: {}",
        ran.stdout
    );
}
