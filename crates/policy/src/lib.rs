//! Kubernetes' own admission policies as kube-apiserver (1.30–1.36) runs them, client-side:
//! `admissionregistration.k8s.io` ValidatingAdmissionPolicy and MutatingAdmissionPolicy with
//! their bindings. `../shared/reference/admission-policies.md` is the transcription every
//! module follows; `../shared/peer-fixtures/admission-policies/cases.yaml` the upstream
//! cases its tests load.
//!
//! Built so far (issue "VAP/MAP", not yet wired into the pipeline):
//! - `matching`: a policy's `matchConstraints` with a binding's `matchResources`;
//! - `validation`: what the API server refuses when a policy or binding is created;
//! - `compiled`: policy and binding objects decoded with their defaults, every expression
//!   compiled in its scope (shared by VAP and MAP: [`compiled::PolicyCore`]);
//! - `params`: `CollectParams` over a caller's [`params::ParamSource`];
//! - `request`: the CEL activation of a request (`object`, `oldObject`, `request`,
//!   `params`, `namespaceObject`, `authorizer`);
//! - `conditions`: `matchConditions` with their budget and result rule;
//! - `dispatch`: the policy × binding × param iteration with configuration errors;
//! - `validating`: ValidatingAdmissionPolicy evaluation: denials, warnings, audit
//!   annotations;
//! - `mutating`: MutatingAdmissionPolicy: the compiled policy (`mutating::policy`), the
//!   dispatch of its mutations with failurePolicy, change records and the one
//!   reinvocation round (`mutating::dispatch`: `mutate`, `reinvoke`), the JSONPatch
//!   application (`mutating::json_patch`).
//!
//! JSON in, outcome out: nothing here reads files or the cluster.

pub mod compiled;
pub mod conditions;
pub mod dispatch;
pub mod matching;
pub mod mutating;
pub mod params;
pub mod request;
pub mod validating;
pub mod validation;
