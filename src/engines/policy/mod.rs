//! Kubernetes' own admission policies in the pipeline, as kube-apiserver runs them
//! (`../shared/reference/admission-policies.md`): ValidatingAdmissionPolicies and their
//! bindings in the validating phase, before any other validator (the server runs the VAP
//! plugin before the validating webhooks); MutatingAdmissionPolicies in the mutating phase,
//! before any other mutator (the MAP plugin runs before the mutating webhooks). The
//! semantics are `kadmit_policy`'s; this engine turns the configuration items into its
//! compiled policies, each resource into an admission request, and the outcome into
//! diagnostics and changes.

mod mutate;
mod objects;
mod request;
mod unmatched;
mod validate;

use crate::core::config::Family;
use crate::core::diagnostic::Diagnostic;
use crate::core::engine::{Configuration, Engine};
use crate::core::pipeline::Pipeline;
use kadmit_match::Gvk;
use kadmit_policy::compiled::{Binding, ValidatingPolicy};
use kadmit_policy::dispatch::sort_by_name;
use kadmit_policy::matching::{Gvr, Table};
use kadmit_policy::mutating::policy::MutatingPolicy;
use kadmit_schema::admission::FieldValidation;
use kadmit_schema::definition::Crd;
use kadmit_schema::kinds::Builtin;
use kadmit_schema::lazy::LazyCrd;
use serde_json::Value;

/// What the engine is handed: its own settings only.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The Kubernetes minor version the policy objects are decoded for.
    pub minor: u32,
    pub field_validation: FieldValidation,
    /// `--user` / `--group`: `request.userInfo`.
    pub user: Option<String>,
    pub groups: Vec<String>,
}

pub struct AdmissionPolicies {
    pub settings: Settings,
}

/// The accepted policy objects of the run, by kind.
#[derive(Default)]
struct Objects {
    validating: Vec<Value>,
    validating_bindings: Vec<Value>,
    mutating: Vec<Value>,
    mutating_bindings: Vec<Value>,
}

impl Engine for AdmissionPolicies {
    fn compile(&mut self, config: &Configuration<'_>, pipeline: &mut Pipeline) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        let mut objects = Objects::default();
        for item in config.of(Family::AdmissionPolicy) {
            let settings = &self.settings;
            let Some(value) = objects::accept(
                item,
                settings.minor,
                settings.field_validation,
                &mut diagnostics,
            ) else {
                continue;
            };
            match item.resource.id.kind.as_str() {
                "ValidatingAdmissionPolicy" => objects.validating.push(value),
                "ValidatingAdmissionPolicyBinding" => objects.validating_bindings.push(value),
                "MutatingAdmissionPolicy" => objects.mutating.push(value),
                _ => objects.mutating_bindings.push(value),
            }
        }
        if objects.mutating.is_empty() && objects.validating.is_empty() {
            return diagnostics;
        }
        // What every request of the run shares, built once for both stages.
        let builder = request::Builder::new(&self.settings, equivalents(config));
        if !objects.mutating.is_empty() {
            let mut policies: Vec<MutatingPolicy> = objects
                .mutating
                .iter()
                .map(MutatingPolicy::from_object)
                .collect();
            let mut bindings = bindings(&objects.mutating_bindings);
            sort_by_name(&mut policies, &mut bindings);
            add_lookup_kinds(pipeline, policies.iter().map(|p| &p.core));
            pipeline.mutating.push(Box::new(mutate::Mutate {
                policies,
                bindings,
                request: builder.clone(),
                schemas: (
                    Builtin {
                        minor: self.settings.minor,
                    },
                    crds(config),
                ),
            }));
        }
        if !objects.validating.is_empty() {
            let mut policies: Vec<ValidatingPolicy> = objects
                .validating
                .iter()
                .map(ValidatingPolicy::from_object)
                .collect();
            let mut bindings = bindings(&objects.validating_bindings);
            sort_by_name(&mut policies, &mut bindings);
            add_lookup_kinds(pipeline, policies.iter().map(|p| &p.core));
            pipeline.validating.push(Box::new(validate::Validate {
                policies,
                bindings,
                request: builder,
            }));
        }
        diagnostics
    }
}

fn bindings(objects: &[Value]) -> Vec<Binding> {
    objects.iter().map(Binding::from_object).collect()
}

/// The run's CustomResourceDefinitions, for ApplyConfiguration merges into custom
/// resources: a CRD's schemas are read when a merge first needs its kind, and a CRD the
/// API server would refuse has none (the CRD engine reports it).
fn crds(config: &Configuration<'_>) -> Vec<LazyCrd<Crd>> {
    config
        .crds
        .iter()
        .filter_map(|crd| LazyCrd::crd(crd.value.clone()).ok())
        .collect()
}

/// The param kinds of `policies`: the run collects their objects for the stages.
fn add_lookup_kinds<'a>(
    pipeline: &mut Pipeline,
    policies: impl Iterator<Item = &'a kadmit_policy::compiled::PolicyCore>,
) {
    for policy in policies {
        let Some(kind) = &policy.param_kind else {
            continue;
        };
        let group = kind
            .api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group);
        let key = (group.to_owned(), kind.kind.clone());
        if !pipeline.lookup_kinds.contains(&key) {
            pipeline.lookup_kinds.push(key);
        }
    }
}

/// The resources served at several group/versions (`matchPolicy: Equivalent`): the
/// built-in ones, and every served version of each CustomResourceDefinition of the run.
fn equivalents(config: &Configuration<'_>) -> Table {
    let mut table = Table::builtin();
    for crd in config.crds {
        let spec = &crd.value["spec"];
        let (Some(group), Some(plural), Some(kind)) = (
            spec["group"].as_str(),
            spec["names"]["plural"].as_str(),
            spec["names"]["kind"].as_str(),
        ) else {
            continue;
        };
        let served = spec["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|v| v["served"].as_bool().unwrap_or(false))
            .filter_map(|v| v["name"].as_str());
        let family = format!("{plural}.{group}");
        for version in served {
            let kind = Gvk {
                group: group.into(),
                version: version.into(),
                kind: kind.into(),
            };
            table.add(&family, Gvr::new(group, version, plural), "", kind);
        }
    }
    table
}
