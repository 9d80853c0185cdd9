//! Data-driven tests: each case is a kind, an object (a realistic, already defaulted
//! object with a few fields changed), and the exact error lines the API server reports
//! (`FieldError`'s Display, as kubectl prints each cause). An empty list means valid.

use super::validate;
use crate::Kind;
use serde_json::{json, Value};

const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const ENV_MSG: &str = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

fn kind(group: &'static str, version: &'static str, kind: &'static str) -> Kind<'static> {
    Kind {
        group,
        version,
        kind,
    }
}

/// `base` with each `(JSON pointer, value)` set (intermediate objects created); a null
/// value removes the member.
fn with(mut base: Value, patches: &[(&str, Value)]) -> Value {
    for (ptr, v) in patches {
        let (parent, last) = ptr.rsplit_once('/').unwrap();
        let mut cur = &mut base;
        for seg in parent.split('/').skip(1) {
            cur = match cur {
                Value::Array(a) => &mut a[seg.parse::<usize>().unwrap()],
                Value::Object(m) => m.entry(seg.to_owned()).or_insert_with(|| json!({})),
                _ => panic!("bad pointer {ptr}"),
            };
        }
        match (cur, v) {
            (Value::Object(m), Value::Null) => {
                m.shift_remove(last);
            }
            (Value::Object(m), v) => {
                m.insert(last.to_owned(), v.clone());
            }
            (Value::Array(a), v) => a[last.parse::<usize>().unwrap()] = v.clone(),
            _ => panic!("bad pointer {ptr}"),
        }
    }
    base
}

/// A defaulted container.
fn container(name: &str, image: &str) -> Value {
    json!({
        "name": name, "image": image, "imagePullPolicy": "IfNotPresent",
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
            "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
        "livenessProbe": {"tcpSocket": {"port": 8080},
            "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
        "env": [{"name": "LOG_LEVEL", "value": "info"},
                {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
        "volumeMounts": [{"name": "config", "mountPath": "/etc/web"}]
    })
}

/// A defaulted pod spec.
fn pod_spec(restart: &str) -> Value {
    json!({
        "containers": [container("web", "nginx:1.27")],
        "volumes": [{"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}}],
        "restartPolicy": restart, "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30,
        "securityContext": {}, "schedulerName": "default-scheduler"
    })
}

fn deployment() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 3, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod_spec("Always")}
        }
    })
}

fn pod() -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0"}, "spec": pod_spec("Always")})
}

fn service() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"type": "ClusterIP", "selector": {"app": "web"}, "sessionAffinity": "None",
            "internalTrafficPolicy": "Cluster",
            "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"},
                      {"name": "metrics", "port": 9090, "targetPort": 9090, "protocol": "TCP"}]}
    })
}

fn ingress() -> Value {
    json!({
        "apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web"},
        "spec": {"ingressClassName": "nginx",
            "tls": [{"hosts": ["web.example.com"], "secretName": "web-tls"}],
            "rules": [{"host": "web.example.com", "http": {"paths": [
                {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"name": "http"}}}},
                {"path": "/api", "pathType": "Exact", "backend": {"service": {"name": "api", "port": {"number": 8080}}}}]}}]}
    })
}

fn cron_job() -> Value {
    json!({
        "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
        "spec": {"schedule": "0 3 * * *", "concurrencyPolicy": "Forbid", "suspend": false,
            "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1,
            "jobTemplate": {"spec": {"backoffLimit": 2, "template": {"spec": pod_spec("OnFailure")}}}}
    })
}

fn job() -> Value {
    json!({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate"},
        "spec": {"parallelism": 1, "completions": 1, "backoffLimit": 6, "completionMode": "NonIndexed",
            "template": {"spec": pod_spec("Never")}}
    })
}

fn hpa() -> Value {
    json!({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2, "maxReplicas": 10,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}],
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300, "selectPolicy": "Max",
                "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}}}
    })
}

fn pdb() -> Value {
    json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
        "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}})
}

fn network_policy() -> Value {
    json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "web"},
        "spec": {"podSelector": {"matchLabels": {"app": "web"}}, "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"team": "a"}}}, {"ipBlock": {"cidr": "10.0.0.0/8"}}],
                "ports": [{"protocol": "TCP", "port": 8080}]}]}})
}

fn role() -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "pod-reader"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}]})
}

fn cluster_role_binding() -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "system:readers"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": "ops"},
                     {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "devs"}]})
}

