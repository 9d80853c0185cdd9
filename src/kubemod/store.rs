//! The rule store: which rules apply to a resource (namespace scope, cluster rules and
//! `targetNamespaceRegex`, admission operation), in which order (tiers, lowest first;
//! within a tier cluster rules, then by namespace and name), and what they do together.

use super::matching::is_match;
use super::patching::calculate_patch;
use super::rule::{ModRule, RuleType};
use crate::gotmpl;
use crate::patch::{self, Op};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::rc::Rc;

pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What the request looks like to KubeMod.
pub struct Request<'a> {
    /// The resource's namespace; `""` for cluster-scoped resources and Namespaces.
    pub namespace: &'a str,
    /// `CREATE`, `UPDATE`, `DELETE`.
    pub operation: &'a str,
    /// Objects KubeMod injects as `syntheticRefs` for matching and templates (`namespace`,
    /// `node`); never part of the output.
    pub synthetic_refs: Map<String, Value>,
}

/// The outcome of the patch phase for one resource.
#[derive(Debug, Default)]
pub struct PatchReport {
    /// Each applied rule with the ops it applied, in order.
    pub applied: Vec<(String, Vec<Op>)>,
    /// Each rule that matched but could not be applied, with the reason; it changed nothing.
    pub failed: Vec<(String, String)>,
}

pub struct Store {
    rules: Vec<ModRule>,
    cluster_namespace: String,
}

