//! `kadmit diff`'s output: for each resource admission changed, a unified diff of the
//! resource as read against the resource as admitted, both written as kadmit writes YAML
//! (so only real changes show, never formatting), each hunk header naming the rules whose
//! changes fall in it; each resource's rejections and warnings in place; then one summary
//! line. The diff algorithm is the `similar` crate's.

use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::pipeline::{Change, Operation};
use crate::core::resource::Origin;
use crate::core::update::without_server_fields;
use crate::run::Admitted;
use kadmit_jsonpatch::pointer::escape;
use kadmit_yaml::emit::{write_document, write_entry};
use serde_json::{Map, Value};
use similar::{ChangeTag, TextDiff};
use std::fmt::Write as _;

/// Lines of context around each change, as `diff -u`.
const CONTEXT: usize = 3;

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// The whole output: every resource in input order, then the summary line.
/// `diagnostics`: the run's, which each [`Admitted`] indexes into.
///
/// With `--old` (some resource has an old object), each resource is shown against what
/// the cluster holds (docs/update.md): an UPDATE against its old object without the
/// fields the server populates, a CREATE in full, a DELETE as one line; the headers name
/// the operation. Otherwise each resource is shown against itself as read, so only what
/// the rules changed shows.
pub fn render(admitted: &[Admitted], diagnostics: &[Diagnostic], color: bool) -> String {
    let mut out = Out {
        text: String::new(),
        color,
    };
    let against_old = admitted.iter().any(|a| a.old.is_some());
    let mut count = Counts::default();
    let mut rules: Vec<&str> = Vec::new();
    for resource in admitted {
        *count
            .operations
            .entry(resource.operation.as_str())
            .or_default() += 1;
        match (&resource.after, resource.operation) {
            (_, Operation::Delete) if against_old => write_deletion(&mut out, resource),
            (None, _) => count.rejected += 1,
            (Some(after), _) => {
                if *after != resource.before {
                    count.changed += 1;
                    for change in &resource.changes {
                        if !rules.contains(&change.rule.as_str()) {
                            rules.push(&change.rule);
                        }
                    }
                }
                let base = base_of(resource, against_old);
                if *after != base {
                    write_resource_diff(&mut out, resource, &base, after);
                }
            }
        }
        for diagnostic in &diagnostics[resource.diagnostics.clone()] {
            write_diagnostic(&mut out, resource, diagnostic);
        }
    }
    out.text
        .push_str(&summary(admitted.len(), &count, rules.len()));
    out.text
}

/// What the summary line counts.
#[derive(Default)]
struct Counts {
    changed: usize,
    rejected: usize,
    /// Resources per operation, by name (CREATE, UPDATE, DELETE, CONNECT).
    operations: std::collections::BTreeMap<&'static str, usize>,
}

/// What a resource's diff starts from: with `--old`, the old object as a manifest holds
/// it for an UPDATE and nothing for a CREATE; otherwise the resource as read.
fn base_of(resource: &Admitted, against_old: bool) -> Value {
    match (&resource.old, resource.operation) {
        (Some(old), Operation::Update) => without_server_fields(old),
        (None, Operation::Create) if against_old => Value::Null,
        _ => resource.before.clone(),
    }
}

/// A DELETE: the old object the stream no longer has.
fn write_deletion(out: &mut Out, resource: &Admitted) {
    out.line(
        BOLD,
        &format!(
            "DELETE {} ({}): in --old, not in the stream",
            resource.id,
            origin_text(&resource.origin)
        ),
    );
}

/// Where a resource was read, without nested parentheses: `stdin, document 2, line 14`,
/// or with the file the document declares `base/app.yaml; via stdin, document 2`.
fn origin_text(origin: &Origin) -> String {
    match &origin.declared {
        None => origin.position().to_string(),
        Some(declared) => {
            let mut text = declared.file.clone();
            if let Some(index) = declared.index {
                let _ = write!(text, ", document {}", index + 1);
            }
            let _ = write!(text, "; via {}", origin.position());
            text
        }
    }
}

