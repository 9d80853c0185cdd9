//! Host capabilities for Kubewarden WASI policies (`spec.protocol: kubewarden-wasi`): the
//! WASI `host.call` import answers through the same host as waPC's `__host_call`. The
//! policies of testdata/modules/wasi-host (WAT, compiled here) ask for a ConfigMap of the
//! stream (`kubernetes/get_resource`) and an image digest (`oci/…`, refused offline), and
//! call the host in a loop (stopped by the host-call cap).

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A configuration root holding the policies of testdata/modules/wasi-host, compiled.
fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let sources = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/modules/wasi-host");
    for entry in std::fs::read_dir(sources).unwrap() {
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
        "apiVersion: kadmit.dev/v1alpha1\nkind: AdmissionModule\nmetadata:\n  name: wasi-host\nspec:\n  protocol: kubewarden-wasi\n{spec}"
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

const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: prod\ndata:\n  mode: strict\n---\n";
const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: prod\nspec:\n  containers:\n  - name: web\n    image: nginx:1.25\n";
const READS_CONFIG_MAPS: &str = "  module: host-capabilities.wasm\n  contextAwareResources:\n  - apiVersion: v1\n    kind: ConfigMap\n";

/// The policy denies with both answers: what it read from stdin after each call, and the
/// status `host.call` returned (0 answered, 1 refused).
#[test]
fn host_call_answers_from_the_stream_and_refuses_the_network() {
    let root = root();
    let ran = transform(
        root.path(),
        READS_CONFIG_MAPS,
        &format!("{CONFIG_MAP}{POD}"),
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(ran.stdout.is_empty(), "nothing partial on stdout");
    assert!(
        ran.stderr.contains(
            r#"error: Pod prod/web: admission WASM module "wasi-host" denied the request: 0 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app-config","namespace":"prod"},"data":{"mode":"strict"}}; 1 host capability oci/v1/manifest_digest needs the network, and kadmit evaluates offline: it is not available"#
        ),
        "{}",
        ran.stderr
    );
}

#[test]
fn host_call_errors_reach_the_policy() {
    let root = root();
    let missing = transform(root.path(), READS_CONFIG_MAPS, POD);
    assert_eq!(missing.code, 1, "{}", missing.stderr);
    assert!(
        missing.stderr.contains(
            r#"denied the request: 1 configmaps "app-config" not found; 1 host capability oci/v1/manifest_digest"#
        ),
        "{}",
        missing.stderr
    );
    // A kind the policy did not declare is not readable.
    let undeclared = transform(
        root.path(),
        "  module: host-capabilities.wasm\n",
        &format!("{CONFIG_MAP}{POD}"),
    );
    assert_eq!(undeclared.code, 1, "{}", undeclared.stderr);
    assert!(
        undeclared.stderr.contains(
            "denied the request: 1 kubernetes/get_resource: the policy may not read v1 ConfigMap: it is not among its contextAwareResources"
        ),
        "{}",
        undeclared.stderr
    );
}

#[test]
fn a_host_call_storm_stops_within_the_limits() {
    let root = root();
    let started = Instant::now();
    let ran = transform(
        root.path(),
        "  module: host-call-storm.wasm\n  timeout: 5s\n",
        CONFIG_MAP,
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stdout.is_empty(), "nothing partial on stdout");
    assert!(
        ran.stderr
            .contains("it made more than 10000 host calls in one call and was stopped"),
        "{}",
        ran.stderr
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_host_call_storm_cannot_outrun_the_timeout() {
    let root = root();
    let started = Instant::now();
    // 10,000 host calls take far longer than 1ms: the deadline stops the storm first.
    let ran = transform(
        root.path(),
        "  module: host-call-storm.wasm\n  timeout: 1ms\n",
        CONFIG_MAP,
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("it ran longer than its timeout of 1ms and was stopped"),
        "{}",
        ran.stderr
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}
