//! examples/generators every way its README runs it, through the real clients where this
//! machine has them: the two shipped generators (plugins/team.example.com: CommonApp and
//! ConfigBundle) as kustomize legacy exec plugins (`kadmit install-plugins --plugin-dir`,
//! then `kubectl kustomize --enable-alpha-plugins`), as a KRM function under
//! `kpt fn eval --exec`, and in a plain pipeline (`kadmit generate --plugin-dir`).
//!
//! kustomize's KRM exec functions need standalone kustomize (`kubectl kustomize` has no
//! `--enable-exec` and skips them silently), which this machine does not have: that call is
//! reproduced byte for byte instead, as kustomize 5 makes it for a `generators:` entry (the
//! functionConfig handed over as the only item too, with `config.kubernetes.io/local-config`
//! injected, in the kustomization's directory, with no arguments), and what kustomize does
//! with the answer (dropping local-config objects at the end of the build) is checked with
//! `kubectl kustomize`.
//!
//! Also: the ConfigBundle's name suffix equals the one kustomize's own configMapGenerator
//! computes for the same data, both when kadmit appends it and when it asks kustomize to
//! (`needs-hash`); two runs give the same bytes; generated resources are admitted (mutated)
//! in the same run.
//!
//! The kubectl and kpt tests skip loudly without their tool (or python3 + PyYAML, the
//! independent YAML reader) and fail instead under `CI=true`.
//!
//! expected.yaml is the README's pipeline output byte for byte, the generated built-in
//! objects admitted as the API server admits them (their native defaults written).
//! Regenerate it with the binary under test, then read the diff: in examples/generators,
//! `kadmit generate --plugin-dir ../../plugins < apps.yaml > expected.yaml`.

mod common;

