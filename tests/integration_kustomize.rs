//! kadmit as a kustomize legacy exec plugin, driven through the real client:
//! `KUSTOMIZE_PLUGIN_HOME=<home> kubectl kustomize --enable-alpha-plugins <dir>`, with the
//! plugin home written by `kadmit install-plugins`.
//!
//! Skips loudly when kubectl (or python3 + PyYAML, the independent YAML reader) is missing;
//! fails instead under `CI=true`.

mod common;

use common::{kadmit_bin, require_python_yaml, require_tool, run, write, yaml_docs, Ran};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;
use tempfile::TempDir;

/// Scalars a YAML 1.1 reader (kubectl) and a YAML 1.2 reader (kustomize) disagree on, or
/// that a careless emitter leaves unquoted; a generated ConfigMap referenced by name (hash
/// suffix and name-reference fix-ups depend on kustomize's build annotations).
const RESOURCES: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: tricky
  annotations:
    build: "123"
    flag: "true"
data:
  quotedYes: "yes"
  quotedNo: 'no'
  quotedOn: "on"
  quotedY: "y"
  quotedOctal: "0755"
  quotedTime: "12:30"
  quotedFloat: "1e3"
  quotedNull: "null"
  quotedTilde: "~"
  quotedHex: "0x1F"
  hash: "a # not a comment"
  leadingSpace: " padded"
  multi: |
    line one
      indented "two"
    line: three
  folded: >
    folded
    text
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
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
        envFrom:
        - configMapRef:
            name: gen
        volumeMounts:
        - name: cfg
          mountPath: /etc/cfg
      volumes:
      - name: cfg
        configMap:
          name: tricky
          defaultMode: 0755
"#;

const LIST: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: web
  spec:
    selector:
      app: web
    ports:
    - port: 80
      targetPort: 8080
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: from-list
  data:
    "on": "on"
    count: "10"
"#;

/// The kustomization fields every identity case shares.
const COMMON_KUSTOMIZATION: &str = r#"resources:
- resources.yaml
- list.yaml
namePrefix: app-
labels:
- pairs:
    team: a
configMapGenerator:
- name: gen
  literals:
  - MODE=yes
  - PORT=8080
"#;

const POLICY_SET: &str = r#"apiVersion: kadmit.dev/v1alpha1
kind: PolicySet
metadata:
  name: all
spec:
  paths:
  - policies
"#;

/// A temporary kustomization directory and a plugin home written by
/// `kadmit install-plugins`.
struct Fixture {
    _tmp: TempDir,
    home: PathBuf,
    /// The kustomization directory.
    dir: PathBuf,
    /// TMPDIR for kubectl: kustomize leaves its `kust-plugin-config-*` files behind when a
    /// plugin fails; keep them inside the test's temporary directory.
    tmpdir: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().expect("temporary directory");
        let home = tmp.path().join("plugin-home");
        let dir = tmp.path().join("app");
        let tmpdir = tmp.path().join("tmp");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&tmpdir).unwrap();
        run(
            Command::new(kadmit_bin()).arg("install-plugins").arg(&home),
            None,
        )
        .expect_success();
        assert!(
            home.join("kadmit.dev/v1alpha1/policyset/PolicySet")
                .is_file(),
            "install-plugins wrote no PolicySet entry under {}",
            home.display()
        );
        // An existing configuration directory with no rules in it.
        write(&dir, "policies/README.md", "No rules yet.\n");
        Fixture {
            _tmp: tmp,
            home,
            dir,
            tmpdir,
        }
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        write(&self.dir, relative, text)
    }

    /// `kubectl kustomize` with no plugins.
    fn build_plain(&self) -> Ran {
        run(
            Command::new("kubectl")
                .arg("kustomize")
                .arg(&self.dir)
                .env("TMPDIR", &self.tmpdir),
            None,
        )
    }

    /// `KUSTOMIZE_PLUGIN_HOME=<home> kubectl kustomize --enable-alpha-plugins <dir>`.
    fn build_with_plugins(&self) -> Ran {
        run(
            Command::new("kubectl")
                .args(["kustomize", "--enable-alpha-plugins"])
                .arg(&self.dir)
                .env("KUSTOMIZE_PLUGIN_HOME", &self.home)
                .env("TMPDIR", &self.tmpdir),
            None,
        )
    }
}

fn find<'a>(docs: &'a [Value], kind: &str, name_prefix: &str) -> &'a Value {
    docs.iter()
        .find(|d| {
            d["kind"] == kind
                && d["metadata"]["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with(name_prefix))
        })
        .unwrap_or_else(|| panic!("no {kind} {name_prefix}* in {docs:#?}"))
}

