//! Helpers shared by the integration tests: the real clients (`kubectl kustomize`, `kpt`)
//! and the peer fixtures beside the repository (`../shared/peer-fixtures`).
//!
//! A missing client or missing fixtures are a loud skip on a developer machine and a
//! failure under `CI=true`: a test that silently did not run is worse than one that failed.

// Each test crate uses a different subset of these helpers.
#![allow(dead_code)]

pub mod conformance;

use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Longest any single client call may take before the test fails (the real calls take
/// well under a second; this only turns a hang into a clear failure).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// The kadmit binary Cargo built for these tests.
pub fn kadmit_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_kadmit"))
}

/// `CI=true` (or `CI=1`): missing tools are failures, not skips.
pub fn in_ci() -> bool {
    std::env::var("CI")
        .map(|v| v.eq_ignore_ascii_case("true") || v == "1")
        .unwrap_or(false)
}

/// `../shared/peer-fixtures/<peer>`: the peers' test data, kept outside the repository.
pub fn peer_fixtures(peer: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/peer-fixtures")
        .join(peer)
}

/// Whether the peer fixtures of `peer` are there; when not, a loud skip (a failure under
/// `CI=true`), so a fresh clone with nothing beside it still passes `cargo test`.
pub fn peer_fixtures_present(peer: &str) -> bool {
    let dir = peer_fixtures(peer);
    dir.is_dir()
        || skip_or_fail(&format!(
            "the peer fixtures {} are not there (they live beside the repository, in shared/)",
            dir.display()
        ))
}

/// The kadmit binary as a command, with the environment that could change what it finds
/// (kustomize's plugin root, the plugin path, the user's XDG directory) cleared.
pub fn kadmit_isolated() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(kadmit_bin());
    cmd.env_remove("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
        .env_remove("KADMIT_PLUGIN_PATH")
        .env("XDG_CONFIG_HOME", "/nonexistent-kadmit-test");
    cmd
}

/// The running test's name (libtest names each test's thread after the test).
pub fn current_test_name() -> String {
    std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .unwrap_or("<unknown test>")
        .to_owned()
}

/// Under CI: panic with `reason`. Elsewhere: print a loud skip notice and return false,
/// so the caller can `return` early.
pub fn skip_or_fail(reason: &str) -> bool {
    let test = current_test_name();
    if in_ci() {
        panic!("{reason}; test {test} cannot run and CI=true requires it to");
    }
    // Straight to the stderr handle: libtest captures `eprintln!` of passing tests, and a
    // skip must be seen.
    let bar = "*".repeat(72);
    let notice = format!(
        "\n{bar}\nSKIPPED: {reason}; test {test} did not run\n(set CI=true to make this a failure)\n{bar}\n"
    );
    let _ = std::io::stderr().write_all(notice.as_bytes());
    false
}

/// The executable `name` on PATH, if any.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// True when `name` is on PATH. Otherwise: fails under `CI=true`, else prints a loud
/// skip message and returns false.
pub fn require_tool(name: &str) -> bool {
    if find_on_path(name).is_some() {
        return true;
    }
    skip_or_fail(&format!("{name} not found on PATH"))
}

/// The independent YAML 1.1 reader the comparisons use: python3 with PyYAML.
pub fn require_python_yaml() -> bool {
    if !require_tool("python3") {
        return false;
    }
    let ok = Command::new("python3")
        .args(["-c", "import yaml"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok || skip_or_fail("python3 has no PyYAML module (pip install pyyaml)")
}

/// PyYAML (YAML 1.1, a reader that is not kubectl's) reads every document of `yaml`: the
/// documents as JSON. Call [`require_python_yaml`] first.
pub fn pyyaml_load(yaml: &str) -> Value {
    let script = "import sys, json, yaml\nprint(json.dumps(list(yaml.safe_load_all(sys.stdin.read())), default=str))";
    let ran = run(
        Command::new("python3").args(["-c", script]),
        Some(yaml.as_bytes()),
    );
    assert!(ran.success(), "PyYAML failed: {}\n{yaml}", ran.stderr);
    serde_json::from_str(&ran.stdout).expect("json from python")
}

/// What a finished process said.
pub struct Ran {
    pub what: String,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// Everything the process printed, for message checks.
    pub fn output(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    /// Panics with the full transcript unless the process exited 0.
    pub fn expect_success(self) -> Ran {
        assert!(self.success(), "{} failed:\n{}", self.what, self.describe());
        self
    }

    pub fn describe(&self) -> String {
        format!(
            "command: {}\nstatus: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.what, self.status, self.stdout, self.stderr
        )
    }
}

/// Runs `cmd` with `stdin` (empty when `None`), capturing both streams, and fails the test
/// if it runs longer than [`CALL_TIMEOUT`].
pub fn run(cmd: &mut Command, stdin: Option<&[u8]>) -> Ran {
    let what = describe_command(cmd);
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let input = stdin.unwrap_or_default().to_vec();
    let mut child_stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        // A process that exits without reading its input closes the pipe; that is its call.
        let _ = child_stdin.write_all(&input);
    });
    let stdout = drain(child.stdout.take().expect("piped stdout"));
    let stderr = drain(child.stderr.take().expect("piped stderr"));
    let deadline = Instant::now() + CALL_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what} did not finish within {CALL_TIMEOUT:?}");
            }
            Err(e) => panic!("waiting for {what}: {e}"),
        }
    };
    let _ = writer.join();
    Ran {
        what,
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

fn describe_command(cmd: &Command) -> String {
    let envs: Vec<String> = cmd
        .get_envs()
        .filter_map(|(k, v)| Some(format!("{}={}", k.to_string_lossy(), v?.to_string_lossy())))
        .collect();
    let args: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(OsStr::to_string_lossy)
        .map(|a| {
            if a.contains([' ', '\'', '"']) {
                shell_quote(&a)
            } else {
                a.into_owned()
            }
        })
        .collect();
    let mut text = envs.join(" ");
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(&args.join(" "));
    if let Some(dir) = cmd.get_current_dir() {
        text.push_str(&format!("  (in {})", dir.display()));
    }
    text
}

const YAML_TO_JSON: &str = r#"
import json, sys, yaml
docs = [d for d in yaml.safe_load_all(sys.stdin) if d is not None]
json.dump(docs, sys.stdout, sort_keys=True, default=str)
"#;

/// Every non-empty document of a YAML stream, read by PyYAML (YAML 1.1, like kubectl:
/// `yes` is a boolean, `0755` is 493, unquoted `12:30` is 750) and turned into JSON.
/// Panics when the text does not parse.
pub fn yaml_docs(text: &str) -> Vec<Value> {
    let ran = run(
        Command::new("python3").args(["-c", YAML_TO_JSON]),
        Some(text.as_bytes()),
    );
    assert!(
        ran.success(),
        "YAML does not parse:\n{text}\n--- python3 ---\n{}",
        ran.stderr
    );
    serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("python3 printed no JSON ({e}):\n{}", ran.stdout))
}

