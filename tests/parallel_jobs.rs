//! `--jobs N` changes how fast, never what: stdout, stderr (diagnostics in the same order)
//! and the exit code are byte for byte those of `--jobs 1`, for every kind of run — plain
//! streams large enough to span several parallel batches, rejections, broken documents,
//! KRM ResourceLists, generators, ExpansionTemplates, `--old`, `kadmit diff`, reports and
//! every bundled example (docs/architecture.md, "Parallel stages").

use assert_cmd::Command;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What one invocation printed and returned, with the reports it wrote.
#[derive(Debug, PartialEq)]
struct Run {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    reports: Vec<String>,
}

struct Case<'a> {
    /// The arguments, the subcommand first; `--jobs N` goes right after it.
    args: Vec<String>,
    stdin: &'a [u8],
    dir: PathBuf,
    /// Files `--report` writes, compared too.
    reports: Vec<PathBuf>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(case: &Case<'_>, jobs: usize) -> Run {
    let jobs_args = ["--jobs".to_owned(), jobs.to_string()];
    let mut args = case.args.clone();
    args.splice(1..1, jobs_args);
    for report in &case.reports {
        let _ = std::fs::remove_file(report);
    }
    let output = Command::cargo_bin("kadmit")
        .unwrap()
        .args(&args)
        .current_dir(&case.dir)
        .env_remove("KADMIT_PLUGIN_PATH")
        .env("XDG_CONFIG_HOME", case.dir.join("no-xdg-config"))
        .write_stdin(case.stdin.to_vec())
        .output()
        .unwrap();
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code(),
        reports: case
            .reports
            .iter()
            .map(|r| std::fs::read_to_string(r).unwrap_or_default())
            .collect(),
    }
}

/// Runs `case` with 1, 2 and 4 jobs; every run must equal the first. Returns it, for the
/// case's own checks that it exercised what it is meant to.
fn same_for_every_job_count(name: &str, case: &Case<'_>) -> Run {
    let one = run(case, 1);
    for jobs in [2, 4] {
        let many = run(case, jobs);
        assert!(
            one == many,
            "{name}: --jobs {jobs} differs from --jobs 1\n--- jobs 1: exit {:?}\n{}\n{}\n--- jobs {jobs}: exit {:?}\n{}\n{}",
            one.code,
            head(&one.stderr),
            head(&one.stdout),
            many.code,
            head(&many.stderr),
            head(&many.stdout),
        );
    }
    one
}

