//! core/v1 kinds other than Pod: Service, ReplicationController, Namespace, volumes and
//! claims, Secret, Endpoints, LimitRange, Node, ConfigMap.

use super::{case, container_defaults as cd, plus, pod_spec_defaults as psd, Case, ALL};
use serde_json::json;

const SVC: (&str, &str, &str) = ("", "v1", "Service");

pub fn cases() -> Vec<Case> {
    let cluster_ip = json!({"metadata": {"name": "s"}, "spec": {"selector": {"app": "a"}, "ports": [
        {"port": 80}, {"port": 53, "protocol": "UDP", "targetPort": "dns"}, {"port": 443, "targetPort": 0}, {"port": 8443, "targetPort": ""}
    ]}});
    let lb = json!({"spec": {"type": "LoadBalancer", "ports": [{"port": 80, "targetPort": 8080}]},
        "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "lb.example.com"}, {"ip": "5.6.7.8", "ipMode": "Proxy"}]}}});
    let rc = json!({"metadata": {"name": "rc"}, "spec": {"template": {"metadata": {"labels": {"app": "a"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let limit_range = json!({"spec": {"limits": [
        {"type": "Container", "max": {"cpu": "2", "memory": "1Gi"}, "min": {"cpu": "100m", "ephemeral-storage": "1Gi"}, "default": {"cpu": "1"}},
        {"type": "Pod", "max": {"cpu": "4"}}
    ]}});
    vec![
        case(
            "SetDefaults_Service: ClusterIP, ports protocol and targetPort",
            SVC,
            ALL,
            cluster_ip.clone(),
            plus(&cluster_ip, json!({"spec": {"sessionAffinity": "None", "type": "ClusterIP", "internalTrafficPolicy": "Cluster",
                "ports": [{"protocol": "TCP", "targetPort": 80}, {}, {"protocol": "TCP", "targetPort": 443}, {"protocol": "TCP", "targetPort": 8443}]}})),
        ),
        case(
            "SetDefaults_Service: ClientIP affinity gets the 10800s timeout",
            SVC,
            ALL,
            json!({"spec": {"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {}}, "ports": [{"port": 1, "protocol": "SCTP"}]}}),
            json!({"spec": {"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
                "ports": [{"port": 1, "protocol": "SCTP", "targetPort": 1}], "type": "ClusterIP", "internalTrafficPolicy": "Cluster"}}),
        ),
        case(
            "SetDefaults_Service: ClientIP with a timeout is kept; None drops sessionAffinityConfig",
            SVC,
            ALL,
            json!({"spec": {"sessionAffinity": "None", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 5}}, "type": "ClusterIP", "internalTrafficPolicy": "Local"}}),
            json!({"spec": {"sessionAffinity": "None", "type": "ClusterIP", "internalTrafficPolicy": "Local"}}),
        ),
        case(
            "SetDefaults_Service: NodePort and ClusterIP+externalIPs are externally accessible",
            SVC,
            ALL,
            json!({"spec": {"type": "NodePort", "externalIPs": []}}),
            json!({"spec": {"type": "NodePort", "externalIPs": [], "sessionAffinity": "None", "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster"}}),
        ),
        case(
            "SetDefaults_Service: ClusterIP with externalIPs",
            SVC,
            ALL,
            json!({"spec": {"externalIPs": ["10.0.0.1"]}}),
            json!({"spec": {"externalIPs": ["10.0.0.1"], "sessionAffinity": "None", "type": "ClusterIP", "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster"}}),
        ),
        case(
            "SetDefaults_Service: LoadBalancer node ports and status ipMode VIP",
            SVC,
            ALL,
            lb.clone(),
            plus(&lb, json!({"spec": {"sessionAffinity": "None", "ports": [{"protocol": "TCP"}], "externalTrafficPolicy": "Cluster",
                "internalTrafficPolicy": "Cluster", "allocateLoadBalancerNodePorts": true},
                "status": {"loadBalancer": {"ingress": [{"ipMode": "VIP"}, {}, {}]}}})),
        ),
        case(
            "SetDefaults_Service: ExternalName gets no traffic policies",
            SVC,
            ALL,
            json!({"spec": {"type": "ExternalName", "externalName": "example.com"}}),
            json!({"spec": {"type": "ExternalName", "externalName": "example.com", "sessionAffinity": "None"}}),
        ),
        case(
            "SetDefaults_ReplicationController: selector, labels, replicas, template",
            ("", "v1", "ReplicationController"),
            ALL,
            rc.clone(),
            plus(&rc, json!({"metadata": {"labels": {"app": "a"}}, "spec": {"selector": {"app": "a"}, "replicas": 1,
                "template": {"spec": plus(&psd(), json!({"containers": [cd("Always")]}))}}})),
        ),
        case(
            "SetDefaults_ReplicationController: no template (a pointer): replicas only; user selector kept",
            ("", "v1", "ReplicationController"),
            ALL,
            json!({"metadata": {"labels": {"x": "y"}}, "spec": {"selector": {"app": "b"}, "replicas": 0}}),
            json!({"metadata": {"labels": {"x": "y"}}, "spec": {"selector": {"app": "b"}, "replicas": 0}}),
        ),
        case(
            "SetDefaults_Namespace + SetDefaults_NamespaceStatus",
            ("", "v1", "Namespace"),
            ALL,
            json!({"metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "other"}}}),
            json!({"metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "team-a"}}, "status": {"phase": "Active"}}),
        ),
        case(
            "SetDefaults_Namespace: generateName only, no label",
            ("", "v1", "Namespace"),
            ALL,
            json!({"metadata": {"generateName": "ns-"}}),
            json!({"metadata": {"generateName": "ns-"}, "status": {"phase": "Active"}}),
        ),
        case(
            "SetDefaults_PersistentVolume + sources",
            ("", "v1", "PersistentVolume"),
            ALL,
            json!({"spec": {"capacity": {"storage": "1Gi"}, "hostPath": {"path": "/d"}}}),
            json!({"spec": {"capacity": {"storage": "1Gi"}, "hostPath": {"path": "/d", "type": ""}, "persistentVolumeReclaimPolicy": "Retain", "volumeMode": "Filesystem"},
                "status": {"phase": "Pending"}}),
        ),
        case(
            "PersistentVolume declarative source defaults (rbd, iscsi, azureDisk, scaleIO)",
            ("", "v1", "PersistentVolume"),
            ALL,
            json!({"spec": {"persistentVolumeReclaimPolicy": "Delete", "volumeMode": "Block", "rbd": {"image": "i"}, "iscsi": {"iscsiInterface": "x"},
                "azureDisk": {"kind": "Managed"}, "scaleIO": {"fsType": "ext4"}}, "status": {"phase": "Bound"}}),
            json!({"spec": {"persistentVolumeReclaimPolicy": "Delete", "volumeMode": "Block", "rbd": {"image": "i", "pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"},
                "iscsi": {"iscsiInterface": "x"}, "azureDisk": {"kind": "Managed", "cachingMode": "ReadWrite", "fsType": "ext4", "readOnly": false},
                "scaleIO": {"fsType": "ext4", "storageMode": "ThinProvisioned"}}, "status": {"phase": "Bound"}}),
        ),
        case(
            "SetDefaults_PersistentVolumeClaim + Spec",
            ("", "v1", "PersistentVolumeClaim"),
            ALL,
            json!({"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
            json!({"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "volumeMode": "Filesystem"}, "status": {"phase": "Pending"}}),
        ),
        case(
            "SetDefaults_Secret",
            ("", "v1", "Secret"),
            ALL,
            json!({"metadata": {"name": "s"}, "stringData": {"a": "b"}}),
            json!({"metadata": {"name": "s"}, "stringData": {"a": "b"}, "type": "Opaque"}),
        ),
        case(
            "SetDefaults_Secret: explicit type kept",
            ("", "v1", "Secret"),
            ALL,
            json!({"type": "kubernetes.io/tls"}),
            json!({"type": "kubernetes.io/tls"}),
        ),
        case(
            "SetDefaults_Endpoints",
            ("", "v1", "Endpoints"),
            ALL,
            json!({"subsets": [{"addresses": [{"ip": "1.1.1.1"}], "ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}]}),
            json!({"subsets": [{"addresses": [{"ip": "1.1.1.1"}], "ports": [{"port": 80, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]}]}),
        ),
        case(
            "SetDefaults_LimitRangeItem: default ← max, defaultRequest ← default then min",
            ("", "v1", "LimitRange"),
            ALL,
            limit_range.clone(),
            plus(&limit_range, json!({"spec": {"limits": [{
                "default": {"memory": "1Gi"},
                "defaultRequest": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"}
            }]}})),
        ),
        case(
            "SetDefaults_LimitRangeItem: nothing to copy adds no empty maps",
            ("", "v1", "LimitRange"),
            ALL,
            json!({"spec": {"limits": [{"type": "Container"}]}}),
            json!({"spec": {"limits": [{"type": "Container"}]}}),
        ),
        case(
            "SetDefaults_NodeStatus: allocatable ← capacity",
            ("", "v1", "Node"),
            ALL,
            json!({"status": {"capacity": {"cpu": "4"}}}),
            json!({"status": {"capacity": {"cpu": "4"}, "allocatable": {"cpu": "4"}}}),
        ),
        case(
            "SetDefaults_ConfigMap: data {} is invisible (omitempty)",
            ("", "v1", "ConfigMap"),
            ALL,
            json!({"metadata": {"name": "c"}}),
            json!({"metadata": {"name": "c"}}),
        ),
    ]
}
