//! Kubernetes' own admission policies as kube-apiserver (1.30–1.36) runs them, client-side:
//! `admissionregistration.k8s.io` ValidatingAdmissionPolicy and MutatingAdmissionPolicy with
//! their bindings. `../shared/reference/admission-policies.md` is the transcription every
//! module follows; `../shared/peer-fixtures/admission-policies/cases.yaml` the upstream
//! cases its tests load.
//!
//! Built so far (issue "VAP/MAP", not yet wired into the pipeline): `matching` (a policy's
//! `matchConstraints` with a binding's `matchResources`) and `validation` (what the API
//! server refuses when a policy or binding is created), and of MAP's `mutating`, the JSONPatch
//! application (`mutating::json_patch`).

pub mod matching;
pub mod mutating;
pub mod validation;
