//! Kubewarden waPC policies (`spec.protocol: kubewarden-wapc`) in `kadmit transform`:
//! the test policy of testdata/modules (src/kubewarden_wapc_policy.rs) validates, mutates,
//! has its settings checked at load, logs through the host, reads a ConfigMap of the
//! stream through `kubernetes/get_resource`, and is refused the network; hostile waPC
//! guests (testdata/modules/hostile-wapc, compiled here) stop within the limits; an
//! OPA/Rego module is refused naming its import and what it is.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn modules_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/modules")
}

/// A configuration root holding the waPC test policy and the hostile guests.
fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        modules_dir().join("wasm/kubewarden-wapc-policy.wasm"),
        dir.path().join("policy.wasm"),
    )
    .unwrap();
    for entry in std::fs::read_dir(modules_dir().join("hostile-wapc")).unwrap() {
        let path = entry.unwrap().path();
        let bytes = wat::parse_file(&path).unwrap();
        let name = path.with_extension("wasm");
        std::fs::write(dir.path().join(name.file_name().unwrap()), bytes).unwrap();
    }
    dir
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn transform(root: &Path, spec: &str, input: &str) -> Ran {
    let config = format!(
        "apiVersion: kadmit.dev/v1alpha1\nkind: AdmissionModule\nmetadata:\n  name: wapc\nspec:\n  protocol: kubewarden-wapc\n{spec}"
    );
    std::fs::write(root.join("admission.yaml"), config).unwrap();
    let output = Command::cargo_bin("kadmit")
        .unwrap()
        .arg("transform")
        .arg("--config")
        .arg(root.join("admission.yaml"))
        .write_stdin(input)
        .output()
        .unwrap();
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

const PODS: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: prod\nspec:\n  containers:\n  - name: web\n    image: nginx:1.25\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\n  namespace: prod\nspec:\n  containers:\n  - name: app\n    image: nginx:latest\n";

const CONFIG_MAP: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: prod\n---\n";

#[test]
fn a_validating_policy_rejects_and_logs_through_the_host() {
    let root = root();
    let ran = transform(root.path(), "  module: policy.wasm\n", PODS);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(ran.stdout.is_empty(), "nothing partial on stdout");
    assert!(ran.stderr.contains(
        "error: Pod prod/bad: admission WASM module \"wapc\" denied the request: container app uses image nginx:latest: the tag latest (or no tag) is not allowed (code 400)"
    ), "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "info: Pod prod/web: admission WASM module \"wapc\" logged (info): validating Pod web"
        ),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_mutating_policy_changes_the_object() {
    let root = root();
    let spec = "  module: policy.wasm\n  mutating: true\n  settings:\n    addLabel: {key: team, value: web}\n";
    let ran = transform(root.path(), spec, &PODS[..PODS.find("---").unwrap()]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("labels:\n    team: web"),
        "{}",
        ran.stdout
    );
    assert!(ran
        .stderr
        .contains("kubewarden-wapc-policy added the label team=web"));
}

#[test]
fn settings_are_validated_at_load() {
    let root = root();
    let good = "  module: policy.wasm\n  mutating: true\n  settings:\n    addLabel: {key: team, value: web}\n";
    assert_eq!(transform(root.path(), good, CONFIG_MAP).code, 0);
    let bad = "  module: policy.wasm\n  settings:\n    colour: blue\n";
    let ran = transform(root.path(), bad, CONFIG_MAP);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("spec.settings: Provided settings are not valid: unknown setting \"colour\""),
        "{}",
        ran.stderr
    );
}

#[test]
fn get_resource_is_answered_from_the_stream() {
    let root = root();
    let spec = "  module: policy.wasm\n  settings:\n    requiredConfigMap: app-config\n  contextAwareResources:\n  - apiVersion: v1\n    kind: ConfigMap\n";
    let pod = &PODS[..PODS.find("---").unwrap()];
    let found = transform(root.path(), spec, &format!("{CONFIG_MAP}{pod}"));
    assert_eq!(found.code, 0, "{}", found.stderr);
    let missing = transform(root.path(), spec, pod);
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains(
        "denied the request: configmap app-config is required: configmaps \"app-config\" not found (code 404)"
    ), "{}", missing.stderr);
    // A kind the policy did not declare is not readable.
    let undeclared = "  module: policy.wasm\n  settings:\n    requiredConfigMap: app-config\n";
    let ran = transform(root.path(), undeclared, &format!("{CONFIG_MAP}{pod}"));
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr
            .contains("it is not among its contextAwareResources"),
        "{}",
        ran.stderr
    );
}

#[test]
fn network_capabilities_are_refused() {
    let root = root();
    let spec = "  module: policy.wasm\n  settings:\n    lookupHost: registry.example.com\n";
    let ran = transform(root.path(), spec, CONFIG_MAP);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.contains(
        "admission WASM module \"wapc\" failed: returned an error: dns_lookup_host failed: host capability net/v1/dns_lookup_host needs the network, and kadmit evaluates offline: it is not available"
    ), "{}", ran.stderr);
}

#[test]
fn hostile_guests_stop_within_the_limits() {
    let root = root();
    for (module, expected) in [
        (
            "guest-call-loop.wasm",
            "it ran longer than its timeout of 300ms and was stopped",
        ),
        (
            "huge-response.wasm",
            "its response was larger than 64Mi and it was stopped",
        ),
        (
            "host-call-storm.wasm",
            "it made more than 10000 host calls in one call and was stopped",
        ),
        ("guest-error.wasm", "returned an error: broken policy"),
    ] {
        let started = Instant::now();
        let ran = transform(
            root.path(),
            &format!("  module: {module}\n  timeout: 300ms\n"),
            CONFIG_MAP,
        );
        assert_eq!(ran.code, 2, "{module}: {}", ran.stderr);
        assert!(ran.stderr.contains(expected), "{module}: {}", ran.stderr);
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{module} took {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn modules_kadmit_cannot_run_are_named() {
    let root = root();
    let ran = transform(root.path(), "  module: opa-policy.wasm\n", CONFIG_MAP);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .contains("the module imports env.opa_abort, which kadmit does not provide"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("it looks like an OPA/Rego policy compiled to WebAssembly"),
        "{}",
        ran.stderr
    );
    let config = "apiVersion: kadmit.dev/v1alpha1\nkind: AdmissionModule\nmetadata:\n  name: wapc\nspec:\n  module: policy.wasm\n";
    std::fs::write(root.path().join("admission.yaml"), config).unwrap();
    let output = Command::cargo_bin("kadmit")
        .unwrap()
        .arg("transform")
        .arg("--config")
        .arg(root.path().join("admission.yaml"))
        .write_stdin(CONFIG_MAP)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("missing function 'validate'"), "{stderr}");
}
