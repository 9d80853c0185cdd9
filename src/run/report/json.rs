//! `--report-format json` (the default): kadmit's own `kadmit.dev/v1alpha1` `Report`,
//! every diagnostic and change as data.
//!
//! Serialised straight from the outcome rather than built as a JSON tree first: a tree
//! costs about 3 KB for each resource's four-line entry, which on a stream of many small
//! documents was many times the input (docs/security.md, "Memory").

use super::location;
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::pipeline::Change;
use crate::core::resource::Identity;
use crate::run::{Outcome, Subject};
use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::json;
use std::io::{self, Write};

pub(super) fn write(outcome: &Outcome, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &Report(outcome))?;
    out.write_all(b"\n")
}

struct Report<'o>(&'o Outcome);

impl<'o> Serialize for Report<'o> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let outcome = self.0;
        let count = |severity| {
            let of = |d: &&Diagnostic| d.severity == severity;
            outcome.diagnostics.iter().filter(of).count()
        };
        let mut report = serializer.serialize_struct("Report", 8)?;
        report.serialize_field("apiVersion", "kadmit.dev/v1alpha1")?;
        report.serialize_field("kind", "Report")?;
        report.serialize_field("exitCode", &outcome.exit_code)?;
        report.serialize_field(
            "diagnostics",
            &Each(&outcome.diagnostics, Diagnostic::to_report),
        )?;
        report.serialize_field("resources", &Each(&outcome.subjects, ResourceEntry))?;
        let changed = |(id, changes): &'o (Identity, Vec<Change>)| ChangesEntry(id, changes);
        report.serialize_field("changes", &Each(&outcome.changes, changed))?;
        let unmatched = |u: &crate::run::Unmatched| json!({"rule": u.rule, "kinds": u.kinds});
        report.serialize_field("unmatchedRules", &Each(&outcome.unmatched, unmatched))?;
        report.serialize_field(
            "summary",
            &json!({"errors": count(Severity::Error), "warnings": count(Severity::Warning)}),
        )?;
        report.end()
    }
}

/// A list written item by item, each item made only as it is written.
struct Each<'o, T, F>(&'o [T], F);

impl<'o, T, F, R> Serialize for Each<'o, T, F>
where
    F: Fn(&'o T) -> R,
    R: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(&self.1))
    }
}

/// `resource`: who a resource is.
struct ResourceRef<'o>(&'o Identity);

impl Serialize for ResourceRef<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let id = self.0;
        let mut resource = serializer.serialize_struct("Resource", 4)?;
        resource.serialize_field("apiVersion", &id.api_version())?;
        resource.serialize_field("kind", &id.kind)?;
        resource.serialize_field("namespace", &id.namespace)?;
        resource.serialize_field("name", &id.name)?;
        resource.end()
    }
}

/// One entry of `resources`: who was admitted, with which operation, from where.
struct ResourceEntry<'o>(&'o Subject);

impl Serialize for ResourceEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let subject = self.0;
        let mut entry = serializer.serialize_struct("ResourceEntry", 3)?;
        entry.serialize_field("resource", &ResourceRef(&subject.id))?;
        entry.serialize_field("operation", subject.operation.as_str())?;
        entry.serialize_field("location", &location(&subject.origin))?;
        entry.end()
    }
}

/// One entry of `changes`: a resource and each path a rule changed in it.
struct ChangesEntry<'o>(&'o Identity, &'o [Change]);

impl Serialize for ChangesEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let change = |c: &Change| json!({"path": c.path, "rule": c.rule});
        let mut entry = serializer.serialize_struct("ChangesEntry", 2)?;
        entry.serialize_field("resource", &ResourceRef(self.0))?;
        entry.serialize_field("changes", &Each(self.1, change))?;
        entry.end()
    }
}
