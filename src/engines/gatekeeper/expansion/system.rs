//! `System.Expand`: expansion through every matching template, recursively, with each
//! resultant mutated before it is expanded in turn.

use super::db::Templates;
use super::resource::{expand_resource, name_of};
use crate::engines::gatekeeper::Gvk;
use serde_json::Value;
use std::cell::Cell;

/// Gatekeeper's safeguard; reachable when mutators turn a resultant back into a generator.
pub const MAX_RECURSION_DEPTH: usize = 30;

/// kadmit's limit on the resultants of one generator. Gatekeeper's graph check only
/// refuses cycles, so k templates per level over the 30 levels of an acyclic graph give
/// k^15 resultants (24 KB of templates, 3^12 resultants: an out-of-memory abort). Real
/// chains give a few (a CronJob gives a Job and a Pod); 1,000 leaves room for wide
/// template sets while keeping one generator's copies in memory bounded.
pub const MAX_RESULTANTS_PER_RESOURCE: usize = 1_000;

/// kadmit's limit on the resultants of all generators of a run, counted on the
/// `Templates` they were expanded with: the per-resource limit times many small
/// generators in one input would still grow with the input a thousandfold. 100,000 is
/// far above a real inventory (50,000 Deployments give 50,000 Pods) and, for small
/// resultants, tens of MB of output.
pub const MAX_RESULTANTS_TOTAL: usize = 100_000;

/// One generated resource, with the template that made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Resultant {
    pub object: Value,
    pub template: String,
    pub enforcement_action: String,
}

/// What mutates a resultant in place: the mutation system, run with the generator's
/// Namespace object, `source` = `Generated` and no admission operation.
pub trait ResultantMutator {
    fn mutate(
        &self,
        object: &mut Value,
        namespace: Option<&Value>,
        source: &str,
    ) -> Result<(), String>;
}

/// Expansion without a mutation system (Gatekeeper's nil `mutationSystem`).
pub struct NoMutation;

impl ResultantMutator for NoMutation {
    fn mutate(&self, _: &mut Value, _: Option<&Value>, _: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Every resultant of `generator`, the deepest first (a CronJob gives its Pod, then its
/// Job). The generator itself is not mutated. `namespace` is its Namespace object.
/// Fails past [`MAX_RESULTANTS_PER_RESOURCE`] resultants, or past
/// [`MAX_RESULTANTS_TOTAL`] with those of earlier calls on the same `templates`.
pub fn expand(
    generator: &Value,
    namespace: Option<&Value>,
    templates: &Templates,
    mutator: &dyn ResultantMutator,
) -> Result<Vec<Resultant>, String> {
    let mut resultants = Vec::new();
    let context = Context {
        namespace,
        templates,
        mutator,
        before: templates.resultants_so_far(),
        made: Cell::new(0),
    };
    context.expand_recursive(generator, &mut resultants, 0)?;
    templates.count_resultants(resultants.len());
    Ok(resultants)
}

struct Context<'a> {
    namespace: Option<&'a Value>,
    templates: &'a Templates,
    mutator: &'a dyn ResultantMutator,
    /// Resultants of earlier generators expanded with `templates`.
    before: usize,
    /// Resultants made for this generator so far.
    made: Cell<usize>,
}

impl Context<'_> {
    fn expand_recursive(
        &self,
        base: &Value,
        resultants: &mut Vec<Resultant>,
        depth: usize,
    ) -> Result<(), String> {
        if depth >= MAX_RECURSION_DEPTH {
            return Err(format!(
                "maximum recursion depth of {MAX_RECURSION_DEPTH} reached"
            ));
        }
        let level = self.expand_once(base)?;
        for resultant in &level {
            self.expand_recursive(&resultant.object, resultants, depth + 1)?;
        }
        resultants.extend(level);
        Ok(())
    }

    fn expand_once(&self, base: &Value) -> Result<Vec<Resultant>, String> {
        let gvk = gvk_of(base);
        if gvk == Gvk::default() {
            return Err(format!(
                "cannot expand resource {} with empty GVK",
                name_of(base)
            ));
        }
        let mut level = Vec::new();
        for template in self.templates.for_gvk(&gvk) {
            self.count_one()?;
            level.push(Resultant {
                object: expand_resource(base, self.namespace, template)?,
                template: template.name.clone(),
                enforcement_action: template.enforcement_action.clone(),
            });
        }
        for resultant in &mut level {
            self.mutator
                .mutate(&mut resultant.object, self.namespace, "Generated")
                .map_err(|e| {
                    format!(
                        "failed to mutate resultant resource {}: {e}",
                        name_of(&resultant.object)
                    )
                })?;
        }
        Ok(level)
    }

    /// Counts a resultant about to be made, refusing it past the limits (checked before
    /// each one is made, so memory stays bounded however wide the template graph is).
    fn count_one(&self) -> Result<(), String> {
        let made = self.made.get() + 1;
        self.made.set(made);
        if made > MAX_RESULTANTS_PER_RESOURCE {
            return Err(format!(
                "expansion produced more than {MAX_RESULTANTS_PER_RESOURCE} resultants \
                 (kadmit's limit per resource)"
            ));
        }
        if self.before + made > MAX_RESULTANTS_TOTAL {
            return Err(format!(
                "expansion produced more than {MAX_RESULTANTS_TOTAL} resultants in total \
                 (kadmit's limit per run)"
            ));
        }
        Ok(())
    }
}

/// `Unstructured.GroupVersionKind()`: an `apiVersion` with more than one `/` does not
/// parse, and then the whole GVK is empty, kind included.
fn gvk_of(object: &Value) -> Gvk {
    let text = |key: &str| object.get(key).and_then(Value::as_str).unwrap_or("");
    let api_version = text("apiVersion");
    let (group, version) = match api_version.split_once('/') {
        _ if api_version == "/" => ("", ""),
        None => ("", api_version),
        Some((_, version)) if version.contains('/') => return Gvk::default(),
        Some(parts) => parts,
    };
    Gvk {
        group: group.into(),
        version: version.into(),
        kind: text("kind").into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::gatekeeper::expansion::{template::GvkSet, Template};
    use serde_json::json;

    fn template(name: &str, from: (&str, &str), to: (&str, &str), source: &str) -> Template {
        let (group, kind) = from;
        Template {
            name: name.into(),
            apply_to: vec![GvkSet {
                groups: vec![group.into()],
                versions: vec!["v1".into()],
                kinds: vec![kind.into()],
            }],
            template_source: source.into(),
            generated: Gvk {
                group: to.0.into(),
                version: "v1".into(),
                kind: to.1.into(),
            },
            enforcement_action: String::new(),
        }
    }

    fn cronjob() -> Value {
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"},
               "spec": {"jobTemplate": {"spec": {"template": {"spec": {}}}}}})
    }

