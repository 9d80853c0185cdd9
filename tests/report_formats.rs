//! `--report FILE --report-format json|markdown|sarif|junit|openreports` through the
//! binary: every format on the shipped KubeMod example (admitted) and on its rejected case,
//! byte for byte against tests/golden/ (`KADMIT_BLESS=1` rewrites the golden files); SARIF
//! checked against the 2.1.0 schema's required properties; JUnit read back with an XML
//! reader; OpenReports admitted by kadmit's own CRD engine with the OpenReports CRDs
//! (tests/fixtures/openreports); the pairing of `--report` and `--report-format`.

mod common;

use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use serde_json::Value;
use std::path::{Path, PathBuf};

const FORMATS: &[(&str, &str)] = &[
    ("json", "json"),
    ("markdown", "md"),
    ("sarif", "sarif"),
    ("junit", "xml"),
    ("openreports", "openreports.yaml"),
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A case: its name in tests/golden, the flags, the stdin file, the exit code.
struct Case {
    name: &'static str,
    args: &'static [&'static str],
    stdin: &'static str,
    code: i32,
}

const ADMITTED: Case = Case {
    name: "report",
    args: &["--config", "examples/kubemod/admission.yaml"],
    stdin: "examples/kubemod/workloads.yaml",
    code: 0,
};

/// examples/kubemod/rejected, as its kustomization builds it (namespace `shop`), with the
/// rules given directly.
const REJECTED: Case = Case {
    name: "report-rejected",
    args: &[
        "--config",
        "examples/kubemod/modrules",
        "--namespace",
        "shop",
    ],
    stdin: "examples/kubemod/rejected/service.yaml",
    code: 1,
};

/// Configuration errors: the kustomize PolicySet of the rejected example given as
/// `--config` (its `argsOneLiner` is not a field kadmit reads there, and without
/// `--allow-paths-outside-root` its `../modrules` may not leave its root).
const BAD_CONFIG: Case = Case {
    name: "report-config-error",
    args: &["--config", "examples/kubemod/rejected/admission.yaml"],
    stdin: "examples/kubemod/rejected/service.yaml",
    code: 2,
};

/// Runs `kadmit transform` in the repository with `extra` flags; returns (exit code,
/// stderr).
fn transform(case: &Case, extra: &[&str]) -> (i32, String) {
    let stdin = std::fs::read(repo().join(case.stdin)).unwrap();
    let output = common::kadmit_isolated()
        .current_dir(repo())
        .arg("transform")
        .args(case.args)
        .args(extra)
        .write_stdin(stdin)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// The report of `case` in `format`, written to a file.
fn report(case: &Case, format: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report");
    let (code, stderr) = transform(
        case,
        &[
            "--report",
            path.to_str().unwrap(),
            "--report-format",
            format,
        ],
    );
    assert_eq!(code, case.code, "{}: {format}: {stderr}", case.name);
    std::fs::read_to_string(&path).unwrap()
}

fn check_golden(case: &Case) {
    for (format, ext) in FORMATS {
        let text = report(case, format);
        let golden = repo().join(format!("tests/golden/{}.{ext}", case.name));
        if std::env::var_os("KADMIT_BLESS").is_some() {
            std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
            std::fs::write(&golden, &text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden)
            .unwrap_or_else(|e| panic!("{}: {e} (KADMIT_BLESS=1 writes it)", golden.display()));
        assert!(
            text == expected,
            "{format} report of {} differs from {}:\n{text}",
            case.name,
            golden.display()
        );
        // Same input, same bytes.
        assert_eq!(report(case, format), text, "{format} is not deterministic");
    }
}

#[test]
fn every_format_matches_its_golden_file_on_the_example() {
    check_golden(&ADMITTED);
}

#[test]
fn every_format_matches_its_golden_file_on_the_rejected_case() {
    check_golden(&REJECTED);
}

#[test]
fn the_json_format_is_the_default_report() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let (code, _) = transform(&ADMITTED, &["--report", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        report(&ADMITTED, "json")
    );
}

#[test]
fn markdown_names_outcome_counts_rejections_and_changes() {
    let admitted = report(&ADMITTED, "markdown");
    assert!(admitted.starts_with("## ✅ kadmit: admitted (exit code 0)\n"));
    assert!(admitted.contains("| 5 | 5 | 5 | 0 | 0 |"), "{admitted}");
    assert!(admitted.contains(
        "<summary>Deployment nginx: 13 changes (defaults apps/v1 Deployment, ModRule nginx-nonroot)</summary>"
    ));
    let rejected = report(&REJECTED, "markdown");
    assert!(rejected.starts_with("## ❌ kadmit: rejected (exit code 1)\n"));
    assert!(rejected.contains("### Rejections and errors"));
    assert!(
        rejected
            .contains("| Service intercept | ModRule reject-malicious-external-ips | rejected by"),
        "{rejected}"
    );
    assert!(rejected.contains("| `stdin:1` |"), "{rejected}");
}

/// The SARIF 2.1.0 schema (https://json.schemastore.org/sarif-2.1.0.json) is not available
/// offline, so its required properties, and the few constraints that make a file usable
/// (rule references, 1-based lines, the level enum), are checked here by hand.
fn check_sarif(text: &str) {
    let doc: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        doc["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    assert_eq!(doc["version"], "2.1.0");
    let runs = doc["runs"].as_array().expect("runs is required");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "kadmit", "tool.driver.name is required");
    assert!(driver["informationUri"].is_string());
    let rules = driver["rules"].as_array().unwrap();
    let mut ids = std::collections::BTreeSet::new();
    for rule in rules {
        let id = rule["id"]
            .as_str()
            .expect("reportingDescriptor.id is required");
        assert!(ids.insert(id), "rule {id} listed twice");
    }
    for invocation in run["invocations"].as_array().unwrap() {
        assert!(invocation["executionSuccessful"].is_boolean());
    }
    for result in run["results"].as_array().unwrap() {
        assert!(
            result["message"]["text"].is_string(),
            "result.message is required: {result}"
        );
        let level = result["level"].as_str().unwrap();
        assert!(["none", "note", "warning", "error"].contains(&level));
        let id = result["ruleId"].as_str().unwrap();
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], id, "ruleIndex points at its ruleId");
        if let Some(locations) = result.get("locations") {
            for location in locations.as_array().unwrap() {
                let physical = &location["physicalLocation"];
                assert!(physical["artifactLocation"]["uri"].is_string());
                if let Some(region) = physical.get("region") {
                    assert!(region["startLine"].as_u64().unwrap() >= 1);
                }
            }
        }
    }
}

