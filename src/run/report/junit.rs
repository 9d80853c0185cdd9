//! `--report-format junit`: JUnit XML for CI test reports. One `<testsuite name="kadmit">`
//! holds a `<testcase>` per resource and rule that changed, rejected or warned about it
//! (`classname` the resource, `name` the rule), an `admission` test case per resource with
//! no finding, and one test case per input or configuration problem (an `<error>`). A
//! rejection is a `<failure>`.
//!
//! Written by hand rather than with an XML crate: the document is flat, and the one thing
//! that must be right, escaping, is [`text`] and [`attribute`] below (with characters XML
//! 1.0 cannot hold replaced), which the tests parse back with an XML reader.

use super::{message, rule_id, Findings, ADMISSION};
use crate::core::diagnostic::{Category, Diagnostic, Severity};
use std::fmt::Write;
use std::io;

/// The `classname` of test cases about the run rather than one resource.
const RUN: &str = "kadmit";

struct Case {
    classname: String,
    name: String,
    file: Option<String>,
    line: usize,
    /// `<failure>` or `<error>`, with its message and body.
    problem: Option<(&'static str, String, String)>,
    out: Vec<String>,
}

/// Writes the report. Its totals come first, so the test cases are made twice, counted
/// then written, rather than held: a stream of many resources has as many cases.
pub(super) fn write(findings: &Findings, out: &mut dyn io::Write) -> io::Result<()> {
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for case in cases(findings) {
        tests += 1;
        match case.problem.as_ref().map(|p| p.0) {
            Some("failure") => failures += 1,
            Some("error") => errors += 1,
            _ => {}
        }
    }
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let totals = format!("tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\"");
    let _ = writeln!(xml, "<testsuites name=\"kadmit\" {totals}>");
    let _ = writeln!(xml, "  <testsuite name=\"kadmit\" {totals} skipped=\"0\">");
    out.write_all(xml.as_bytes())?;
    for case in cases(findings) {
        xml.clear();
        write_case(&mut xml, &case);
        out.write_all(xml.as_bytes())?;
    }
    out.write_all(b"  </testsuite>\n</testsuites>\n")
}

/// The test cases, made one at a time: one per resource and rule, one per problem of the
/// run, and an `admission` case when there is nothing else.
fn cases<'f>(findings: &'f Findings) -> impl Iterator<Item = Case> + 'f {
    let evaluated = findings.resources.iter().flat_map(|resource| {
        let origin = &resource.subject.origin;
        let made: Vec<Case> = resource
            .evaluations()
            .into_iter()
            .map(|evaluation| {
                let mut out: Vec<String> = evaluation
                    .changes
                    .iter()
                    .map(|c| format!("changed {}", c.path))
                    .collect();
                let mut problem = None;
                for d in &evaluation.diagnostics {
                    if d.severity == Severity::Error && problem.is_none() {
                        problem = Some(problem_of(d));
                    } else {
                        out.push(d.to_string());
                    }
                }
                Case {
                    classname: resource.name(),
                    name: evaluation.rule,
                    file: Some(origin.file().to_owned()),
                    line: origin.file_line(),
                    problem,
                    out,
                }
            })
            .collect();
        made
    });
    let run = findings
        .run
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .map(|d| {
            let problem = (d.severity == Severity::Error).then(|| problem_of(d));
            let out = if problem.is_none() {
                vec![d.to_string()]
            } else {
                Vec::new()
            };
            Case {
                classname: RUN.into(),
                name: rule_id(d),
                file: d.origin.as_deref().map(|o| o.file().to_owned()),
                line: d.origin.as_deref().map_or(0, |o| o.file_line()),
                problem,
                out,
            }
        });
    let mut cases = evaluated.chain(run).peekable();
    let nothing = cases.peek().is_none().then(|| Case {
        classname: RUN.into(),
        name: ADMISSION.into(),
        file: None,
        line: 0,
        problem: None,
        out: Vec::new(),
    });
    cases.chain(nothing)
}

/// One `<testcase>`, appended to `xml`.
fn write_case(xml: &mut String, case: &Case) {
    let _ = write!(
        xml,
        "    <testcase classname=\"{}\" name=\"{}\"",
        attribute(&case.classname),
        attribute(&case.name)
    );
    if let Some(file) = &case.file {
        let _ = write!(xml, " file=\"{}\"", attribute(file));
        if case.line > 0 {
            let _ = write!(xml, " line=\"{}\"", case.line);
        }
    }
    if case.problem.is_none() && case.out.is_empty() {
        xml.push_str("/>\n");
        return;
    }
    xml.push_str(">\n");
    if let Some((kind, message, body)) = &case.problem {
        let _ = writeln!(
            xml,
            "      <{kind} message=\"{}\" type=\"{}\">{}</{kind}>",
            attribute(message),
            if *kind == "failure" {
                "rejected"
            } else {
                "invalid"
            },
            text(body)
        );
    }
    if !case.out.is_empty() {
        let _ = writeln!(
            xml,
            "      <system-out>{}</system-out>",
            text(&case.out.join("\n"))
        );
    }
    xml.push_str("    </testcase>\n");
}
/// A rejection is a failure of the test; input and configuration problems are errors
/// (the test could not run). The body is the whole diagnostic as stderr shows it.
fn problem_of(d: &Diagnostic) -> (&'static str, String, String) {
    let kind = match d.category {
        Category::Resource => "failure",
        Category::Input | Category::Config => "error",
    };
    (kind, message(d), d.to_string())
}

/// Character data: `&`, `<`, `>` escaped.
pub(crate) fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        push_text_char(&mut out, c);
    }
    out
}

/// An attribute value in double quotes: also `"`, `'`, and white space other than the
/// space as character references (a parser would normalize them to spaces).
pub(crate) fn attribute(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => push_text_char(&mut out, c),
        }
    }
    out
}

/// One character of character data, escaped.
fn push_text_char(out: &mut String, c: char) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        c => out.push(xml_char(c)),
    }
}

/// XML 1.0 holds no control characters but tab, line feed and carriage return, and no
/// U+FFFE/U+FFFF: those become U+FFFD.
fn xml_char(c: char) -> char {
    match c {
        '\t' | '\n' | '\r' => c,
        c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
        c => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_quotes_and_control_characters() {
        assert_eq!(text("a<b>&c\u{1}"), "a&lt;b&gt;&amp;c\u{FFFD}");
        assert_eq!(attribute("\"x'\ny"), "&quot;x&apos;&#10;y");
    }
}