use common::{
    by_identity, identity, kadmit_bin, require_python_yaml, require_tool, run, rust_yaml_docs,
    shell_quote, snapshot, write, yaml_docs, Ran,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

const EXPECTED: &str = "examples/generators/expected.yaml";

/// Annotations that belong to the clients' bookkeeping or to the virtual resource, and must
/// never reach a generated object.
const FORBIDDEN_ANNOTATIONS: &[&str] = &[
    "config.kubernetes.io/local-config",
    "config.kubernetes.io/function",
    "config.kubernetes.io/index",
    "config.kubernetes.io/path",
    "config.k8s.io/id",
    "internal.config.kubernetes.io/id",
    "internal.config.kubernetes.io/index",
    "internal.config.kubernetes.io/path",
    "internal.config.kubernetes.io/annotations-migration-resource-id",
    "kustomize.config.k8s.io/id",
    "kustomize.config.k8s.io/needs-hash",
    "kustomize.config.k8s.io/behavior",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example() -> PathBuf {
    repo().join("examples/generators")
}

/// The plugin root the example uses: the repository's `plugins/`, absolute.
fn plugins() -> PathBuf {
    repo()
        .join("plugins")
        .canonicalize()
        .expect("plugins/ exists")
}

fn read(relative: &str) -> String {
    let path = example().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn expected() -> Vec<Value> {
    rust_yaml_docs(&read("expected.yaml"))
}

/// The documents of expected.yaml generated from the CommonApp `shop` (the KRM variant
/// generates only those).
fn expected_shop() -> Vec<Value> {
    expected()
        .into_iter()
        .filter(|d| d["metadata"]["labels"]["app.kubernetes.io/name"] == "shop")
        .collect()
}

fn assert_expected(got: &[Value], expected: &[Value], ran: &str) {
    common::assert_same_documents(got, expected, EXPECTED, ran);
}

/// No generated document carries an annotation of [`FORBIDDEN_ANNOTATIONS`].
fn assert_no_bookkeeping(docs: &[Value], ran: &str) {
    for doc in docs {
        if let Some(annotations) = doc["metadata"]["annotations"].as_object() {
            for key in FORBIDDEN_ANNOTATIONS {
                assert!(
                    !annotations.contains_key(*key),
                    "{} carries {key}\n{ran}",
                    identity(doc)
                );
            }
        }
    }
}

/// `kadmit <args>` in `dir` with `stdin`.
fn kadmit(dir: &Path, args: &[&str], stdin: &str) -> Ran {
    run(
        Command::new(kadmit_bin()).args(args).current_dir(dir),
        Some(stdin.as_bytes()),
    )
}

/// The README's pipeline: `kadmit generate --plugin-dir ../../plugins < apps.yaml`, run in
/// the example's directory.
fn pipeline() -> Ran {
    kadmit(
        &example(),
        &["generate", "--plugin-dir", "../../plugins"],
        &read("apps.yaml"),
    )
}

/// Copies the directory tree `from` to `to`.
fn copy_tree(from: &Path, to: &Path) {
    for (relative, bytes) in snapshot(from) {
        let path = to.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
    }
}

/// expected.yaml shows what the example is there to show; checked here so that
/// regenerating it cannot quietly turn it into something else.
#[test]
fn expected_yaml_shows_both_generators_at_work() {
    let docs = expected();
    let ids: Vec<String> = docs.iter().map(identity).collect();
    assert_eq!(
        ids,
        [
            "apps/v1 Deployment shop/shop",
            "v1 Service shop/shop",
            "policy/v1 PodDisruptionBudget shop/shop",
            "networking.k8s.io/v1 Ingress shop/shop",
            "apps/v1 Deployment shop/worker",
            "v1 Service shop/worker",
            "policy/v1 PodDisruptionBudget shop/worker",
            "v1 ConfigMap shop/shop-config-g5b4gt6468",
        ],
        "definition order, then template order; no Ingress for worker (no host)"
    );
    let docs = by_identity(&docs);
    let at = |id: &str, pointer: &str| docs[id].pointer(pointer).cloned().unwrap_or(Value::Null);
    let shop = "apps/v1 Deployment shop/shop";
    let worker = "apps/v1 Deployment shop/worker";
    // size medium: 3 replicas and its resources; size small (the default): 1.
    assert_eq!(at(shop, "/spec/replicas"), json!(3));
    assert_eq!(
        at(shop, "/spec/template/spec/containers/0/resources"),
        json!({"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"memory": "512Mi"}})
    );
    assert_eq!(at(worker, "/spec/replicas"), json!(1));
    // port defaults to 8080; worker sets 9090.
    assert_eq!(
        at(
            shop,
            "/spec/template/spec/containers/0/ports/0/containerPort"
        ),
        json!(8080)
    );
    assert_eq!(
        at(
            worker,
            "/spec/template/spec/containers/0/ports/0/containerPort"
        ),
        json!(9090)
    );
    // env in the order written (kustomize hands plugin configurations over with their keys
    // sorted, so the example writes them sorted); "on" stays a string for every YAML reader.
    assert_eq!(
        at(shop, "/spec/template/spec/containers/0/env"),
        json!([{"name": "CACHE", "value": "on"}, {"name": "LOG_FORMAT", "value": "json"}])
    );
    assert!(read("expected.yaml").contains("value: \"on\""));
    assert_eq!(
        at(
            "networking.k8s.io/v1 Ingress shop/shop",
            "/spec/rules/0/host"
        ),
        json!("shop.example.com")
    );
    let config = "v1 ConfigMap shop/shop-config-g5b4gt6468";
    assert_eq!(at(config, "/data/MODE"), json!("production"));
    assert_eq!(
        at(config, "/data/app.properties"),
        json!(read("config/app.properties"))
    );
    assert_no_bookkeeping(&expected(), EXPECTED);
}

/// The README's pipeline prints expected.yaml byte for byte, twice the same; the output
/// through kadmit again is unchanged; KADMIT_PLUGIN_PATH finds the same generators.
#[test]
fn pipeline_prints_expected_yaml_deterministically() {
    let first = pipeline().expect_success();
    assert_eq!(
        first.stdout,
        read("expected.yaml"),
        "not {EXPECTED}\n{}",
        first.describe()
    );
    let second = pipeline().expect_success();
    assert_eq!(first.stdout, second.stdout, "two runs differ");

    let from_env = run(
        Command::new(kadmit_bin())
            .arg("generate")
            .env("KADMIT_PLUGIN_PATH", plugins())
            .current_dir(example()),
        Some(read("apps.yaml").as_bytes()),
    )
    .expect_success();
    assert_eq!(from_env.stdout, first.stdout, "{}", from_env.describe());

    let again = kadmit(&example(), &["transform"], &first.stdout).expect_success();
    assert_eq!(again.stdout, first.stdout, "kadmit changed its own output");
}

/// Without any plugin root that defines CommonApp, a virtual resource marked local-config
/// is an error (exit 2) naming every place searched, and nothing reaches stdout.
#[test]
fn pipeline_without_plugins_names_every_place_searched() {
    let tmp = tempfile::tempdir().unwrap();
    let config_home = tmp.path().join("xdg");
    let input = read("apps.yaml").replacen(
        "  namespace: shop\n",
        "  namespace: shop\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n",
        1,
    );
    let ran = run(
        Command::new(kadmit_bin())
            .arg("generate")
            .env("XDG_CONFIG_HOME", &config_home)
            .env("KADMIT_PLUGIN_PATH", tmp.path().join("nowhere"))
            .current_dir(tmp.path()),
        Some(input.as_bytes()),
    );
    assert_eq!(ran.status.code(), Some(2), "{}", ran.describe());
    assert!(ran.stdout.is_empty(), "{}", ran.describe());
    for place in [
        "no generator found for group team.example.com kind CommonApp",
        "--config and stdin",
        &format!("{}/nowhere/team.example.com", tmp.path().display()),
        &format!(
            "{}/kustomize/plugins/team.example.com",
            config_home.display()
        ),
        &format!("{}/plugins/team.example.com", tmp.path().display()),
    ] {
        assert!(ran.stderr.contains(place), "{place}\n{}", ran.describe());
    }
}

/// The README's kustomize recipe: install-plugins links both generator kinds, and
/// `kubectl kustomize --enable-alpha-plugins` builds the documents of expected.yaml (sorted
/// the kustomize way), the same bytes twice.
#[test]
fn kustomize_legacy_plugins_build_expected_yaml() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let home = common::plugin_home(&[&plugins()]);
    for entry in [
        "team.example.com/v1/commonapp/CommonApp",
        "team.example.com/v1/configbundle/ConfigBundle",
    ] {
        let script = std::fs::read_to_string(home.path().join(entry))
            .unwrap_or_else(|e| panic!("install-plugins wrote no {entry}: {e}"));
        assert!(
            script.contains(&format!("--plugin-dir '{}'", plugins().display())),
            "{entry} does not pass the plugin root on:\n{script}"
        );
    }
    let built = common::kubectl_kustomize(&example(), home.path()).expect_success();
    let got = yaml_docs(&built.stdout);
    assert_expected(&got, &yaml_docs(&read("expected.yaml")), &built.describe());
    assert_no_bookkeeping(&got, &built.describe());
    let again = common::kubectl_kustomize(&example(), home.path()).expect_success();
    assert_eq!(built.stdout, again.stdout, "two builds differ");
}

/// One case of the ConfigBundle ↔ configMapGenerator comparison: files (name → content)
/// and literals.
struct HashCase {
    what: &'static str,
    files: &'static [(&'static str, &'static str)],
    literals: &'static [(&'static str, &'static str)],
}

const HASH_CASES: &[HashCase] = &[
    HashCase {
        what: "the example's bundle: a file with <, > and &, and a literal",
        files: &[(
            "config/app.properties",
            "# shop settings, read by ConfigBundle shop-config\ncheckout.currency=EUR\ncheckout.timeout=30s\nsearch.banner=<b>Sale</b> & more\n",
        )],
        literals: &[("MODE", "production")],
    },
    HashCase {
        what: "literals only, values YAML 1.1 reads otherwise, non-ASCII text",
        files: &[],
        literals: &[
            ("ENABLED", "yes"),
            ("MASK", "0755"),
            ("AT", "12:30"),
            ("GREETING", "Grüße, 世界"),
            ("EXPR", "a=b&c"),
        ],
    },
    HashCase {
        what: "two files, one without a final newline, one with trailing spaces and tabs",
        files: &[
            ("nginx.conf", "server {\n\tlisten 80;\n}"),
            ("notes/readme.txt", "line one  \n\tline two\n\n"),
        ],
        literals: &[],
    },
];

/// The ConfigBundle names its ConfigMap exactly as kustomize's configMapGenerator does for
/// the same data: kadmit appending the suffix itself (`hash: kadmit`, in a pipeline and as
/// a kustomize plugin) and kustomize appending it (`hash: kustomize`, needs-hash).
#[test]
fn configbundle_hash_is_kustomizes_config_map_generator_hash() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let home = common::plugin_home(&[&plugins()]);
    for case in HASH_CASES {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for (path, content) in case.files {
            write(dir, path, content);
        }
        let files: Vec<&str> = case.files.iter().map(|(path, _)| *path).collect();

        // kustomize's own generator.
        let generator = format!(
            "configMapGenerator:\n- name: bundle\n  namespace: team\n  files: {}\n  literals: {}\n",
            json!(files),
            json!(case
                .literals
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>())
        );
        write(&dir.join("native"), "kustomization.yaml", &generator);
        for (path, content) in case.files {
            write(&dir.join("native"), path, content);
        }
        let native = run(
            Command::new("kubectl")
                .arg("kustomize")
                .arg(dir.join("native")),
            None,
        )
        .expect_success();
        let native = yaml_docs(&native.stdout);
        assert_eq!(native.len(), 1, "{}: {native:?}", case.what);
        let native = &native[0];
        let name = native["metadata"]["name"].as_str().unwrap();
        assert!(name.starts_with("bundle-"), "{name}");

        let literals: serde_json::Map<String, Value> = case
            .literals
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        let bundle = |hash: &str| {
            format!(
                "apiVersion: team.example.com/v1\nkind: ConfigBundle\nmetadata:\n  name: bundle\n  namespace: team\nspec:\n  hash: {hash}\n  files: {}\n  literals: {}\n",
                json!(files),
                Value::Object(literals.clone())
            )
        };
        let same = |got: &Value, how: &str, ran: &str| {
            assert_eq!(
                got["metadata"]["name"], native["metadata"]["name"],
                "{}: {how}: not kustomize's name\n{ran}",
                case.what
            );
            assert_eq!(
                got["data"], native["data"],
                "{}: {how}: not kustomize's data\n{ran}",
                case.what
            );
        };

        // kadmit in a pipeline.
        let piped = kadmit(
            dir,
            &["generate", "--plugin-dir", &plugins().display().to_string()],
            &bundle("kadmit"),
        )
        .expect_success();
        let docs = rust_yaml_docs(&piped.stdout);
        assert_eq!(docs.len(), 1, "{}", piped.describe());
        same(&docs[0], "kadmit generate, hash: kadmit", &piped.describe());

        // kadmit as a kustomize plugin, either way.
        for hash in ["kadmit", "kustomize"] {
            write(dir, "bundle.yaml", &bundle(hash));
            write(dir, "kustomization.yaml", "generators:\n- bundle.yaml\n");
            let built = common::kubectl_kustomize(dir, home.path()).expect_success();
            let docs = yaml_docs(&built.stdout);
            assert_eq!(docs.len(), 1, "{}", built.describe());
            same(
                &docs[0],
                &format!("kubectl kustomize, hash: {hash}"),
                &built.describe(),
            );
            assert_no_bookkeeping(&docs, &built.describe());
        }
    }
}

/// The ResourceList kustomize 5 writes to a KRM exec function listed under `generators:`
/// (api/internal/plugins/fnplugin: the config, keys sorted, gets
/// `config.kubernetes.io/local-config: "true"` and is both the functionConfig and the only
/// item; kyaml adds the index, id and migration annotations to the item).
const KUSTOMIZE_KRM_CALL: &str = r#"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: team.example.com/v1
  kind: CommonApp
  metadata:
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: kadmit
      config.kubernetes.io/local-config: "true"
      config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/annotations-migration-resource-id: '0'
      internal.config.kubernetes.io/id: '1'
      config.k8s.io/id: '1'
    name: shop
    namespace: shop
  spec:
    env:
      CACHE: "on"
      LOG_FORMAT: json
    host: shop.example.com
    image: ghcr.io/example/shop:1.4.2
    size: medium
functionConfig:
  apiVersion: team.example.com/v1
  kind: CommonApp
  metadata:
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: kadmit
      config.kubernetes.io/local-config: "true"
    name: shop
    namespace: shop
  spec:
    env:
      CACHE: "on"
      LOG_FORMAT: json
    host: shop.example.com
    image: ghcr.io/example/shop:1.4.2
    size: medium
"#;

/// kadmit's answer to [`KUSTOMIZE_KRM_CALL`], run as kustomize runs it: no arguments, in
/// the kustomization's directory (`dir`), with `env`.
fn kustomize_krm_call(dir: &Path, env: &[(&str, &Path)]) -> Ran {
    let mut cmd = Command::new(kadmit_bin());
    cmd.current_dir(dir);
    for (key, value) in env {
        cmd.env(key, value);
    }
    run(&mut cmd, Some(KUSTOMIZE_KRM_CALL.as_bytes()))
}

/// The call is the one kustomize would make for krm/shop.yaml.
#[test]
fn kustomize_krm_call_is_krm_shop_yaml() {
    let call = rust_yaml_docs(KUSTOMIZE_KRM_CALL);
    let mut config = call[0]["functionConfig"].clone();
    let annotations = config["metadata"]["annotations"].as_object_mut().unwrap();
    assert_eq!(
        annotations.remove("config.kubernetes.io/local-config"),
        Some(json!("true"))
    );
    let shop = rust_yaml_docs(&read("krm/shop.yaml"));
    assert_eq!(config, shop[0]);
    assert_eq!(
        call[0]["items"][0]["spec"],
        call[0]["functionConfig"]["spec"]
    );
}

/// krm/shop.yaml as kustomize's KRM exec generator, found through a `plugins/` directory
/// next to the kustomization (the configuration root is the working directory) and through
/// KADMIT_PLUGIN_PATH: the shop documents of expected.yaml are added, none carries
/// local-config or any other bookkeeping annotation, and the functionConfig's copy among
/// the items comes back as it went in (kustomize drops it at the end of the build).
#[test]
fn kustomize_krm_exec_generator_call() {
    let tmp = tempfile::tempdir().unwrap();
    let kustomization = tmp.path().join("app");
    copy_tree(&example().join("krm"), &kustomization);
    copy_tree(&plugins(), &kustomization.join("plugins"));
    let empty_xdg = tmp.path().join("xdg");
    let next_to_it =
        kustomize_krm_call(&kustomization, &[("XDG_CONFIG_HOME", &empty_xdg)]).expect_success();
    let from_env = kustomize_krm_call(
        &example().join("krm"),
        &[
            ("KADMIT_PLUGIN_PATH", &plugins()),
            ("XDG_CONFIG_HOME", &empty_xdg),
        ],
    )
    .expect_success();
    assert_eq!(
        next_to_it.stdout,
        from_env.stdout,
        "{}",
        from_env.describe()
    );

    let list = rust_yaml_docs(&next_to_it.stdout);
    assert_eq!(list.len(), 1, "{}", next_to_it.describe());
    assert_eq!(list[0]["kind"], "ResourceList");
    let sent = rust_yaml_docs(KUSTOMIZE_KRM_CALL);
    assert_eq!(
        list[0]["functionConfig"], sent[0]["functionConfig"],
        "the functionConfig is echoed"
    );
    let items = list[0]["items"].as_array().unwrap();
    assert_eq!(items[0], sent[0]["items"][0], "the input item comes back");
    let generated = &items[1..];
    assert_expected(generated, &expected_shop(), &next_to_it.describe());
    assert_no_bookkeeping(generated, &next_to_it.describe());
    assert!(
        list[0]["results"]
            .as_array()
            .is_none_or(|results| results.is_empty()),
        "{}",
        next_to_it.describe()
    );
}

/// What kustomize does with that answer: the items become resources, and the local-config
/// copy of the functionConfig is dropped at the end of the build, leaving exactly the
/// generated documents.
#[test]
fn kustomize_drops_the_local_config_copy_from_the_krm_answer() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let answer = kustomize_krm_call(
        &example().join("krm"),
        &[("KADMIT_PLUGIN_PATH", &plugins())],
    )
    .expect_success();
    let list = rust_yaml_docs(&answer.stdout);
    let items: Vec<String> = list[0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| serde_json::to_string(item).unwrap())
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "items.yaml", &items.join("\n---\n"));
    write(
        tmp.path(),
        "kustomization.yaml",
        "resources:\n- items.yaml\n",
    );
    let built = run(
        Command::new("kubectl").arg("kustomize").arg(tmp.path()),
        None,
    )
    .expect_success();
    assert_expected(
        &yaml_docs(&built.stdout),
        &expected_shop(),
        &built.describe(),
    );
}

/// `--exec` for kpt: kadmit's path, quoted for kpt's shell-like splitting.
fn exec() -> String {
    shell_quote(&kadmit_bin().display().to_string())
}

/// The README's kpt preview: `kpt fn eval - --exec kadmit --fn-config krm/shop.yaml -o
/// unwrap < /dev/null`, KADMIT_PLUGIN_PATH naming the plugin root.
#[test]
fn kpt_fn_eval_exec_generates_from_the_fn_config() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    let ran = run(
        Command::new("kpt")
            .args(["fn", "eval", "-", "--exec", &exec()])
            .args(["--fn-config", "krm/shop.yaml", "-o", "unwrap"])
            .env("KADMIT_PLUGIN_PATH", plugins())
            .current_dir(example()),
        Some(b""),
    )
    .expect_success();
    let got = yaml_docs(&ran.stdout);
    assert_expected(&got, &expected_shop(), &ran.describe());
    assert_eq!(
        got.iter().map(identity).collect::<Vec<_>>(),
        expected_shop().iter().map(identity).collect::<Vec<_>>(),
        "template order\n{}",
        ran.describe()
    );
    assert_no_bookkeeping(&got, &ran.describe());
}