#[test]
fn sarif_has_the_required_properties_rules_and_locations() {
    check_sarif(&report(&ADMITTED, "sarif"));
    let rejected = report(&REJECTED, "sarif");
    check_sarif(&rejected);
    let doc: Value = serde_json::from_str(&rejected).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let error = results.iter().find(|r| r["level"] == "error").unwrap();
    assert_eq!(error["ruleId"], "ModRule reject-malicious-external-ips");
    let physical = &error["locations"][0]["physicalLocation"];
    assert_eq!(physical["artifactLocation"]["uri"], "stdin");
    assert_eq!(physical["region"]["startLine"], 1);
    assert!(results
        .iter()
        .any(|r| r["level"] == "note" && r["ruleId"] == "defaults v1 Service"));
    let config = report(&BAD_CONFIG, "sarif");
    check_sarif(&config);
    let doc: Value = serde_json::from_str(&config).unwrap();
    let error = &doc["runs"][0]["results"][0];
    assert_eq!(error["ruleId"], "PolicySet kubemod-readme-examples");
    assert_eq!(
        error["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "examples/kubemod/rejected/admission.yaml"
    );
}

/// What a JUnit reader sees: the suite's counts and each test case with the element in it.
#[derive(Debug, Default)]
struct Suite {
    tests: usize,
    failures: usize,
    errors: usize,
    cases: Vec<TestCase>,
}

/// (classname, name, the failure or error element's name and message)
type TestCase = (String, String, Option<(String, String)>);

fn read_junit(text: &str) -> Suite {
    let mut reader = Reader::from_str(text);
    let mut suite = Suite::default();
    let mut suites = 0;
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                let attr = |name: &str| -> Option<String> {
                    e.try_get_attribute(name).unwrap().map(|a| {
                        a.normalized_value(XmlVersion::Explicit1_0)
                            .unwrap()
                            .into_owned()
                    })
                };
                let name = e.name().as_ref().to_owned();
                match name.as_str() {
                    "testsuite" => {
                        suites += 1;
                        assert_eq!(attr("name").as_deref(), Some("kadmit"));
                        suite.tests = attr("tests").unwrap().parse().unwrap();
                        suite.failures = attr("failures").unwrap().parse().unwrap();
                        suite.errors = attr("errors").unwrap().parse().unwrap();
                    }
                    "testcase" => {
                        suite
                            .cases
                            .push((attr("classname").unwrap(), attr("name").unwrap(), None))
                    }
                    "failure" | "error" => {
                        let message = attr("message").unwrap();
                        suite.cases.last_mut().unwrap().2 = Some((name, message));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    assert_eq!(suites, 1, "one testsuite");
    suite
}

fn problems(suite: &Suite, kind: &str) -> usize {
    suite
        .cases
        .iter()
        .filter(|c| c.2.as_ref().is_some_and(|p| p.0 == kind))
        .count()
}

#[test]
fn junit_reads_back_as_xml_with_consistent_counts() {
    let admitted = read_junit(&report(&ADMITTED, "junit"));
    assert_eq!(admitted.tests, admitted.cases.len());
    assert_eq!((admitted.failures, admitted.errors), (0, 0));
    assert!(admitted
        .cases
        .iter()
        .any(|c| c.0 == "Deployment nginx" && c.1 == "ModRule nginx-nonroot"));

    let rejected = read_junit(&report(&REJECTED, "junit"));
    assert_eq!(rejected.tests, rejected.cases.len());
    assert_eq!(rejected.failures, 1);
    assert_eq!(problems(&rejected, "failure"), 1);
    let failed = rejected.cases.iter().find(|c| c.2.is_some()).unwrap();
    assert_eq!(failed.1, "ModRule reject-malicious-external-ips");
    assert!(failed.2.as_ref().unwrap().1.contains("\"One or more"));

    // Two configuration errors: a path outside the root, and the unknown field.
    let config = read_junit(&report(&BAD_CONFIG, "junit"));
    assert_eq!(config.errors, 2);
    assert_eq!(problems(&config, "error"), 2);
    assert!(config.cases.iter().all(|c| c.0 == "kadmit"));
    // The attribute's quotes survive escaping.
    assert_eq!(
        config.cases[1].2.as_ref().unwrap().1,
        "unknown field \"argsOneLiner\""
    );
}

/// `kadmit transform --crd tests/fixtures/openreports` on the report: exit 0, and the
/// objects come out as they went in (nothing pruned, no default added).
fn check_openreports(text: &str) {
    let output = common::kadmit_isolated()
        .current_dir(repo())
        .args(["transform", "--crd", "tests/fixtures/openreports"])
        .write_stdin(text.as_bytes().to_vec())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{text}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8(output.stdout).unwrap(), text);
}

#[test]
fn openreports_objects_pass_the_openreports_crds() {
    let admitted = report(&ADMITTED, "openreports");
    check_openreports(&admitted);
    assert!(admitted.contains("kind: Report\n") && admitted.contains("kind: ClusterReport\n"));
    let rejected = report(&REJECTED, "openreports");
    check_openreports(&rejected);
    assert!(rejected.contains("  result: fail\n"));
    assert!(rejected.contains("  namespace: shop\n"));
    let config = report(&BAD_CONFIG, "openreports");
    check_openreports(&config);
    assert!(config.contains("  result: error\n"));
}

#[test]
fn the_crd_check_catches_a_bad_report() {
    let bad = "apiVersion: openreports.io/v1alpha1\nkind: ClusterReport\nmetadata:\n  name: x\nresults:\n- policy: p\n  result: passed\n";
    let output = common::kadmit_isolated()
        .current_dir(repo())
        .args(["transform", "--crd", "tests/fixtures/openreports"])
        .write_stdin(bad)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn each_report_takes_the_format_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let (a, b, c) = (file("a.md"), file("b.sarif"), file("c.json"));
    let (code, stderr) = transform(
        &ADMITTED,
        &[
            "--report",
            &a,
            "--report-format",
            "markdown",
            "--report",
            &b,
            "--report-format",
            "sarif",
            "--report",
            &c,
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let read = |p: &str| std::fs::read_to_string(Path::new(p)).unwrap();
    assert_eq!(read(&a), report(&ADMITTED, "markdown"));
    assert_eq!(read(&b), report(&ADMITTED, "sarif"));
    assert_eq!(read(&c), report(&ADMITTED, "json"));
}

#[test]
fn a_report_to_stderr_follows_the_diagnostics() {
    let (code, stderr) = transform(&REJECTED, &["--report", "-", "--report-format", "markdown"]);
    assert_eq!(code, 1);
    let at = stderr.find("## ❌ kadmit: rejected").unwrap();
    assert!(stderr[..at].contains("error: Service intercept: rejected by"));
    assert_eq!(&stderr[at..], report(&REJECTED, "markdown"));
}

#[test]
fn misplaced_and_unknown_formats_are_usage_errors() {
    for (args, says) in [
        (
            &["--report-format", "sarif", "--report", "x"][..],
            "--report-format sarif comes before any --report",
        ),
        (
            &[
                "--report",
                "x",
                "--report-format",
                "sarif",
                "--report-format",
                "junit",
            ][..],
            "--report x has two formats (sarif and junit)",
        ),
        (
            &["--report", "x", "--report-format", "html"][..],
            "invalid value 'html' for '--report-format <FORMAT>'",
        ),
    ] {
        let (code, stderr) = transform(&ADMITTED, args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