/// `3 of 120 resources changed by 4 rules; 1 rejected`; when the run has other
/// operations than CREATE, how many of each: `; 1 CREATE, 118 UPDATE, 1 DELETE`.
fn summary(total: usize, count: &Counts, rules: usize) -> String {
    let mut line = format!("{} of {total} {}", count.changed, plural(total, "resource"));
    line += " changed";
    if count.changed > 0 {
        let _ = write!(line, " by {rules} {}", plural(rules, "rule"));
    }
    if count.rejected > 0 {
        let _ = write!(line, "; {} rejected", count.rejected);
    }
    if count.operations.keys().any(|op| *op != "CREATE") {
        let per_operation: Vec<String> = ["CREATE", "UPDATE", "DELETE", "CONNECT"]
            .iter()
            .filter_map(|op| count.operations.get(op).map(|n| format!("{n} {op}")))
            .collect();
        let _ = write!(line, "; {}", per_operation.join(", "));
    }
    line.push('\n');
    line
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// The text being written, and whether it is coloured.
struct Out {
    text: String,
    color: bool,
}

impl Out {
    /// One line, wrapped in `style` when colouring.
    fn line(&mut self, style: &str, line: &str) {
        if self.color && !style.is_empty() {
            self.text.push_str(style);
            self.text.push_str(line);
            self.text.push_str(RESET);
        } else {
            self.text.push_str(line);
        }
        self.text.push('\n');
    }
}

/// A rejection or warning of `resource`, in place; it names the resource even when the
/// engine that reported it did not.
fn write_diagnostic(out: &mut Out, resource: &Admitted, diagnostic: &Diagnostic) {
    let mut shown = diagnostic.clone();
    if shown.resource.is_none() {
        shown.resource = Some(Box::new(resource.id.clone()));
    }
    let style = match shown.severity {
        Severity::Error => RED,
        _ => "",
    };
    out.line(style, &shown.to_string());
}

/// The file headers and the hunks of one changed resource, from `base`.
fn write_resource_diff(out: &mut Out, resource: &Admitted, base: &Value, after: &Value) {
    let mut old = String::new();
    if !base.is_null() {
        write_document(&mut old, base);
    }
    let mut new = String::new();
    write_document(&mut new, after);
    let old_paths = line_paths(base);
    let new_paths = line_paths(after);

    let origin = origin_text(&resource.origin);
    let (from, to) = match (&resource.old, resource.operation) {
        (Some(_), Operation::Update) => ("--old".to_owned(), format!("UPDATE, admitted; {origin}")),
        (None, Operation::Create) if base.is_null() => (
            "not in --old".to_owned(),
            format!("CREATE, admitted; {origin}"),
        ),
        (_, Operation::Create) => (origin, "admitted".to_owned()),
        (_, operation) => (origin, format!("{}, admitted", operation.as_str())),
    };
    out.line(BOLD, &format!("--- {} ({from})", resource.id));
    out.line(BOLD, &format!("+++ {} ({to})", resource.id));
    let diff = TextDiff::from_lines(&old, &new);
    for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
        let mut touched: Vec<&str> = Vec::new();
        for change in hunk.iter_changes() {
            let path = match change.tag() {
                ChangeTag::Delete => change.old_index().and_then(|i| old_paths.get(i)),
                ChangeTag::Insert => change.new_index().and_then(|i| new_paths.get(i)),
                ChangeTag::Equal => None,
            };
            if let Some(path) = path {
                touched.push(path);
            }
        }
        let named = rules_in(&resource.changes, &touched, &resource.before, after);
        let mut header = hunk.header().to_string();
        if !named.is_empty() {
            header.push(' ');
            header.push_str(&named.join(", "));
        }
        out.line(CYAN, &header);
        for change in hunk.iter_changes() {
            let (sign, style) = match change.tag() {
                ChangeTag::Delete => ('-', RED),
                ChangeTag::Insert => ('+', GREEN),
                ChangeTag::Equal => (' ', ""),
            };
            let text = change.value();
            let mut line = String::with_capacity(text.len() + 1);
            line.push(sign);
            line.push_str(text.strip_suffix('\n').unwrap_or(text));
            out.line(style, &line);
        }
    }
}