fn role_binding() -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "read-pods"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "reader"}]})
}

fn pvc() -> Value {
    json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}},
            "storageClassName": "fast", "volumeMode": "Filesystem"}})
}

fn storage_class() -> Value {
    json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
        "provisioner": "ebs.csi.aws.com", "parameters": {"type": "gp3"},
        "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer"})
}

fn stateful_set() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
        "spec": {"replicas": 3, "serviceName": "db", "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
            "revisionHistoryLimit": 10, "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": pod_spec("Always")}}})
}

fn daemon_set() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "revisionHistoryLimit": 10,
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
            "template": {"metadata": {"labels": {"app": "agent"}}, "spec": pod_spec("Always")}}})
}

struct Case {
    name: &'static str,
    kind: Kind<'static>,
    minor: u32,
    object: Value,
    expected: Vec<String>,
}

fn case(name: &'static str, kind: Kind<'static>, object: Value, expected: &[&str]) -> Case {
    Case {
        name,
        kind,
        minor: 35,
        object,
        expected: expected.iter().map(|s| s.to_string()).collect(),
    }
}

fn at_minor(mut c: Case, minor: u32) -> Case {
    c.minor = minor;
    c
}

fn deploy() -> Kind<'static> {
    kind("apps", "v1", "Deployment")
}

const T: &str = "/spec/template/spec";
const C0: &str = "/spec/template/spec/containers/0";
const PC0: &str = "/spec/containers/0";

