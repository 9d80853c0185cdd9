//! `kadmit module run` on the test modules of testdata/modules: the specification's
//! examples for each use case (validate, authn, authz), settings, the Kubewarden policy,
//! the exec module, `--object`, and every hostile module (stopped or refused, exit 2,
//! with a message naming the module).

mod common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn testdata(relative: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/modules")
        .join(relative)
        .display()
        .to_string()
}

fn wasm(name: &str) -> String {
    testdata(&format!("wasm/{name}.wasm"))
}

fn request(name: &str) -> String {
    testdata(&format!("requests/{name}.json"))
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

fn module_run(args: &[&str]) -> Ran {
    let output = Command::cargo_bin("kadmit")
        .unwrap()
        .args(["module", "run"])
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

#[test]
fn validate_denies_the_specification_example() {
    let ran = module_run(&[
        &wasm("magic-validator"),
        "--request",
        &request("configmap-not-allowed"),
    ]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let response = ran.json();
    assert_eq!(response["kind"], "AdmissionReview");
    assert_eq!(
        response["response"]["uid"],
        "678b2f02-0837-4262-95ea-5781b2864ac0"
    );
    assert_eq!(response["response"]["allowed"], false);
    assert!(ran.stderr.contains(
        "admission WASM module \"magic-validator\" denied the request: value not-allowed-value not allowed in configmap"
    ), "{}", ran.stderr);
}

#[test]
fn validate_mutates_with_a_full_patch() {
    let ran = module_run(&[
        &wasm("magic-mutator"),
        "--request",
        &request("configmap-mutate"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.json()["response"]["patchType"], "Full");
    assert!(
        ran.stderr
            .contains("changes the object at: /data/magic-value"),
        "{}",
        ran.stderr
    );
}

#[test]
fn authn_authenticates_the_magic_token_only() {
    let ran = module_run(&[
        &wasm("magic-authenticator"),
        "--request",
        &request("tokenreview-magic-token"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let status = &ran.json()["status"];
    assert_eq!(status["authenticated"], true);
    assert_eq!(status["user"]["username"], "magic-user");
    let ran = module_run(&[
        &wasm("magic-authenticator"),
        "--request",
        &request("tokenreview-other-token"),
    ]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("did not authenticate the token"),
        "{}",
        ran.stderr
    );
}

#[test]
fn authz_denies_listing_pods() {
    let ran = module_run(&[
        &wasm("magic-authorizer"),
        "--request",
        &request("subjectaccessreview-list-pods"),
    ]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(ran.json()["status"]["allowed"], false);
    let ran = module_run(&[
        &wasm("magic-authorizer"),
        "--request",
        &request("subjectaccessreview-get-pod"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.json()["status"]["allowed"], true);
}

#[test]
fn requests_may_be_yaml() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("review.yaml");
    std::fs::write(
        &file,
        "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: magic-token\n",
    )
    .unwrap();
    let ran = module_run(&[
        &wasm("magic-authenticator"),
        "--request",
        &file.display().to_string(),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.json()["status"]["user"]["groups"],
        serde_json::json!(["magic-group"])
    );
}

#[test]
fn the_use_case_can_be_named_and_must_fit() {
    let ran = module_run(&[
        &wasm("magic-authorizer"),
        "--use-case",
        "authz",
        "--request",
        &request("subjectaccessreview-get-pod"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let ran = module_run(&[
        &wasm("magic-authorizer"),
        "--use-case",
        "authn",
        "--request",
        &request("subjectaccessreview-get-pod"),
    ]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .contains("the use case authn reads a TokenReview"),
        "{}",
        ran.stderr
    );
    assert!(ran.stdout.is_empty());
}

#[test]
fn object_builds_the_admission_review() {
    let dir = tempfile::tempdir().unwrap();
    let object = dir.path().join("cm.yaml");
    std::fs::write(
        &object,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: b\n",
    )
    .unwrap();
    let object = object.display().to_string();
    let ran = module_run(&[
        &wasm("magic-mutator"),
        "--object",
        &object,
        "--namespace",
        "team-a",
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stderr.contains("/data/magic-value"), "{}", ran.stderr);
    // The probe echoes nothing of the request but its uid: the uid is the pipeline's.
    let probe = module_run(&[
        &wasm("hostile-wasi-probe"),
        "--object",
        &object,
        "--namespace",
        "team-a",
    ]);
    let again = module_run(&[
        &wasm("hostile-wasi-probe"),
        "--object",
        &object,
        "--namespace",
        "team-a",
    ]);
    assert_eq!(probe.code, 0, "{}", probe.stderr);
    assert_eq!(probe.stdout, again.stdout, "the uid is derived, not random");
    let uid = probe.json()["response"]["uid"].as_str().unwrap().to_owned();
    let other = module_run(&[
        &wasm("hostile-wasi-probe"),
        "--object",
        &object,
        "--namespace",
        "team-b",
    ]);
    assert_ne!(other.json()["response"]["uid"], uid.as_str());
}

#[test]
fn settings_come_from_a_file_or_the_request_envelope() {
    let dir = tempfile::tempdir().unwrap();
    let object = dir.path().join("cm.yaml");
    std::fs::write(
        &object,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n",
    )
    .unwrap();
    let object = object.display().to_string();
    let ran = module_run(&[
        &wasm("settings-validator"),
        "--object",
        &object,
        "--settings",
        &testdata("settings/required-labels.json"),
    ]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("missing required labels: team"),
        "{}",
        ran.stderr
    );
    // No settings: the key is omitted and this module says it needs them.
    let ran = module_run(&[&wasm("settings-validator"), "--object", &object]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .contains("envelope error: 'settings are required"),
        "{}",
        ran.stderr
    );
    let envelope = dir.path().join("envelope.yaml");
    let review: Value =
        serde_json::from_str(&std::fs::read_to_string(request("configmap-mutate")).unwrap())
            .unwrap();
    let text = serde_json::to_string(
        &serde_json::json!({"request": review, "settings": {"requiredLabels": ["owner"]}}),
    )
    .unwrap();
    std::fs::write(&envelope, text).unwrap();
    let ran = module_run(&[
        &wasm("settings-validator"),
        "--request",
        &envelope.display().to_string(),
    ]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("missing required labels: owner"),
        "{}",
        ran.stderr
    );
}

#[test]
fn kubewarden_policies_run_with_their_protocol() {
    let policy = wasm("kubewarden-policy");
    let ran = module_run(&[
        "--protocol",
        "kubewarden-wasi",
        &policy,
        "--request",
        &request("pod-latest"),
    ]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(ran.json()["accepted"], false);
    assert!(
        ran.stderr.contains("nginx:latest") && ran.stderr.contains("(code 400)"),
        "{}",
        ran.stderr
    );
    let ran = module_run(&[
        "--protocol",
        "kubewarden-wasi",
        &policy,
        "--request",
        &request("pod-pinned"),
        "--settings",
        &testdata("settings/add-label.json"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.json()["mutated_object"]["metadata"]["labels"]["kadmit.dev/policy"],
        "checked"
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"frobnicate": true}"#).unwrap();
    let ran = module_run(&[
        "--protocol",
        "kubewarden-wasi",
        &policy,
        "--request",
        &request("pod-pinned"),
        "--settings",
        &bad.display().to_string(),
    ]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("Provided settings are not valid"),
        "{}",
        ran.stderr
    );
}

#[test]
fn exec_modules_speak_the_same_protocol() {
    if !common::require_tool("python3") {
        return;
    }
    let module = testdata("exec/deny-latest.py");
    let ran = module_run(&[
        "--exec",
        &module,
        "--request",
        &request("deployment-latest"),
    ]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("admission exec module \"deny-latest.py\" denied the request"),
        "{}",
        ran.stderr
    );
    let ran = module_run(&["--exec", &module, "--request", &request("pod-pinned")]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

/// Each hostile module: exit 2, nothing on stdout, a message naming the module.
#[test]
fn hostile_modules_are_stopped_and_named() {
    let cases = [
        (
            "hostile-loop",
            "failed: it ran longer than its timeout of 1s and was stopped",
        ),
        (
            "hostile-memory",
            "failed: it needed more memory than its memory limit of 64Mi and was stopped",
        ),
        (
            "hostile-trap",
            "failed: trapped: wasm `unreachable` instruction executed",
        ),
        (
            "hostile-garbage",
            "returned an invalid response: the output is not JSON",
        ),
        (
            "hostile-wrong-uid",
            "expected response.uid=\"695570da-9d1d-476a-a58a-15e051768042\", got \"wrong-uid\"",
        ),
        ("hostile-exit", "failed: exited with status 3"),
        (
            "hostile-no-validate",
            "missing function 'validate' in module 'hostile-no-validate'",
        ),
    ];
    for (module, message) in cases {
        let started = Instant::now();
        let ran = module_run(&[&wasm(module), "--request", &request("configmap-mutate")]);
        assert_eq!(ran.code, 2, "{module}: {}", ran.stderr);
        assert!(ran.stdout.is_empty(), "{module} printed {}", ran.stdout);
        let named = format!("module \"{module}\"");
        assert!(
            ran.stderr.contains(&named) && ran.stderr.contains(message),
            "{module}: {}",
            ran.stderr
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{module} took {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn limits_can_be_set_per_run() {
    let started = Instant::now();
    let ran = module_run(&[
        &wasm("hostile-loop"),
        "--timeout",
        "150ms",
        "--request",
        &request("configmap-mutate"),
    ]);
    assert!(ran.stderr.contains("timeout of 150ms"), "{}", ran.stderr);
    assert!(started.elapsed() < Duration::from_secs(10));
    let ran = module_run(&[
        &wasm("hostile-memory"),
        "--memory-limit",
        "2Mi",
        "--request",
        &request("configmap-mutate"),
    ]);
    assert!(ran.stderr.contains("memory limit of 2Mi"), "{}", ran.stderr);
    let ran = module_run(&[
        &wasm("magic-validator"),
        "--memory-limit",
        "lots",
        "--request",
        &request("configmap-mutate"),
    ]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("invalid quantity \"lots\""),
        "{}",
        ran.stderr
    );
}

#[test]
fn the_sandbox_shows_nothing_of_the_host() {
    let ran = module_run(&[
        &wasm("hostile-wasi-probe"),
        "--request",
        &request("configmap-mutate"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let report: Value = serde_json::from_str(
        ran.json()["response"]["status"]["message"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(report["args_sizes_get"]["argc"], 0);
    assert_eq!(report["environ_sizes_get"]["count"], 0);
    assert_eq!(
        report["fd_prestat_get"]["errno"], 8,
        "no preopened directory"
    );
    assert_eq!(report["path_open"]["errno"], 8, "no file");
    assert_eq!(report["clock_time_get"]["realtime"]["ns"], 0);
    assert_eq!(report["clock_time_get"]["monotonic"]["ns"], 0);
    let again = module_run(&[
        &wasm("hostile-wasi-probe"),
        "--request",
        &request("configmap-mutate"),
    ]);
    assert_eq!(
        ran.stdout, again.stdout,
        "random_get gives the same bytes every run"
    );
}

#[test]
fn bad_input_is_exit_2() {
    let ran = module_run(&[&wasm("magic-validator"), "--request", "/nonexistent.json"]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("cannot read /nonexistent.json"),
        "{}",
        ran.stderr
    );
    let ran = module_run(&[
        &testdata("requests/pod-latest.json"),
        "--request",
        &request("pod-latest"),
    ]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("not a valid WebAssembly module"),
        "{}",
        ran.stderr
    );
}

/// A module of testdata/modules/hostile/ (WAT), compiled into `dir` as `<name>.wasm`.
fn hostile(dir: &tempfile::TempDir, name: &str) -> String {
    let wasm = wat::parse_file(testdata(&format!("hostile/{name}.wat")))
        .unwrap_or_else(|e| panic!("{name}.wat: {e}"));
    let path = dir.path().join(format!("{name}.wasm"));
    std::fs::write(&path, wasm).unwrap();
    path.display().to_string()
}

/// `memory.grow` and `table.grow` in a loop (failing each time) aborted kadmit with a
/// native stack overflow under wasmi's tail-call dispatch: each module now runs to its end
/// and is reported like any module that answers nothing.
#[test]
fn grow_loops_do_not_take_kadmit_down() {
    let dir = tempfile::tempdir().unwrap();
    for module in ["memory-grow-loop", "table-grow-loop"] {
        let ran = module_run(&[
            &hostile(&dir, module),
            "--request",
            &request("configmap-mutate"),
        ]);
        assert_eq!(ran.code, 2, "{module}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(&format!(
                "admission WASM module \"{module}\" returned an invalid response"
            )),
            "{module}: {}",
            ran.stderr
        );
    }
}

/// Host calls that do a lot of work each (`random_get` of 64 MiB) or name a million
/// buffers (`fd_write`, `fd_read`) ran far past the timeout (minutes, or for ever): they
/// are now charged fuel for their work, the buffers are bounded, and the deadline is
/// checked on every host call and inside `random_get`.
#[test]
fn host_calls_cannot_outrun_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    for module in [
        "random-get-forever",
        "random-get-1000x64MB",
        "stderr-iovecs-forever",
        "fdread-iovecs-forever",
    ] {
        let started = Instant::now();
        let ran = module_run(&[
            &hostile(&dir, module),
            "--timeout",
            "200ms",
            "--request",
            &request("configmap-mutate"),
        ]);
        assert_eq!(ran.code, 2, "{module}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(&format!(
                "admission WASM module \"{module}\" failed: it ran longer than its timeout of 200ms and was stopped"
            )),
            "{module}: {}",
            ran.stderr
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{module} took {:?}",
            started.elapsed()
        );
    }
}
