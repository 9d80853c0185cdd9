//! The Argo CD config management plugin of examples/argocd (docs/argocd.md): its generate
//! command, taken word for word from plugin.yaml, run as Argo CD's CMP server runs it (in
//! the Application's source directory, the sidecar's environment around it) with a real
//! `kubectl kustomize` and the policies laid out as a ConfigMap volume lays them out; and
//! the sidecar patch consistent with the plugin. Skips loudly without kubectl (a failure
//! under `CI=true`).

mod common;

use common::{kadmit_bin, require_tool, run, Ran};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/argocd")
}

fn yaml(path: &Path) -> Value {
    serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The ConfigManagementPlugin inside plugin.yaml's ConfigMap.
fn plugin() -> Value {
    let config_map = yaml(&example().join("plugin.yaml"));
    serde_yaml::from_str(config_map["data"]["plugin.yaml"].as_str().unwrap()).unwrap()
}

/// `generate.command` followed by `generate.args`, as Argo CD runs them.
fn generate_argv() -> Vec<String> {
    let plugin = plugin();
    let generate = &plugin["spec"]["generate"];
    generate["command"]
        .as_array()
        .unwrap()
        .iter()
        .chain(generate["args"].as_array().into_iter().flatten())
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// A scratch Application directory (the example's, `edit` applied to the Deployment) and
/// the policies in a ConfigMap volume's layout: `..<timestamp>/` holding the files,
/// `..data` linking to it, and each key a link through `..data`.
struct Scratch {
    dir: TempDir,
}

impl Scratch {
    fn new(edit: impl Fn(&str) -> String) -> Scratch {
        let dir = TempDir::new().unwrap();
        let app = dir.path().join("app");
        std::fs::create_dir_all(&app).unwrap();
        for file in ["kustomization.yaml", "deployment.yaml"] {
            let text = std::fs::read_to_string(example().join("app").join(file)).unwrap();
            let text = if file == "deployment.yaml" {
                edit(&text)
            } else {
                text
            };
            std::fs::write(app.join(file), text).unwrap();
        }
        let volume = dir.path().join("policies");
        let data = volume.join("..2026_01_01_00_00_00.000000001");
        std::fs::create_dir_all(&data).unwrap();
        std::os::unix::fs::symlink("..2026_01_01_00_00_00.000000001", volume.join("..data"))
            .unwrap();
        for entry in std::fs::read_dir(example().join("policies")).unwrap() {
            let name = entry.unwrap().file_name();
            std::fs::copy(example().join("policies").join(&name), data.join(&name)).unwrap();
            std::os::unix::fs::symlink(Path::new("..data").join(&name), volume.join(&name))
                .unwrap();
        }
        Scratch { dir }
    }

    /// The generate command in the Application directory, kadmit on PATH and
    /// `KADMIT_POLICIES` set as the sidecar patch sets it (to the scratch volume).
    fn generate(&self) -> Ran {
        let argv = generate_argv();
        let bin = self.dir.path().join("bin");
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
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .current_dir(self.dir.path().join("app"))
            .env("PATH", path)
            .env("KADMIT_POLICIES", self.dir.path().join("policies"))
            .env_remove("KADMIT_PLUGIN_PATH")
            .env("XDG_CONFIG_HOME", "/nonexistent-kadmit-test");
        run(&mut cmd, None)
    }
}

#[test]
fn the_generate_command_is_bash_with_pipefail() {
    let argv = generate_argv();
    assert_eq!(argv[..4], ["bash", "-o", "pipefail", "-c"]);
    assert_eq!(argv.len(), 5, "one script: {argv:?}");
    assert!(argv[4].contains("| kadmit transform"), "{argv:?}");
}

#[test]
fn generate_admits_the_application() {
    if !require_tool("kubectl") || !require_tool("bash") {
        return;
    }
    let ran = Scratch::new(str::to_owned).generate().expect_success();
    let docs: Vec<Value> = serde_yaml::Deserializer::from_str(&ran.stdout)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect();
    assert_eq!(docs.len(), 1, "{}", ran.describe());
    let deployment = &docs[0];
    assert_eq!(deployment["metadata"]["namespace"], "shop");
    // The MutatingAdmissionPolicy ran, and the API server's defaults were written.
    assert_eq!(
        deployment["spec"]["template"]["metadata"]["labels"]["team"],
        "shop",
        "{}",
        ran.describe()
    );
    assert_eq!(deployment["spec"]["strategy"]["type"], "RollingUpdate");
}

#[test]
fn a_rejection_fails_the_generation_naming_the_file() {
    if !require_tool("kubectl") || !require_tool("bash") {
        return;
    }
    let ran = Scratch::new(|text| text.replace("nginx:1.27", "nginx:latest")).generate();
    assert_eq!(ran.status.code(), Some(1), "{}", ran.describe());
    assert_eq!(ran.stdout, "", "nothing partial: {}", ran.describe());
    assert_eq!(
        ran.stderr,
        "error: Deployment shop/web: ValidatingAdmissionPolicy 'pinned-images' with binding 'pinned-images' denied request: images must be pinned to a version, not :latest [deployment.yaml (via stdin, document 1, line 1)]\n"
    );
}

#[test]
fn a_failing_kustomize_fails_the_generation() {
    if !require_tool("kubectl") || !require_tool("bash") {
        return;
    }
    let scratch = Scratch::new(str::to_owned);
    std::fs::remove_file(scratch.dir.path().join("app/deployment.yaml")).unwrap();
    let ran = scratch.generate();
    assert!(!ran.success(), "{}", ran.describe());
    assert_eq!(ran.stdout, "", "{}", ran.describe());
    assert!(ran.stderr.contains("deployment.yaml"), "{}", ran.describe());
}

#[test]
fn the_sidecar_patch_mounts_what_the_plugin_needs() {
    let patch = yaml(&example().join("repo-server-patch.yaml"));
    let config_map = yaml(&example().join("plugin.yaml"));
    let spec = &patch["spec"]["template"]["spec"];
    let sidecar = &spec["containers"][0];
    assert_eq!(
        sidecar["command"],
        serde_json::json!(["/var/run/argocd/argocd-cmp-server"])
    );
    assert_eq!(sidecar["securityContext"]["runAsUser"], 999);
    let mounts = sidecar["volumeMounts"].as_array().unwrap();
    let mount = |path: &str| {
        mounts
            .iter()
            .find(|m| m["mountPath"] == path)
            .unwrap_or_else(|| panic!("nothing mounted at {path}"))
    };
    let config = mount("/home/argocd/cmp-server/config/plugin.yaml");
    assert_eq!(config["subPath"], "plugin.yaml");
    mount("/var/run/argocd");
    mount("/home/argocd/cmp-server/plugins");
    mount("/tmp");
    let policies = sidecar["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "KADMIT_POLICIES")
        .expect("KADMIT_POLICIES is set")["value"]
        .as_str()
        .unwrap();
    mount(policies);
    // Every mount is a volume of the patch, or one argocd-repo-server already has.
    let volumes = spec["volumes"].as_array().unwrap();
    for m in mounts {
        let name = m["name"].as_str().unwrap();
        let own = volumes.iter().find(|v| v["name"] == name);
        assert!(
            own.is_some() || ["var-files", "plugins"].contains(&name),
            "volume {name} is defined nowhere"
        );
        if m == config {
            assert_eq!(
                own.unwrap()["configMap"]["name"],
                config_map["metadata"]["name"]
            );
        }
    }
}
