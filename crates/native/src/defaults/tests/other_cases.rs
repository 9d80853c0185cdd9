//! networking, rbac, autoscaling, storage, discovery, scheduling, certificates.

use super::{case, Case, ALL};
use serde_json::json;

pub fn cases() -> Vec<Case> {
    vec![
        case(
            "SetDefaults_NetworkPolicy + SetDefaults_NetworkPolicyPort",
            ("networking.k8s.io", "v1", "NetworkPolicy"),
            ALL,
            json!({"spec": {"podSelector": {}, "ingress": [{"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}],
                "egress": [{"ports": [{"port": 443}]}]}}),
            json!({"spec": {"podSelector": {}, "ingress": [{"ports": [{"port": 80, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]}],
                "egress": [{"ports": [{"port": 443, "protocol": "TCP"}]}], "policyTypes": ["Ingress", "Egress"]}}),
        ),
        case(
            "SetDefaults_NetworkPolicy: no egress ⇒ [Ingress]; explicit types kept",
            ("networking.k8s.io", "v1", "NetworkPolicy"),
            ALL,
            json!({"spec": {"podSelector": {}, "egress": []}}),
            json!({"spec": {"podSelector": {}, "egress": [], "policyTypes": ["Ingress"]}}),
        ),
        case(
            "SetDefaults_IngressClass: parameters scope Cluster",
            ("networking.k8s.io", "v1", "IngressClass"),
            ALL,
            json!({"spec": {"controller": "x/y", "parameters": {"kind": "P", "name": "p"}}}),
            json!({"spec": {"controller": "x/y", "parameters": {"kind": "P", "name": "p", "scope": "Cluster"}}}),
        ),
        case(
            "SetDefaults_IngressClass: no parameters, nothing",
            ("networking.k8s.io", "v1", "IngressClass"),
            ALL,
            json!({"spec": {"controller": "x/y"}}),
            json!({"spec": {"controller": "x/y"}}),
        ),
        case(
            "SetDefaults_RoleBinding + SetDefaults_Subject",
            ("rbac.authorization.k8s.io", "v1", "RoleBinding"),
            ALL,
            json!({"roleRef": {"kind": "Role", "name": "r"}, "subjects": [
                {"kind": "User", "name": "u"}, {"kind": "Group", "name": "g", "apiGroup": "x"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "n"}
            ]}),
            json!({"roleRef": {"kind": "Role", "name": "r", "apiGroup": "rbac.authorization.k8s.io"}, "subjects": [
                {"kind": "User", "name": "u", "apiGroup": "rbac.authorization.k8s.io"}, {"kind": "Group", "name": "g", "apiGroup": "x"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "n"}
            ]}),
        ),
        case(
            "SetDefaults_ClusterRoleBinding",
            ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"),
            ALL,
            json!({"roleRef": {"kind": "ClusterRole", "name": "r", "apiGroup": ""}, "subjects": [{"kind": "Group", "name": "g"}]}),
            json!({"roleRef": {"kind": "ClusterRole", "name": "r", "apiGroup": "rbac.authorization.k8s.io"},
                "subjects": [{"kind": "Group", "name": "g", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
        case(
            "SetDefaults_HorizontalPodAutoscaler (v2): minReplicas, CPU metric; no behavior added",
            ("autoscaling", "v2", "HorizontalPodAutoscaler"),
            ALL,
            json!({"spec": {"maxReplicas": 5, "scaleTargetRef": {"kind": "Deployment", "name": "d", "apiVersion": "apps/v1"}}}),
            json!({"spec": {"maxReplicas": 5, "scaleTargetRef": {"kind": "Deployment", "name": "d", "apiVersion": "apps/v1"}, "minReplicas": 1,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}}),
        ),
        case(
            "SetDefaults_HorizontalPodAutoscalerBehavior: field by field",
            ("autoscaling", "v2", "HorizontalPodAutoscaler"),
            ALL,
            json!({"spec": {"minReplicas": 2, "maxReplicas": 5, "metrics": [{"type": "Pods"}],
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60, "policies": []}}}}),
            json!({"spec": {"minReplicas": 2, "maxReplicas": 5, "metrics": [{"type": "Pods"}], "behavior": {
                "scaleDown": {"stabilizationWindowSeconds": 60, "policies": [], "selectPolicy": "Max"},
                "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
                    {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}
                ]}
            }}}),
        ),
        case(
            "SetDefaults_HorizontalPodAutoscalerBehavior: empty behavior gets both rule sets",
            ("autoscaling", "v2", "HorizontalPodAutoscaler"),
            ALL,
            json!({"spec": {"minReplicas": 1, "metrics": [{"type": "Pods"}], "behavior": {}}}),
            json!({"spec": {"minReplicas": 1, "metrics": [{"type": "Pods"}], "behavior": {
                "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
                    {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}
                ]},
                "scaleDown": {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}
            }}}),
        ),
        case(
            "SetDefaults_HorizontalPodAutoscaler (v1): minReplicas only",
            ("autoscaling", "v1", "HorizontalPodAutoscaler"),
            ALL,
            json!({"spec": {"maxReplicas": 3}}),
            json!({"spec": {"maxReplicas": 3, "minReplicas": 1}}),
        ),
        case(
            "SetDefaults_StorageClass",
            ("storage.k8s.io", "v1", "StorageClass"),
            ALL,
            json!({"provisioner": "p"}),
            json!({"provisioner": "p", "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"}),
        ),
        case(
            "SetDefaults_CSIDriver",
            ("storage.k8s.io", "v1", "CSIDriver"),
            ALL,
            json!({"spec": {"attachRequired": false}}),
            json!({"spec": {"attachRequired": false, "podInfoOnMount": false, "storageCapacity": false,
                "fsGroupPolicy": "ReadWriteOnceWithFSType", "volumeLifecycleModes": ["Persistent"], "requiresRepublish": false, "seLinuxMount": false}}),
        ),
        case(
            "SetDefaults_EndpointPort (discovery/v1)",
            ("discovery.k8s.io", "v1", "EndpointSlice"),
            ALL,
            json!({"addressType": "IPv4", "endpoints": [], "ports": [{"port": 80}, {"name": "dns", "port": 53, "protocol": "UDP"}]}),
            json!({"addressType": "IPv4", "endpoints": [], "ports": [{"port": 80, "name": "", "protocol": "TCP"}, {"name": "dns", "port": 53, "protocol": "UDP"}]}),
        ),
        case(
            "SetDefaults_PriorityClass",
            ("scheduling.k8s.io", "v1", "PriorityClass"),
            ALL,
            json!({"value": 1000}),
            json!({"value": 1000, "preemptionPolicy": "PreemptLowerPriority"}),
        ),
        case(
            "PodCertificateRequestSpec.maxExpirationSeconds (declarative)",
            ("certificates.k8s.io", "v1beta1", "PodCertificateRequest"),
            &[35],
            json!({"spec": {"signerName": "x/y"}}),
            json!({"spec": {"signerName": "x/y", "maxExpirationSeconds": 86400}}),
        ),
    ]
}
