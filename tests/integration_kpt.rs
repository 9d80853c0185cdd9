//! kadmit as a KRM function under the real kpt: `kpt fn eval <pkg> --exec "<kadmit> ..."`
//! (ResourceList on stdin and stdout), on a package directory and on a stream from stdin.
//!
//! Skips loudly when kpt (or python3 + PyYAML, the independent YAML reader) is missing;
//! fails instead under `CI=true`.

mod common;

use common::{
    kadmit_bin, parsed_snapshot, require_python_yaml, require_tool, run, shell_quote, snapshot,
    write, yaml_docs, Ran,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

/// Scalars YAML 1.1 and 1.2 readers disagree on, flow mappings, an unquoted octal
/// (`0755`, an int for every reader), a multi-line string.
const RESOURCES: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: tricky
  annotations:
    build: "123"
data:
  quotedYes: "yes"
  quotedOn: "on"
  quotedOctal: "0755"
  quotedTime: "12:30"
  quotedNull: "null"
  hash: "a # not a comment"
  multi: |
    line one
      indented "two"
    line: three
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        args: ["--port", "8080", "yes"]
      volumes:
      - name: cfg
        configMap:
          name: tricky
          defaultMode: 0755
"#;

/// kpt restores comments through the id annotations kadmit must hand back.
const SERVICE: &str = r#"# the front door
apiVersion: v1
kind: Service
metadata:
  name: web # keep this name
  namespace: shop
  annotations:
    enabled: "on"
spec:
  selector:
    app: web
  ports:
  - port: 80
    targetPort: 8080
"#;

const NESTED: &str = r#"apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: shop
stringData:
  enabled: "true"
  pin: "0012"
"#;

const KPTFILE: &str = r#"apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: kadmit integration test package
"#;

const ESCAPING_POLICY_SET: &str = r#"apiVersion: kadmit.dev/v1alpha1
kind: PolicySet
metadata:
  name: escape
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  paths:
  - ../outside
"#;

/// `<tmp>/pkg` holding a few resources in files (and a Kptfile when asked), plus an
/// existing `<tmp>/outside` directory next to it.
struct Package {
    tmp: TempDir,
    dir: PathBuf,
}

impl Package {
    fn new(with_kptfile: bool) -> Package {
        let tmp = tempfile::tempdir().expect("temporary directory");
        let dir = tmp.path().join("pkg");
        write(&dir, "resources.yaml", RESOURCES);
        write(&dir, "service.yaml", SERVICE);
        write(&dir, "nested/namespace-and-secret.yaml", NESTED);
        if with_kptfile {
            write(&dir, "Kptfile", KPTFILE);
        }
        write(
            tmp.path(),
            "outside/rules.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-rule\n",
        );
        Package { tmp, dir }
    }
}

/// The `--exec` value: kadmit's path, quoted for kpt's shell-like splitting, and `args`.
fn exec(args: &str) -> String {
    let binary = shell_quote(&kadmit_bin().display().to_string());
    if args.is_empty() {
        binary
    } else {
        format!("{binary} {args}")
    }
}

/// The native defaults the API server writes into the built-in objects of [`RESOURCES`],
/// [`SERVICE`] and [`NESTED`] (kadmit writes them unless `--no-defaults`): per document,
/// the fields it gains, as (JSON pointer, value). The ConfigMap gains none.
fn native_defaults(doc: &Value) -> Vec<(&'static str, Value)> {
    match (doc["kind"].as_str(), doc["metadata"]["name"].as_str()) {
        (Some("Deployment"), Some("web")) => vec![
            (
                "/spec/template/spec/containers/0/imagePullPolicy",
                json!("IfNotPresent"),
            ),
            (
                "/spec/template/spec/containers/0/terminationMessagePath",
                json!("/dev/termination-log"),
            ),
            (
                "/spec/template/spec/containers/0/terminationMessagePolicy",
                json!("File"),
            ),
            ("/spec/template/spec/dnsPolicy", json!("ClusterFirst")),
            ("/spec/template/spec/restartPolicy", json!("Always")),
            ("/spec/template/spec/securityContext", json!({})),
            (
                "/spec/template/spec/terminationGracePeriodSeconds",
                json!(30),
            ),
            (
                "/spec/template/spec/schedulerName",
                json!("default-scheduler"),
            ),
            (
                "/spec/strategy",
                json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}),
            ),
            ("/spec/revisionHistoryLimit", json!(10)),
            ("/spec/progressDeadlineSeconds", json!(600)),
        ],
        (Some("Service"), Some("web")) => vec![
            ("/spec/ports/0/protocol", json!("TCP")),
            ("/spec/sessionAffinity", json!("None")),
            ("/spec/type", json!("ClusterIP")),
            ("/spec/internalTrafficPolicy", json!("Cluster")),
        ],
        (Some("Namespace"), Some("shop")) => vec![
            (
                "/metadata/labels",
                json!({"kubernetes.io/metadata.name": "shop"}),
            ),
            // Not `/status` (`phase: Active`): status is the server's to fill.
        ],
        (Some("Secret"), Some("creds")) => vec![("/type", json!("Opaque"))],
        _ => vec![],
    }
}

