//! Pod, pod spec, container, probe, env and volume defaults (core/v1).

use super::{case, container_defaults as cd, plus, pod_spec_defaults as psd, Case, ALL};
use serde_json::{json, Value};

const POD: (&str, &str, &str) = ("", "v1", "Pod");
const TEMPLATE: (&str, &str, &str) = ("", "v1", "PodTemplate");

/// A Pod whose spec is `spec`.
fn pod(spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec})
}

/// A PodTemplate whose template spec is `spec`.
fn template(spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"}, "template": {"spec": spec}})
}

/// A pod spec with one container `c` (image nginx:1 unless `c` says otherwise).
fn one(c: Value) -> Value {
    json!({"containers": [plus(&json!({"name": "c", "image": "nginx:1"}), c)]})
}

pub fn cases() -> Vec<Case> {
    let resources = json!({"resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}});
    let host_net = json!({"hostNetwork": true, "containers": [
        {"name": "c", "image": "nginx:1", "ports": [{"containerPort": 8080}, {"containerPort": 9090, "hostPort": 9091}]}
    ], "initContainers": [{"name": "i", "image": "busybox:1", "ports": [{"containerPort": 53, "protocol": "UDP"}]}]});
    let pod_limits = pod(one(resources.clone()));
    let template_limits = template(one(resources));
    let probes = one(json!({
        "livenessProbe": {"httpGet": {"port": 8080}},
        "readinessProbe": {"tcpSocket": {"port": 80}, "periodSeconds": 5, "timeoutSeconds": 0},
        "startupProbe": {"grpc": {"port": 9000}},
        "lifecycle": {"preStop": {"httpGet": {"port": "http", "path": "/stop"}}, "postStart": {"exec": {"command": ["true"]}}}
    }));
    let env = one(json!({"env": [
        {"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "B", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
        {"name": "C", "value": "x"}
    ]}));
    let file_env = one(json!({"env": [
        {"name": "F", "valueFrom": {"fileKeyRef": {"volumeName": "v", "path": "a.env", "key": "K"}}}
    ]}));
    let volumes = json!({"containers": [], "volumes": [
        {"name": "bare"},
        {"name": "s", "secret": {"secretName": "x"}},
        {"name": "cm", "configMap": {"name": "x", "defaultMode": 256}},
        {"name": "cm2", "configMap": {"name": "y"}},
        {"name": "d", "downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        {"name": "pr", "projected": {"sources": [
            {"serviceAccountToken": {"path": "t"}},
            {"downwardAPI": {"items": [{"path": "l", "fieldRef": {"fieldPath": "metadata.labels"}}]}}
        ]}},
        {"name": "h", "hostPath": {"path": "/var"}},
        {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}},
        {"name": "r", "rbd": {"monitors": ["m"], "image": "i"}},
        {"name": "is", "iscsi": {"targetPortal": "t", "iqn": "q", "lun": 0}},
        {"name": "az", "azureDisk": {"diskName": "d", "diskURI": "u"}},
        {"name": "sc", "scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "x"}}},
        {"name": "pvc", "persistentVolumeClaim": {"claimName": "c"}}
    ]});
    let image_volume = json!({"containers": [], "volumes": [
        {"name": "img", "image": {"reference": "quay.io/org/artifact"}},
        {"name": "pinned", "image": {"reference": "quay.io/org/artifact:v1"}},
        {"name": "set", "image": {"reference": "x", "pullPolicy": "Never"}}
    ]});
    vec![
        case(
            "SetDefaults_Pod + PodSpec + Container: minimal Pod",
            POD,
            ALL,
            pod(json!({"containers": [{"name": "c", "image": "nginx"}]})),
            pod(plus(
                &plus(&psd(), json!({"enableServiceLinks": true})),
                json!({"containers": [plus(&json!({"name": "c", "image": "nginx"}), cd("Always"))]}),
            )),
        ),
        case(
            "SetDefaults_Pod: requests default to limits (Pod only)",
            POD,
            ALL,
            pod_limits.clone(),
            plus(
                &pod_limits,
                json!({"spec": plus(&psd(), json!({"enableServiceLinks": true, "containers": [plus(&cd("IfNotPresent"), json!({
                    "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}
                }))]}))}),
            ),
        ),
        case(
            "PodTemplate: no SetDefaults_Pod (no requests from limits, no enableServiceLinks)",
            TEMPLATE,
            ALL,
            template_limits.clone(),
            plus(
                &template_limits,
                json!({"template": {"spec": plus(&psd(), json!({"containers": [cd("IfNotPresent")]}))}}),
            ),
        ),
        case(
            "SetDefaults_Pod: hostNetwork ports get hostPort = containerPort",
            POD,
            ALL,
            pod(host_net.clone()),
            pod(plus(
                &host_net,
                plus(&psd(), json!({
                    "enableServiceLinks": true,
                    "containers": [plus(&cd("IfNotPresent"), json!({"ports": [
                        {"hostPort": 8080, "protocol": "TCP"}, {"protocol": "TCP"}
                    ]}))],
                    "initContainers": [plus(&cd("IfNotPresent"), json!({"ports": [{"hostPort": 53}]}))]
                })),
            )),
        ),
        case(
            "PodTemplate: hostNetwork ports are not defaulted in templates",
            TEMPLATE,
            ALL,
            template(host_net.clone()),
            template(plus(
                &host_net,
                plus(&psd(), json!({
                    "containers": [plus(&cd("IfNotPresent"), json!({"ports": [{"protocol": "TCP"}, {"protocol": "TCP"}]}))],
                    "initContainers": [cd("IfNotPresent")]
                })),
            )),
        ),
        case(
            "SetDefaults_PodSpec: user values kept",
            TEMPLATE,
            ALL,
            template(json!({"containers": [], "dnsPolicy": "Default", "restartPolicy": "Never",
                "securityContext": {"runAsUser": 1}, "terminationGracePeriodSeconds": 0, "schedulerName": "s",
                "enableServiceLinks": false})),
            template(json!({"containers": [], "dnsPolicy": "Default", "restartPolicy": "Never",
                "securityContext": {"runAsUser": 1}, "terminationGracePeriodSeconds": 0, "schedulerName": "s",
                "enableServiceLinks": false})),
        ),
        case(
            "SetDefaults_Container: explicit pull policy, null fields count as unset",
            TEMPLATE,
            ALL,
            template(json!({"containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Never",
                "terminationMessagePath": null, "terminationMessagePolicy": ""}]})),
            template(plus(&psd(), json!({"containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Never",
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}]}))),
        ),
        case(
            "SetDefaults_EphemeralContainer and init containers",
            POD,
            ALL,
            pod(json!({"containers": [], "initContainers": [{"name": "i", "image": "busybox:latest"}],
                "ephemeralContainers": [{"name": "dbg", "image": "busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000"}]})),
            pod(plus(&psd(), json!({"enableServiceLinks": true, "containers": [],
                "initContainers": [plus(&json!({"name": "i", "image": "busybox:latest"}), cd("Always"))],
                "ephemeralContainers": [plus(&json!({"name": "dbg", "image": "busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000"}), cd("IfNotPresent"))]}))),
        ),
        case(
            "SetDefaults_Probe + SetDefaults_HTTPGetAction + GRPCAction.service",
            TEMPLATE,
            ALL,
            template(probes.clone()),
            template(plus(&probes, plus(&psd(), json!({"containers": [plus(&cd("IfNotPresent"), json!({
                "livenessProbe": {"httpGet": {"path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
                "readinessProbe": {"timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3},
                "startupProbe": {"grpc": {"service": ""}, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
                "lifecycle": {"preStop": {"httpGet": {"scheme": "HTTP"}}}
            }))]})))),
        ),
        case(
            "SetDefaults_ObjectFieldSelector: env fieldRef apiVersion v1",
            TEMPLATE,
            ALL,
            template(env.clone()),
            template(plus(&env, plus(&psd(), json!({"containers": [plus(&cd("IfNotPresent"), json!({"env": [
                {"valueFrom": {"fieldRef": {"apiVersion": "v1"}}}
            ]}))]})))),
        ),
        case(
            "FileKeySelector.optional false: absent before 1.34",
            TEMPLATE,
            &[30, 33],
            template(file_env.clone()),
            template(plus(&file_env, plus(&psd(), json!({"containers": [cd("IfNotPresent")]})))),
        ),
        case(
            "FileKeySelector.optional false: from 1.34",
            TEMPLATE,
            &[34, 35],
            template(file_env.clone()),
            template(plus(&file_env, plus(&psd(), json!({"containers": [plus(&cd("IfNotPresent"), json!({"env": [
                {"valueFrom": {"fileKeyRef": {"optional": false}}}
            ]}))]})))),
        ),
        case(
            "Volume defaults: emptyDir, defaultMode, token expiry, hostPath type, claim volumeMode, legacy sources",
            TEMPLATE,
            ALL,
            template(volumes.clone()),
            template(plus(&volumes, plus(&psd(), json!({"volumes": [
                {"emptyDir": {}},
                {"secret": {"defaultMode": 420}},
                {"configMap": {}},
                {"configMap": {"defaultMode": 420}},
                {"downwardAPI": {"defaultMode": 420, "items": [{"fieldRef": {"apiVersion": "v1"}}]}},
                {"projected": {"defaultMode": 420, "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3600}},
                    {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1"}}]}}
                ]}},
                {"hostPath": {"type": ""}},
                {"ephemeral": {"volumeClaimTemplate": {"spec": {"volumeMode": "Filesystem"}}}},
                {"rbd": {"pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"}},
                {"iscsi": {"iscsiInterface": "default"}},
                {"azureDisk": {"cachingMode": "ReadWrite", "fsType": "ext4", "readOnly": false, "kind": "Shared"}},
                {"scaleIO": {"storageMode": "ThinProvisioned", "fsType": "xfs"}},
                {}
            ]})))),
        ),
        case(
            "ImageVolume: 1.30 has no image source (emptyDir added, the field is unknown there)",
            TEMPLATE,
            &[30],
            template(image_volume.clone()),
            template(plus(&image_volume, plus(&psd(), json!({"volumes": [{"emptyDir": {}}, {"emptyDir": {}}, {"emptyDir": {}}]})))),
        ),
        case(
            "ImageVolume: 1.31–1.34 source exists, gate off (no pullPolicy)",
            TEMPLATE,
            &[31, 32, 33, 34],
            template(image_volume.clone()),
            template(plus(&image_volume, psd())),
        ),
        case(
            "ImageVolume: 1.35 gate on by default, pullPolicy from the reference tag",
            TEMPLATE,
            &[35],
            template(image_volume.clone()),
            template(plus(&image_volume, plus(&psd(), json!({"volumes": [
                {"image": {"pullPolicy": "Always"}}, {"image": {"pullPolicy": "IfNotPresent"}}, {}
            ]})))),
        ),
        case(
            "Pod without spec: the non-pointer spec is defaulted",
            POD,
            ALL,
            json!({"metadata": {"name": "p"}}),
            json!({"metadata": {"name": "p"}, "spec": plus(&psd(), json!({"enableServiceLinks": true}))}),
        ),
    ]
}
