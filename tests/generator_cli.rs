//! Generators through the binary: the shipped CommonApp and ConfigBundle, discovery order
//! and its errors, input validation against the generator's schema, every template error
//! path (syntax, runtime, not YAML, incomplete documents), path confinement, determinism,
//! and generated objects joining admission.

mod common;

use assert_cmd::Command;
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A scratch configuration root whose environment cannot see the user's own plugins.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        common::write(self.path(), relative, text)
    }

    fn kadmit(&self, args: &[&str], stdin: &str) -> Outcome {
        self.kadmit_with(args, stdin, &[])
    }

    fn kadmit_with(&self, args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> Outcome {
        let mut command = Command::cargo_bin("kadmit").unwrap();
        command
            .args(args)
            .current_dir(self.path())
            .env("HOME", self.path().join("home"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("KADMIT_PLUGIN_PATH")
            .env_remove("KUSTOMIZE_PLUGIN_CONFIG_ROOT");
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.write_stdin(stdin).output().unwrap();
        Outcome {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }
}

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Outcome {
    fn docs(&self) -> Vec<Value> {
        serde_yaml::Deserializer::from_str(&self.stdout)
            .map(|d| Value::deserialize(d).unwrap())
            .filter(|v| !v.is_null())
            .collect()
    }

    fn assert_code(&self, code: i32) -> &Outcome {
        assert_eq!(
            self.code, code,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        if code != 0 {
            assert!(
                self.stdout.is_empty(),
                "nothing is written on failure: {}",
                self.stdout
            );
        }
        self
    }
}

fn repo_plugins() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("plugins")
        .display()
        .to_string()
}

fn kinds(docs: &[Value]) -> Vec<String> {
    docs.iter()
        .map(|d| {
            format!(
                "{}/{}",
                d["kind"].as_str().unwrap(),
                d["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect()
}

const SHOP: &str = "apiVersion: team.example.com/v1
kind: CommonApp
metadata:
  name: shop
  namespace: web
spec:
  image: registry.example.com/shop:1.4.2
  size: medium
  host: shop.example.com
";

/// A generator of `kind` in group `widgets.example.com` with one inline template.
fn definition(kind: &str, template: &str) -> String {
    let indented: String = template.lines().map(|l| format!("      {l}\n")).collect();
    format!(
        "apiVersion: kadmit.dev/v1alpha1
kind: Generator
metadata:
  name: {lower}
spec:
  group: widgets.example.com
  names:
    kind: {kind}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
  templates:
  - name: main
    template: |
{indented}",
        lower = kind.to_lowercase()
    )
}

fn widget(kind: &str, name: &str) -> String {
    format!("apiVersion: widgets.example.com/v1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n  color: blue\n")
}

const CONFIGMAP_TEMPLATE: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}
data:
  color: {{ spec.color | quote }}
  from: {{ generator.name | quote }}";

#[test]
fn commonapp_renders_every_object_in_template_order() {
    let s = Scratch::new();
    let out = s.kadmit(&["generate", "--plugin-dir", &repo_plugins()], SHOP);
    out.assert_code(0);
    let docs = out.docs();
    assert_eq!(
        kinds(&docs),
        [
            "Deployment/shop",
            "Service/shop",
            "PodDisruptionBudget/shop",
            "Ingress/shop"
        ]
    );
    for doc in &docs {
        assert_eq!(
            doc["metadata"]["namespace"], "web",
            "namespace inherited: {doc}"
        );
    }
    let deployment = &docs[0];
    assert_eq!(deployment["spec"]["replicas"], 3, "medium is 3 replicas");
    let container = &deployment["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        container["ports"][0]["containerPort"], 8080,
        "schema default"
    );
    assert_eq!(container["resources"]["requests"]["cpu"], "500m");
}

#[test]
fn commonapp_without_host_has_no_ingress_and_defaults_to_small() {
    let s = Scratch::new();
    let input = "apiVersion: team.example.com/v1\nkind: CommonApp\nmetadata:\n  name: api\nspec:\n  image: api:2\n";
    let out = s.kadmit(&["generate", "--plugin-dir", &repo_plugins()], input);
    out.assert_code(0);
    let docs = out.docs();
    assert_eq!(
        kinds(&docs),
        ["Deployment/api", "Service/api", "PodDisruptionBudget/api"]
    );
    assert_eq!(docs[0]["spec"]["replicas"], 1);
    assert!(
        docs[0]["metadata"].get("namespace").is_none(),
        "no namespace to inherit"
    );
}

#[test]
fn invalid_virtual_resources_report_every_field_error() {
    let s = Scratch::new();
    let input = "apiVersion: team.example.com/v1\nkind: CommonApp\nmetadata:\n  name: bad\nspec:\n  size: huge\n  replicas: 0\n  port: 70000\n";
    let out = s.kadmit(&["generate", "--plugin-dir", &repo_plugins()], input);
    out.assert_code(1);
    for expected in [
        "The CommonApp \"bad\" is invalid",
        "spec.size: Unsupported value: \"huge\"",
        "spec.replicas: Invalid value: 0",
        "spec.port: Invalid value: 70000",
        "spec.image: Required value",
        "Generator commonapp",
    ] {
        assert!(out.stderr.contains(expected), "{expected}:\n{}", out.stderr);
    }
}

#[test]
fn cel_rules_of_the_schema_apply() {
    let s = Scratch::new();
    let input = "apiVersion: team.example.com/v1\nkind: CommonApp\nmetadata:\n  name: s\nspec:\n  image: x\n  replicas: 3\n";
    let out = s.kadmit(&["generate", "--plugin-dir", &repo_plugins()], input);
    out.assert_code(1);
    assert!(
        out.stderr.contains("spec.replicas: Invalid value"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("a small app runs at most 2 replicas"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_unknown_virtual_kind_names_every_place_searched() {
    let s = Scratch::new();
    std::fs::create_dir_all(s.path().join("first")).unwrap();
    let input = "apiVersion: nowhere.example.com/v1\nkind: Thing\nmetadata:\n  name: t\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n";
    let out = s.kadmit_with(
        &["generate", "--plugin-dir", "first"],
        input,
        &[
            ("KADMIT_PLUGIN_PATH", Path::new("/env/a:/env/b")),
            ("XDG_CONFIG_HOME", Path::new("/xdg")),
        ],
    );
    out.assert_code(2);
    let expected = format!(
        "no generator found for group nowhere.example.com kind Thing: searched --config and stdin, first/nowhere.example.com, /env/a/nowhere.example.com, /env/b/nowhere.example.com, /xdg/kustomize/plugins/nowhere.example.com, {}/plugins/nowhere.example.com",
        s.path().display()
    );
    assert!(out.stderr.contains(&expected), "{}", out.stderr);
}

#[test]
fn discovery_order_is_plugin_dir_then_path_then_xdg_then_config_root() {
    let s = Scratch::new();
    let marker = |from: &str| {
        definition(
            "Gizmo",
            &CONFIGMAP_TEMPLATE.replace("{{ generator.name | quote }}", from),
        )
    };
    s.write("flag/widgets.example.com/gizmo.yaml", &marker("flag"));
    s.write("env/widgets.example.com/gizmo.yaml", &marker("env"));
    s.write(
        "xdg/kustomize/plugins/widgets.example.com/deep/gizmo.yaml",
        &marker("xdg"),
    );
    s.write("plugins/widgets.example.com/gizmo.yaml", &marker("root"));
    let env = s.path().join("env");
    let xdg = s.path().join("xdg");
    let from = |args: &[&str], env: &[(&str, &Path)]| {
        let out = s.kadmit_with(args, &widget("Gizmo", "g"), env);
        out.assert_code(0);
        out.docs()[0]["data"]["from"].as_str().unwrap().to_owned()
    };
    let all = [
        ("KADMIT_PLUGIN_PATH", env.as_path()),
        ("XDG_CONFIG_HOME", xdg.as_path()),
    ];
    assert_eq!(from(&["generate", "--plugin-dir", "flag"], &all), "flag");
    assert_eq!(from(&["generate"], &all), "env");
    assert_eq!(from(&["generate"], &all[1..]), "xdg");
    assert_eq!(from(&["generate"], &[]), "root");
}

#[test]
fn two_definitions_of_one_kind_in_one_root_are_an_error() {
    let s = Scratch::new();
    s.write(
        "plugins/widgets.example.com/a.yaml",
        &definition("Gizmo", CONFIGMAP_TEMPLATE),
    );
    s.write(
        "plugins/widgets.example.com/b.yaml",
        &definition("Gizmo", CONFIGMAP_TEMPLATE).replace("name: gizmo", "name: gizmo-two"),
    );
    let out = s.kadmit(&["generate"], &widget("Gizmo", "g"));
    out.assert_code(2);
    assert!(
        out.stderr
            .contains("widgets.example.com Gizmo is defined more than once in the plugin root"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("a.yaml") && out.stderr.contains("b.yaml"),
        "{}",
        out.stderr
    );
}

#[test]
fn definitions_may_come_on_stdin_or_in_config() {
    let s = Scratch::new();
    let stream = format!(
        "{}---\n{}",
        definition("Gizmo", CONFIGMAP_TEMPLATE),
        widget("Gizmo", "g")
    );
    let out = s.kadmit(&["generate"], &stream);
    out.assert_code(0);
    assert_eq!(kinds(&out.docs()), ["ConfigMap/g"]);

    s.write(
        "config/gizmo.yaml",
        &definition("Gizmo", CONFIGMAP_TEMPLATE),
    );
    let out = s.kadmit(&["generate", "--config", "config"], &widget("Gizmo", "h"));
    out.assert_code(0);
    assert_eq!(out.docs()[0]["data"]["color"], "blue");
}

#[test]
fn transform_passes_resources_through_and_consumes_virtual_resources() {
    let s = Scratch::new();
    let deployment =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: keep\nspec:\n  replicas: 2\n";
    // A synthetic Deployment (no selector, no template): built-in admission is not what
    // this test is about.
    let out = s.kadmit(
        &[
            "transform",
            "--no-builtins",
            "--plugin-dir",
            &repo_plugins(),
        ],
        &format!("{SHOP}---\n{deployment}"),
    );
    out.assert_code(0);
    assert_eq!(out.stdout, deployment);
}

#[test]
fn template_syntax_errors_name_generator_template_and_line() {
    let s = Scratch::new();
    s.write(
        "plugins/widgets.example.com/gizmo.yaml",
        &definition("Gizmo", "kind: ConfigMap\nname: {{ name "),
    );
    let out = s.kadmit(&["generate"], &widget("Gizmo", "g"));
    out.assert_code(2);
    assert!(
        out.stderr.contains("template gizmo/main line 2"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("Generator gizmo"), "{}", out.stderr);
}

#[test]
fn missing_variables_name_generator_template_and_line() {
    let s = Scratch::new();
    s.write(
        "plugins/widgets.example.com/gizmo.yaml",
        &definition(
            "Gizmo",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ spec.size.width }}",
        ),
    );
    let out = s.kadmit(&["generate"], &widget("Gizmo", "g"));
    out.assert_code(2);
    assert!(
        out.stderr.contains("template gizmo/main line 4"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("Generator gizmo"), "{}", out.stderr);
}

#[test]
fn rendered_text_that_is_not_yaml_names_the_template() {
    let s = Scratch::new();
    s.write(
        "plugins/widgets.example.com/gizmo.yaml",
        &definition("Gizmo", "a: [unclosed\nb: 1"),
    );
    let out = s.kadmit(&["generate"], &widget("Gizmo", "g"));
    out.assert_code(2);
    assert!(
        out.stderr
            .contains("template gizmo/main rendered text that is not YAML"),
        "{}",
        out.stderr
    );
}

#[test]
fn rendered_documents_need_api_version_kind_and_name() {
    let s = Scratch::new();
    s.write(
        "plugins/widgets.example.com/gizmo.yaml",
        &definition("Gizmo", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}"),
    );
    let out = s.kadmit(&["generate"], &widget("Gizmo", "g"));
    out.assert_code(2);
    assert!(
        out.stderr
            .contains("template gizmo/main document 2 has no metadata.name"),
        "{}",
        out.stderr
    );
}

#[test]
fn clock_random_and_environment_functions_are_errors() {
    let s = Scratch::new();
    s.write(
        "plugins/widgets.example.com/gizmo.yaml",
        &definition("Gizmo", "stamp: {{ now() }}"),
    );
    let out = s.kadmit(&["generate"], &widget("Gizmo", "g"));
    out.assert_code(2);
    assert!(
        out.stderr
            .contains("template gizmo/main line 1: now() is disabled"),
        "{}",
        out.stderr
    );
}

#[test]
fn template_files_must_stay_inside_the_plugin_directory() {
    let s = Scratch::new();
    s.write("outside.tera", "apiVersion: v1");
    let absolute = s.path().join("outside.tera");
    for path in [
        "../../outside.tera",
        absolute.to_str().unwrap(),
        "link.tera",
    ] {
        let text = definition("Gizmo", "x").replace(
            "  - name: main\n    template: |\n      x\n",
            &format!("  - path: {path}\n"),
        );
        s.write("plugins/widgets.example.com/gizmo.yaml", &text);
        #[cfg(unix)]
        {
            let link = s.path().join("plugins/widgets.example.com/link.tera");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&absolute, &link).unwrap();
        }
        let out = s.kadmit(&["generate"], &widget("Gizmo", "g"));
        out.assert_code(2);
        assert!(
            out.stderr.contains("spec.templates[0].path"),
            "{path}: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains("outside the configuration root")
                || out.stderr.contains("absolute paths are not allowed"),
            "{path}: {}",
            out.stderr
        );
    }
}

#[test]
fn file_reads_inside_its_root_only() {
    let s = Scratch::new();
    s.write("app/settings.txt", "color=red\n");
    s.write("secret.txt", "nope");
    let read = |path: &str| {
        s.write(
            "plugins/widgets.example.com/gizmo.yaml",
            &definition(
                "Gizmo",
                &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{{{ name }}}}\ndata:\n  settings: {{{{ file(path=\"{path}\") | quote }}}}"),
            ),
        );
        s.kadmit(&["generate"], &widget("Gizmo", "g"))
    };
    let out = read("app/settings.txt");
    out.assert_code(0);
    assert_eq!(out.docs()[0]["data"]["settings"], "color=red\n");
    for escape in ["../secret.txt", "/etc/passwd"] {
        let out = read(escape);
        out.assert_code(2);
        assert!(out.stderr.contains("file():"), "{escape}: {}", out.stderr);
    }
}

#[test]
fn the_same_input_renders_the_same_bytes() {
    let s = Scratch::new();
    let input = format!("{SHOP}---\napiVersion: team.example.com/v1\nkind: ConfigBundle\nmetadata:\n  name: cfg\nspec:\n  literals: {{B: \"2\", A: \"1\"}}\n");
    let first = s.kadmit(&["generate", "--plugin-dir", &repo_plugins()], &input);
    first.assert_code(0);
    let second = s.kadmit(&["generate", "--plugin-dir", &repo_plugins()], &input);
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn kustomize_annotations_set_by_a_template_are_kept() {
    let s = Scratch::new();
    let input = "apiVersion: team.example.com/v1\nkind: ConfigBundle\nmetadata:\n  name: cfg\nspec:\n  literals: {A: \"1\"}\n  hash: kustomize\n";
    let out = s.kadmit(&["generate", "--plugin-dir", &repo_plugins()], input);
    out.assert_code(0);
    let doc = &out.docs()[0];
    assert_eq!(
        doc["metadata"]["name"], "cfg",
        "kustomize appends the hash itself"
    );
    assert_eq!(
        doc["metadata"]["annotations"]["kustomize.config.k8s.io/needs-hash"],
        "true"
    );
}

#[test]
fn local_config_of_a_krm_function_config_never_reaches_generated_objects() {
    let s = Scratch::new();
    s.write(
        "plugins/widgets.example.com/gizmo.yaml",
        &definition("Gizmo", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}\n  annotations: {{ metadata.annotations | default(value={}) | to_json }}"),
    );
    let config = "apiVersion: widgets.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n    config.kubernetes.io/function: \"exec: {path: kadmit}\"\n    internal.config.kubernetes.io/path: gizmo.yaml\n    team: a\n";
    let indented: String = config.lines().map(|l| format!("  {l}\n")).collect();
    let indented_item: String = config
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("- {l}\n")
            } else {
                format!("  {l}\n")
            }
        })
        .collect();
    let list = format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{indented_item}functionConfig:\n{indented}");
    let out = s.kadmit(&[], &list);
    out.assert_code(0);
    let answer: Value = serde_yaml::from_str(&out.stdout).unwrap();
    let generated: Vec<&Value> = answer["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "ConfigMap")
        .collect();
    assert_eq!(generated.len(), 1, "{}", out.stdout);
    assert_eq!(
        generated[0]["metadata"]["annotations"],
        serde_json::json!({"team": "a"}),
        "{}",
        out.stdout
    );
}

#[test]
fn generated_objects_are_admitted_like_any_input() {
    let s = Scratch::new();
    s.write(
        "policy/always-pull.yaml",
        "apiVersion: mutations.gatekeeper.sh/v1\nkind: Assign\nmetadata:\n  name: always-pull\nspec:\n  applyTo:\n  - groups: [apps]\n    kinds: [Deployment]\n    versions: [v1]\n  location: spec.template.spec.containers[name:*].imagePullPolicy\n  parameters:\n    assign:\n      value: Always\n",
    );
    let out = s.kadmit(
        &[
            "generate",
            "--plugin-dir",
            &repo_plugins(),
            "--config",
            "policy",
        ],
        SHOP,
    );
    out.assert_code(0);
    let docs = out.docs();
    assert_eq!(
        docs[0]["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"],
        "Always"
    );
}

#[test]
fn install_plugins_links_every_generator_kind() {
    let s = Scratch::new();
    let home = s.path().join("kustomize-home");
    let out = s.kadmit(
        &[
            "install-plugins",
            home.to_str().unwrap(),
            "--plugin-dir",
            &repo_plugins(),
        ],
        "",
    );
    out.assert_code(0);
    for entry in [
        "team.example.com/v1/commonapp/CommonApp",
        "team.example.com/v1/configbundle/ConfigBundle",
    ] {
        let script = std::fs::read_to_string(home.join(entry)).unwrap();
        assert!(script.contains("--plugin-dir"), "{entry}: {script}");
        assert!(script.contains(&repo_plugins()), "{entry}: {script}");
    }
}

/// Regression (finding 06): nested `range()` loops ran 10^10 empty iterations (a hang),
/// and the same loops around 100 bytes of text grew the output until the allocator
/// aborted. A render now stops at kadmit's limits, as a template error (exit 2) naming
/// the generator and the template.
#[test]
fn runaway_templates_stop_at_the_render_limits() {
    let nested = |body: &str| {
        format!(
            "# {{% for i in range(end=100000) %}}{{% for j in range(end=100000) %}}{body}{{% endfor %}}{{% endfor %}}\n\
             apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}"
        )
    };
    let cases = [
        (nested(""), "exceeded 1000000 steps"),
        (
            nested(&"x".repeat(100)),
            "template output exceeds 4194304 bytes",
        ),
        (
            "{% set s = 'ab' %}{% for i in range(end=64) %}{% set_global s = s ~ s %}{% endfor %}"
                .into(),
            "a value is larger than 4194304 bytes",
        ),
    ];
    for (template, expected) in cases {
        let s = Scratch::new();
        s.write(
            "plugins/widgets.example.com/gizmo.yaml",
            &definition("Gizmo", &template),
        );
        let started = std::time::Instant::now();
        let out = s.kadmit(&["generate"], &widget("Gizmo", "g"));
        out.assert_code(2);
        assert!(
            out.stderr.contains("template gizmo/main")
                && out.stderr.contains(expected)
                && out.stderr.contains("Generator gizmo"),
            "{template}: {}",
            out.stderr
        );
        assert!(started.elapsed().as_secs() < 60, "{template}");
    }
}
