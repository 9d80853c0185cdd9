//! The user's own file names in every message (docs/cli.md, "Input files" and "Origins"):
//! `-f FILE|DIR|-` with `-R`, and the files a stream's documents say they come from
//! (kustomize's origin annotation through the real `kubectl kustomize`, kpt's path
//! annotations, Helm's `# Source:` comments).

mod common;

use common::{kadmit_isolated, require_tool, run, write};
use std::path::Path;
use std::process::Command;

/// A Deployment the built-in validation rejects (replicas below zero).
const REJECTED: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: -1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
";

const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\n";

fn config_map(name: &str) -> String {
    CONFIG_MAP.replace("NAME", name)
}

/// Runs kadmit in `dir` with `args` and `stdin`: (exit code, stdout, stderr).
fn kadmit(dir: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = kadmit_isolated()
        .current_dir(dir)
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn names(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  name: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_file_argument_names_the_file_in_messages() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "app/web.yaml",
        &format!("{}---\n{REJECTED}", config_map("a")),
    );
    let (code, stdout, stderr) = kadmit(dir.path(), &["transform", "-f", "app/web.yaml"], "");
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("must be greater than or equal to 0 [app/web.yaml, document 2, line 6]"),
        "{stderr}"
    );
    // The long form, for `generate` and `diff` too.
    let (code, _, stderr) = kadmit(dir.path(), &["generate", "--filename", "app/web.yaml"], "");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("[app/web.yaml, document 2, line 6]"),
        "{stderr}"
    );
    let (code, stdout, stderr) = kadmit(
        dir.path(),
        &["diff", "--color", "never", "-f", "app/web.yaml"],
        "",
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("[app/web.yaml, document 2, line 6]"),
        "{stdout}{stderr}"
    );
}

#[test]
fn a_directory_is_read_in_name_order_and_recursively_with_r() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app/b.yaml", &config_map("b"));
    write(dir.path(), "app/a.yml", &config_map("a"));
    write(
        dir.path(),
        "app/c.json",
        r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}"#,
    );
    write(dir.path(), "app/notes.txt", "not a manifest: {");
    write(dir.path(), "app/sub/d.yaml", &config_map("d"));
    let (code, stdout, stderr) = kadmit(dir.path(), &["transform", "-f", "app"], "");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(names(&stdout), ["a", "b", "c"]);
    let (code, stdout, stderr) = kadmit(dir.path(), &["transform", "-R", "-f", "app"], "");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(names(&stdout), ["a", "b", "c", "d"]);
    write(dir.path(), "app/sub/e.yaml", REJECTED);
    let (code, _, stderr) = kadmit(dir.path(), &["transform", "--recursive", "-f", "app"], "");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("[app/sub/e.yaml, document 1, line 1]"),
        "{stderr}"
    );
}

#[test]
fn dash_is_stdin_among_files_and_no_f_is_stdin_as_before() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "later.yaml", REJECTED);
    let (code, stdout, stderr) = kadmit(
        dir.path(),
        &["transform", "-f", "-", "-f", "later.yaml"],
        &config_map("first"),
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("[later.yaml, document 1, line 1]"),
        "{stderr}"
    );
    write(dir.path(), "later.yaml", &config_map("later"));
    let (code, stdout, stderr) = kadmit(
        dir.path(),
        &["transform", "-f", "-", "-f", "later.yaml"],
        &config_map("first"),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(names(&stdout), ["first", "later"]);
    let (code, _, stderr) = kadmit(dir.path(), &["transform"], REJECTED);
    assert_eq!(code, 1);
    assert!(stderr.contains("[stdin, document 1, line 1]"), "{stderr}");
}

#[test]
fn a_missing_file_is_an_input_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "here.yaml", &config_map("here"));
    let (code, stdout, stderr) = kadmit(
        dir.path(),
        &["transform", "-f", "here.yaml", "-f", "gone.yaml"],
        "",
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.contains("cannot read -f gone.yaml: "), "{stderr}");
}

#[test]
fn empty_files_are_no_input_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "empty.yaml", "# nothing\n");
    let (code, _, stderr) = kadmit(dir.path(), &["transform", "-f", "empty.yaml"], "");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("no input: the files -f names hold no document"),
        "{stderr}"
    );
    let (code, stdout, stderr) = kadmit(
        dir.path(),
        &["transform", "--allow-empty", "-f", "empty.yaml"],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
}