fn assert_same_build(with_plugin: &Ran, baseline: &Ran) {
    assert_eq!(
        yaml_docs(&with_plugin.stdout),
        yaml_docs(&baseline.stdout),
        "the build through kadmit differs from the plain build (parsed)\n--- with kadmit ---\n{}\n--- plain ---\n{}",
        with_plugin.stdout,
        baseline.stdout
    );
    // kustomize re-serialises both the same way, so the text must match too.
    assert_eq!(
        with_plugin.stdout, baseline.stdout,
        "the build through kadmit differs from the plain build (text)"
    );
}

/// kadmit as a `transformers:` entry with a PolicySet of no rules is the identity: the
/// build equals the plain build, tricky scalars keep kubectl's reading, List items are
/// there, and kustomize's build annotations survive (hash suffix, name prefix, name
/// references to the generated ConfigMap).
#[test]
fn kustomize_policyset_transformer_is_identity() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let fx = Fixture::new();
    fx.write("resources.yaml", RESOURCES);
    fx.write("list.yaml", LIST);
    // The identity is the point: `--no-defaults` keeps the native defaults of the
    // Deployment and the Service out of the output (built-in admission still runs). With no
    // subcommand before it, kadmit still infers the mode from stdin.
    fx.write(
        "policyset.yaml",
        &format!("{POLICY_SET}argsOneLiner: --no-defaults\n"),
    );
    fx.write("kustomization.yaml", COMMON_KUSTOMIZATION);
    let baseline = fx.build_plain().expect_success();

    fx.write(
        "kustomization.yaml",
        &format!("{COMMON_KUSTOMIZATION}transformers:\n- policyset.yaml\n"),
    );
    let built = fx.build_with_plugins().expect_success();
    assert_same_build(&built, &baseline);

    let docs = yaml_docs(&built.stdout);
    assert_eq!(docs.len(), 5, "{docs:#?}");
    let tricky = find(&docs, "ConfigMap", "app-tricky");
    assert_eq!(
        tricky["data"],
        json!({
            "quotedYes": "yes",
            "quotedNo": "no",
            "quotedOn": "on",
            "quotedY": "y",
            "quotedOctal": "0755",
            "quotedTime": "12:30",
            "quotedFloat": "1e3",
            "quotedNull": "null",
            "quotedTilde": "~",
            "quotedHex": "0x1F",
            "hash": "a # not a comment",
            "leadingSpace": " padded",
            "multi": "line one\n  indented \"two\"\nline: three\n",
            "folded": "folded text\n",
        })
    );
    assert_eq!(
        tricky["metadata"]["annotations"],
        json!({"build": "123", "flag": "true"})
    );
    assert_eq!(tricky["metadata"]["labels"], json!({"team": "a"}));

    let web = find(&docs, "Deployment", "app-web");
    let pod = &web["spec"]["template"]["spec"];
    assert_eq!(pod["volumes"][0]["configMap"]["defaultMode"], json!(0o755));
    assert_eq!(pod["volumes"][0]["configMap"]["name"], "app-tricky");
    assert_eq!(
        pod["containers"][0]["args"],
        json!(["--port", "8080", "yes"])
    );

    // The generated ConfigMap got its hash suffix, and the reference followed it.
    let generated = find(&docs, "ConfigMap", "app-gen-");
    let generated_name = generated["metadata"]["name"].as_str().unwrap();
    assert!(generated_name.len() > "app-gen-".len(), "{generated_name}");
    assert_eq!(
        pod["containers"][0]["envFrom"][0]["configMapRef"]["name"],
        generated_name
    );
    assert_eq!(generated["data"], json!({"MODE": "yes", "PORT": "8080"}));

    // The List's items, flattened by kustomize.
    let service = find(&docs, "Service", "app-web");
    assert_eq!(service["spec"]["ports"][0]["port"], json!(80));
    let from_list = find(&docs, "ConfigMap", "app-from-list");
    assert_eq!(from_list["data"], json!({"on": "on", "count": "10"}));
}

/// `argsOneLiner` reaches kadmit after the plugin configuration file: an explicit
/// `transform` subcommand with a flag (`--report FILE`) works, and the report proves
/// kadmit really ran inside the build.
#[test]
fn kustomize_transformer_args_one_liner_reaches_kadmit() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let fx = Fixture::new();
    fx.write("resources.yaml", RESOURCES);
    fx.write("list.yaml", LIST);
    fx.write("kustomization.yaml", COMMON_KUSTOMIZATION);
    let baseline = fx.build_plain().expect_success();

    let report = fx.tmpdir.join("report.json");
    // `--no-defaults`: the build is compared with the plain build, so the native defaults of
    // the Deployment and the Service stay out of it; a second flag reaching kadmit, too.
    fx.write(
        "policyset.yaml",
        &format!(
            "{POLICY_SET}argsOneLiner: transform --no-defaults --report {}\n",
            common::shell_quote(&report.display().to_string())
        ),
    );
    fx.write(
        "kustomization.yaml",
        &format!("{COMMON_KUSTOMIZATION}transformers:\n- policyset.yaml\n"),
    );
    let built = fx.build_with_plugins().expect_success();
    assert_same_build(&built, &baseline);

    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("kadmit wrote no report at {}: {e}", report.display()));
    let report: Value = serde_json::from_str(&text).expect("the report is JSON");
    assert_eq!(report["kind"], "Report", "{text}");
    assert_eq!(report["exitCode"], 0, "{text}");
    assert_eq!(report["diagnostics"], json!([]), "{text}");
}