    fn db(templates: Vec<Template>) -> Templates {
        let mut db = Templates::new();
        for t in templates {
            db.upsert(t).unwrap();
        }
        db
    }

    struct Relabel;

    impl ResultantMutator for Relabel {
        fn mutate(
            &self,
            object: &mut Value,
            _: Option<&Value>,
            source: &str,
        ) -> Result<(), String> {
            object["metadata"]["labels"] = json!({"source": source});
            Ok(())
        }
    }

    #[test]
    fn resultants_come_deepest_first_and_are_mutated_before_expanding_further() {
        let templates = db(vec![
            template(
                "jobs",
                ("batch", "CronJob"),
                ("batch", "Job"),
                "spec.jobTemplate",
            ),
            template("pods", ("batch", "Job"), ("", "Pod"), "spec.template"),
        ]);
        let got = expand(&cronjob(), None, &templates, &Relabel).unwrap();
        let names: Vec<&str> = got.iter().map(|r| name_of(&r.object)).collect();
        assert_eq!(names, ["c-job-pod", "c-job"]);
        assert_eq!(got[0].template, "pods");
        assert_eq!(got[0].object["metadata"]["labels"]["source"], "Generated");
        assert_eq!(
            got[0].object["metadata"]["ownerReferences"][0]["name"],
            "c-job"
        );
    }

    struct BackToCronJob;

    impl ResultantMutator for BackToCronJob {
        fn mutate(&self, object: &mut Value, _: Option<&Value>, _: &str) -> Result<(), String> {
            object["kind"] = json!("CronJob");
            object["spec"] = json!({"jobTemplate": {}});
            Ok(())
        }
    }

    #[test]
    fn a_mutator_that_recreates_the_generator_hits_the_depth_limit() {
        let templates = db(vec![template(
            "jobs",
            ("batch", "CronJob"),
            ("batch", "Job"),
            "spec.jobTemplate",
        )]);
        assert_eq!(
            expand(&cronjob(), None, &templates, &BackToCronJob).unwrap_err(),
            "maximum recursion depth of 30 reached"
        );
    }

    struct Failing;

    impl ResultantMutator for Failing {
        fn mutate(&self, _: &mut Value, _: Option<&Value>, _: &str) -> Result<(), String> {
            Err("boom".into())
        }
    }