impl Store {
    pub fn new(mut rules: Vec<ModRule>, cluster_namespace: &str) -> Store {
        rules.sort_by(|a, b| {
            let key = |r: &ModRule| {
                (
                    r.namespace.as_deref() != Some(cluster_namespace),
                    r.namespace.clone().unwrap_or_default(),
                    r.name.clone(),
                )
            };
            key(a).cmp(&key(b))
        });
        Store {
            rules,
            cluster_namespace: cluster_namespace.to_owned(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    pub fn has(&self, rule_type: RuleType) -> bool {
        self.rules.iter().any(|r| r.rule_type == rule_type)
    }

    fn in_scope(&self, rule: &ModRule, namespace: &str) -> bool {
        match rule.namespace.as_deref() {
            None => true,
            Some(ns) if ns == self.cluster_namespace => {
                let by_regex = match &rule.target_namespace_regex {
                    None => namespace.is_empty(),
                    Some(re) => re.is_match(namespace),
                };
                by_regex || ns == namespace
            }
            Some(ns) => !namespace.is_empty() && ns == namespace,
        }
    }

    fn candidates<'a>(&'a self, request: &Request) -> Vec<&'a ModRule> {
        self.rules
            .iter()
            .filter(|r| self.in_scope(r, request.namespace))
            .filter(|r| r.operations.iter().any(|op| op == request.operation))
            .collect()
    }

    /// Runs the Patch rules tier by tier: each tier matches against the document as it was
    /// when the tier started; each matching rule's patch is computed on the current
    /// document and applied atomically. A rule that fails is skipped and reported.
    pub fn patch(&self, doc: &mut Value, request: &Request) -> PatchReport {
        let mut report = PatchReport::default();
        let candidates = self.candidates(request);
        if !candidates.iter().any(|r| r.rule_type == RuleType::Patch) {
            return report;
        }
        let mut annotation = last_applied(doc);
        let mut any_matched = false;
        with_synthetic_refs(doc, &request.synthetic_refs, |doc| {
            // Templates read the document while it is shared; it is unshared again when
            // they are done, so `make_mut` below does not copy it.
            let mut working = Rc::new(std::mem::take(doc));
            // At least how deeply the document nests, measured once and then raised by
            // what each patch adds.
            let mut levels = None;
            for tier in tiers(&candidates) {
                let view = match_view(&working);
                let matched: Vec<&&ModRule> = candidates
                    .iter()
                    .filter(|r| r.tier == tier && r.rule_type == RuleType::Patch)
                    .filter(|r| is_match(&r.matches, &view))
                    .collect();
                drop(view);
                for rule in matched {
                    any_matched = true;
                    let label = rule.label();
                    let bound = *levels.get_or_insert_with(|| gotmpl::nesting(&working));
                    let ops = match calculate_patch(rule, &working, bound, request.namespace) {
                        Ok(ops) => ops,
                        Err(e) => {
                            report.failed.push((label, e));
                            continue;
                        }
                    };
                    let target = Rc::make_mut(&mut working);
                    if let Err(e) = patch::apply(target, &ops, patch::Options::kubemod()) {
                        report.failed.push((label, e.to_string()));
                        continue;
                    }
                    levels = Some(ops.iter().map(added_levels).fold(bound, usize::max));
                    if let Some(copy) = annotation.as_mut() {
                        if patch::apply(copy, &ops, patch::Options::kubemod()).is_err() {
                            annotation = None;
                        }
                    }
                    report.applied.push((label, ops));
                }
            }
            *doc = Rc::try_unwrap(working).unwrap_or_else(|shared| (*shared).clone());
        });
        if any_matched {
            if let Some(text) = annotation.and_then(|copy| gotmpl::marshal_json(&copy).ok()) {
                set_annotation(doc, LAST_APPLIED, text);
            }
        }
        report
    }

    /// Every matching Reject rule, tier by tier, as KubeMod words it:
    /// `<ns>/<name>: "<message>"`, or `<ns>/<name>` without a (renderable) message.
    pub fn rejections(&self, doc: &Value, request: &Request) -> Vec<(String, String)> {
        let candidates = self.candidates(request);
        if !candidates.iter().any(|r| r.rule_type == RuleType::Reject) {
            return Vec::new();
        }
        let mut with_refs;
        let working = if request.synthetic_refs.is_empty() {
            doc
        } else {
            with_refs = doc.clone();
            with_refs["syntheticRefs"] = Value::Object(request.synthetic_refs.clone());
            &with_refs
        };
        let view = match_view(working);
        let mut out = Vec::new();
        for tier in tiers(&candidates) {
            for rule in candidates
                .iter()
                .filter(|r| r.tier == tier && r.rule_type == RuleType::Reject)
                .filter(|r| is_match(&r.matches, &view))
            {
                let name = rule.qualified_name();
                let context = json!({ "Namespace": request.namespace, "Target": working });
                let message = match rule.reject_message.as_ref().map(|t| t.execute(&context)) {
                    Some(Ok(text)) => format!("{name}: \"{text}\""),
                    _ => name,
                };
                out.push((rule.label(), message));
            }
        }
        out
    }
}

/// At most how many levels below the root an op puts anything.
fn added_levels(op: &Op) -> usize {
    match op {
        Op::Add { path, value } | Op::Replace { path, value } => {
            path.matches('/').count() + gotmpl::nesting(value)
        }
        Op::Remove { .. } => 0,
    }
}

fn tiers(rules: &[&ModRule]) -> BTreeSet<i32> {
    rules.iter().map(|r| r.tier).collect()
}

/// The document as matching sees it: without `metadata.managedFields` (copied only when
/// there are some to hide).
fn match_view(doc: &Value) -> Cow<'_, Value> {
    let has_managed_fields = doc
        .get("metadata")
        .is_some_and(|m| m.get("managedFields").is_some());
    if !has_managed_fields {
        return Cow::Borrowed(doc);
    }
    let mut view = doc.clone();
    if let Some(Value::Object(metadata)) = view.get_mut("metadata") {
        metadata.shift_remove("managedFields");
    }
    Cow::Owned(view)
}

/// Runs `f` with `syntheticRefs` present in the document, and removes them afterwards.
fn with_synthetic_refs(doc: &mut Value, refs: &Map<String, Value>, f: impl FnOnce(&mut Value)) {
    let inject = !refs.is_empty() && doc.is_object();
    if inject {
        doc["syntheticRefs"] = Value::Object(refs.clone());
    }
    f(doc);
    if inject {
        if let Value::Object(map) = doc {
            map.shift_remove("syntheticRefs");
        }
    }
}

/// The last-applied-configuration as JSON, when the original has it as a JSON object.
fn last_applied(doc: &Value) -> Option<Value> {
    let text = crate::resource::annotation(doc, LAST_APPLIED)?;
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Null) | Err(_) => None,
        Ok(value) => Some(value),
    }
}

fn set_annotation(doc: &mut Value, key: &str, value: String) {
    if let Some(Value::Object(annotations)) = doc.pointer_mut("/metadata/annotations") {
        annotations.insert(key.to_owned(), Value::String(value));
    }
}
