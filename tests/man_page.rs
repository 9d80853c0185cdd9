//! `kadmit man`: the manual pages generated from the clap definitions render as man pages
//! (through groff, the formatter man(1) uses; skipped loudly without it, a failure under
//! `CI=true`) and name every subcommand.

mod common;

use common::{kadmit_isolated, require_tool, run};
use std::process::Command;

/// Every subcommand kadmit has (`help` has no page).
const SUBCOMMANDS: &[&str] = &[
    "transform",
    "generate",
    "diff",
    "test",
    "version",
    "man",
    "completion",
    "install-plugins",
    "module",
];

#[test]
fn the_page_renders_and_names_every_subcommand() {
    let out = kadmit_isolated().arg("man").assert().success();
    let roff = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(roff.contains(".TH kadmit 1 "), "{roff}");
    if !require_tool("groff") {
        return;
    }
    let rendered = run(
        Command::new("groff").args(["-man", "-Tutf8", "-P", "-cbou", "-Wall"]),
        Some(roff.as_bytes()),
    )
    .expect_success();
    assert_eq!(rendered.stderr, "", "groff warned");
    let text = rendered.stdout;
    for section in [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "OPTIONS",
        "SUBCOMMANDS",
        "VERSION",
    ] {
        assert!(text.contains(section), "no {section} in:\n{text}");
    }
    for sub in SUBCOMMANDS {
        // groff writes roff's `\-` as an ASCII hyphen-minus under -Tutf8.
        let named = format!("kadmit-{sub}(1)");
        assert!(text.contains(&named), "{named} is not in:\n{text}");
    }
    assert!(
        text.contains("Exit codes:"),
        "the after-help is kept:\n{text}"
    );
}

#[test]
fn a_subcommand_page_and_all_pages_at_once() {
    let out = kadmit_isolated()
        .args(["man", "transform"])
        .assert()
        .success();
    let page = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(page.contains(".TH kadmit-transform 1 "), "{page}");
    assert!(page.contains("\\-\\-report\\-format"), "{page}");
    kadmit_isolated()
        .args(["man", "frobnicate"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "error: no manual page for `kadmit frobnicate`: kadmit has the subcommands transform, generate, diff, test, version, man, completion, install-plugins, module",
        ));

    let dir = tempfile::tempdir().unwrap();
    kadmit_isolated()
        .args(["man", "--out-dir"])
        .arg(dir.path().join("man1"))
        .assert()
        .success()
        .stderr(predicates::str::contains("wrote 11 manual pages to "));
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("man1"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = SUBCOMMANDS
        .iter()
        .map(|s| format!("kadmit-{s}.1"))
        .chain(["kadmit.1".to_owned(), "kadmit-module-run.1".to_owned()])
        .collect();
    expected.sort();
    assert_eq!(names, expected);
}