/// The rules, in the order they ran, with a change whose path is one of `touched` (the
/// paths of the hunk's changed lines), inside one, or holding one. A change path may index
/// arrays from the end (KubeMod's `-1`, JSON Patch's `-`): it is read against the
/// resource before and after, where those indexes name a real element.
fn rules_in<'a>(
    changes: &'a [Change],
    touched: &[&str],
    before: &Value,
    after: &Value,
) -> Vec<&'a str> {
    let mut rules: Vec<&str> = Vec::new();
    for change in changes {
        let candidates = [resolve(&change.path, before), resolve(&change.path, after)];
        let falls_in = touched.iter().any(|line| {
            overlaps(&change.path, line) || candidates.iter().any(|c| overlaps(c, line))
        });
        if falls_in && !rules.contains(&change.rule.as_str()) {
            rules.push(&change.rule);
        }
    }
    rules
}

/// `path` with each array index counted from the end (`-`, `-1`: the last element) made
/// the element's own index in `value`, as far as `value` has the path.
fn resolve(path: &str, value: &Value) -> String {
    let mut resolved = String::with_capacity(path.len());
    let mut node = Some(value);
    for token in path.split('/').skip(1) {
        resolved.push('/');
        let here = node.take();
        match here {
            Some(Value::Array(items)) => {
                let index = match token {
                    "-" => items.len().checked_sub(1),
                    _ => match token.parse::<i64>() {
                        Ok(i) if i < 0 => usize::try_from(-i)
                            .ok()
                            .and_then(|back| items.len().checked_sub(back)),
                        Ok(i) => usize::try_from(i).ok(),
                        Err(_) => None,
                    },
                };
                match index {
                    Some(i) => {
                        let _ = write!(resolved, "{i}");
                        node = items.get(i);
                    }
                    None => resolved.push_str(token),
                }
            }
            Some(Value::Object(map)) => {
                resolved.push_str(token);
                node = map.get(kadmit_jsonpatch::pointer::unescape(token).as_ref());
            }
            _ => resolved.push_str(token),
        }
    }
    resolved
}

/// Whether one JSON Pointer is the other or lies under it.
fn overlaps(a: &str, b: &str) -> bool {
    fn under(inner: &str, outer: &str) -> bool {
        inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }
    under(a, b) || under(b, a)
}

/// The JSON Pointer each line of `write_document(value)` belongs to: the deepest value the
/// line writes (a key line belongs to its entry; `- ` shares its line with the item's first
/// entry, and belongs to that entry).
fn line_paths(value: &Value) -> Vec<String> {
    let mut paths = Vec::new();
    match value {
        Value::Object(map) if !map.is_empty() => mapping_paths(map, "", 0, &mut paths),
        Value::Array(items) if !items.is_empty() => sequence_paths(items, "", 0, &mut paths),
        _ => paths.push(String::new()),
    }
    paths
}

/// How many lines the writer takes for `key: value` at column `level`.
fn entry_lines(key: &str, value: &Value, level: usize) -> usize {
    let mut text = String::new();
    write_entry(&mut text, key, value, level);
    text.lines().count()
}

/// Mirrors the writer's block mapping at column `level`.
fn mapping_paths(map: &Map<String, Value>, path: &str, level: usize, paths: &mut Vec<String>) {
    for (key, value) in map {
        let inner = format!("{path}/{}", escape(key));
        match value {
            Value::Object(m) if !m.is_empty() => {
                let key_lines = entry_lines(key, &Value::Null, level);
                paths.extend(std::iter::repeat_n(inner.clone(), key_lines));
                mapping_paths(m, &inner, level + 2, paths);
            }
            Value::Array(items) if !items.is_empty() => {
                let key_lines = entry_lines(key, &Value::Null, level);
                paths.extend(std::iter::repeat_n(inner.clone(), key_lines));
                sequence_paths(items, &inner, level, paths);
            }
            scalar => {
                let lines = entry_lines(key, scalar, level);
                paths.extend(std::iter::repeat_n(inner, lines));
            }
        }
    }
}