fn cases() -> Vec<Case> {
    let podk = kind("", "v1", "Pod");
    let svck = kind("", "v1", "Service");
    let p = |s: &str| format!("{PC0}{s}");
    let d = |s: &str| format!("{C0}{s}");
    vec![
        // ---- valid realistic objects ----
        case("valid deployment", deploy(), deployment(), &[]),
        case("valid pod", podk, pod(), &[]),
        case("valid service", svck, service(), &[]),
        case("valid ingress", kind("networking.k8s.io", "v1", "Ingress"), ingress(), &[]),
        case("valid cronjob", kind("batch", "v1", "CronJob"), cron_job(), &[]),
        case("valid job", kind("batch", "v1", "Job"), job(), &[]),
        case("valid hpa", kind("autoscaling", "v2", "HorizontalPodAutoscaler"), hpa(), &[]),
        case("valid pdb", kind("policy", "v1", "PodDisruptionBudget"), pdb(), &[]),
        case("valid networkpolicy", kind("networking.k8s.io", "v1", "NetworkPolicy"), network_policy(), &[]),
        case("valid role", kind("rbac.authorization.k8s.io", "v1", "Role"), role(), &[]),
        case("valid rolebinding", kind("rbac.authorization.k8s.io", "v1", "RoleBinding"), role_binding(), &[]),
        case("valid clusterrolebinding", kind("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"), cluster_role_binding(), &[]),
        case("valid pvc", kind("", "v1", "PersistentVolumeClaim"), pvc(), &[]),
        case("valid storageclass", kind("storage.k8s.io", "v1", "StorageClass"), storage_class(), &[]),
        case("valid statefulset", kind("apps", "v1", "StatefulSet"), stateful_set(), &[]),
        case("valid daemonset", kind("apps", "v1", "DaemonSet"), daemon_set(), &[]),
        // ---- the issue's motivating case: all errors at once ----
        case("motivating deployment", deploy(), with(deployment(), &[
            ("/metadata/name", json!("Web_App")),
            (&d("/imagePullPolicy"), json!("Sometimes")),
            ("/spec/template/metadata/labels", json!({"app": "b"})),
        ]), &[
            &format!("metadata.name: Invalid value: \"Web_App\": {SUBDOMAIN_MSG}"),
            "spec.template.metadata.labels: Invalid value: {\"app\":\"b\"}: `selector` does not match template `labels`",
            "spec.template.spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\"",
        ]),
        // ---- ObjectMeta (rules 1–6) ----
        case("name required", kind("", "v1", "ConfigMap"), json!({"metadata": {}, "data": {"k": "v"}}),
            &["metadata.name: Required value: name or generateName is required"]),
        case("kubectl-validate error_invalid_name", kind("", "v1", "ConfigMap"), json!({"metadata": {"name": "x.com^2"}}),
            &[&format!("metadata.name: Invalid value: \"x.com^2\": {SUBDOMAIN_MSG}")]),
        case("kubectl-validate error_invalid_label", kind("", "v1", "ConfigMap"), json!({"metadata": {"name": "x", "labels": {"owner": "_"}}}),
            &[&format!("metadata.labels: Invalid value: \"_\": {LABEL_VALUE_MSG}")]),
        case("service name is a DNS-1035 label", svck, with(service(), &[("/metadata/name", json!("1web"))]),
            &[&format!("metadata.name: Invalid value: \"1web\": {DNS1035_MSG}")]),
        case("namespace name is a DNS-1123 label", kind("", "v1", "Namespace"), json!({"metadata": {"name": "a.b"}}),
            &["metadata.name: Invalid value: \"a.b\": must not contain dots"]),
        case("statefulset name is a DNS-1123 label", kind("apps", "v1", "StatefulSet"), with(stateful_set(), &[("/metadata/name", json!("db.v1"))]),
            &["metadata.name: Invalid value: \"db.v1\": must not contain dots"]),
        case("rbac names are path segments", kind("rbac.authorization.k8s.io", "v1", "Role"), with(role(), &[("/metadata/name", json!("a/b"))]),
            &["metadata.name: Invalid value: \"a/b\": may not contain '/'"]),
        case("namespace must be a label", podk, with(pod(), &[("/metadata/namespace", json!("Prod"))]),
            &[&format!("metadata.namespace: Invalid value: \"Prod\": {LABEL_MSG}")]),
        case("cluster-scoped namespace is wiped", kind("storage.k8s.io", "v1", "StorageClass"), with(storage_class(), &[("/metadata/namespace", json!("x"))]), &[]),
        // ---- containers (rules 7–30) ----
        case("containers required", podk, with(pod(), &[("/spec/containers", json!([]))]), &["spec.containers: Required value"]),
        case("container name invalid", podk, with(pod(), &[(&p("/name"), json!("Web"))]),
            &[&format!("spec.containers[0].name: Invalid value: \"Web\": {LABEL_MSG}")]),
        case("container name required", podk, with(pod(), &[(&p("/name"), json!(""))]), &["spec.containers[0].name: Required value"]),
        case("duplicate container names across init", podk, with(pod(), &[("/spec/initContainers", json!([with(container("web", "busybox"), &[("/readinessProbe", Value::Null), ("/livenessProbe", Value::Null)])]))]),
            &["spec.initContainers[0].name: Duplicate value: \"web\""]),
        case("kubectl-validate error_missing_image", podk, with(pod(), &[(&p("/image"), Value::Null)]), &["spec.containers[0].image: Required value"]),
        case("init container probes forbidden", podk, with(pod(), &[("/spec/initContainers", json!([with(container("init", "busybox"), &[("/livenessProbe", Value::Null)])]))]),
            &["spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"]),
        case("container port required and range", podk, with(pod(), &[(&p("/ports"), json!([{"containerPort": 0, "protocol": "TCP"}, {"containerPort": 70000, "hostPort": -1, "protocol": "TCP"}]))]), &[
            "spec.containers[0].ports[0].containerPort: Required value",
            "spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
            "spec.containers[0].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive",
        ]),
        case("kubectl-validate error_enum_invalid protocol", podk, with(pod(), &[(&p("/ports/0/protocol"), json!("udp"))]),
            &["spec.containers[0].ports[0].protocol: Unsupported value: \"udp\": supported values: \"SCTP\", \"TCP\", \"UDP\""]),
        case("port names", podk, with(pod(), &[(&p("/ports"), json!([{"name": "Http_1", "containerPort": 80, "protocol": "TCP"}, {"name": "a", "containerPort": 81, "protocol": "TCP"}, {"name": "a", "containerPort": 82, "protocol": "TCP"}]))]), &[
            "spec.containers[0].ports[0].name: Invalid value: \"Http_1\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
            "spec.containers[0].ports[2].name: Duplicate value: \"a\"",
        ]),
        case("host port conflict", podk, with(pod(), &[(&p("/ports"), json!([{"containerPort": 80, "hostPort": 80, "protocol": "TCP"}, {"containerPort": 81, "hostPort": 80, "protocol": "TCP"}]))]),
            &["spec.containers[0].ports[1].hostPort: Duplicate value: \"TCP//80\""]),
        case("hostNetwork pod hostPort must match", podk, with(pod(), &[("/spec/hostNetwork", json!(true)), (&p("/ports/0/hostPort"), json!(9000))]),
            &["spec.containers[0].ports[0].hostPort: Invalid value: 9000: must match `containerPort` when `hostNetwork` is true"]),
        at_minor(case("env name before relaxed validation (1.31)", podk, with(pod(), &[(&p("/env/0/name"), json!("1BAD"))]),
            &[&format!("spec.containers[0].env[0].name: Invalid value: \"1BAD\": {ENV_MSG}")]), 31),
        case("env name relaxed (1.35)", podk, with(pod(), &[(&p("/env/0/name"), json!("1BAD"))]), &[]),
        case("env name with '=' (1.35)", podk, with(pod(), &[(&p("/env/0/name"), json!("A=B"))]),
            &["spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='"]),
        case("env name required, value with valueFrom", podk, with(pod(), &[(&p("/env/0/name"), json!("")), (&p("/env/1/value"), json!("x"))]), &[
            "spec.containers[0].env[0].name: Required value",
            "spec.containers[0].env[1].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty",
        ]),
        case("env valueFrom two sources", podk, with(pod(), &[(&p("/env/1/valueFrom/secretKeyRef"), json!({"name": "s", "key": "k"}))]),
            &["spec.containers[0].env[1].valueFrom: Invalid value: \"\": may not have more than one field specified at a time"]),
        case("envFrom needs a source", podk, with(pod(), &[(&p("/envFrom"), json!([{"prefix": "X_"}]))]),
            &["spec.containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`"]),
        case("volume mount not found, mountPath unique", podk, with(pod(), &[(&p("/volumeMounts"), json!([{"name": "config", "mountPath": "/a"}, {"name": "nope", "mountPath": "/a"}, {"name": "config", "mountPath": ""}]))]), &[
            "spec.containers[0].volumeMounts[1].name: Not found: \"nope\"",
            "spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/a\": must be unique",
            "spec.containers[0].volumeMounts[2].mountPath: Required value",
        ]),
        case("volumes: duplicate name, two sources", podk, with(pod(), &[("/spec/volumes", json!([
            {"name": "config", "configMap": {"name": "c", "defaultMode": 420}},
            {"name": "config", "emptyDir": {}},
            {"name": "two", "emptyDir": {}, "secret": {"secretName": "s", "defaultMode": 420}}]))]), &[
            "spec.volumes[1].name: Duplicate value: \"config\"",
            "spec.volumes[2].secret: Forbidden: may not specify more than 1 volume type",
        ]),
        case("volume secretName required, name invalid", podk, with(pod(), &[("/spec/volumes/0", json!({"name": "Config", "secret": {"defaultMode": 420}}))]), &[
            "spec.volumes[0].secret.secretName: Required value",
            &format!("spec.volumes[0].name: Invalid value: \"Config\": {LABEL_MSG}"),
            "spec.containers[0].volumeMounts[0].name: Not found: \"config\"",
        ]),
        case("requests above limits", podk, with(pod(), &[(&p("/resources/requests/cpu"), json!("2")), (&p("/resources/limits/cpu"), json!("1"))]),
            &["spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1"]),
        case("requests above limits canonical", podk, with(pod(), &[(&p("/resources/requests/memory"), json!("0.5Gi"))]),
            &["spec.containers[0].resources.requests: Invalid value: \"512Mi\": must be less than or equal to memory limit of 256Mi"]),
        case("negative request", podk, with(pod(), &[(&p("/resources/requests/cpu"), json!("-1"))]),
            &["spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0"]),
        case("non-standard resource name", podk, with(pod(), &[(&p("/resources/limits/foo"), json!("1"))]), &[
            "spec.containers[0].resources.limits[foo]: Invalid value: \"foo\": must be a standard resource type or fully qualified",
            "spec.containers[0].resources.limits[foo]: Invalid value: \"foo\": must be a standard resource for containers",
        ]),
        case("extended resource request must equal limit", podk, with(pod(), &[(&p("/resources/requests"), json!({"cpu": "100m", "example.com/gpu": "2"})), (&p("/resources/limits"), json!({"cpu": "500m", "example.com/gpu": "1"}))]),
            &["spec.containers[0].resources.requests: Invalid value: \"2\": must be equal to example.com/gpu limit of 1"]),
        case("probe without handler", podk, with(pod(), &[(&p("/livenessProbe/tcpSocket"), Value::Null)]),
            &["spec.containers[0].livenessProbe: Required value: must specify a handler type"]),
        case("probe with two handlers", podk, with(pod(), &[(&p("/livenessProbe/exec"), json!({"command": ["true"]}))]),
            &["spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"]),
        case("probe numbers", podk, with(pod(), &[(&p("/livenessProbe/successThreshold"), json!(2)), (&p("/readinessProbe/periodSeconds"), json!(-1))]), &[
            "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
            "spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
        ]),
        case("httpGet port and scheme", podk, with(pod(), &[(&p("/readinessProbe/httpGet/port"), json!(0)), (&p("/readinessProbe/httpGet/scheme"), json!("FTP"))]), &[
            "spec.containers[0].readinessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive",
            "spec.containers[0].readinessProbe.httpGet.scheme: Unsupported value: \"FTP\": supported values: \"HTTP\", \"HTTPS\"",
        ]),
        case("restartPolicy and dnsPolicy enums", podk, with(pod(), &[("/spec/restartPolicy", json!("Sometimes")), ("/spec/dnsPolicy", json!("Google"))]), &[
            "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"",
            "spec.dnsPolicy: Unsupported value: \"Google\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\"",
        ]),
        case("nodeSelector and tolerations", podk, with(pod(), &[("/spec/nodeSelector", json!({"disk": "-ssd"})), ("/spec/tolerations", json!([{"key": "k", "operator": "Maybe", "effect": "NoRun"}]))]), &[
            &format!("spec.nodeSelector: Invalid value: \"-ssd\": {LABEL_VALUE_MSG}"),
            "spec.tolerations[0].operator: Unsupported value: \"Maybe\": supported values: \"Equal\", \"Exists\"",
            "spec.tolerations[0].effect: Unsupported value: \"NoRun\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
        ]),
        case("securityContext ids", podk, with(pod(), &[("/spec/securityContext/runAsUser", json!(-1)), (&p("/securityContext"), json!({"runAsGroup": -5}))]), &[
            "spec.containers[0].securityContext.runAsGroup: Invalid value: -5: must be between 0 and 2147483647, inclusive",
            "spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
        ]),
        // ---- workloads (rules 35–42) ----
        case("selector required", deploy(), with(deployment(), &[("/spec/selector", Value::Null)]), &["spec.selector: Required value"]),
        case("empty selector", deploy(), with(deployment(), &[("/spec/selector", json!({}))]),
            &["spec.selector: Invalid value: {}: empty selector is invalid for deployment"]),
        case("negative replicas and friends", deploy(), with(deployment(), &[("/spec/replicas", json!(-1)), ("/spec/revisionHistoryLimit", json!(-2)), ("/spec/minReadySeconds", json!(700))]), &[
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
            "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds",
        ]),
        case("maxUnavailable and maxSurge both 0", deploy(), with(deployment(), &[("/spec/strategy/rollingUpdate", json!({"maxUnavailable": 0, "maxSurge": "0%"}))]),
            &["spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"]),
        case("maxUnavailable over 100% and bad percent", deploy(), with(deployment(), &[("/spec/strategy/rollingUpdate", json!({"maxUnavailable": "150%", "maxSurge": "x%"}))]), &[
            "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"x%\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
            "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"150%\": must not be greater than 100%",
        ]),
        case("Recreate with rollingUpdate", deploy(), with(deployment(), &[("/spec/strategy/type", json!("Recreate"))]),
            &["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]),
        case("template restartPolicy must be Always", deploy(), with(deployment(), &[(&format!("{T}/restartPolicy"), json!("OnFailure"))]),
            &["spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\""]),
        case("template labels path quirk", deploy(), with(deployment(), &[("/spec/template/metadata/labels/bad key", json!("v"))]),
            &["spec.template.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]),
        case("statefulset podManagementPolicy", kind("apps", "v1", "StatefulSet"), with(stateful_set(), &[("/spec/podManagementPolicy", json!("Random"))]),
            &["spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"]),
        case("daemonset surge and unavailable", kind("apps", "v1", "DaemonSet"), with(daemon_set(), &[("/spec/updateStrategy/rollingUpdate/maxSurge", json!(1))]),
            &["spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"]),
        // ---- Service (rules 43–49) ----
        case("service ports required", svck, with(service(), &[("/spec/ports", json!([]))]), &["spec.ports: Required value"]),
        case("service port names and range", svck, with(service(), &[("/spec/ports/0/name", json!("")), ("/spec/ports/1/name", json!("Metrics")), ("/spec/ports/1/port", json!(0))]), &[
            "spec.ports[0].name: Required value",
            &format!("spec.ports[1].name: Invalid value: \"Metrics\": {LABEL_MSG}"),
            "spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive",
        ]),
        case("service duplicate port name", svck, with(service(), &[("/spec/ports/1/name", json!("http"))]), &["spec.ports[1].name: Duplicate value: \"http\""]),
        case("service targetPort", svck, with(service(), &[("/spec/ports/0/targetPort", json!("--1"))]), &[
            "spec.ports[0].targetPort: Invalid value: \"--1\": must contain at least one letter (a-z)",
            "spec.ports[0].targetPort: Invalid value: \"--1\": must not contain consecutive hyphens",
            "spec.ports[0].targetPort: Invalid value: \"--1\": must not begin or end with a hyphen",
        ]),
        case("service type", svck, with(service(), &[("/spec/type", json!("Foo"))]),
            &["spec.type: Unsupported value: \"Foo\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\""]),
        case("nodePort with ClusterIP", svck, with(service(), &[("/spec/ports/0/nodePort", json!(30080))]),
            &["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]),
        case("ExternalName", svck, json!({"metadata": {"name": "ext"}, "spec": {"type": "ExternalName", "sessionAffinity": "None", "externalName": "Bad_Name"}}),
            &[&format!("spec.externalName: Invalid value: \"Bad_Name\": {SUBDOMAIN_MSG}")]),
        case("ExternalName required", svck, json!({"metadata": {"name": "ext"}, "spec": {"type": "ExternalName", "sessionAffinity": "None"}}),
            &["spec.externalName: Required value"]),
        case("service protocol", svck, with(service(), &[("/spec/ports/0/protocol", json!("HTTP"))]),
            &["spec.ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\""]),
        // ---- Ingress (rules 50–52) ----
        case("ingress pathType required", kind("networking.k8s.io", "v1", "Ingress"), with(ingress(), &[("/spec/rules/0/http/paths/0/pathType", Value::Null)]),
            &["spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"]),
        case("ingress path absolute", kind("networking.k8s.io", "v1", "Ingress"), with(ingress(), &[("/spec/rules/0/http/paths/0/path", json!("foo"))]),
            &["spec.rules[0].http.paths[0].path: Invalid value: \"foo\": must be an absolute path"]),
        case("ingress host", kind("networking.k8s.io", "v1", "Ingress"), with(ingress(), &[("/spec/rules/0/host", json!("Web.Example.com"))]),
            &[&format!("spec.rules[0].host: Invalid value: \"Web.Example.com\": {SUBDOMAIN_MSG}")]),
        case("ingress host IP", kind("networking.k8s.io", "v1", "Ingress"), with(ingress(), &[("/spec/rules/0/host", json!("10.0.0.1"))]),
            &["spec.rules[0].host: Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address"]),
        case("ingress wildcard host ok", kind("networking.k8s.io", "v1", "Ingress"), with(ingress(), &[("/spec/rules/0/host", json!("*.example.com"))]), &[]),
        case("ingress backend both / port missing", kind("networking.k8s.io", "v1", "Ingress"), with(ingress(), &[
            ("/spec/rules/0/http/paths/0/backend/resource", json!({"kind": "Bucket", "name": "b"})),
            ("/spec/rules/0/http/paths/1/backend/service/port", json!({}))]), &[
            "spec.rules[0].http.paths[0].backend: Invalid value: \"\": cannot set both resource and service backends",
            "spec.rules[0].http.paths[1].backend: Required value: port name or number is required",
        ]),
        // ---- batch (rules 53–55) ----
        case("cronjob schedule required", kind("batch", "v1", "CronJob"), with(cron_job(), &[("/spec/schedule", json!(""))]), &["spec.schedule: Required value"]),
        case("cronjob bad schedule", kind("batch", "v1", "CronJob"), with(cron_job(), &[("/spec/schedule", json!("61 * * * *"))]),
            &["spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61"]),
        case("cronjob field count", kind("batch", "v1", "CronJob"), with(cron_job(), &[("/spec/schedule", json!("* * *"))]),
            &["spec.schedule: Invalid value: \"* * *\": expected exactly 5 fields, found 3: [* * *]"]),
        case("cronjob descriptor", kind("batch", "v1", "CronJob"), with(cron_job(), &[("/spec/schedule", json!("@hourly"))]), &[]),
        case("cronjob TZ in schedule", kind("batch", "v1", "CronJob"), with(cron_job(), &[("/spec/schedule", json!("CRON_TZ=UTC 0 3 * * *"))]),
            &["spec.schedule: Invalid value: \"CRON_TZ=UTC 0 3 * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead"]),
        case("cronjob concurrencyPolicy and name length", kind("batch", "v1", "CronJob"), with(cron_job(), &[("/metadata/name", json!("a".repeat(53))), ("/spec/concurrencyPolicy", json!("Sometimes"))]), &[
            "spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", \"Replace\"",
            &format!("metadata.name: Invalid value: \"{}\": must be no more than 52 characters", "a".repeat(53)),
        ]),
        case("cronjob timeZone Local", kind("batch", "v1", "CronJob"), with(cron_job(), &[("/spec/timeZone", json!("Local"))]),
            &["spec.timeZone: Invalid value: \"Local\": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"]),
        case("job negatives", kind("batch", "v1", "Job"), with(job(), &[("/spec/parallelism", json!(-1)), ("/spec/completions", json!(-2)), ("/spec/backoffLimit", json!(-3))]), &[
            "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
            "spec.completions: Invalid value: -2: must be greater than or equal to 0",
            "spec.backoffLimit: Invalid value: -3: must be greater than or equal to 0",
        ]),
        case("job restartPolicy defaulted to Always", kind("batch", "v1", "Job"), with(job(), &[(&format!("{T}/restartPolicy"), json!("Always"))]),
            &["spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""]),
        case("job completionMode", kind("batch", "v1", "Job"), with(job(), &[("/spec/completionMode", json!("Sometimes"))]),
            &["spec.completionMode: Unsupported value: \"Sometimes\": supported values: \"NonIndexed\", \"Indexed\""]),
        case("cronjob job template restartPolicy", kind("batch", "v1", "CronJob"), with(cron_job(), &[("/spec/jobTemplate/spec/template/spec/restartPolicy", json!("Always"))]),
            &["spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""]),
        // ---- policy / RBAC (rules 56–58) ----
        case("pdb both set", kind("policy", "v1", "PodDisruptionBudget"), with(pdb(), &[("/spec/maxUnavailable", json!(1))]),
            &["spec: Invalid value: {\"maxUnavailable\":1,\"minAvailable\":\"50%\",\"selector\":{\"matchLabels\":{\"app\":\"web\"}}}: minAvailable and maxUnavailable cannot be both set"]),
        case("pdb percent and negative", kind("policy", "v1", "PodDisruptionBudget"), with(pdb(), &[("/spec/minAvailable", json!("120%"))]),
            &["spec.minAvailable: Invalid value: \"120%\": must not be greater than 100%"]),
        case("pdb negative", kind("policy", "v1", "PodDisruptionBudget"), with(pdb(), &[("/spec/minAvailable", json!(-1))]),
            &["spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"]),
        case("rbac rule requirements", kind("rbac.authorization.k8s.io", "v1", "Role"), with(role(), &[("/rules", json!([{"resources": ["pods"]}, {"verbs": ["get"], "nonResourceURLs": ["/healthz"], "resources": ["pods"]}]))]), &[
            "rules[0].verbs: Required value: verbs must contain at least one value",
            "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
            "rules[1].nonResourceURLs: Invalid value: [\"/healthz\"]: namespaced rules cannot apply to non-resource URLs",
            "rules[1].nonResourceURLs: Invalid value: [\"/healthz\"]: rules cannot apply to both regular resources and non-resource URLs",
        ]),
        case("clusterrole allows nonResourceURLs", kind("rbac.authorization.k8s.io", "v1", "ClusterRole"), json!({"metadata": {"name": "health"}, "rules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}), &[]),
        case("rolebinding roleRef and subjects", kind("rbac.authorization.k8s.io", "v1", "RoleBinding"), with(role_binding(), &[("/roleRef/kind", json!("Foo")), ("/roleRef/name", json!("")), ("/subjects", json!([{"kind": "Robot", "name": "r"}, {"kind": "User", "name": "u", "apiGroup": ""}]))]), &[
            "roleRef.kind: Unsupported value: \"Foo\": supported values: \"Role\", \"ClusterRole\"",
            "roleRef.name: Required value",
            "subjects[0].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
            "subjects[1].apiGroup: Unsupported value: \"\": supported values: \"rbac.authorization.k8s.io\"",
        ]),
        case("clusterrolebinding: ClusterRole only, SA namespace", kind("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"), with(cluster_role_binding(), &[("/roleRef/kind", json!("Role")), ("/subjects/0/namespace", Value::Null)]), &[
            "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
            "subjects[0].namespace: Required value",
        ]),
        // ---- HPA, PVC, StorageClass, NetworkPolicy ----
        case("hpa replicas and target", kind("autoscaling", "v2", "HorizontalPodAutoscaler"), with(hpa(), &[("/spec/minReplicas", json!(0)), ("/spec/maxReplicas", json!(0)), ("/spec/scaleTargetRef/name", json!(""))]), &[
            "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
            "spec.maxReplicas: Invalid value: 0: must be greater than 0",
            "spec.scaleTargetRef.name: Required value",
        ]),
        case("hpa metrics", kind("autoscaling", "v2", "HorizontalPodAutoscaler"), with(hpa(), &[("/spec/metrics", json!([
            {"type": "Pods", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 0}}}]))]), &[
            "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
            "spec.metrics[0].pods: Required value: must populate information for the given metric source",
        ]),
        case("hpa two metric sources", kind("autoscaling", "v2", "HorizontalPodAutoscaler"), with(hpa(), &[("/spec/metrics/0/pods", json!({"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}))]),
            &["spec.metrics[0].Pods: Forbidden: must populate the given metric source only"]),
        case("pvc requirements", kind("", "v1", "PersistentVolumeClaim"), with(pvc(), &[("/spec/accessModes", json!([])), ("/spec/resources", json!({}))]), &[
            "spec.accessModes: Required value: at least 1 access mode is required",
            "spec.resources[storage]: Required value",
        ]),
        case("pvc access mode", kind("", "v1", "PersistentVolumeClaim"), with(pvc(), &[("/spec/accessModes", json!(["ReadWriteAlways"]))]),
            &["spec.accessModes: Unsupported value: \"ReadWriteAlways\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\""]),
        case("storageclass provisioner and reclaimPolicy", kind("storage.k8s.io", "v1", "StorageClass"), with(storage_class(), &[("/provisioner", json!("")), ("/reclaimPolicy", json!("Recycle"))]), &[
            "provisioner: Required value",
            "reclaimPolicy: Unsupported value: \"Recycle\": supported values: \"Delete\", \"Retain\"",
        ]),
        case("networkpolicy port and peer", kind("networking.k8s.io", "v1", "NetworkPolicy"), with(network_policy(), &[("/spec/ingress/0/ports/0/protocol", json!("ICMP")), ("/spec/ingress/0/from/1", json!({}))]), &[
            "spec.ingress[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"TCP\", \"UDP\", \"SCTP\"",
            "spec.ingress[0].from[1]: Required value: must specify a peer",
        ]),
    ]
}

#[test]
fn native_validation_table() {
    let mut failures = Vec::new();
    let cases = cases();
    for c in &cases {
        let got: Vec<String> = validate(c.kind, &c.object, c.minor)
            .iter()
            .map(ToString::to_string)
            .collect();
        if got != c.expected {
            failures.push(format!(
                "case {:?}\n  expected: {:#?}\n  got:      {:#?}",
                c.name, c.expected, got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn never_panics_on_wrong_types() {
    let weird = json!({"metadata": 1, "spec": {"replicas": "x", "template": [1], "selector": "s",
        "ports": {"a": 1}, "containers": "c", "rules": 5}, "rules": [1, "x"], "roleRef": []});
    for (g, k) in [
        ("apps", "Deployment"),
        ("", "Pod"),
        ("", "Service"),
        ("batch", "CronJob"),
        ("batch", "Job"),
        ("networking.k8s.io", "Ingress"),
        ("rbac.authorization.k8s.io", "Role"),
        ("policy", "PodDisruptionBudget"),
        ("autoscaling", "HorizontalPodAutoscaler"),
        ("", "PersistentVolumeClaim"),
        ("storage.k8s.io", "StorageClass"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("networking.k8s.io", "NetworkPolicy"),
    ] {
        let _ = validate(kind(g, "v1", k), &weird, 35);
    }
}
