//! The pull-request checks of examples/ci (docs/review.md), run where they can run
//! locally: the GitHub Actions admission step (as `shell: bash` runs it: `bash --noprofile
//! --norc -eo pipefail`) and the GitLab CI job's script, word for word from the files, in a
//! scratch checkout holding the shipped examples, with a real `kubectl kustomize`; then the
//! reports the later steps post and upload. Skips loudly without kubectl (a failure under
//! `CI=true`).

mod common;

use common::{kadmit_bin, require_tool, run, Ran};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn yaml(path: &Path) -> Value {
    serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn github_steps() -> Vec<Value> {
    let workflow = yaml(&repo().join("examples/ci/github-actions.yml"));
    workflow["jobs"]["admission"]["steps"]
        .as_array()
        .unwrap()
        .clone()
}

fn gitlab_job() -> Value {
    yaml(&repo().join("examples/ci/gitlab-ci.yml"))["kadmit"].clone()
}

/// A checkout holding examples/argocd (the Deployment's image as `image` says), kadmit on
/// PATH.
struct Checkout {
    dir: TempDir,
}

impl Checkout {
    fn new(image: &str) -> Checkout {
        let dir = TempDir::new().unwrap();
        for file in [
            "app/kustomization.yaml",
            "app/deployment.yaml",
            "policies/pinned-images.yaml",
            "policies/team-on-pods.yaml",
        ] {
            let text = std::fs::read_to_string(repo().join("examples/argocd").join(file)).unwrap();
            common::write(
                &dir.path().join("examples/argocd"),
                file,
                &text.replace("nginx:1.27", image),
            );
        }
        let bin = dir.path().join(".bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(kadmit_bin(), bin.join("kadmit")).unwrap();
        Checkout { dir }
    }

    fn bash(&self, flags: &[&str], script: &str) -> Ran {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path = std::env::join_paths(
            std::iter::once(self.dir.path().join(".bin"))
                .chain(std::env::split_paths(&path).collect::<Vec<_>>()),
        )
        .unwrap();
        let mut cmd = Command::new("bash");
        cmd.args(flags)
            .arg("-c")
            .arg(script)
            .current_dir(self.dir.path())
            .env("PATH", path)
            .env_remove("KADMIT_PLUGIN_PATH")
            .env("XDG_CONFIG_HOME", "/nonexistent-kadmit-test");
        run(&mut cmd, None)
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}"))
    }

    /// The GitHub admission step, as `shell: bash` runs it.
    fn github(&self) -> Ran {
        let step = github_steps()
            .into_iter()
            .find(|s| s["id"] == "admission")
            .expect("a step with id admission");
        assert_eq!(step["shell"], "bash", "pipefail comes with shell: bash");
        self.bash(
            &["--noprofile", "--norc", "-eo", "pipefail"],
            step["run"].as_str().unwrap(),
        )
    }

    /// The GitLab job's script lines, in one bash as the runner runs them.
    fn gitlab(&self) -> Ran {
        let job = gitlab_job();
        let script: Vec<&str> = job["script"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        self.bash(&["-e"], &script.join("\n"))
    }
}

fn sarif_results(text: &str) -> Vec<Value> {
    let log: Value = serde_json::from_str(text).unwrap();
    assert_eq!(log["version"], "2.1.0");
    log["runs"][0]["results"].as_array().unwrap().clone()
}

#[test]
fn github_admission_step_writes_the_comment_and_the_sarif() {
    if !require_tool("kubectl") || !require_tool("bash") {
        return;
    }
    let checkout = Checkout::new("nginx:1.27");
    checkout.github().expect_success();
    let comment = checkout.read("kadmit.md");
    assert!(
        comment.starts_with("## ✅ kadmit: admitted (exit code 0)"),
        "{comment}"
    );
    assert!(comment.contains("MutatingAdmissionPolicy"), "{comment}");
    assert!(!sarif_results(&checkout.read("kadmit.sarif")).is_empty());
    assert!(checkout.read("admitted.yaml").contains("team: shop"));

    let rejected = Checkout::new("nginx:latest");
    let ran = rejected.github();
    assert_eq!(ran.status.code(), Some(1), "{}", ran.describe());
    let comment = rejected.read("kadmit.md");
    assert!(comment.starts_with("## ❌ kadmit:"), "{comment}");
    assert!(
        comment.contains("images must be pinned to a version, not :latest"),
        "{comment}"
    );
    let errors: Vec<Value> = sarif_results(&rejected.read("kadmit.sarif"))
        .into_iter()
        .filter(|r| r["level"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        errors[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "deployment.yaml"
    );
    assert_eq!(rejected.read("admitted.yaml"), "", "nothing partial");
}

#[test]
fn github_later_steps_run_after_a_failure() {
    for step in github_steps()
        .iter()
        .skip_while(|s| s["id"] != "admission")
        .skip(1)
    {
        let condition = step["if"].as_str().unwrap_or_default();
        assert!(
            condition.starts_with("always()"),
            "step {} would not run after a rejection",
            step["name"]
        );
    }
    let upload = github_steps()
        .into_iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .expect("an upload-sarif step");
    assert_eq!(upload["with"]["sarif_file"], "kadmit.sarif");
}

#[test]
fn gitlab_script_writes_the_note_and_the_junit_report() {
    if !require_tool("kubectl") || !require_tool("bash") {
        return;
    }
    let job = gitlab_job();
    assert_eq!(job["artifacts"]["when"], "always");
    assert_eq!(job["artifacts"]["reports"]["junit"], "kadmit.xml");
    let checkout = Checkout::new("nginx:1.27");
    checkout.gitlab().expect_success();
    let junit = checkout.read("kadmit.xml");
    assert!(junit.contains("<testsuites"), "{junit}");
    assert!(!junit.contains("<failure"), "{junit}");

    let rejected = Checkout::new("nginx:latest");
    let ran = rejected.gitlab();
    assert_eq!(ran.status.code(), Some(1), "{}", ran.describe());
    let junit = rejected.read("kadmit.xml");
    assert_eq!(junit.matches("<failure").count(), 1, "{junit}");
    assert!(junit.contains("pinned-images"), "{junit}");
    assert!(rejected.read("kadmit.md").contains("❌"));
    sarif_results(&rejected.read("kadmit.sarif"));
}

#[test]
fn a_failing_render_fails_both_checks() {
    if !require_tool("kubectl") || !require_tool("bash") {
        return;
    }
    for which in ["github", "gitlab"] {
        let checkout = Checkout::new("nginx:1.27");
        std::fs::remove_file(
            checkout
                .dir
                .path()
                .join("examples/argocd/app/deployment.yaml"),
        )
        .unwrap();
        let ran = if which == "github" {
            checkout.github()
        } else {
            checkout.gitlab()
        };
        assert!(!ran.success(), "{which}: {}", ran.describe());
        assert!(
            ran.stderr.contains("deployment.yaml"),
            "{which}: {}",
            ran.describe()
        );
    }
}
