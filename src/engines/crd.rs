//! CRDs in the admission pipeline: the decode half of create (prune, default) in the
//! defaulting stage, the validate half in the schema-validation stage, for every resource
//! whose group and kind a CRD in the stream, in `--config` or in `--crd` defines.

use crate::core::diagnostic::Diagnostic;
use crate::core::engine::{Configuration, Engine};
use crate::core::pipeline::Pipeline;
use crate::core::pipeline::{Change, Context, Mutation, Mutator, Validator};
use crate::core::resource::Resource;
use kadmit_schema::admission::{check, prepare, Definition, Refused, Settings};
use kadmit_schema::definition::Crd;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The CRD engine: custom resources are pruned and defaulted in the defaulting stage and
/// validated in the schema-validation stage.
pub struct Crds {
    pub settings: Settings,
}

impl Engine for Crds {
    fn compile(&mut self, config: &Configuration<'_>, pipeline: &mut Pipeline) -> Vec<Diagnostic> {
        let (definitions, problems) = Definitions::load(config.crds);
        if !definitions.is_empty() {
            let (decode, validate) = stages(definitions, self.settings);
            pipeline.defaulting.push(decode);
            pipeline.schema_validation.push(validate);
        }
        problems
    }
}

/// The CRDs of a run by (group, kind).
#[derive(Default)]
pub struct Definitions {
    by_kind: BTreeMap<(String, String), Definition>,
}

impl Definitions {
    /// Loads every CRD; each unusable one is reported (a configuration error).
    pub fn load(crds: &[&Resource]) -> (Definitions, Vec<Diagnostic>) {
        let mut out = Definitions::default();
        let mut problems = Vec::new();
        for crd in crds {
            let value = &crd.value;
            let name = value
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let loaded = Crd::from_value(value).map(Definition::new);
            match loaded {
                Ok(definition) => {
                    let key = (definition.crd.group.clone(), definition.crd.kind.clone());
                    out.by_kind.insert(key, definition);
                }
                Err(refusal) => {
                    problems.push(
                        Diagnostic::config(refusal.kubectl_message())
                            .with_rule(format!("CustomResourceDefinition {name}"))
                            .with_origin(&crd.origin),
                    );
                }
            }
        }
        (out, problems)
    }

    pub fn is_empty(&self) -> bool {
        self.by_kind.is_empty()
    }

    fn get(&self, resource: &Resource) -> Option<&Definition> {
        self.by_kind
            .get(&(resource.id.group.clone(), resource.id.kind.clone()))
    }
}

/// The two pipeline stages for `definitions`.
pub fn stages(
    definitions: Definitions,
    settings: Settings,
) -> (Box<dyn Mutator>, Box<dyn Validator>) {
    let definitions = Arc::new(definitions);
    (
        Box::new(Decode {
            definitions: definitions.clone(),
            settings,
        }),
        Box::new(Validate { definitions }),
    )
}

struct Decode {
    definitions: Arc<Definitions>,
    settings: Settings,
}

fn refused(resource: &Resource, refusal: &Refused) -> Diagnostic {
    Diagnostic::rejected(refusal.kubectl_message())
        .with_resource(&resource.id)
        .with_origin(&resource.origin)
}

fn warning(resource: &Resource, text: &str) -> Diagnostic {
    Diagnostic::warning(text)
        .with_resource(&resource.id)
        .with_origin(&resource.origin)
}

impl Mutator for Decode {
    fn mutate(&self, resource: &mut Resource, _: &Context) -> Mutation {
        let Some(definition) = self.definitions.get(resource) else {
            return Mutation::default();
        };
        match prepare(definition, &resource.value, self.settings) {
            Ok(created) => {
                let rule = format!("CustomResourceDefinition {}", definition.crd.name);
                resource.value = created.object;
                Mutation {
                    changes: created
                        .defaulted
                        .into_iter()
                        .map(|path| Change {
                            path,
                            rule: rule.clone(),
                        })
                        .collect(),
                    diagnostics: created
                        .warnings
                        .iter()
                        .map(|w| warning(resource, w))
                        .collect(),
                }
            }
            Err(refusal) => Mutation {
                changes: Vec::new(),
                diagnostics: vec![refused(resource, &refusal)],
            },
        }
    }
}

struct Validate {
    definitions: Arc<Definitions>,
}

impl Validator for Validate {
    fn validate(&self, resource: &Resource, cx: &Context) -> Vec<Diagnostic> {
        let Some(definition) = self.definitions.get(resource) else {
            return Vec::new();
        };
        match check(definition, &resource.value, &cx.default_namespace) {
            Ok(checked) => {
                let mut out: Vec<Diagnostic> = checked
                    .warnings
                    .iter()
                    .map(|w| warning(resource, w))
                    .collect();
                if checked.skipped_transition_rules > 0 {
                    out.push(warning(
                        resource,
                        &format!(
                            "{} transition rule(s) (oldSelf) not evaluated: they run on update only",
                            checked.skipped_transition_rules
                        ),
                    ));
                }
                out
            }
            Err(refusal) => vec![refused(resource, &refusal)],
        }
    }
}
