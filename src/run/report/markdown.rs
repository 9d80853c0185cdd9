//! `--report-format markdown`: a summary a bot can post on a pull request (GitHub-flavoured
//! Markdown): the outcome, the counts, the rejections and errors, the warnings, and per
//! changed resource a collapsed list of the changed paths with the rule of each.

use super::{location, message, Findings};
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::run::Outcome;
use std::fmt::Write;

pub(super) fn render(outcome: &Outcome, findings: &Findings) -> String {
    let mut out = String::new();
    let (mark, verdict) = match outcome.exit_code {
        0 => ("✅", "admitted"),
        1 => ("❌", "rejected"),
        2 => ("❌", "bad input or configuration"),
        _ => ("❌", "not supported"),
    };
    let _ = writeln!(
        out,
        "## {mark} kadmit: {verdict} (exit code {})\n",
        outcome.exit_code
    );
    let resources = findings.resources.len();
    let rejected = findings.resources.iter().filter(|r| r.rejected()).count();
    let changed = findings
        .resources
        .iter()
        .filter(|r| !r.changes.is_empty())
        .count();
    out.push_str("| Resources | Admitted | Changed | Rejected | Warnings |\n");
    out.push_str("| ---: | ---: | ---: | ---: | ---: |\n");
    let _ = writeln!(
        out,
        "| {resources} | {} | {changed} | {rejected} | {} |",
        resources - rejected,
        findings.count(Severity::Warning)
    );
    if let Some(counts) = super::operation_counts(findings) {
        let _ = writeln!(out, "\nOperations: {counts}.");
    }
    if outcome.exit_code != 0 {
        out.push_str("\nNothing was written to the output: every resource must be admitted.\n");
    }

    let table = |severity: Severity| -> Vec<Row> {
        let of_resources = findings
            .resources
            .iter()
            .flat_map(|r| r.diagnostics.iter().map(move |d| (Some(r.name()), *d)));
        let of_run = findings.run.iter().map(|d| (None, *d));
        of_resources
            .chain(of_run)
            .filter(|(_, d)| d.severity == severity)
            .map(|(resource, d)| Row::of(resource, d))
            .collect()
    };
    write_table(&mut out, "Rejections and errors", &table(Severity::Error));
    write_table(&mut out, "Warnings", &table(Severity::Warning));
    write_table(&mut out, "Notes", &table(Severity::Info));

    let changed: Vec<_> = findings
        .resources
        .iter()
        .filter(|r| !r.changes.is_empty())
        .collect();
    if !changed.is_empty() {
        out.push_str("\n### Changes\n");
        for resource in changed {
            let count = resource.changes.len();
            let _ = write!(
                out,
                "\n<details>\n<summary>{}: {count} change{} ({})</summary>\n\n",
                html(&resource.name()),
                if count == 1 { "" } else { "s" },
                html(&resource.changing_rules().join(", "))
            );
            out.push_str("| Path | Rule |\n| --- | --- |\n");
            for change in &resource.changes {
                let _ = writeln!(out, "| {} | {} |", code(&change.path), cell(&change.rule));
            }
            out.push_str("\n</details>\n");
        }
    }
    out
}

struct Row {
    resource: String,
    rule: String,
    message: String,
    location: String,
}

impl Row {
    fn of(resource: Option<String>, d: &Diagnostic) -> Row {
        Row {
            resource: resource.map_or_else(|| "—".to_owned(), |r| cell(&r)),
            rule: d.rule.as_deref().map_or_else(|| "—".to_owned(), cell),
            message: cell(&message(d)),
            location: d
                .origin
                .as_deref()
                .map_or_else(|| "—".to_owned(), |o| code(&location(o))),
        }
    }
}

fn write_table(out: &mut String, title: &str, rows: &[Row]) {
    if rows.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "\n### {title}\n\n| Resource | Rule | Message | Location |\n| --- | --- | --- | --- |\n"
    );
    for row in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            row.resource, row.rule, row.message, row.location
        );
    }
}

/// Text for a table cell: HTML-escaped, `|` escaped, line breaks as `<br>`.
fn cell(text: &str) -> String {
    html(text)
        .replace('|', "\\|")
        .replace("\r\n", "<br>")
        .replace(['\n', '\r'], "<br>")
}

/// Text shown as code in a table cell (a path, `file:line`): a code span long enough not
/// to be closed by a backtick inside, `|` escaped (GitHub reads the table before the span),
/// line breaks as spaces (a code span cannot hold one).
fn code(text: &str) -> String {
    let text = text.replace('|', "\\|").replace(['\n', '\r'], " ");
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{text}{fence}")
    } else {
        format!("{fence} {text} {fence}")
    }
}

/// `&`, `<` and `>` as entities, so a message cannot open HTML in the comment.
fn html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(cell("a | b\nc"), "a \\| b<br>c");
        assert_eq!(cell("<script>&"), "&lt;script&gt;&amp;");
        assert_eq!(code("/a|b"), "`/a\\|b`");
        assert_eq!(code("x`y"), "`` x`y ``");
    }
}