    #[test]
    fn mutation_errors_name_the_resultant() {
        let templates = db(vec![template(
            "jobs",
            ("batch", "CronJob"),
            ("batch", "Job"),
            "spec.jobTemplate",
        )]);
        assert_eq!(
            expand(&cronjob(), None, &templates, &Failing).unwrap_err(),
            "failed to mutate resultant resource c-job: boom"
        );
    }

    #[test]
    fn an_api_version_with_two_slashes_is_an_empty_gvk() {
        let generator = json!({"apiVersion": "a/b/c", "kind": "X", "metadata": {"name": "n"}});
        assert_eq!(
            expand(&generator, None, &Templates::new(), &NoMutation).unwrap_err(),
            "cannot expand resource n with empty GVK"
        );
        assert_eq!(gvk_of(&json!({"apiVersion": "/", "kind": "X"})).kind, "X");
        assert_eq!(gvk_of(&json!({"apiVersion": "g/", "kind": ""})).group, "g");
    }

    #[test]
    fn a_failing_template_fails_the_whole_level() {
        let templates = db(vec![
            template(
                "a-ok",
                ("batch", "CronJob"),
                ("batch", "Job"),
                "spec.jobTemplate",
            ),
            template(
                "b-missing",
                ("batch", "CronJob"),
                ("", "Pod"),
                "spec.nothing",
            ),
        ]);
        assert!(expand(&cronjob(), None, &templates, &NoMutation)
            .unwrap_err()
            .starts_with("could not find source field"));
    }

    /// `levels` levels of `width` templates each way: `G<i>` to `M<i>_<j>` and back to
    /// `G<i+1>`, all reading `spec.t`, and a `G0` whose `spec.t` nests `levels` deep. The
    /// graph is acyclic, so Gatekeeper's checks pass; the resultants grow as width^levels.
    fn fan(width: usize, levels: usize) -> (Templates, Value) {
        let mut templates = Vec::new();
        for i in 0..levels {
            for j in 0..width {
                let m = format!("M{i}x{j}");
                let g = format!("G{i}");
                let next = format!("G{}", i + 1);
                templates.push(template(
                    &format!("g{i}-m{j}"),
                    ("x", &g),
                    ("x", &m),
                    "spec.t",
                ));
                templates.push(template(
                    &format!("m{i}-{j}-g"),
                    ("x", &m),
                    ("x", &next),
                    "spec.t",
                ));
            }
        }
        let mut object = json!({"metadata": {"labels": {"a": "b"}}});
        for _ in 0..levels * 2 {
            object = json!({"metadata": {"labels": {"a": "b"}}, "spec": {"t": object}});
        }
        object["apiVersion"] = json!("x/v1");
        object["kind"] = json!("G0");
        object["metadata"]["name"] = json!("root");
        (db(templates), object)
    }

    /// Regression (finding 12): 3 templates per level over 14 levels would make 3^14
    /// resultants at the last level (out of memory); expansion stops at the limit.
    #[test]
    fn a_fan_out_stops_at_the_per_resource_limit() {
        let (templates, root) = fan(3, 14);
        assert_eq!(
            expand(&root, None, &templates, &NoMutation).unwrap_err(),
            "expansion produced more than 1000 resultants (kadmit's limit per resource)"
        );
        assert_eq!(templates.resultants_so_far(), 0);
        // Within the limit: 2^i M and 2^i G resultants at level i, for 2 templates over 4.
        let (templates, root) = fan(2, 4);
        let got = expand(&root, None, &templates, &NoMutation).unwrap();
        assert_eq!(got.len(), 60);
        assert_eq!(templates.resultants_so_far(), got.len());
    }

    #[test]
    fn resultants_are_counted_across_generators_up_to_the_total_limit() {
        let templates = db(vec![
            template(
                "jobs",
                ("batch", "CronJob"),
                ("batch", "Job"),
                "spec.jobTemplate",
            ),
            template("pods", ("batch", "Job"), ("", "Pod"), "spec.template"),
        ]);
        assert_eq!(
            expand(&cronjob(), None, &templates, &NoMutation)
                .unwrap()
                .len(),
            2
        );
        templates.count_resultants(MAX_RESULTANTS_TOTAL - 3);
        assert_eq!(
            expand(&cronjob(), None, &templates, &NoMutation).unwrap_err(),
            "expansion produced more than 100000 resultants in total (kadmit's limit per run)"
        );
        assert_eq!(templates.resultants_so_far(), MAX_RESULTANTS_TOTAL - 1);
    }
}