/// kpt on a package: the generated resources are written into it as new files (kpt's
/// default path for a new resource: `<namespace>/<kind>_<name>.yaml`), the package's own
/// file stays where it was, its Namespace only admitted like any other resource (it gains
/// the native default the API server stores, the `kubernetes.io/metadata.name` label; its
/// `status.phase: Active` is the server's to fill and is not written).
#[test]
fn kpt_fn_eval_exec_adds_generated_files_to_a_package() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    let namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n";
    write(&pkg, "namespace.yaml", namespace);
    let ran = run(
        Command::new("kpt")
            .args(["fn", "eval"])
            .arg(&pkg)
            .args(["--exec", &exec()])
            .arg("--fn-config")
            .arg(example().join("krm/shop.yaml"))
            .env("KADMIT_PLUGIN_PATH", plugins())
            .current_dir(tmp.path()),
        None,
    )
    .expect_success();
    let files = snapshot(&pkg);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        [
            "namespace.yaml",
            "shop/deployment_shop.yaml",
            "shop/ingress_shop.yaml",
            "shop/poddisruptionbudget_shop.yaml",
            "shop/service_shop.yaml",
        ],
        "{}",
        ran.describe()
    );
    let admitted = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    kubernetes.io/metadata.name: shop\n";
    assert_eq!(
        String::from_utf8_lossy(&files["namespace.yaml"]),
        admitted,
        "{}",
        ran.describe()
    );
    let generated: Vec<Value> = files
        .iter()
        .filter(|(name, _)| *name != "namespace.yaml")
        .flat_map(|(_, bytes)| yaml_docs(std::str::from_utf8(bytes).unwrap()))
        .collect();
    assert_expected(&generated, &expected_shop(), &ran.describe());
    assert_no_bookkeeping(&generated, &ran.describe());
}