/// `doc` with the fields of [`native_defaults`] added.
fn with_native_defaults(doc: &Value) -> Value {
    let mut doc = doc.clone();
    for (pointer, value) in native_defaults(&doc) {
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        doc.pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| panic!("no object at {parent:?} for {pointer}"))
            .insert(key.to_owned(), value);
    }
    doc
}

/// `kpt fn eval <target> --exec <exec> <extra...>`, run in `cwd`.
fn kpt_eval(cwd: &Path, target: &str, exec: &str, extra: &[&str], stdin: Option<&[u8]>) -> Ran {
    run(
        Command::new("kpt")
            .args(["fn", "eval", target, "--exec", exec])
            .args(extra)
            .current_dir(cwd),
        stdin,
    )
}

/// Runs kadmit over the package and checks that the same files hold the same documents,
/// as a YAML 1.1 reader (kubectl) sees them; kpt may reformat. With `defaults_written`, the
/// built-in objects come back with their [`native_defaults`] and nothing else changes.
fn round_trip(exec_args: &str, with_kptfile: bool, defaults_written: bool) {
    let pkg = Package::new(with_kptfile);
    let mut before = parsed_snapshot(&pkg.dir);
    if defaults_written {
        for docs in before.values_mut() {
            *docs = docs.iter().map(with_native_defaults).collect();
        }
    }
    let ran = kpt_eval(
        pkg.tmp.path(),
        &pkg.dir.display().to_string(),
        &exec(exec_args),
        &[],
        None,
    )
    .expect_success();
    let after = parsed_snapshot(&pkg.dir);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "kpt + kadmit changed the package's files\n{}",
        ran.describe()
    );
    for (file, docs) in &before {
        assert_eq!(
            docs,
            &after[file],
            "{file} changed meaning\n--- now ---\n{}\n{}",
            std::fs::read_to_string(pkg.dir.join(file)).unwrap(),
            ran.describe()
        );
    }
    let service = std::fs::read_to_string(pkg.dir.join("service.yaml")).unwrap();
    assert!(
        service.contains("# the front door") && service.contains("# keep this name"),
        "comments were lost (kadmit must hand back kpt's id annotations):\n{service}"
    );
    assert_eq!(docs_count(&after), 5, "{after:#?}");
}

fn docs_count(files: &std::collections::BTreeMap<String, Vec<serde_json::Value>>) -> usize {
    files
        .values()
        .flatten()
        .filter(|d| d["kind"] != "Kptfile")
        .count()
}

/// `kpt fn eval <pkg> --exec "<kadmit> transform --no-defaults"` on a package with no
/// Kptfile (kpt does not need one for `fn eval`): every file keeps its documents and their
/// meaning, comments survive, and no file is added, moved or removed. (`--no-defaults`: the
/// identity is the point; the native defaults are checked by the next test.)
#[test]
fn kpt_fn_eval_exec_transform_round_trips_package() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    round_trip("transform --no-defaults", false, false);
}

/// `kpt fn eval <pkg> --exec <kadmit>` with no subcommand (the KRM function mode, which
/// takes no flags), on a package with a Kptfile: the same round trip, end to end, the
/// built-in objects gaining exactly their native defaults.
#[test]
fn kpt_fn_eval_exec_without_subcommand_round_trips_package() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    round_trip("", true, true);
}