/// Writes `text` to `dir/relative`, creating parent directories.
pub fn write(dir: &Path, relative: &str, text: &str) -> PathBuf {
    let path = dir.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
    }
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    path
}

/// Every file under `dir`, by path relative to `dir`, with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    collect(dir, dir, &mut files);
    files
}

fn collect(root: &Path, dir: &Path, files: &mut BTreeMap<String, Vec<u8>>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            let relative = path
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .into_owned();
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            files.insert(relative, bytes);
        }
    }
}

/// Every YAML file under `dir` (Kptfile included), parsed with [`yaml_docs`].
pub fn parsed_snapshot(dir: &Path) -> BTreeMap<String, Vec<Value>> {
    snapshot(dir)
        .into_iter()
        .map(|(path, bytes)| {
            let text = String::from_utf8(bytes).expect("UTF-8 file");
            let docs = yaml_docs(&text);
            (path, docs)
        })
        .collect()
}

/// Writes a kustomize legacy exec-plugin entry `home/<group>/<version>/<kind lowercase>/<Kind>`
/// that runs kadmit: the same wrapper `kadmit install-plugins` writes (src/install.rs), for a
/// kind install-plugins does not know.
pub fn write_plugin_entry(home: &Path, group: &str, version: &str, kind: &str) -> PathBuf {
    let dir = home.join(group).join(version).join(kind.to_lowercase());
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let binary = kadmit_bin()
        .canonicalize()
        .expect("the kadmit binary exists");
    let quoted = binary.display().to_string().replace('\'', r"'\''");
    let path = dir.join(kind);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n# Written by the kadmit integration tests, like `kadmit install-plugins`.\nexec '{quoted}' \"$@\"\n"
        ),
    )
    .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("chmod plugin entry");
    }
    path
}

/// A kustomize plugin home written by `kadmit install-plugins HOME`, with `--plugin-dir`
/// for each of `plugin_dirs` (their generator kinds get entries too).
pub fn plugin_home(plugin_dirs: &[&Path]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(kadmit_bin());
    command.arg("install-plugins").arg(home.path());
    for dir in plugin_dirs {
        command.arg("--plugin-dir").arg(dir);
    }
    run(&mut command, None).expect_success();
    home
}

/// `KUSTOMIZE_PLUGIN_HOME=<home> kubectl kustomize --enable-alpha-plugins <dir>`.
pub fn kubectl_kustomize(dir: &Path, home: &Path) -> Ran {
    run(
        Command::new("kubectl")
            .args(["kustomize", "--enable-alpha-plugins"])
            .arg(dir)
            .env("KUSTOMIZE_PLUGIN_HOME", home)
            // kustomize leaves its kust-plugin-config-* files behind when a plugin fails.
            .env("TMPDIR", home),
        None,
    )
}

/// Quotes `s` for a POSIX-shell-like splitter (kpt's `--exec`, kustomize's `argsOneLiner`).
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Documents parsed by serde_yaml, for example tests that need no external tool (only for
/// files holding no scalar that YAML 1.1 and 1.2 read differently).
pub fn rust_yaml_docs(text: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|doc| {
            <Value as serde::Deserialize>::deserialize(doc)
                .unwrap_or_else(|e| panic!("{e}:\n{text}"))
        })
        .filter(|v| !v.is_null())
        .collect()
}

/// `apiVersion kind namespace/name` of a document.
pub fn identity(doc: &Value) -> String {
    let field = |v: &Value| v.as_str().unwrap_or("").to_owned();
    format!(
        "{} {} {}/{}",
        field(&doc["apiVersion"]),
        field(&doc["kind"]),
        field(&doc["metadata"]["namespace"]),
        field(&doc["metadata"]["name"])
    )
}

/// Documents by identity; panics on a duplicate.
pub fn by_identity(docs: &[Value]) -> BTreeMap<String, Value> {
    let mut map = BTreeMap::new();
    for doc in docs {
        let previous = map.insert(identity(doc), doc.clone());
        assert!(previous.is_none(), "two documents named {}", identity(doc));
    }
    map
}

/// `got` holds the same documents as `expected_file` (`expected`), in any order.
pub fn assert_same_documents(got: &[Value], expected: &[Value], expected_file: &str, ran: &str) {
    let got = by_identity(got);
    let expected = by_identity(expected);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "not the documents of {expected_file}\n{ran}"
    );
    for (id, doc) in &expected {
        assert_eq!(&got[id], doc, "{id} differs from {expected_file}\n{ran}");
    }
}
