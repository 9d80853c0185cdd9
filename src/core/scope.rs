//! Which kinds are cluster-scoped: the built-in API groups' table, extended by the
//! CustomResourceDefinitions kadmit sees.

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

/// The scope of every kind kadmit knows: built-ins plus CRDs added at run time.
#[derive(Debug, Clone, Default)]
pub struct ScopeTable {
    custom: HashMap<(String, String), Scope>,
}

impl ScopeTable {
    pub fn add_custom(&mut self, group: &str, kind: &str, scope: Scope) {
        self.custom
            .insert((group.to_owned(), kind.to_owned()), scope);
    }

    pub fn scope_of(&self, group: &str, kind: &str) -> Scope {
        if let Some(scope) = self.custom.get(&(group.to_owned(), kind.to_owned())) {
            return *scope;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_and_custom_kinds() {
        let mut table = ScopeTable::default();
        assert_eq!(table.scope_of("", "Namespace"), Scope::Cluster);
        assert_eq!(table.scope_of("apps", "Deployment"), Scope::Namespaced);
        assert_eq!(table.scope_of("example.com", "Widget"), Scope::Namespaced);
        table.add_custom("example.com", "Widget", Scope::Cluster);
        assert_eq!(table.scope_of("example.com", "Widget"), Scope::Cluster);
    }
}
