//! Kubernetes' own admission policies as kube-apiserver (1.30–1.36) runs them, client-side:
//! `admissionregistration.k8s.io` ValidatingAdmissionPolicy and MutatingAdmissionPolicy with
//! their bindings. `../shared/reference/admission-policies.md` is the transcription every
//! module follows; `../shared/peer-fixtures/admission-policies/cases.yaml` the upstream
//! cases its tests load.
pub mod validation;