/// The README's "admitted in the same run" recipe, with the Gatekeeper example's registry
/// mirror: the generated Deployments' images come from the mirror, nothing else changes.
#[test]
fn readme_generate_with_the_gatekeeper_example_mutators() {
    let ran = kadmit(
        &example(),
        &[
            "generate",
            "--plugin-dir",
            "../../plugins",
            "--config",
            "../gatekeeper/mutators/registry-mirror.yaml",
        ],
        &read("apps.yaml"),
    )
    .expect_success();
    let mut expected = expected();
    for doc in &mut expected {
        if doc["kind"] == "Deployment" {
            let image = &mut doc["spec"]["template"]["spec"]["containers"][0]["image"];
            *image = json!(image
                .as_str()
                .unwrap()
                .replace("ghcr.io/", "registry.example.com/"));
        }
    }
    assert_expected(&rust_yaml_docs(&ran.stdout), &expected, &ran.describe());
}

const ALWAYS_PULL: &str = r#"apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: always-pull
spec:
  applyTo:
  - groups: ["apps"]
    kinds: ["Deployment"]
    versions: ["v1"]
  location: "spec.template.spec.containers[name:*].imagePullPolicy"
  parameters:
    assign:
      value: Always
"#;

/// A copy of the example with a Gatekeeper Assign (`imagePullPolicy: Always` on
/// Deployments) in `policies/`.
fn example_with_always_pull() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&example(), tmp.path());
    write(tmp.path(), "policies/always-pull.yaml", ALWAYS_PULL);
    tmp
}