/// Mirrors the writer's block sequence at column `level` (items `- ` at that column).
fn sequence_paths(items: &[Value], path: &str, level: usize, paths: &mut Vec<String>) {
    for (i, item) in items.iter().enumerate() {
        let inner = format!("{path}/{i}");
        match item {
            Value::Object(m) if !m.is_empty() => mapping_paths(m, &inner, level + 2, paths),
            Value::Array(nested) if !nested.is_empty() => {
                sequence_paths(nested, &inner, level + 2, paths)
            }
            // A scalar item takes the lines the same scalar takes after a short key.
            scalar => {
                let lines = entry_lines("k", scalar, level);
                paths.extend(std::iter::repeat_n(inner, lines));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::resource::{Identity, Origin};
    use serde_json::json;

    fn admitted(before: Value, after: Option<Value>, changes: &[(&str, &str)]) -> Admitted {
        Admitted {
            id: Identity::of(&before).unwrap(),
            origin: Origin {
                source: "stdin".into(),
                index: 0,
                line: 1,
                list_item: None,
                declared: None,
            },
            operation: Operation::Create,
            old: None,
            before,
            after,
            changes: changes
                .iter()
                .map(|(path, rule)| Change {
                    path: (*path).to_owned(),
                    rule: (*rule).to_owned(),
                })
                .collect(),
            diagnostics: 0..0,
        }
    }

    #[test]
    fn every_written_line_has_a_path() {
        let long_key = "k".repeat(400);
        let value = json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "x", "labels": {}, "annotations": {"a": "b"}},
            "data": {"script": "line one\nline two\n", "yes": "on", long_key.clone(): "v"},
            "list": [1, "two\nlines\n", {"a": {"b": [[1, 2], []]}, "c": null}, [{"d": 1}]],
        });
        let mut text = String::new();
        write_document(&mut text, &value);
        let paths = line_paths(&value);
        assert_eq!(paths.len(), text.lines().count(), "{text}");
        let line_of = |path: &str| paths.iter().position(|p| p == path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[line_of("/data/script")], "  script: |");
        assert_eq!(lines[line_of("/list/2/a/b/0/1")], "      - 2");
        assert_eq!(lines[line_of("/list/3/0/d")], "- - d: 1");
        assert_eq!(lines[line_of("/metadata/labels")], "  labels: {}");
        assert_eq!(paths[paths.len() - 1], "/list/3/0/d");
        assert!(paths.contains(&format!("/data/{long_key}")));
        assert_eq!(line_paths(&json!("scalar")), vec![String::new()]);
    }

    #[test]
    fn hunks_name_the_rules_whose_changes_fall_in_them() {
        let before = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x", "namespace": "shop"},
            "data": {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7", "h": "8"}});
        let mut after = before.clone();
        after["metadata"]["labels"] = json!({"team": "a"});
        after["data"]["h"] = json!("9");
        let resource = admitted(
            before,
            Some(after),
            &[
                ("/metadata/labels", "ModRule label"),
                ("/data/h", "ModRule nine"),
            ],
        );
        let text = render(&[resource], &[], false);
        assert_eq!(
            text,
            "--- ConfigMap shop/x (stdin, document 1, line 1)\n\
             +++ ConfigMap shop/x (admitted)\n\
             @@ -3,6 +3,8 @@ ModRule label\n \
             metadata:\n   \
             name: x\n   \
             namespace: shop\n\
             +  labels:\n\
             +    team: a\n \
             data:\n   \
             a: \"1\"\n   \
             b: \"2\"\n\
             @@ -11,4 +13,4 @@ ModRule nine\n   \
             e: \"5\"\n   \
             f: \"6\"\n   \
             g: \"7\"\n\
             -  h: \"8\"\n\
             +  h: \"9\"\n\
             1 of 1 resource changed by 2 rules\n"
        );
    }

    #[test]
    fn colours_wrap_whole_lines() {
        let before = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
        let mut after = before.clone();
        after["data"] = json!({"k": "v"});
        let text = render(
            &[admitted(before, Some(after), &[("/data", "ModRule d")])],
            &[],
            true,
        );
        assert!(text.starts_with("\x1b[1m--- ConfigMap x (stdin, document 1, line 1)\x1b[0m\n"));
        assert!(text.contains("\n\x1b[36m@@ -2,3 +2,5 @@ ModRule d\x1b[0m\n"));
        assert!(text.contains("\n\x1b[32m+data:\x1b[0m\n\x1b[32m+  k: v\x1b[0m\n"));
        assert!(
            text.contains("\n   name: x\n"),
            "context lines stay plain: {text}"
        );
        assert!(text.ends_with("\n1 of 1 resource changed by 1 rule\n"));
    }

    fn counts(changed: usize, rejected: usize, operations: &[(&'static str, usize)]) -> Counts {
        Counts {
            changed,
            rejected,
            operations: operations.iter().copied().collect(),
        }
    }

    #[test]
    fn summary_counts() {
        let creates = |n| counts(3, 1, &[("CREATE", n)]);
        assert_eq!(
            summary(120, &creates(120), 4),
            "3 of 120 resources changed by 4 rules; 1 rejected\n"
        );
        assert_eq!(
            summary(2, &counts(0, 0, &[("CREATE", 2)]), 0),
            "0 of 2 resources changed\n"
        );
        let mixed = counts(1, 0, &[("DELETE", 1), ("UPDATE", 2), ("CREATE", 1)]);
        assert_eq!(
            summary(4, &mixed, 1),
            "1 of 4 resources changed by 1 rule; 1 CREATE, 2 UPDATE, 1 DELETE\n"
        );
    }

    #[test]
    fn an_update_is_shown_against_its_old_object_and_a_delete_in_one_line() {
        let old = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "uid": "u", "resourceVersion": "3"}, "data": {"k": "old"}});
        let new = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a"}, "data": {"k": "new"}});
        let mut update = admitted(new.clone(), Some(new), &[]);
        update.operation = Operation::Update;
        update.old = Some(std::sync::Arc::new(old.clone()));
        let mut delete = admitted(old.clone(), None, &[]);
        delete.operation = Operation::Delete;
        delete.before = Value::Null;
        delete.old = Some(std::sync::Arc::new(old));
        let text = render(&[update, delete], &[], false);
        assert!(text.starts_with("--- ConfigMap a (--old)\n+++ ConfigMap a (UPDATE, admitted; stdin, document 1, line 1)\n"), "{text}");
        assert!(text.contains("-  k: old\n+  k: new\n"), "{text}");
        assert!(
            !text.contains("uid"),
            "server fields are not reviewed: {text}"
        );
        assert!(
            text.contains(
                "DELETE ConfigMap a (stdin, document 1, line 1): in --old, not in the stream\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("0 of 2 resources changed; 1 UPDATE, 1 DELETE\n"),
            "{text}"
        );
    }

    #[test]
    fn a_declared_origin_does_not_nest_parentheses() {
        let mut origin = admitted(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}),
            None,
            &[],
        )
        .origin;
        origin.declared = Some(std::sync::Arc::new(crate::core::resource::Declared {
            file: "base/app.yaml".into(),
            index: None,
        }));
        assert_eq!(
            origin_text(&origin),
            "base/app.yaml; via stdin, document 1, line 1"
        );
    }

    #[test]
    fn indexes_from_the_end_name_real_elements() {
        let value = json!({"spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
        assert_eq!(resolve("/spec/containers/-1", &value), "/spec/containers/1");
        assert_eq!(resolve("/spec/containers/-", &value), "/spec/containers/1");
        assert_eq!(
            resolve("/spec/containers/-2/name", &value),
            "/spec/containers/0/name"
        );
        assert_eq!(
            resolve("/spec/containers/-3", &value),
            "/spec/containers/-3"
        );
        assert_eq!(resolve("/spec/x/-1", &value), "/spec/x/-1");
        assert_eq!(resolve("", &value), "");
    }

    #[test]
    fn pointers_overlap_only_at_segment_boundaries() {
        assert!(overlaps("/metadata/labels", "/metadata/labels/app"));
        assert!(overlaps("/spec/a", "/spec"));
        assert!(overlaps("/spec", "/spec"));
        assert!(!overlaps("/spec/ab", "/spec/a"));
    }
}
