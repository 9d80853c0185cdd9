//! CRDs are compiled when used (docs/schema.md "CRDs are compiled when used"): every CRD
//! of a run is checked up front as far as it defines its kind (YAML, strict decoding and
//! the CRD rules outside its schemas); its schemas are checked and compiled when a resource
//! of its kind is admitted. An unused CRD whose schema the API server would refuse is not
//! reported; a used one is, with every resource of its kind, exactly as the server words
//! it. The CRD sets come from `scripts/gen-crd-set.py` (python3; skipped loudly without
//! it, a failure under CI=true).

mod common;

use common::{kadmit_isolated, require_tool};
use std::path::Path;
use std::process::Command;

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn transform(dir: &Path, args: &[&str], stdin: &str) -> Ran {
    let out = kadmit_isolated()
        .current_dir(dir)
        .arg("transform")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A small CRD set from the benchmark's generator, in `dir/crds`: `count` CRDs, the
/// `broken`-th (1-based, 0 for none) with a schema type the server refuses. Returns one
/// resource of each kind, or `None` when python3 is missing (skipped loudly).
fn generate(dir: &Path, count: usize, broken: usize) -> Option<Vec<String>> {
    if !require_tool("python3") {
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-crd-set.py");
    let out = Command::new("python3")
        .arg(script)
        .args(["--out", dir.join("crds").to_str().unwrap()])
        .args(["--crds", &count.to_string(), "--kb", "20"])
        .args(["--broken", &broken.to_string(), "--examples"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let examples = String::from_utf8(out.stdout).unwrap();
    Some(
        examples
            .split("---\n")
            .filter(|d| !d.is_empty())
            .map(|d| format!("---\n{d}"))
            .collect(),
    )
}

const CONFIG_MAP: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\ndata:\n  k: v\n";

/// The generated CRDs, concatenated, for `--config FILE` and for the stream.
fn concatenated(dir: &Path) -> String {
    let mut files: Vec<_> = std::fs::read_dir(dir.join("crds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

#[test]
fn an_unused_crd_with_a_broken_schema_is_not_reported_a_used_one_is() {
    let dir = tempfile::tempdir().unwrap();
    let Some(examples) = generate(dir.path(), 3, 2) else {
        return;
    };
    // Kinds 1 and 3 only: the broken CRD 2 is never compiled.
    let stream = format!("{CONFIG_MAP}{}{}", examples[0], examples[2]);
    let ran = transform(dir.path(), &["--crd", "crds"], &stream);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stdout.matches("kind: ").count(), 3, "{}", ran.stdout);
    // The generated schemas default `spec.pullPolicy`: the used CRDs did their work.
    assert_eq!(
        ran.stdout.matches("pullPolicy: Always").count(),
        2,
        "{}",
        ran.stdout
    );

    // A resource of kind 2: its CRD is refused as the API server refuses it on create,
    // once per resource of the kind, at the CRD's file and line, naming the resource.
    let second = examples[1].replace("name: example", "name: other");
    let stream = format!("{CONFIG_MAP}{}{second}{}", examples[1], examples[0]);
    let ran = transform(dir.path(), &["--crd", "crds"], &stream);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(ran.stdout, "");
    // The API server's refusal, every version's problem at once, as the eager check gave it.
    let causes: String = (0..3)
        .map(|v| {
            format!(
                "\n* spec.versions[{v}].schema.openAPIV3Schema.properties[spec].properties[brokenField].type: \
                 Unsupported value: \"strnig\": supported values: \"array\", \"boolean\", \"integer\", \
                 \"number\", \"object\", \"string\""
            )
        })
        .collect();
    let expected = |name: &str| {
        format!(
            "error: PodMonitor default/{name}: The CustomResourceDefinition \
             \"podmonitors.bench.kadmit.dev\" is invalid: {causes} (CustomResourceDefinition \
             podmonitors.bench.kadmit.dev) [crds/podmonitors.bench.kadmit.dev.yaml, document 1, line 2]\n"
        )
    };
    assert_eq!(ran.stderr, expected("example") + &expected("other"));
}

#[test]
fn crds_from_config_and_from_the_stream_are_as_lazy() {
    let dir = tempfile::tempdir().unwrap();
    let Some(examples) = generate(dir.path(), 2, 2) else {
        return;
    };
    std::fs::write(dir.path().join("set.yaml"), concatenated(dir.path())).unwrap();
    let ran = transform(dir.path(), &["--config", "set.yaml"], CONFIG_MAP);
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, CONFIG_MAP),
        "{}",
        ran.stderr
    );
    let ran = transform(dir.path(), &["--config", "set.yaml"], &examples[1]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("Unsupported value: \"strnig\""),
        "{}",
        ran.stderr
    );

    // In the stream, the CRDs are resources written out, and used.
    let stream = format!(
        "{}---\n{CONFIG_MAP}{}",
        concatenated(dir.path()),
        examples[0]
    );
    let ran = transform(dir.path(), &[], &stream);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Untouched, they come back as written: the generator quotes its strings.
    let crds = ran
        .stdout
        .lines()
        .filter(|l| l.replace('"', "") == "kind: CustomResourceDefinition")
        .count();
    assert_eq!(crds, 2);
    let ran = transform(dir.path(), &[], &format!("{stream}{}", examples[1]));
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("Unsupported value: \"strnig\""),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_crd_that_does_not_define_its_kind_is_reported_even_unused() {
    let dir = tempfile::tempdir().unwrap();
    if generate(dir.path(), 1, 1).is_none() {
        return;
    }
    let file = dir.path().join("crds/alertmanagers.bench.kadmit.dev.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    // A scope the server does not know, and (in the same CRD) the broken schema type:
    // refused up front, with every problem at once.
    std::fs::write(
        &file,
        text.replace("scope: \"Namespaced\"", "scope: \"Everywhere\""),
    )
    .unwrap();
    let ran = transform(dir.path(), &["--crd", "crds"], CONFIG_MAP);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(ran.stdout, "");
    assert!(
        ran.stderr
            .contains("spec.scope: Unsupported value: \"Everywhere\""),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("Unsupported value: \"strnig\""),
        "{}",
        ran.stderr
    );

    // A misspelt field outside the schemas: the server's strict decoding error.
    let typo = text.replace(
        "  scope: \"Namespaced\"",
        "  scope: \"Namespaced\"\n  scoop: 1",
    );
    std::fs::write(&file, typo).unwrap();
    let ran = transform(dir.path(), &["--crd", "crds"], CONFIG_MAP);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("strict decoding error: unknown field \"spec.scoop\""),
        "{}",
        ran.stderr
    );

    // A YAML syntax error in a CRD file.
    std::fs::write(&file, format!("{text}\n  bad: [unclosed\n")).unwrap();
    let ran = transform(dir.path(), &["--crd", "crds"], CONFIG_MAP);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
}

#[test]
fn the_generated_set_admits_its_kinds_in_every_version() {
    let dir = tempfile::tempdir().unwrap();
    let Some(examples) = generate(dir.path(), 2, 0) else {
        return;
    };
    // v1alpha1 is deprecated (a warning); every version defaults as the storage one.
    for version in ["v1", "v1beta1", "v1alpha1"] {
        let stream: String = examples
            .iter()
            .map(|e| {
                e.replace(
                    "bench.kadmit.dev/v1",
                    &format!("bench.kadmit.dev/{version}"),
                )
            })
            .collect();
        let ran = transform(dir.path(), &["--crd", "crds"], &stream);
        assert_eq!(ran.code, 0, "{version}: {}", ran.stderr);
        assert_eq!(
            ran.stdout.matches("pullPolicy: Always").count(),
            2,
            "{version}"
        );
        assert_eq!(
            ran.stderr.contains("is deprecated"),
            version == "v1alpha1",
            "{version}: {}",
            ran.stderr
        );
    }
}
