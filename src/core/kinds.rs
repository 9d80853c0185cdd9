//! The table of kinds: which are cluster-scoped and what their resource (plural) is,
//! from the built-in API groups' list, extended by the CustomResourceDefinitions of the
//! run. It is the one reader of a CRD's `scope` and `names.plural`.

use super::resource::Resource;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Namespaced,
    Cluster,
}

/// (group, kind) of every cluster-scoped kind in Kubernetes 1.32 and of the policy engines
/// kadmit reads (Gatekeeper mutators are cluster-scoped, KubeMod ModRules are not).
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("", "ComponentStatus"),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
    ),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
    ),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("authentication.k8s.io", "TokenReview"),
    ("authentication.k8s.io", "SelfSubjectReview"),
    ("authorization.k8s.io", "SelfSubjectAccessReview"),
    ("authorization.k8s.io", "SelfSubjectRulesReview"),
    ("authorization.k8s.io", "SubjectAccessReview"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("certificates.k8s.io", "ClusterTrustBundle"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    ("internal.apiserver.k8s.io", "StorageVersion"),
    ("networking.k8s.io", "IngressClass"),
    ("networking.k8s.io", "IPAddress"),
    ("networking.k8s.io", "ServiceCIDR"),
    ("node.k8s.io", "RuntimeClass"),
    ("policy", "PodSecurityPolicy"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("resource.k8s.io", "DeviceClass"),
    ("resource.k8s.io", "ResourceSlice"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "VolumeAttachment"),
    ("storage.k8s.io", "VolumeAttributesClass"),
    ("storagemigration.k8s.io", "StorageVersionMigration"),
    ("mutations.gatekeeper.sh", "Assign"),
    ("mutations.gatekeeper.sh", "AssignMetadata"),
    ("mutations.gatekeeper.sh", "ModifySet"),
    ("mutations.gatekeeper.sh", "AssignImage"),
    ("expansion.gatekeeper.sh", "ExpansionTemplate"),
    ("templates.gatekeeper.sh", "ConstraintTemplate"),
    ("config.gatekeeper.sh", "Config"),
];

/// Scope and resource name of every kind kadmit knows: built-ins plus CRDs of the run.
#[derive(Debug, Clone, Default)]
pub struct KindTable {
    custom: HashMap<(String, String), CustomKind>,
}

#[derive(Debug, Clone)]
struct CustomKind {
    scope: Scope,
    plural: Option<String>,
    /// Whether a version serves the `status` subresource (then an UPDATE of the main
    /// resource cannot change `status`).
    status_subresource: bool,
}

impl KindTable {
    /// Learns the kind a CustomResourceDefinition defines (one without group or kind is
    /// left to the CRD engine to refuse).
    pub fn add_crd(&mut self, crd: &Resource) {
        let spec = &crd.value["spec"];
        let (Some(group), Some(kind)) = (spec["group"].as_str(), spec["names"]["kind"].as_str())
        else {
            return;
        };
        let scope = match spec["scope"].as_str() {
            Some("Cluster") => Scope::Cluster,
            _ => Scope::Namespaced,
        };
        let plural = spec["names"]["plural"].as_str().map(str::to_owned);
        // v1 declares subresources per version; v1beta1 also once for all versions.
        let status_subresource = spec["subresources"].get("status").is_some()
            || spec["versions"].as_array().is_some_and(|versions| {
                versions
                    .iter()
                    .any(|v| v["subresources"].get("status").is_some())
            });
        self.custom.insert(
            (group.to_owned(), kind.to_owned()),
            CustomKind {
                scope,
                plural,
                status_subresource,
            },
        );
    }

    /// Whether an UPDATE of the kind keeps the stored `status` (the strategies'
    /// `PrepareForUpdate`): a CRD's kind when it serves the status subresource; every
    /// other kind (built-in kinds reset `status` from the old object; a kind without a
    /// status has none to reset).
    pub fn has_status_subresource(&self, group: &str, kind: &str) -> bool {
        match self.custom.get(&(group.to_owned(), kind.to_owned())) {
            Some(custom) => custom.status_subresource,
            None => true,
        }
    }

    /// Whether a CustomResourceDefinition of the run defines the kind.
    pub fn is_custom(&self, group: &str, kind: &str) -> bool {
        self.custom
            .contains_key(&(group.to_owned(), kind.to_owned()))
    }

    pub fn scope_of(&self, group: &str, kind: &str) -> Scope {
        // Asked several times per resource: without CRDs, no key is built to look up.
        let custom = (!self.custom.is_empty())
            .then(|| self.custom.get(&(group.to_owned(), kind.to_owned())))
            .flatten();
        if let Some(custom) = custom {
            return custom.scope;
        }
        if CLUSTER_SCOPED
            .iter()
            .any(|(g, k)| *g == group && *k == kind)
        {
            Scope::Cluster
        } else {
            Scope::Namespaced
        }
    }

    /// The resource name (plural) the API server would put in an admission request's
    /// `resource`: the CRD's `spec.names.plural` when the run has the CRD, else a guess by
    /// Kubernetes' pluralisation rules.
    pub fn resource_of(&self, group: &str, kind: &str) -> String {
        match self.custom.get(&(group.to_owned(), kind.to_owned())) {
            Some(CustomKind {
                plural: Some(plural),
                ..
            }) => plural.clone(),
            _ => guess_plural(kind),
        }
    }
}

/// apimachinery's `UnsafeGuessKindToResource`, except that a `y` after a vowel takes `s`
/// (`Gateway` → `gateways`, where apimachinery would say `gatewaies`): lowercase; `endpoints`
/// stays; after `s`, `es`; after a consonant and `y`, `ies`; else `s`.
pub fn guess_plural(kind: &str) -> String {
    let singular = kind.to_lowercase();
    if singular.is_empty() || singular.ends_with("endpoints") {
        return singular;
    }
    if singular.ends_with('s') {
        return format!("{singular}es");
    }
    if let Some(stem) = singular.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    format!("{singular}s")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_support::resource;
    use serde_json::json;

    fn crd(spec: serde_json::Value) -> Resource {
        let value = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "crd"},
            "spec": spec,
        });
        resource(value, None)
    }

    #[test]
    fn built_ins_and_custom_kinds() {
        let mut table = KindTable::default();
        assert_eq!(table.scope_of("", "Namespace"), Scope::Cluster);
        assert_eq!(table.scope_of("apps", "Deployment"), Scope::Namespaced);
        assert_eq!(table.scope_of("example.com", "Widget"), Scope::Namespaced);
        table.add_crd(&crd(json!({
            "group": "example.com", "scope": "Cluster", "names": {"kind": "Widget"},
        })));
        assert_eq!(table.scope_of("example.com", "Widget"), Scope::Cluster);
    }

    #[test]
    fn built_in_kinds_guess_right() {
        for (kind, plural) in [
            ("ConfigMap", "configmaps"),
            ("Pod", "pods"),
            ("Ingress", "ingresses"),
            ("NetworkPolicy", "networkpolicies"),
            ("Endpoints", "endpoints"),
            ("StorageClass", "storageclasses"),
            ("Gateway", "gateways"),
            ("APIService", "apiservices"),
        ] {
            assert_eq!(guess_plural(kind), plural);
        }
    }

    #[test]
    fn a_crd_names_its_plural() {
        let mut table = KindTable::default();
        table.add_crd(&crd(json!({
            "group": "example.com", "names": {"kind": "Mouse", "plural": "mice"},
        })));
        assert_eq!(table.resource_of("example.com", "Mouse"), "mice");
        assert_eq!(table.resource_of("other.com", "Mouse"), "mouses");
    }
}