/// kadmit as a `generators:` entry with a PolicySet: kustomize runs it with empty stdin
/// (kadmit infers `generate`), it succeeds and adds nothing.
#[test]
fn kustomize_policyset_generator_adds_nothing() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let fx = Fixture::new();
    fx.write("resources.yaml", RESOURCES);
    fx.write("list.yaml", LIST);
    fx.write("policyset.yaml", POLICY_SET);
    fx.write("kustomization.yaml", COMMON_KUSTOMIZATION);
    let baseline = fx.build_plain().expect_success();

    fx.write(
        "kustomization.yaml",
        &format!("{COMMON_KUSTOMIZATION}generators:\n- policyset.yaml\n"),
    );
    let built = fx.build_with_plugins().expect_success();
    assert_same_build(&built, &baseline);
}

/// A virtual resource of a kind kadmit cannot generate (`nowhere.example.com/v1 Gadget`)
/// used as a generator fails the build (exit 2 in kadmit), and kadmit's message reaches
/// kustomize's stderr; nothing is printed on stdout.
#[test]
fn kustomize_unknown_virtual_generator_fails_with_no_generator_found() {
    if !require_tool("kubectl") {
        return;
    }
    let fx = Fixture::new();
    common::write_plugin_entry(&fx.home, "nowhere.example.com", "v1", "Gadget");
    fx.write("resources.yaml", RESOURCES);
    fx.write(
        "commonapp.yaml",
        r#"apiVersion: nowhere.example.com/v1
kind: Gadget
metadata:
  name: shop
spec:
  image: shop:1.0
  replicas: 2
"#,
    );
    fx.write(
        "kustomization.yaml",
        "resources:\n- resources.yaml\ngenerators:\n- commonapp.yaml\n",
    );
    let built = fx.build_with_plugins();
    assert!(
        !built.success(),
        "the build succeeded:\n{}",
        built.describe()
    );
    assert!(
        built.stderr.contains("no generator found"),
        "kadmit's message is not in kustomize's stderr:\n{}",
        built.describe()
    );
    assert!(
        built
            .stderr
            .contains("group nowhere.example.com kind Gadget"),
        "the message does not name the kind:\n{}",
        built.describe()
    );
    assert!(
        built.stderr.contains("exit status 2"),
        "kadmit did not exit 2:\n{}",
        built.describe()
    );
    assert!(
        built.stdout.trim().is_empty(),
        "a failed build printed resources:\n{}",
        built.describe()
    );
}

/// A PolicySet path that leaves the kustomization root (`../outside`, which exists) fails
/// the build, as a transformer and as a generator, with kadmit's confinement message.
#[test]
fn kustomize_policyset_path_outside_root_fails() {
    if !require_tool("kubectl") {
        return;
    }
    let fx = Fixture::new();
    let outside = fx.dir.parent().unwrap().join("outside");
    write(
        &outside,
        "rules.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-rule\n",
    );
    fx.write("resources.yaml", RESOURCES);
    fx.write(
        "escape.yaml",
        r#"apiVersion: kadmit.dev/v1alpha1
kind: PolicySet
metadata:
  name: escape
spec:
  paths:
  - ../outside
"#,
    );
    for field in ["transformers", "generators"] {
        fx.write(
            "kustomization.yaml",
            &format!("resources:\n- resources.yaml\n{field}:\n- escape.yaml\n"),
        );
        let built = fx.build_with_plugins();
        assert!(
            !built.success(),
            "{field}: the build succeeded:\n{}",
            built.describe()
        );
        assert!(
            built.stderr.contains("outside the configuration root"),
            "{field}: kadmit's confinement message is not in kustomize's stderr:\n{}",
            built.describe()
        );
        assert!(
            built.stderr.contains("../outside"),
            "{field}: the message does not name the path:\n{}",
            built.describe()
        );
        assert!(
            built.stdout.trim().is_empty(),
            "{field}: a failed build printed resources:\n{}",
            built.describe()
        );
    }
}