/// `kpt fn eval - --exec ... -o unwrap` reads a stream on stdin and prints a bare stream
/// with the same documents, in order, as kubectl would read them: the same meaning with
/// `transform --no-defaults`, the built-in objects gaining exactly their native defaults in
/// the KRM function mode (no subcommand, no flags).
#[test]
fn kpt_fn_eval_stdin_unwrap_round_trips_stream() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temporary directory");
    let stream = format!("{RESOURCES}---\n{SERVICE}---\n{NESTED}");
    let unchanged = yaml_docs(&stream);
    assert_eq!(unchanged.len(), 5);
    let defaulted: Vec<Value> = unchanged.iter().map(with_native_defaults).collect();
    for (args, expected) in [("transform --no-defaults", &unchanged), ("", &defaulted)] {
        let ran = kpt_eval(
            tmp.path(),
            "-",
            &exec(args),
            &["-o", "unwrap"],
            Some(stream.as_bytes()),
        )
        .expect_success();
        assert!(
            !ran.stdout.contains("kind: ResourceList"),
            "-o unwrap printed a ResourceList:\n{}",
            ran.describe()
        );
        assert_eq!(
            &yaml_docs(&ran.stdout),
            expected,
            "exec {args:?}: the stream changed meaning\n{}",
            ran.describe()
        );
    }
}

/// `--fn-config` naming a PolicySet (inside the package) whose path leaves the
/// configuration root: kpt fails, shows kadmit's message, and writes nothing.
#[test]
fn kpt_fn_config_policyset_escaping_root_fails_and_leaves_package_unchanged() {
    if !require_tool("kpt") {
        return;
    }
    let pkg = Package::new(true);
    write(&pkg.dir, "policyset.yaml", ESCAPING_POLICY_SET);
    let before = snapshot(&pkg.dir);
    // kadmit's configuration root under kpt is kpt's working directory: the package.
    let ran = kpt_eval(
        &pkg.dir,
        ".",
        &exec("transform"),
        &["--fn-config", "policyset.yaml"],
        None,
    );
    assert_escape_reported(&ran);
    assert_eq!(
        snapshot(&pkg.dir),
        before,
        "a failed kpt fn eval changed the package"
    );
}

/// The same with the PolicySet outside the package and kadmit in KRM mode (no
/// subcommand): kadmit answers with error results, kpt prints them and fails.
#[test]
fn kpt_fn_config_outside_package_escaping_root_fails_in_krm_mode() {
    if !require_tool("kpt") {
        return;
    }
    let pkg = Package::new(false);
    let fn_config = write(pkg.tmp.path(), "fn/escape.yaml", ESCAPING_POLICY_SET);
    let before = snapshot(&pkg.dir);
    let ran = kpt_eval(
        &pkg.dir,
        ".",
        &exec(""),
        &["--fn-config", &fn_config.display().to_string()],
        None,
    );
    assert_escape_reported(&ran);
    assert_eq!(
        snapshot(&pkg.dir),
        before,
        "a failed kpt fn eval changed the package"
    );
}

fn assert_escape_reported(ran: &Ran) {
    assert!(!ran.success(), "kpt succeeded:\n{}", ran.describe());
    let output = ran.output();
    assert!(
        output.contains("outside the configuration root"),
        "kadmit's confinement message is not in kpt's output:\n{}",
        ran.describe()
    );
    assert!(
        output.contains("../outside") && output.contains("PolicySet escape"),
        "the message does not name the path and the PolicySet:\n{}",
        ran.describe()
    );
}

/// A `kind: List` file in a package: kpt hands the List over as one item carrying its
/// path/index annotations, and it must come back that way (or as items that keep those
/// annotations) so kpt writes it back to the same file.
#[test]
fn kpt_list_file_keeps_its_place() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    let pkg = Package::new(false);
    write(
        &pkg.dir,
        "sub/list.yaml",
        r#"apiVersion: v1
kind: List
metadata:
  name: things
items:
- apiVersion: v1
  kind: ServiceAccount
  metadata:
    name: robot
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: from-list
  data:
    count: "10"
"#,
    );
    let before = parsed_snapshot(&pkg.dir);
    // `--no-defaults`: the package must come back as it was; the native defaults of its
    // Deployment, Service, Namespace and Secret are not what this test is about.
    let ran = kpt_eval(
        pkg.tmp.path(),
        &pkg.dir.display().to_string(),
        &exec("transform --no-defaults"),
        &[],
        None,
    )
    .expect_success();
    let after = parsed_snapshot(&pkg.dir);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "kpt + kadmit moved resources between files\n{}",
        ran.describe()
    );
    assert_eq!(before, after, "the package changed meaning");
}
