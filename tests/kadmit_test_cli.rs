//! `kadmit test` (docs/cli.md "kadmit test"): the shipped suites pass, a failing suite
//! says why each case fails, invalid Tests exit 2 naming the problem, and the JUnit report
//! holds a test case per case.

use assert_cmd::Command;
use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `kadmit test ARGS` in the repository: (exit code, stdout, stderr).
fn kadmit_test(args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("kadmit")
        .unwrap()
        .current_dir(repo())
        .arg("test")
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn the_shipped_example_suites_pass() {
    let (code, stdout, stderr) = kadmit_test(&["examples"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(stderr, "");
    for line in [
        "PASS admission-policies/web: admitted as admitted/web.yaml",
        "PASS admission-policies/worker: warned by \"recommend-tier\" with a message containing \"has no tier label\"",
        "PASS admission-policies/batch: rejected by \"require-owner\" with a message containing \"needs a team label\"",
        "PASS kubemod/nginx: admitted as admitted/nginx.yaml",
        "PASS kubemod/intercept: rejected by \"ModRule reject-malicious-external-ips\"",
        "PASS update-change/legacy-settings: warned by \"announce-deletions\"",
        "PASS update-rejected/feature-flags: rejected by \"protected-configmaps\"",
    ] {
        assert!(stdout.contains(line), "no {line:?} in:\n{stdout}");
    }
    assert!(stdout.ends_with("14 passed, 0 failed\n"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
}

#[test]
fn the_default_directory_is_the_working_one() {
    let output = Command::cargo_bin("kadmit")
        .unwrap()
        .current_dir(repo().join("examples/kubemod"))
        .arg("test")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.ends_with("6 passed, 0 failed\n"), "{stdout}");
}

#[test]
fn a_failing_suite_exits_1_and_says_why_each_case_failed() {
    let (code, stdout, stderr) = kadmit_test(&["tests/fixtures/ktest/failing"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(stderr, "");
    let lines: Vec<&str> = stdout.lines().collect();
    let outcomes: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("PASS ") || l.starts_with("FAIL "))
        .collect();
    assert_eq!(
        outcomes,
        [
            "FAIL failing/batch: expected admitted, got rejected",
            "FAIL failing/web: expected rejected by \"require-owner\", got admitted",
            "FAIL failing/batch: expected rejected by \"no-such-policy\", got rejected, but by no diagnostic that matches",
            "FAIL failing/worker: expected warned as worker.yaml, got an object that differs: /spec/replicas: expected 4, got 2",
            "FAIL failing/ghost: no Deployment ghost in the resources (they hold: Deployment default/web, Deployment default/worker, Deployment default/batch)",
            "PASS failing/web: admitted",
        ]
    );
    // The diagnostics that named the resource follow a failing case, indented.
    assert_eq!(
        lines[1],
        "    error: Deployment default/batch: ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: object.spec.replicas must be no greater than 3 [examples/admission-policies/rejected/too-many-replicas.yaml, document 1, line 3]"
    );
    assert_eq!(lines.last(), Some(&"1 passed, 5 failed"));
}

#[test]
fn an_unknown_field_makes_the_test_invalid() {
    let (code, stdout, stderr) = kadmit_test(&["tests/fixtures/ktest/invalid/unknown-field"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(
        stderr,
        "error: unknown field \"spec.cases[0].expected\" (did you mean \"expect\"?) (Test typo) \
         [tests/fixtures/ktest/invalid/unknown-field/test.yaml, document 1, line 2]\n"
    );
    assert_eq!(stdout, "0 passed, 0 failed\n");
}

#[test]
fn a_missing_path_makes_the_test_invalid() {
    let (code, _, stderr) = kadmit_test(&["tests/fixtures/ktest/invalid/missing-path/test.yaml"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: Test missing [tests/fixtures/ktest/invalid/missing-path/test.yaml, document 1, line 2]: \
         spec.policies[0]: tests/fixtures/ktest/invalid/missing-path/no-such-policies.yaml does not exist\n"
    );
    let (code, _, stderr) = kadmit_test(&["tests/fixtures/ktest/no-such-dir"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: tests/fixtures/ktest/no-such-dir: no such file or directory\n"
    );
}

#[test]
fn a_named_file_without_a_test_is_an_error() {
    let (code, _, stderr) = kadmit_test(&["examples/admission-policies/app.yaml"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: examples/admission-policies/app.yaml: holds no kadmit.dev/v1alpha1 Test\n"
    );
}

#[test]
fn a_case_on_a_resource_not_in_the_stream_fails() {
    let (_, stdout, _) = kadmit_test(&["tests/fixtures/ktest/failing/failing.test.yaml"]);
    assert!(stdout.contains(
        "FAIL failing/ghost: no Deployment ghost in the resources (they hold: Deployment default/web, \
         Deployment default/worker, Deployment default/batch)\n"
    ));
}

#[test]
fn objects_are_compared_as_data() {
    // The expected objects are written in another key order than kadmit's output
    // (examples/kubemod/expected.yaml is kustomize's sorted output) and still pass.
    let expected =
        std::fs::read_to_string(repo().join("examples/kubemod/tests/admitted/nginx.yaml")).unwrap();
    assert!(
        expected.starts_with("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  annotations:")
    );
    let (code, stdout, _) = kadmit_test(&["examples/kubemod/tests"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("PASS kubemod/nginx: admitted as admitted/nginx.yaml\n"));
    // One changed value fails, at its path.
    let (_, stdout, _) = kadmit_test(&["tests/fixtures/ktest/failing"]);
    assert!(stdout.contains("got an object that differs: /spec/replicas: expected 4, got 2\n"));
}

/// (suite name, testcase name, failure or error message) of a JUnit document, parsed.
fn read_junit(text: &str) -> Vec<(String, String, Option<String>)> {
    let mut reader = Reader::from_str(text);
    let mut cases: Vec<(String, String, Option<String>)> = Vec::new();
    let mut suite = String::new();
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
                    "testsuite" => suite = attr("name").unwrap(),
                    "testcase" => cases.push((suite.clone(), attr("name").unwrap(), None)),
                    "failure" | "error" => cases.last_mut().unwrap().2 = attr("message"),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    cases
}

#[test]
fn the_junit_report_has_a_test_case_per_case() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.xml");
    let (code, _, _) = kadmit_test(&[
        "tests/fixtures/ktest/failing",
        "examples/admission-policies/tests",
        "tests/fixtures/ktest/invalid/unknown-field",
        "--report",
        report.to_str().unwrap(),
        "--report-format",
        "junit",
    ]);
    assert_eq!(code, 2);
    let xml = std::fs::read_to_string(&report).unwrap();
    assert!(
        xml.contains("<testsuites name=\"kadmit test\" tests=\"11\" failures=\"5\" errors=\"1\">")
    );
    let cases = read_junit(&xml);
    assert_eq!(cases.len(), 11);
    assert_eq!(
        cases[1],
        (
            "failing".to_owned(),
            "web: rejected by \"require-owner\"".to_owned(),
            Some("expected rejected by \"require-owner\", got admitted".to_owned())
        )
    );
    assert_eq!(
        cases[6],
        (
            "admission-policies".to_owned(),
            "web: admitted as admitted/web.yaml".to_owned(),
            None
        )
    );
    let (suite, _, error) = &cases[10];
    assert_eq!(suite, "invalid");
    assert!(error
        .as_deref()
        .unwrap()
        .starts_with("unknown field \"spec.cases[0].expected\""));
    assert_eq!(
        cases.iter().filter(|c| c.2.is_none()).count(),
        5,
        "{cases:?}"
    );
}

#[test]
fn a_test_whose_run_fails_on_its_configuration_is_invalid() {
    let (code, stdout, stderr) = kadmit_test(&["tests/fixtures/ktest/invalid/broken-policy"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.starts_with(
            "error: Test broken [tests/fixtures/ktest/invalid/broken-policy/test.yaml]: \
             the run failed on its input or configuration:\n    The ValidatingAdmissionPolicy \"broken\" is invalid"
        ),
        "{stderr}"
    );
    assert_eq!(stdout, "0 passed, 0 failed\n");
}

#[test]
fn a_test_given_as_configuration_says_what_runs_it() {
    Command::cargo_bin("kadmit")
        .unwrap()
        .current_dir(repo())
        .args([
            "transform",
            "--config",
            "examples/admission-policies/tests/policies.test.yaml",
        ])
        .write_stdin(std::fs::read(repo().join("examples/admission-policies/app.yaml")).unwrap())
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "unknown kind kadmit.dev/v1alpha1 Test (kadmit.dev kinds: PolicySet, Settings, Generator, AdmissionModule); a Test is run by `kadmit test`, not given as configuration",
        ));
}

#[test]
fn the_junit_report_may_go_to_stderr() {
    let (code, stdout, stderr) = kadmit_test(&["examples/kubemod/tests", "--report", "-"]);
    assert_eq!(code, 0);
    assert!(stdout.ends_with("6 passed, 0 failed\n"));
    let cases = read_junit(&stderr);
    assert_eq!(cases.len(), 6);
    assert!(cases
        .iter()
        .all(|(suite, _, failure)| suite == "kubemod" && failure.is_none()));
}
