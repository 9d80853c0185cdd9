//! kadmit as a Helm 3 post-renderer, under a real Helm 3: `helm template … --post-renderer
//! kadmit --post-renderer-args transform --post-renderer-args --config=…` on the chart of
//! examples/helm (docs/helm.md).
//!
//! Helm 3 (pkg/postrender/exec.go) finds `--post-renderer` on PATH (or at the path given),
//! runs it with exactly the `--post-renderer-args`, pipes it the rendered manifests (each
//! document after a `# Source: CHART/templates/FILE` line), reads the stream back from
//! stdout, and on a non-zero exit fails with the command's stderr in its message.
//!
//! Skips loudly when no Helm 3 is on PATH (.ci/run installs one); fails under `CI=true`.

mod common;

use common::{kadmit_bin, run, skip_or_fail, Ran};
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/helm")
}

/// A Helm 3 on PATH (Helm 4 runs only post-renderer plugins: tests/helm_plugin.rs).
fn require_helm3() -> bool {
    let Some(helm) = common::find_on_path("helm") else {
        return skip_or_fail("helm not found on PATH (.ci/run installs Helm 3 from npm)");
    };
    let ran = run(Command::new(&helm).args(["version", "--short"]), None);
    if ran.success() && ran.stdout.starts_with("v3.") {
        return true;
    }
    skip_or_fail(&format!(
        "{} is not Helm 3 (`helm version --short`: {:?})",
        helm.display(),
        ran.stdout.trim()
    ))
}

/// A PATH whose first directory holds `kadmit` (this build), so `--post-renderer kadmit`
/// is the documented invocation itself; Helm's own directories stay isolated in `scratch`.
fn helm(scratch: &TempDir, args: &[&str]) -> Ran {
    let bin = scratch.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("kadmit");
    if !link.exists() {
        std::os::unix::fs::symlink(kadmit_bin(), &link).unwrap();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&path).collect::<Vec<_>>()),
    )
    .unwrap();
    let mut cmd = Command::new("helm");
    cmd.args(args)
        .current_dir(example())
        .env("PATH", path)
        .env("HELM_CONFIG_HOME", scratch.path().join("config"))
        .env("HELM_CACHE_HOME", scratch.path().join("cache"))
        .env("HELM_DATA_HOME", scratch.path().join("data"))
        .env_remove("KADMIT_PLUGIN_PATH")
        .env("XDG_CONFIG_HOME", "/nonexistent-kadmit-test");
    run(&mut cmd, None)
}

const POST_RENDER: &[&str] = &[
    "--post-renderer",
    "kadmit",
    "--post-renderer-args",
    "transform",
    "--post-renderer-args",
    "--config=policies",
];

fn template(scratch: &TempDir, extra: &[&str]) -> Ran {
    let mut args = vec!["template", "shop", "web"];
    args.extend_from_slice(extra);
    args.extend_from_slice(POST_RENDER);
    helm(scratch, &args)
}

#[test]
fn the_chart_is_admitted_through_kadmit() {
    if !require_helm3() || !common::require_python_yaml() {
        return;
    }
    let scratch = TempDir::new().unwrap();
    let ran = template(&scratch, &[]).expect_success();
    let docs = common::yaml_docs(&ran.stdout);
    let deployment = docs
        .iter()
        .find(|d| d["kind"] == "Deployment")
        .unwrap_or_else(|| panic!("no Deployment in:\n{}", ran.describe()));
    // The MutatingAdmissionPolicy of examples/helm/policies ran...
    assert_eq!(
        deployment["spec"]["template"]["metadata"]["labels"]["team"],
        "shop",
        "{}",
        ran.describe()
    );
    // ...and so did the API server's defaulting of a built-in kind.
    assert_eq!(deployment["spec"]["strategy"]["type"], "RollingUpdate");
    assert_eq!(
        docs.iter().filter(|d| d["kind"] == "Service").count(),
        1,
        "{}",
        ran.describe()
    );
}

#[test]
fn a_rejection_fails_helm_and_names_the_template() {
    if !require_helm3() {
        return;
    }
    let scratch = TempDir::new().unwrap();
    let ran = template(&scratch, &["--set", "image.tag=latest"]);
    assert!(!ran.success(), "{}", ran.describe());
    assert_eq!(ran.stdout, "", "nothing partial: {}", ran.describe());
    assert!(
        ran.stderr.contains(
            "error: Deployment shop-web: ValidatingAdmissionPolicy 'pinned-images' with binding 'pinned-images' denied request: images must be pinned to a version, not :latest [web/templates/deployment.yaml (via stdin, document 2, line "
        ),
        "{}",
        ran.describe()
    );
    assert!(ran.stderr.contains("exit status 1"), "{}", ran.describe());
}

#[test]
fn without_the_transform_argument_the_message_says_what_to_add() {
    if !require_helm3() {
        return;
    }
    let scratch = TempDir::new().unwrap();
    let ran = helm(
        &scratch,
        &["template", "shop", "web", "--post-renderer", "kadmit"],
    );
    assert!(!ran.success(), "{}", ran.describe());
    assert!(
        ran.stderr.contains(
            "no subcommand given and stdin is not a ResourceList: the operation is not supported (use `kadmit transform` or `kadmit generate`; as a Helm post-renderer: `--post-renderer kadmit --post-renderer-args transform`)"
        ),
        "{}",
        ran.describe()
    );
    assert!(ran.stderr.contains("exit status 127"), "{}", ran.describe());
}