/// expected.yaml with `imagePullPolicy: Always` on the Deployments.
fn assert_always_pulled(docs: &[Value], ran: &str) {
    let mut expected = expected();
    for doc in &mut expected {
        if doc["kind"] == "Deployment" {
            doc["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = json!("Always");
        }
    }
    assert_expected(docs, &expected, ran);
}

/// Generated resources are admitted like any other: in one `kadmit generate` run, a
/// Gatekeeper Assign given with `--config` mutates the generated Deployments, and the
/// report names it.
#[test]
fn generated_deployments_are_mutated_in_the_same_run() {
    let tmp = example_with_always_pull();
    let ran = kadmit(
        tmp.path(),
        &[
            "generate",
            "--plugin-dir",
            &plugins().display().to_string(),
            "--config",
            "policies",
            "--report",
            "-",
        ],
        &read("apps.yaml"),
    )
    .expect_success();
    assert_always_pulled(&rust_yaml_docs(&ran.stdout), &ran.describe());
    assert_eq!(
        ran.stderr
            .matches("\"rule\": \"Assign always-pull\"")
            .count(),
        2,
        "the report names the mutator once per Deployment\n{}",
        ran.describe()
    );
}

/// Through kustomize, a kadmit transformer (a PolicySet naming the Assign) after the
/// generators mutates the generated Deployments the same way.
#[test]
fn kustomize_generators_then_kadmit_transformer() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let tmp = example_with_always_pull();
    let dir = tmp.path();
    write(
        dir,
        "admission.yaml",
        "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata:\n  name: admission\nspec:\n  paths:\n  - policies\n",
    );
    write(
        dir,
        "kustomization.yaml",
        "generators:\n- apps.yaml\ntransformers:\n- admission.yaml\n",
    );
    let home = common::plugin_home(&[&plugins()]);
    let built = common::kubectl_kustomize(dir, home.path()).expect_success();
    assert_always_pulled(&yaml_docs(&built.stdout), &built.describe());
}

