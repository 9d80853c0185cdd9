//! `System.Expand`: expansion through every matching template, recursively, with each
//! resultant mutated before it is expanded in turn.

use super::db::Templates;
use super::resource::{expand_resource, name_of};
use crate::engines::gatekeeper::Gvk;
use serde_json::Value;

/// Gatekeeper's safeguard; reachable when mutators turn a resultant back into a generator.
pub const MAX_RECURSION_DEPTH: usize = 30;

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
    };
    context.expand_recursive(generator, &mut resultants, 0)?;
    Ok(resultants)
}

struct Context<'a> {
    namespace: Option<&'a Value>,
    templates: &'a Templates,
    mutator: &'a dyn ResultantMutator,
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
}
