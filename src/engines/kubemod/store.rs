//! The rule store: which rules apply to a resource (namespace scope, cluster rules and
//! `targetNamespaceRegex`, admission operation), in which order (tiers, lowest first;
//! within a tier cluster rules, then by namespace and name), and what they do together.

use super::matching::item_outcome;
use super::patching::calculate_patch;
use super::rule::{ModRule, RuleType};
use super::select::Outcome;
use kadmit_jsonpatch::patch::{self, Op};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// `rule.label()` of each rule, formatted once for the change record.
    labels: Vec<String>,
    /// Indexes into `rules` of the Patch rules, then of the Reject rules, each by tier,
    /// lowest first and in store order within a tier: a stage visits its own rules only.
    patch_by_tier: Vec<usize>,
    reject_by_tier: Vec<usize>,
    /// For each rule, for each match item, which of the store's distinct selects it
    /// evaluates: items with the same select share one evaluation per document.
    select_ids: Vec<Vec<usize>>,
    distinct_selects: usize,
    cluster_namespace: String,
    /// Whether each rule (by index) matched any object of the run.
    matched: Vec<AtomicBool>,
}

/// The select results on one document, each evaluated when first needed.
struct Evaluations<'d> {
    doc: &'d Value,
    results: Vec<Option<Result<Outcome<'d>, String>>>,
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
        let mut ids = HashMap::new();
        let select_ids = rules
            .iter()
            .map(|rule| {
                rule.matches
                    .iter()
                    .map(|item| {
                        let next = ids.len();
                        *ids.entry(item.select.source()).or_insert(next)
                    })
                    .collect()
            })
            .collect();
        let distinct_selects = ids.len();
        let mut by_tier: Vec<usize> = (0..rules.len()).collect();
        by_tier.sort_by_key(|&i| rules[i].tier);
        let of_type = |rule_type: RuleType| -> Vec<usize> {
            let of_type = |i: &&usize| rules[**i].rule_type == rule_type;
            by_tier.iter().filter(of_type).copied().collect()
        };
        Store {
            matched: rules.iter().map(|_| AtomicBool::default()).collect(),
            labels: rules.iter().map(ModRule::label).collect(),
            patch_by_tier: of_type(RuleType::Patch),
            reject_by_tier: of_type(RuleType::Reject),
            rules,
            select_ids,
            distinct_selects,
            cluster_namespace: cluster_namespace.to_owned(),
        }
    }

    fn evaluations<'d>(&self, doc: &'d Value) -> Evaluations<'d> {
        Evaluations {
            doc,
            results: (0..self.distinct_selects).map(|_| None).collect(),
        }
    }

    /// Whether every match item of rule `index` matches (KubeMod `IsMatch`).
    fn is_match(&self, index: usize, evaluations: &mut Evaluations) -> bool {
        let rule = &self.rules[index];
        let matched = rule
            .matches
            .iter()
            .zip(&self.select_ids[index])
            .all(|(item, &id)| {
                let doc = evaluations.doc;
                let result =
                    evaluations.results[id].get_or_insert_with(|| item.select.evaluate(doc));
                item_outcome(item, result)
            });
        if matched {
            self.matched[index].store(true, Ordering::Relaxed);
        }
        matched
    }

    /// After the run: the labels of the rules of `rule_type` that matched no object.
    pub fn unmatched(&self, rule_type: RuleType) -> Vec<String> {
        self.rules
            .iter()
            .zip(&self.matched)
            .filter(|(rule, matched)| {
                rule.rule_type == rule_type && !matched.load(Ordering::Relaxed)
            })
            .map(|(rule, _)| rule.label())
            .collect()
    }

    /// The change record's name of rule `index` (`ModRule ns/name`).
    fn label(&self, index: usize) -> String {
        self.labels[index].clone()
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

    /// The rules of `rule_type` that apply to the request, as indexes into `rules`, in
    /// tier order.
    fn candidates(&self, rule_type: RuleType, request: &Request) -> Vec<usize> {
        let of_type = match rule_type {
            RuleType::Patch => &self.patch_by_tier,
            RuleType::Reject => &self.reject_by_tier,
        };
        let mut candidates = Vec::with_capacity(of_type.len());
        candidates.extend(
            of_type
                .iter()
                .copied()
                .filter(|&i| self.in_scope(&self.rules[i], request.namespace))
                .filter(|&i| {
                    let operations = &self.rules[i].operations;
                    operations.iter().any(|op| op == request.operation)
                }),
        );
        candidates
    }

    fn same_tier(&self, a: usize, b: usize) -> bool {
        self.rules[a].tier == self.rules[b].tier
    }

    /// Runs the Patch rules tier by tier: each tier matches against the document as it was
    /// when the tier started; each matching rule's patch is computed on the current
    /// document and applied atomically. A rule that fails is skipped and reported.
    pub fn patch(&self, doc: &mut Value, request: &Request) -> PatchReport {
        let mut report = PatchReport::default();
        let candidates = self.candidates(RuleType::Patch, request);
        if candidates.is_empty() {
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
            for tier in candidates.chunk_by(|&a, &b| self.same_tier(a, b)) {
                let view = match_view(&working);
                let mut evaluations = self.evaluations(&view);
                let mut matched = Vec::with_capacity(tier.len());
                matched.extend(
                    tier.iter()
                        .copied()
                        .filter(|&i| self.is_match(i, &mut evaluations)),
                );
                drop(evaluations);
                drop(view);
                for index in matched {
                    any_matched = true;
                    let rule = &self.rules[index];
                    let label = self.label(index);
                    let bound = *levels.get_or_insert_with(|| kadmit_gotmpl::nesting(&working));
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
            if let Some(text) = annotation.and_then(|copy| kadmit_gotmpl::marshal_json(&copy).ok())
            {
                set_annotation(doc, LAST_APPLIED, text);
            }
        }
        report
    }

    /// Every matching Reject rule, tier by tier, as KubeMod words it:
    /// `<ns>/<name>: "<message>"`, or `<ns>/<name>` without a (renderable) message.
    pub fn rejections(&self, doc: &Value, request: &Request) -> Vec<(String, String)> {
        let candidates = self.candidates(RuleType::Reject, request);
        if candidates.is_empty() {
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
        let mut evaluations = self.evaluations(&view);
        let mut out = Vec::new();
        for &i in &candidates {
            let rule = &self.rules[i];
            if !self.is_match(i, &mut evaluations) {
                continue;
            }
            let name = rule.qualified_name();
            let context = json!({ "Namespace": request.namespace, "Target": working });
            let message = match rule.reject_message.as_ref().map(|t| t.execute(&context)) {
                Some(Ok(text)) => format!("{name}: \"{text}\""),
                _ => name,
            };
            out.push((self.label(i), message));
        }
        out
    }
}

/// At most how many levels below the root an op puts anything.
fn added_levels(op: &Op) -> usize {
    match op {
        Op::Add { path, value } | Op::Replace { path, value } => {
            path.matches('/').count() + kadmit_gotmpl::nesting(value)
        }
        Op::Remove { .. } => 0,
    }
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
    let text = crate::core::resource::annotation(doc, LAST_APPLIED)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_support::resource;
    use serde_json::json;

    fn rule(name: &str, tier: i32, matches: Value) -> ModRule {
        let value = json!({
            "apiVersion": "api.kubemod.io/v1beta1",
            "kind": "ModRule",
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {
                "type": "Patch",
                "executionTier": tier,
                "match": matches,
                "patch": [{"op": "add", "path": format!("/metadata/labels/r-{name}"), "value": "x"}]
            }
        });
        super::super::rule::compile(&resource(value, None)).unwrap()
    }

    #[test]
    fn items_sharing_a_select_keep_their_own_criteria() {
        let app = |value: &str, negate: bool| json!({"select": "$.metadata.labels.app", "matchValue": value, "negate": negate});
        let labels = |regex: &str| json!({"select": "$.metadata.labels", "matchRegex": regex});
        let rules = vec![
            rule("app", 0, json!([app("web", false)])),
            rule("not-app", 0, json!([app("web", true)])),
            rule("db", 0, json!([app("db", false)])),
            // Tier 0 matches the document as the tier started; tier 1 sees r-app.
            rule("early", 0, json!([labels("r-app")])),
            rule("late", 1, json!([app("web", false), labels("r-app:x")])),
        ];
        let store = Store::new(rules, "kubemod-system");
        let mut doc =
            json!({"metadata": {"name": "p", "namespace": "ns", "labels": {"app": "web"}}});
        let request = Request {
            namespace: "ns",
            operation: "CREATE",
            synthetic_refs: Map::new(),
        };
        let report = store.patch(&mut doc, &request);
        let applied: Vec<&str> = report.applied.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(applied, ["ModRule ns/app", "ModRule ns/late"]);
        assert_eq!(
            doc["metadata"]["labels"],
            json!({"app": "web", "r-app": "x", "r-late": "x"})
        );
    }
}