/// docs/generator.schema.json (the JSON Schema editors use) accepts every Generator shipped
/// in plugins/ and refuses the mistakes it is there to catch. Checked with the small
/// validator below, which knows the keywords that schema uses.
#[test]
fn generator_json_schema_accepts_the_shipped_generators() {
    let path = repo().join("docs/generator.schema.json");
    let text = std::fs::read_to_string(&path).expect("docs/generator.schema.json");
    let schema: Value = serde_json::from_str(&text).expect("the JSON Schema is JSON");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let mut definitions = 0;
    for (file, bytes) in snapshot(&plugins()) {
        if !file.ends_with(".yaml") {
            continue;
        }
        for doc in rust_yaml_docs(std::str::from_utf8(&bytes).unwrap()) {
            let errors = schema_errors(&schema, &schema, &doc, "");
            assert!(errors.is_empty(), "plugins/{file}: {errors:#?}");
            definitions += 1;
        }
    }
    assert!(definitions >= 2, "no Generator found under plugins/");

    let commonapp = rust_yaml_docs(
        &std::fs::read_to_string(plugins().join("team.example.com/commonapp/commonapp.yaml"))
            .unwrap(),
    )
    .remove(0);
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut doc = commonapp.clone();
        edit(&mut doc);
        schema_errors(&schema, &schema, &doc, "")
    };
    for (what, edit, at) in [
        (
            "a misspelt spec field",
            &(|d: &mut Value| d["spec"]["valeus"] = json!({})) as &dyn Fn(&mut Value),
            "/spec",
        ),
        (
            "a template with both path and template",
            &|d: &mut Value| d["spec"]["templates"][0]["template"] = json!("x"),
            "/spec/templates/0",
        ),
        (
            "no templates",
            &|d: &mut Value| d["spec"]["templates"] = json!([]),
            "/spec/templates",
        ),
        (
            "a misspelt schema keyword",
            &|d: &mut Value| {
                d["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                    ["properties"]["size"]["defualt"] = json!("small")
            },
            "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/size",
        ),
        (
            "a CEL rule without `rule`",
            &|d: &mut Value| {
                d["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                    ["x-kubernetes-validations"][0] = json!({"message": "m"})
            },
            "/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations/0",
        ),
        (
            "the wrong kind",
            &|d: &mut Value| d["kind"] = json!("Generater"),
            "/kind",
        ),
    ] {
        let errors = broken(edit);
        assert!(
            errors.iter().any(|e| e.starts_with(&format!("{at}:"))),
            "{what}: no error at {at}: {errors:#?}"
        );
    }
}

/// The errors of `value` against `schema` (JSON Schema 2020-12, only the keywords
/// docs/generator.schema.json uses), each as `<JSON pointer>: <problem>`; `root` resolves
/// `$ref`s.
fn schema_errors(root: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let Some(schema) = schema.as_object() else {
        return errors; // `true`, or a keyword-less `{}` written as another value
    };
    let mut fail = |message: String| errors.push(format!("{at}: {message}"));
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let target = root
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("unresolved $ref {reference}"));
        return schema_errors(root, target, value, at);
    }
    if let Some(constant) = schema.get("const") {
        if value != constant {
            fail(format!("must be {constant}"));
        }
    }
    if let Some(Value::Array(options)) = schema.get("enum") {
        if !options.contains(value) {
            fail(format!("must be one of {options:?}"));
        }
    }
    if let Some(kind) = schema.get("type").and_then(Value::as_str) {
        let ok = match kind {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            other => panic!("type {other} is not handled"),
        };
        if !ok {
            fail(format!("must be of type {kind}"));
            return errors;
        }
    }
    if let (Some(min), Some(s)) = (
        schema.get("minLength").and_then(Value::as_u64),
        value.as_str(),
    ) {
        if (s.chars().count() as u64) < min {
            fail(format!("shorter than {min}"));
        }
    }
    if let (Some(min), Some(n)) = (
        schema.get("minimum").and_then(Value::as_f64),
        value.as_f64(),
    ) {
        if n < min {
            fail(format!("less than {min}"));
        }
    }
    if let Value::Array(items) = value {
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
            if (items.len() as u64) < min {
                fail(format!("fewer than {min} items"));
            }
        }
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                errors.extend(schema_errors(root, item_schema, item, &format!("{at}/{i}")));
            }
        }
    }
    if let Value::Object(map) = value {
        if let Some(Value::Array(required)) = schema.get("required") {
            for key in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(key) {
                    errors.push(format!("{at}: {key} is required"));
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, field) in map {
            let pointer = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
            match (
                properties.and_then(|p| p.get(key)),
                schema.get("additionalProperties"),
            ) {
                (Some(property), _) => {
                    errors.extend(schema_errors(root, property, field, &pointer))
                }
                (None, Some(Value::Bool(false))) => {
                    errors.push(format!("{at}: {key} is not allowed"))
                }
                (None, Some(additional)) => {
                    errors.extend(schema_errors(root, additional, field, &pointer))
                }
                (None, None) => {}
            }
        }
    }
    for (keyword, wanted) in [("oneOf", Some(1)), ("anyOf", None)] {
        if let Some(Value::Array(options)) = schema.get(keyword) {
            let passing = options
                .iter()
                .filter(|option| schema_errors(root, option, value, at).is_empty())
                .count();
            let ok = match wanted {
                Some(n) => passing == n,
                None => passing > 0,
            };
            if !ok {
                errors.push(format!("{at}: {passing} of the {keyword} schemas match"));
            }
        }
    }
    errors
}