fn head(text: &str) -> String {
    text.lines().take(40).collect::<Vec<_>>().join("\n")
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A stream of `count` resources (Deployments, Services, ConfigMaps, a custom kind whose
/// CRD comes midway, Namespaces, v1 Lists), about 1 KB each: large enough for several
/// batches and windows at any job count. With `faults`: some invalid Services (rejected by
/// native validation), a document without a kind, a broken YAML document.
fn corpus(count: usize, faults: bool) -> String {
    let mut out = String::new();
    // Midway: Widgets come before and after their CRD.
    let crd_at = count / 2 / 11 * 11 + 8;
    for i in 0..count {
        out.push_str("---\n");
        let ns = format!("team-{}", i % 7);
        match i % 11 {
            0..=3 => write!(
                out,
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\n  namespace: {ns}\n  labels: {{app: web-{i}, tier: \"{}\"}}\nspec:\n  replicas: {}\n  selector:\n    matchLabels: {{app: web-{i}}}\n  template:\n    metadata:\n      labels: {{app: web-{i}}}\n    spec:\n      containers:\n      - name: app\n        image: example/app:{}.0\n        args: [\"--port=8080\", \"--verbose\", \"yes\", \"on\", \"0755\"]\n        ports:\n        - containerPort: 8080\n        env:\n        - {{name: MODE, value: \"{}\"}}\n",
                i % 3,
                i % 5 + 1,
                i % 13,
                "x".repeat(i % 50)
            )
            .unwrap(),
            4 | 5 => {
                let port = if faults && i % 97 == 4 { 70000 } else { 80 };
                write!(
                    out,
                    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web-{i}\n  namespace: {ns}\nspec:\n  selector: {{app: web-{i}}}\n  ports:\n  - port: {port}\n    targetPort: 8080\n"
                )
                .unwrap()
            }
            6 | 7 => write!(
                out,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-{i}\n  namespace: {ns}\ndata:\n  a: \"{i}\"\n  b: \"yes\"\n  c: |\n    line one {i}\n    line two\n  d: '{}'\n",
                "y".repeat(i % 300)
            )
            .unwrap(),
            8 if i == crd_at => out.push_str(CRD),
            8 => write!(
                out,
                "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-{i}\n  namespace: {ns}\nspec:\n  size: {}\n  tags: [a, b, \"{i}\"]\n",
                i % 8
            )
            .unwrap(),
            9 => write!(
                out,
                "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: listed-{i}a, namespace: {ns}}}\n  data: {{k: v}}\n- apiVersion: v1\n  kind: Secret\n  metadata: {{name: listed-{i}b, namespace: {ns}}}\n  stringData: {{k: v}}\n"
            )
            .unwrap(),
            _ => write!(
                out,
                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-{i}\n  labels: {{team: \"{}\"}}\n",
                i % 7
            )
            .unwrap(),
        }
        if faults && i % 503 == 250 {
            out.push_str("---\nmetadata:\n  name: no-kind\n");
        }
        if faults && i % 701 == 350 {
            out.push_str("---\nbroken: [unclosed\n");
        }
    }
    out
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 7, default: 1}
              tags: {type: array, items: {type: string}, x-kubernetes-list-type: set}
              color: {type: string, default: blue}
";

fn stdin_case<'a>(list: &[&str], stdin: &'a [u8]) -> Case<'a> {
    Case {
        args: args(list),
        stdin,
        dir: root(),
        reports: Vec::new(),
    }
}

#[test]
fn jobs_zero_is_refused_as_bad_input() {
    let output = Command::cargo_bin("kadmit")
        .unwrap()
        .args(["transform", "--jobs", "0"])
        .write_stdin("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("invalid value '0' for '--jobs <N>': --jobs needs at least one thread"),
        "{stderr}"
    );
}

#[test]
fn a_large_clean_stream_is_the_same_in_every_format() {
    let stream = corpus(5000, false);
    assert!(stream.len() > 1_500_000, "{} bytes", stream.len());
    for list in [
        &["transform"][..],
        &["transform", "--no-builtins", "-o", "json"],
        &[
            "transform",
            "--no-builtins",
            "-o",
            "resourcelist",
            "--annotate",
        ],
    ] {
        let one = same_for_every_job_count(&list.join(" "), &stdin_case(list, stream.as_bytes()));
        assert_eq!(one.code, Some(0), "{list:?}: {}", head(&one.stderr));
        assert!(one.stdout.len() > 1_000_000, "{list:?}");
    }
}

#[test]
fn rejections_and_broken_documents_are_reported_in_the_same_order() {
    let stream = corpus(3000, true);
    let one = same_for_every_job_count("faults", &stdin_case(&["transform"], stream.as_bytes()));
    assert_eq!(one.code, Some(2), "{}", head(&one.stderr));
    assert!(one.stdout.is_empty());
    for expected in ["cannot read YAML", "has no apiVersion"] {
        assert!(
            one.stderr.contains(expected),
            "{expected}: {}",
            head(&one.stderr)
        );
    }
    // Without the broken documents: only rejections (exit 1), many of them, in order.
    let stream: String = stream
        .replace("---\nbroken: [unclosed\n", "")
        .replace("---\nmetadata:\n  name: no-kind\n", "");
    let one =
        same_for_every_job_count("rejections", &stdin_case(&["transform"], stream.as_bytes()));
    assert_eq!(one.code, Some(1), "{}", head(&one.stderr));
    assert!(one.stderr.matches("70000").count() >= 5, "{}", one.stderr);
}

#[test]
fn mutating_rules_annotations_diffs_and_reports_are_the_same() {
    let stream = corpus(1500, false);
    let modrules = root().join("examples/kubemod/modrules");
    let mutators = root().join("examples/gatekeeper/mutators");
    let scratch = tempfile::tempdir().unwrap();
    let reports: Vec<PathBuf> = ["json", "sarif", "markdown"]
        .iter()
        .map(|f| scratch.path().join(format!("report.{f}")))
        .collect();
    let mut list = vec![
        "transform".to_owned(),
        "--annotate".to_owned(),
        "--config".to_owned(),
        modrules.display().to_string(),
        "--config".to_owned(),
        mutators.display().to_string(),
    ];
    for (report, format) in reports.iter().zip(["json", "sarif", "markdown"]) {
        list.extend(args(&[
            "--report",
            &report.display().to_string(),
            "--report-format",
            format,
        ]));
    }
    let case = Case {
        args: list.clone(),
        stdin: stream.as_bytes(),
        dir: root(),
        reports: reports.clone(),
    };
    let one = same_for_every_job_count("rules", &case);
    assert!(
        one.stdout.contains("kadmit.dev/changed-by"),
        "{}",
        head(&one.stderr)
    );
    assert!(one.reports.iter().all(|r| !r.is_empty()));
    list[0] = "diff".to_owned();
    list.retain(|a| a != "--annotate");
    let case = Case { args: list, ..case };
    let one = same_for_every_job_count("diff", &case);
    assert!(one.stdout.contains("@@"), "{}", head(&one.stdout));
}

#[test]
fn old_objects_updates_and_deletions_are_the_same() {
    let scratch = tempfile::tempdir().unwrap();
    let old = scratch.path().join("old.yaml");
    let new = scratch.path().join("new.yaml");
    let before = corpus(1500, false);
    std::fs::write(&old, &before).unwrap();
    // Some replicas change, some documents go (DELETEs), the rest are as they were.
    let after: String = before
        .split("---\n")
        .enumerate()
        .filter(|(i, _)| i % 40 != 7)
        .map(|(i, doc)| {
            let doc = if i % 9 == 1 {
                doc.replace("replicas: 1", "replicas: 4")
            } else {
                doc.to_owned()
            };
            if doc.is_empty() {
                doc
            } else {
                format!("---\n{doc}")
            }
        })
        .collect();
    std::fs::write(&new, after).unwrap();
    let config = root().join("examples/update/policies.yaml");
    for sub in ["transform", "diff"] {
        let case = Case {
            args: args(&[
                sub,
                "-f",
                &new.display().to_string(),
                "--old",
                &old.display().to_string(),
                "--config",
                &config.display().to_string(),
            ]),
            stdin: b"",
            dir: root(),
            reports: Vec::new(),
        };
        let one = same_for_every_job_count(sub, &case);
        assert!(!one.stdout.is_empty(), "{sub}: {}", head(&one.stderr));
    }
}

/// A document as deep as the reader allows is read, checked and written on a worker
/// thread as on the main one (workers get the main thread's stack).
#[test]
fn the_deepest_documents_are_the_same() {
    let mut doc =
        String::from("apiVersion: example.com/v1\nkind: C\nmetadata: {name: deep}\nspec:\n");
    for level in 1..=505 {
        doc.push_str(&"  ".repeat(level));
        doc.push_str("k:\n");
    }
    doc.push_str(&"  ".repeat(506));
    doc.push_str("v: 1\n");
    let stream = format!("{doc}---\n{doc}---\n{doc}");
    let one = same_for_every_job_count("deep", &stdin_case(&["transform"], stream.as_bytes()));
    assert_eq!(one.code, Some(0), "{}", head(&one.stderr));
    assert_eq!(one.stdout.matches("v: 1\n").count(), 3);
}

#[test]
fn krm_resource_lists_are_the_same_accepted_or_refused() {
    let stream = corpus(1500, false);
    let list = run(
        &stdin_case(
            &["transform", "-o", "resourcelist", "--no-builtins"],
            stream.as_bytes(),
        ),
        1,
    );
    assert_eq!(list.code, Some(0), "{}", head(&list.stderr));
    let one = same_for_every_job_count("krm", &stdin_case(&["transform"], list.stdout.as_bytes()));
    assert_eq!(one.code, Some(0), "{}", head(&one.stderr));
    assert!(one
        .stdout
        .starts_with("apiVersion: config.kubernetes.io/v1\nkind: ResourceList"));
    // A rejected item: the input is echoed back with the results.
    let rejected = list.stdout.replacen("port: 80\n", "port: 70000\n", 3);
    let one = same_for_every_job_count(
        "krm rejected",
        &stdin_case(&["transform"], rejected.as_bytes()),
    );
    assert_eq!(one.code, Some(1), "{}", head(&one.stderr));
    assert!(one.stdout.contains("results:"));
}

/// A KRM call whose items hold `*List`s between plain items, enough of them to span many
/// batches: each List is admitted on the calling thread in its place, between the
/// results of the batches around it.
fn resource_list_with_lists(count: usize, bad_port_at: Option<usize>) -> String {
    let mut out = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for i in 0..count {
        if i % 250 == 125 {
            let port = if Some(i) == bad_port_at { 70000 } else { 80 };
            write!(
                out,
                "- apiVersion: v1\n  kind: List\n  metadata: {{name: bundle-{i}}}\n  items:\n  - apiVersion: v1\n    kind: Service\n    metadata: {{name: listed-{i}, namespace: team}}\n    spec:\n      ports:\n      - port: {port}\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {{name: listed-{i}, namespace: team}}\n    data: {{n: \"{i}\"}}\n"
            )
            .unwrap();
        }
        // The plain items on either side of the List, rejected too.
        let port = match bad_port_at {
            Some(at) if i + 1 == at => 70002,
            Some(at) if i == at => 70001,
            _ => 8080,
        };
        write!(
            out,
            "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: svc-{i}\n    namespace: team\n    annotations: {{note: \"{}\"}}\n  spec:\n    selector: {{app: a-{i}}}\n    ports:\n    - port: {port}\n",
            "y".repeat(i % 40)
        )
        .unwrap();
    }
    out
}

#[test]
fn krm_lists_between_batches_are_admitted_in_their_place() {
    let clean = resource_list_with_lists(3000, None);
    let one = same_for_every_job_count("krm lists", &stdin_case(&["transform"], clean.as_bytes()));
    assert_eq!(one.code, Some(0), "{}", head(&one.stderr));
    assert_eq!(one.stdout.matches("kind: List\n").count(), 12);
    let at = |text: &str| one.stdout.find(text).unwrap_or_else(|| panic!("no {text}"));
    assert!(at("name: svc-124\n") < at("name: listed-125\n"));
    assert!(at("name: listed-125\n") < at("name: svc-125\n"));
    // Rejected items before, inside and after a List: reported in input order.
    let rejected = resource_list_with_lists(3000, Some(1625));
    let one = same_for_every_job_count(
        "krm lists rejected",
        &stdin_case(&["transform"], rejected.as_bytes()),
    );
    assert_eq!(one.code, Some(1), "{}", head(&one.stderr));
    let at = |text: &str| one.stderr.find(text).unwrap_or_else(|| panic!("no {text}"));
    assert!(at("Service team/svc-1624:") < at("Service team/listed-1625:"));
    assert!(at("Service team/listed-1625:") < at("Service team/svc-1625:"));
}

#[test]
fn generators_and_expansion_are_the_same() {
    let dir = root().join("examples/generators");
    let apps = std::fs::read(dir.join("apps.yaml")).unwrap();
    let mirror = root().join("examples/gatekeeper/mutators/registry-mirror.yaml");
    let case = Case {
        args: args(&[
            "generate",
            "--plugin-dir",
            "../../plugins",
            "--config",
            &mirror.display().to_string(),
        ]),
        stdin: &apps,
        dir,
        reports: Vec::new(),
    };
    let one = same_for_every_job_count("generators", &case);
    assert_eq!(one.code, Some(0), "{}", head(&one.stderr));
    // ExpansionTemplates: every Deployment's Pod, mutated, ordered as gator orders them.
    let mut stream = String::from(EXPANSION);
    stream.push_str(&corpus(800, false));
    let one = same_for_every_job_count("expansion", &stdin_case(&["generate"], stream.as_bytes()));
    assert_eq!(one.code, Some(0), "{}", head(&one.stderr));
    assert!(
        one.stdout.matches("kind: Pod\n").count() > 100,
        "{}",
        head(&one.stdout)
    );
    assert!(one.stdout.contains("imagePullPolicy: Always"));
}

const EXPANSION: &str = "apiVersion: expansion.gatekeeper.sh/v1alpha1
kind: ExpansionTemplate
metadata:
  name: expand-deployments
spec:
  applyTo:
  - groups: [apps]
    kinds: [Deployment]
    versions: [v1]
  templateSource: spec.template
  generatedGVK: {kind: Pod, group: '', version: v1}
---
apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: always-pull
spec:
  applyTo:
  - groups: ['']
    kinds: [Pod]
    versions: [v1]
  location: spec.containers[name:*].imagePullPolicy
  parameters:
    assign: {value: Always}
";

/// Every bundled example, run as its README runs it.
#[test]
fn every_example_is_the_same() {
    let examples = root().join("examples");
    let cases: &[(&str, &[&str], &str)] = &[
        ("basic", &["transform", "--no-defaults"], "resources.yaml"),
        (
            "admission-policies",
            &["transform", "--config", "policies.yaml"],
            "app.yaml",
        ),
        (
            "admission-policies",
            &["transform", "--config", "policies.yaml"],
            "rejected/too-many-replicas.yaml",
        ),
        (
            "admission-policies",
            &["transform", "--config", "broken/policy.yaml"],
            "app.yaml",
        ),
        ("builtins", &["transform"], "app.yaml"),
        ("builtins", &["transform"], "broken/service.yaml"),
        (
            "crd",
            &["transform", "--crd", "crd.yaml"],
            "valid/analytics.yaml",
        ),
        (
            "crd",
            &["transform", "--crd", "crd.yaml", "--report", "-"],
            "valid/orders.yaml",
        ),
        (
            "crd",
            &["transform", "--crd", "crd.yaml"],
            "invalid/even-replicas.yaml",
        ),
        (
            "gatekeeper",
            &["transform", "--config", "mutators", "--report", "-"],
            "workloads.yaml",
        ),
        (
            "generators",
            &["generate", "--plugin-dir", "../../plugins"],
            "apps.yaml",
        ),
        (
            "kubemod",
            &["transform", "--config", "modrules"],
            "workloads.yaml",
        ),
        (
            "kubemod",
            &["transform", "--config", "modrules"],
            "rejected/service.yaml",
        ),
        (
            "kubewarden",
            &["transform", "--config", "policies"],
            "workloads.yaml",
        ),
        (
            "kubewarden",
            &["transform", "--config", "policies"],
            "rejected/workloads.yaml",
        ),
        (
            "modules",
            &["transform", "--config", "policies", "--report", "-"],
            "workloads.yaml",
        ),
        (
            "modules",
            &["transform", "--config", "policies"],
            "rejected/workloads.yaml",
        ),
        (
            "update",
            &[
                "diff",
                "--config",
                "policies.yaml",
                "-f",
                "change",
                "--old",
                "base",
            ],
            "",
        ),
        (
            "update",
            &[
                "transform",
                "--config",
                "policies.yaml",
                "-f",
                "rejected",
                "--old",
                "base",
            ],
            "",
        ),
    ];
    let mut exits = Vec::new();
    for (example, list, input) in cases {
        let dir = examples.join(example);
        let stdin = if input.is_empty() {
            Vec::new()
        } else {
            std::fs::read(dir.join(input)).unwrap()
        };
        let case = Case {
            args: args(list),
            stdin: &stdin,
            dir,
            reports: Vec::new(),
        };
        let one = same_for_every_job_count(&format!("{example} {}", list.join(" ")), &case);
        exits.push(one.code);
    }
    // The set exercises success, rejection and bad configuration alike.
    for code in [Some(0), Some(1), Some(2)] {
        assert!(
            exits.contains(&code),
            "no example exits {code:?}: {exits:?}"
        );
    }
}

#[test]
fn the_examples_directory_is_covered() {
    // A new example needs a case above (argocd, ci and helm are pipelines around kadmit,
    // not inputs of their own).
    let listed = [
        "admission-policies",
        "argocd",
        "basic",
        "builtins",
        "ci",
        "crd",
        "gatekeeper",
        "generators",
        "helm",
        "kubemod",
        "kubewarden",
        "modules",
        "update",
    ];
    let mut found: Vec<String> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, listed, "{}", Path::new("examples").display());
}
