//! Realistic objects of the kinds users write most: no schema error, no list-type
//! error, nothing for strict decoding, in every version that serves them.

use super::super::{strict_decode, versions};
use super::kind;
use crate::admission::FieldValidation;
use crate::{listtype, openapi};
use serde_json::{json, Value};

fn pod_spec() -> Value {
    json!({
        "containers": [{
            "name": "web", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent",
            "args": ["--port", "8080"],
            "env": [{"name": "MODE", "value": "prod"},
                    {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
            "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"},
                      {"containerPort": 8080, "protocol": "UDP"}],
            "resources": {"limits": {"cpu": "500m", "memory": "256Mi"},
                          "requests": {"cpu": 0.25, "memory": 128974848}},
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"},
                               "periodSeconds": 5},
            "livenessProbe": {"tcpSocket": {"port": 8080}},
            "securityContext": {"runAsNonRoot": true, "readOnlyRootFilesystem": true,
                                "capabilities": {"drop": ["ALL"]}},
            "volumeMounts": [{"name": "config", "mountPath": "/etc/web"}]
        }],
        "volumes": [{"name": "config", "configMap": {"name": "web", "defaultMode": 420}},
                    {"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}}],
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web",
                         "effect": "NoSchedule"}],
        "terminationGracePeriodSeconds": 30
    })
}

fn objects() -> Vec<(&'static str, &'static str, Value)> {
    let meta = json!({"name": "web", "namespace": "shop", "labels": {"app": "web"},
        "annotations": {"a": "b"}, "creationTimestamp": null});
    vec![
        ("v1", "Pod", json!({"metadata": meta, "spec": pod_spec()})),
        (
            "apps/v1",
            "Deployment",
            json!({"metadata": meta, "spec": {
            "replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate",
                         "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod_spec()}}}),
        ),
        (
            "v1",
            "Service",
            json!({"metadata": meta, "spec": {
            "type": "ClusterIP", "selector": {"app": "web"},
            "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"},
                      {"name": "metrics", "port": 9090, "targetPort": 9090}]}}),
        ),
        (
            "networking.k8s.io/v1",
            "Ingress",
            json!({"metadata": meta, "spec": {
            "ingressClassName": "nginx",
            "tls": [{"hosts": ["shop.example.com"], "secretName": "shop-tls"}],
            "rules": [{"host": "shop.example.com", "http": {"paths": [{
                "path": "/", "pathType": "Prefix",
                "backend": {"service": {"name": "web", "port": {"name": "http"}}}}]}}]}}),
        ),
        (
            "batch/v1",
            "CronJob",
            json!({"metadata": meta, "spec": {
            "schedule": "*/5 * * * *", "concurrencyPolicy": "Forbid",
            "successfulJobsHistoryLimit": 3,
            "jobTemplate": {"spec": {"backoffLimit": 2, "template": {"spec": {
                "restartPolicy": "OnFailure",
                "containers": [{"name": "job", "image": "busybox", "command": ["date"]}]}}}}}}),
        ),
        (
            "autoscaling/v2",
            "HorizontalPodAutoscaler",
            json!({"metadata": meta, "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2, "maxReplicas": 10,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 70}}},
                {"type": "Resource", "resource": {"name": "memory",
                "target": {"type": "AverageValue", "averageValue": "500Mi"}}}],
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300,
                "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}}}),
        ),
        (
            "policy/v1",
            "PodDisruptionBudget",
            json!({"metadata": meta, "spec": {
            "minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}}),
        ),
        (
            "networking.k8s.io/v1",
            "NetworkPolicy",
            json!({"metadata": meta, "spec": {
            "podSelector": {"matchLabels": {"app": "web"}},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [{"from": [{"namespaceSelector": {"matchExpressions": [
                {"key": "team", "operator": "In", "values": ["shop"]}]}}],
                "ports": [{"port": 80, "protocol": "TCP"}, {"port": "http"}]}],
            "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}]}]}}),
        ),
        (
            "v1",
            "Secret",
            json!({"metadata": meta, "type": "Opaque",
            "data": {"password": "c2VjcmV0", "empty": ""}, "stringData": {"user": "admin"}}),
        ),
        (
            "v1",
            "ConfigMap",
            json!({"metadata": meta, "data": {"key": "value"},
            "binaryData": {"blob": "AAEC"}}),
        ),
    ]
}

#[test]
fn realistic_objects_have_no_schema_list_or_decoding_error_in_any_version() {
    for &minor in versions() {
        for (api_version, name, mut object) in objects() {
            object["apiVersion"] = api_version.into();
            object["kind"] = name.into();
            let kind = kind(minor, api_version, name);
            let errors: Vec<String> = openapi::validate(&object, kind.schema())
                .iter()
                .map(ToString::to_string)
                .collect();
            assert!(errors.is_empty(), "1.{minor} {name}: {errors:#?}");
            let duplicates = listtype::validate_list_sets_and_maps(&object, kind.schema());
            assert!(duplicates.is_empty(), "1.{minor} {name}: {duplicates:?}");
            let decoded = strict_decode(&kind, &object, FieldValidation::Strict);
            assert_eq!(decoded.message, None, "1.{minor} {name}: {decoded:?}");
        }
    }
}

/// kubectl-validate's `error_array_instead_of_map` and `error_quantity` cases, whose
/// texts come from the OpenAPI validator running on the built-in schema (transcribed:
/// the crate has no YAML reader to load the fixture files with).
#[test]
fn kubectl_validate_schema_cases_give_its_texts() {
    let config_map = kind(30, "v1", "ConfigMap");
    let errors: Vec<String> = openapi::validate(
        &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "my-deployment"},
                "data": ["not a map"]}),
        config_map.schema(),
    )
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(
        errors,
        [r#"data: Invalid value: "array": data in body must be of type object: "array""#]
    );

    let pod = kind(30, "v1", "Pod");
    let object = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "my-pod"},
        "spec": {"containers": [{"name": "my-container", "image": "my-image:latest",
            "resources": {"limits": {"cpu": "1", "memory": "512Mi"},
                          "requests": {"cpu": true, "memory": "256Mi"}}}]}});
    let errors: Vec<String> = openapi::validate(&object, pod.schema())
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errors,
        [
            r#"<nil>: Invalid value: "": "spec.containers[0].resources.requests.cpu" must validate one and only one schema (oneOf). Found none valid"#,
            r#"spec.containers[0].resources.requests.cpu: Invalid value: "boolean": spec.containers[0].resources.requests.cpu in body must be of type string: "boolean""#,
        ]
    );
}