/// The fenced code blocks of a Markdown text, each with the text between it and the block
/// before (which says what the block is).
fn fenced_blocks(markdown: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut prose = String::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if !line.starts_with("```") {
            prose.push_str(line);
            prose.push('\n');
            continue;
        }
        let mut code = String::new();
        for line in lines.by_ref() {
            if line.starts_with("```") {
                break;
            }
            code.push_str(line);
            code.push('\n');
        }
        blocks.push((std::mem::take(&mut prose), code));
    }
    blocks
}

/// docs/generators.md's worked example, run from the files and output the page shows: the
/// TeamSpace generator (its definition and two template files) under `plugins/` of the
/// working directory, `kadmit generate < payments.yaml` printing exactly the documented
/// stream.
#[test]
fn docs_generators_worked_example_runs_as_documented() {
    let page = std::fs::read_to_string(repo().join("docs/generators.md")).unwrap();
    let worked = &page[page
        .find("## A worked example: TeamSpace")
        .expect("the worked example section")..];
    let worked = &worked[..worked.find("\n## ").unwrap_or(worked.len())];
    let blocks = fenced_blocks(worked);
    let block = |says: &str| -> &str {
        &blocks
            .iter()
            .find(|(prose, code)| prose.contains(says) || code.starts_with(says))
            .unwrap_or_else(|| panic!("no block for {says:?} in the worked example"))
            .1
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let generator = dir.join("plugins/platform.example.com/teamspace");
    write(
        &generator,
        "teamspace.yaml",
        block("`plugins/platform.example.com/teamspace/teamspace.yaml`"),
    );
    write(&generator, "quota.yaml.tera", block("`quota.yaml.tera`:"));
    write(&generator, "owners.yaml.tera", block("`owners.yaml.tera`:"));
    let payments = block("# payments.yaml");
    let console = block("$ kadmit generate < payments.yaml\n");
    let documented = console
        .strip_prefix("$ kadmit generate < payments.yaml\n")
        .unwrap();
    let ran = run(
        Command::new(kadmit_bin())
            .arg("generate")
            .env("XDG_CONFIG_HOME", dir.join("xdg"))
            .env_remove("KADMIT_PLUGIN_PATH")
            .current_dir(dir),
        Some(payments.as_bytes()),
    )
    .expect_success();
    assert_eq!(ran.stdout, documented, "{}", ran.describe());

    let bad = payments
        .replace(
            "[alice@example.com, bob@example.com]",
            "[alice@example.com, mallory@example.com, alice@example.com]",
        )
        .replace("quota: medium", "quota: huge");
    let refused = run(
        Command::new(kadmit_bin())
            .arg("generate")
            .env("XDG_CONFIG_HOME", dir.join("xdg"))
            .env_remove("KADMIT_PLUGIN_PATH")
            .current_dir(dir),
        Some(bad.as_bytes()),
    );
    assert_eq!(refused.status.code(), Some(1), "{}", refused.describe());
    let documented = block("$ kadmit generate < bad-payments.yaml\n");
    for line in documented
        .lines()
        .filter(|l| l.starts_with("* ") || l.starts_with("error: "))
    {
        // The source position differs: the page's bad-payments.yaml has no comment line.
        let line = line.split(" [stdin").next().unwrap().trim_end();
        assert!(
            refused.stderr.contains(line),
            "not printed: {line}\n{}",
            refused.describe()
        );
    }
}