#[test]
fn files_are_the_untrusted_stream_within_its_limits() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "big.yaml",
        "a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n",
    );
    let (code, _, stderr) = kadmit(
        dir.path(),
        &["transform", "--max-document-nodes", "5", "-f", "big.yaml"],
        "",
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--max-document-nodes"), "{stderr}");
    assert!(stderr.contains("[big.yaml, document 1"), "{stderr}");
    // An exec module in a file is refused as one on stdin is.
    let module = "\
apiVersion: kadmit.dev/v1alpha1
kind: AdmissionModule
metadata:
  name: run-me
spec:
  exec:
    command: [sh, -c, \"touch PWNED; cat >/dev/null; echo '{}'\"]
";
    write(dir.path(), "module.yaml", module);
    let from_file = kadmit(dir.path(), &["transform", "-f", "module.yaml"], "");
    let from_stdin = kadmit(dir.path(), &["transform"], module);
    assert_eq!(
        from_file.0, from_stdin.0,
        "{}\n{}",
        from_file.2, from_stdin.2
    );
    assert_eq!(from_file.0, 2, "{}", from_file.2);
    assert!(
        from_file.2.contains("came from the resource stream"),
        "{}",
        from_file.2
    );
    assert!(!dir.path().join("PWNED").exists(), "the command ran");
    assert_eq!(
        from_file.2.replace("module.yaml", "stdin"),
        from_stdin.2,
        "the same refusal, naming the file"
    );
}

#[test]
fn kustomize_origin_annotations_name_the_base_file() {
    if !require_tool("kubectl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "base/app.yaml", REJECTED);
    write(
        dir.path(),
        "base/kustomization.yaml",
        "resources:\n- app.yaml\n",
    );
    write(
        dir.path(),
        "overlay/kustomization.yaml",
        "resources:\n- ../base\nbuildMetadata: [originAnnotations]\n",
    );
    let built = run(
        Command::new("kubectl")
            .args(["kustomize"])
            .arg(dir.path().join("overlay")),
        None,
    )
    .expect_success();
    let stream = built.output();
    assert!(stream.contains("config.kubernetes.io/origin"), "{stream}");
    let (code, _, stderr) = kadmit(dir.path(), &["transform"], &stream);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("[../base/app.yaml (via stdin, document 1, line 1)]"),
        "{stderr}"
    );
    // The annotation stays in the output.
    let valid = REJECTED.replace("replicas: -1", "replicas: 1");
    write(dir.path(), "base/app.yaml", &valid);
    let built = run(
        Command::new("kubectl")
            .args(["kustomize"])
            .arg(dir.path().join("overlay")),
        None,
    )
    .expect_success();
    let (code, stdout, stderr) = kadmit(dir.path(), &["transform"], &built.output());
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("config.kubernetes.io/origin: |\n      path: ../base/app.yaml\n"),
        "{stdout}"
    );
}

#[test]
fn kpt_path_annotations_name_the_package_file() {
    let dir = tempfile::tempdir().unwrap();
    let list = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      internal.config.kubernetes.io/path: deploy/web.yaml
      internal.config.kubernetes.io/index: '1'
  spec:
    replicas: -1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: nginx}]
";
    let (code, stdout, stderr) = kadmit(dir.path(), &["transform", "--report", "-"], list);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("[deploy/web.yaml, document 2]"), "{stderr}");
    assert!(stdout.contains("path: deploy/web.yaml"), "{stdout}");
    // In a plain stream, the annotations name the file, and the stream position follows.
    let plain = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    config.kubernetes.io/path: deploy/web.yaml
    config.kubernetes.io/index: '0'
spec:
  replicas: -1
";
    let (code, stdout, stderr) = kadmit(dir.path(), &["transform", "--report", "-"], plain);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("[deploy/web.yaml, document 1 (via stdin, document 1, line 1)]"),
        "{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&stderr[stderr.find("{\n").unwrap()..]).unwrap();
    let diagnostic = &report["diagnostics"][0];
    assert_eq!(
        diagnostic["file"],
        serde_json::json!({"path": "deploy/web.yaml", "index": 0, "line": 0})
    );
    assert_eq!(
        diagnostic["input"],
        serde_json::json!({"path": "stdin", "index": 0, "line": 1})
    );
}

#[test]
fn helm_source_comments_name_the_template() {
    let dir = tempfile::tempdir().unwrap();
    let stream = format!(
        "---\n# Source: web/templates/configmap.yaml\n{}---\n# Source: web/templates/deployment.yaml\n{REJECTED}",
        config_map("settings")
    );
    let (code, stdout, stderr) = kadmit(dir.path(), &["transform"], &stream);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("[web/templates/deployment.yaml (via stdin, document 2, line 9)]"),
        "{stderr}"
    );
    // From a file, the position names the file.
    write(dir.path(), "rendered.yaml", &stream);
    let (_, _, stderr) = kadmit(dir.path(), &["transform", "-f", "rendered.yaml"], "");
    assert!(
        stderr.contains("[web/templates/deployment.yaml (via rendered.yaml, document 2, line 9)]"),
        "{stderr}"
    );
}

#[test]
fn a_krm_item_with_only_kustomize_origin_names_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let list = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: ok
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      config.kubernetes.io/origin: |
        path: base/web.yaml
  spec:
    replicas: -1
";
    let (code, stdout, stderr) = kadmit(dir.path(), &[], list);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("[base/web.yaml (via stdin, document 1, line 1, list item 2)]"),
        "{stderr}"
    );
    // The KRM result names the file, without an index kustomize does not give.
    assert!(
        stdout.contains("file:\n    path: base/web.yaml\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("config.kubernetes.io/origin: |"),
        "{stdout}"
    );
}
