//! One test per UPDATE rule, with the server's texts.

use super::validate_update;
use crate::Kind;
use serde_json::{json, Value};

fn errors(group: &str, kind: &str, new: Value, old: Value) -> Vec<String> {
    let kind = Kind {
        group,
        version: "v1",
        kind,
    };
    validate_update(kind, &new, &old, 35)
        .iter()
        .map(|e| e.to_string())
        .collect()
}

fn meta() -> Value {
    json!({"name": "x", "namespace": "default"})
}

#[test]
fn deployment_selector_is_immutable() {
    let d = |app: &str| json!({"metadata": meta(), "spec": {"selector": {"matchLabels": {"app": app}}}});
    assert!(errors("apps", "Deployment", d("a"), d("a")).is_empty());
    assert_eq!(
        errors("apps", "Deployment", d("b"), d("a")),
        ["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"b\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"]
    );
}

#[test]
fn replica_set_and_daemon_set_selectors_are_immutable() {
    let new = json!({"metadata": meta(), "spec": {"selector": {"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]}}});
    let old =
        json!({"metadata": meta(), "spec": {"selector": {"matchLabels": {"a": "1", "b": "2"}}}});
    for kind in ["ReplicaSet", "DaemonSet"] {
        assert_eq!(
            errors("apps", kind, new.clone(), old.clone()),
            ["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:\"k\", Operator:\"In\", Values:[]string{\"v\"}}}}: field is immutable"]
        );
    }
}

#[test]
fn statefulset_spec_fields_other_than_the_mutable_ones_are_forbidden() {
    let s = |replicas: i64, service: &str| json!({"metadata": meta(), "spec": {"replicas": replicas, "serviceName": service, "template": {"metadata": {"labels": {"r": replicas.to_string()}}}}});
    assert!(errors("apps", "StatefulSet", s(3, "a"), s(1, "a")).is_empty());
    assert_eq!(
        errors("apps", "StatefulSet", s(1, "b"), s(1, "a")),
        ["spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]
    );
}

#[test]
fn job_template_selector_and_completions() {
    let old = json!({"metadata": meta(), "spec": {"completions": 2,
        "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u"}},
        "template": {"metadata": {"labels": {"batch.kubernetes.io/controller-uid": "u", "app": "a"}},
            "spec": {"containers": [{"name": "c", "image": "i:1"}]}}}});
    // The manifest leaves out what the server generated: no change.
    let same = json!({"metadata": meta(), "spec": {"completions": 2,
        "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i:1"}]}}}});
    assert!(errors("batch", "Job", same.clone(), old.clone()).is_empty());
    let mut changed = same.clone();
    changed["spec"]["completions"] = json!(3);
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = json!("i:2");
    assert_eq!(
        errors("batch", "Job", changed, old.clone()),
        [
            "spec.completions: Invalid value: 3: field is immutable",
            "spec.template: Invalid value: core.PodTemplateSpec{…}: field is immutable",
        ]
    );
    // A suspended Job that never ran may change its template's labels.
    let mut suspended = old.clone();
    suspended["spec"]["suspend"] = json!(true);
    let mut relabelled = same;
    relabelled["spec"]["suspend"] = json!(true);
    relabelled["spec"]["template"]["metadata"]["labels"]["app"] = json!("b");
    assert!(errors("batch", "Job", relabelled, suspended).is_empty());
}

#[test]
fn indexed_job_completions_change_with_parallelism_only() {
    let j = |c: i64, p: i64| json!({"metadata": meta(), "spec": {"completionMode": "Indexed", "completions": c, "parallelism": p}});
    assert!(errors("batch", "Job", j(4, 4), j(2, 2)).is_empty());
    assert_eq!(
        errors("batch", "Job", j(4, 2), j(2, 2)),
        ["spec.completions: Invalid value: 4: can only be modified in tandem with spec.parallelism"]
    );
}

#[test]
fn service_cluster_ips_may_not_change() {
    let svc = |ip: Option<&str>| {
        let mut s = json!({"metadata": meta(), "spec": {"type": "ClusterIP"}});
        if let Some(ip) = ip {
            s["spec"]["clusterIP"] = json!(ip);
            s["spec"]["clusterIPs"] = json!([ip]);
        }
        s
    };
    assert!(errors("", "Service", svc(None), svc(Some("10.0.0.1"))).is_empty());
    assert_eq!(
        errors("", "Service", svc(Some("10.0.0.2")), svc(Some("10.0.0.1"))),
        ["spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.2\"}: may not change once set"]
    );
    let mut external = svc(Some("10.0.0.2"));
    external["spec"]["type"] = json!("ExternalName");
    assert!(errors("", "Service", external, svc(Some("10.0.0.1"))).is_empty());
}

#[test]
fn service_secondary_cluster_ip_release_needs_single_stack() {
    let old = json!({"metadata": meta(), "spec": {"clusterIPs": ["10.0.0.1", "fd00::1"]}});
    let new = json!({"metadata": meta(), "spec": {"clusterIPs": ["10.0.0.1"], "ipFamilyPolicy": "PreferDualStack"}});
    assert_eq!(
        errors("", "Service", new, old.clone()),
        ["spec.ipFamilyPolicy: Invalid value: \"PreferDualStack\": must be set to 'SingleStack' when releasing the secondary clusterIP"]
    );
}

#[test]
fn service_ip_families_and_load_balancer_class() {
    let old = json!({"metadata": meta(), "spec": {"type": "LoadBalancer", "loadBalancerClass": "a/b",
        "clusterIPs": ["10.0.0.1", "fd00::1"], "ipFamilies": ["IPv4", "IPv6"], "ipFamilyPolicy": "PreferDualStack"}});
    // The manifest leaves the allocated values out: nothing changed.
    let manifest =
        json!({"metadata": meta(), "spec": {"type": "LoadBalancer", "loadBalancerClass": "a/b"}});
    assert!(errors("", "Service", manifest.clone(), old.clone()).is_empty());
    let mut swapped = manifest.clone();
    swapped["spec"]["ipFamilies"] = json!(["IPv6", "IPv4"]);
    swapped["spec"]["loadBalancerClass"] = json!("c/d");
    assert_eq!(
        errors("", "Service", swapped, old.clone()),
        [
            "spec.ipFamilies[0]: Invalid value: []core.IPFamily{\"IPv6\", \"IPv4\"}: may not change once set",
            "spec.ipFamilies[0]: Invalid value: []core.IPFamily{\"IPv6\", \"IPv4\"}: may not change once set",
            "spec.loadBalancerClass: Invalid value: \"c/d\": may not change once set",
        ]
    );
    let mut released = manifest.clone();
    released["spec"]["clusterIPs"] = json!(["10.0.0.1"]);
    released["spec"]["ipFamilies"] = json!(["IPv4"]);
    assert_eq!(
        errors("", "Service", released.clone(), old.clone()),
        [
            "spec.ipFamilyPolicy: Invalid value: \"PreferDualStack\": must be set to 'SingleStack' when releasing the secondary clusterIP",
            "spec.ipFamilyPolicy: Invalid value: \"PreferDualStack\": must be set to 'SingleStack' when releasing the secondary ipFamily",
        ]
    );
    released["spec"]["ipFamilyPolicy"] = json!("SingleStack");
    assert!(errors("", "Service", released, old.clone()).is_empty());
    // To or from ExternalName, the cluster IPs and families go.
    let external = json!({"metadata": meta(), "spec": {"type": "ExternalName", "externalName": "x.example.com"}});
    assert!(errors("", "Service", external, old).is_empty());
}

#[test]
fn immutable_config_map() {
    let cm = |data: &str, immutable: bool| json!({"metadata": meta(), "immutable": immutable, "data": {"k": data}});
    assert!(errors("", "ConfigMap", cm("b", false), cm("a", false)).is_empty());
    assert_eq!(
        errors("", "ConfigMap", cm("b", false), cm("a", true)),
        [
            "immutable: Forbidden: field is immutable when `immutable` is set",
            "data: Forbidden: field is immutable when `immutable` is set",
        ]
    );
}

#[test]
fn secret_type_and_immutable_data() {
    let old =
        json!({"metadata": meta(), "type": "Opaque", "immutable": true, "data": {"k": "YQ=="}});
    // stringData is merged into data: "a" is "YQ==".
    let same = json!({"metadata": meta(), "immutable": true, "stringData": {"k": "a"}});
    assert!(errors("", "Secret", same, old.clone()).is_empty());
    let changed = json!({"metadata": meta(), "type": "kubernetes.io/tls", "immutable": true, "data": {"k": "Yg=="}});
    assert_eq!(
        errors("", "Secret", changed, old),
        [
            "type: Invalid value: \"kubernetes.io/tls\": field is immutable",
            "data: Forbidden: field is immutable when `immutable` is set",
        ]
    );
}

fn pvc(size: &str, class: &str, phase: &str) -> Value {
    json!({"metadata": meta(),
    "spec": {"storageClassName": class, "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}},
    "status": {"phase": phase, "capacity": {"storage": "1Gi"}}})
}

const PVC_FIXED: &str = "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims";

#[test]
fn pvc_spec_is_immutable_but_for_a_bound_claims_storage_request() {
    let claim = "PersistentVolumeClaim";
    assert!(errors(
        "",
        claim,
        pvc("2Gi", "a", "Bound"),
        pvc("1Gi", "a", "Bound")
    )
    .is_empty());
    assert_eq!(
        errors("", claim, pvc("2Gi", "a", "Pending"), pvc("1Gi", "a", "Pending")),
        [format!("{PVC_FIXED}\n- spec.resources.requests.storage: \"1Gi\"\n+ spec.resources.requests.storage: \"2Gi\"")]
    );
    assert_eq!(
        errors(
            "",
            claim,
            pvc("1Gi", "b", "Bound"),
            pvc("1Gi", "a", "Bound")
        ),
        [format!(
            "{PVC_FIXED}\n- spec.storageClassName: \"a\"\n+ spec.storageClassName: \"b\""
        )]
    );
    // The same quantity written differently is no change.
    assert!(errors(
        "",
        claim,
        pvc("1024Mi", "a", "Pending"),
        pvc("1Gi", "a", "Pending")
    )
    .is_empty());
}

#[test]
fn pvc_fields_the_cluster_filled_in_are_kept() {
    let mut old = pvc("1Gi", "standard", "Bound");
    old["spec"]["volumeName"] = json!("pv-1");
    let mut manifest = pvc("1Gi", "standard", "Bound");
    manifest["spec"]
        .as_object_mut()
        .unwrap()
        .shift_remove("storageClassName");
    assert!(errors("", "PersistentVolumeClaim", manifest, old).is_empty());
}

#[test]
fn pvc_storage_request_may_not_shrink() {
    let kind = Kind {
        group: "",
        version: "v1",
        kind: "PersistentVolumeClaim",
    };
    let shrink = |minor| -> Vec<String> {
        let mut old = pvc("2Gi", "a", "Bound");
        old["status"]["capacity"]["storage"] = json!("2Gi");
        validate_update(kind, &pvc("1Gi", "a", "Bound"), &old, minor)
            .iter()
            .map(|e| e.to_string())
            .collect()
    };
    // 1.30 and 1.31: never below the previous request.
    assert_eq!(
        shrink(31),
        ["spec.resources.requests.storage: Forbidden: field can not be less than previous value"]
    );
    // From 1.32 (RecoverVolumeExpansionFailure): down to just above the recorded capacity.
    assert_eq!(
        shrink(35),
        ["spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"]
    );
    let mut old = pvc("3Gi", "a", "Bound");
    old["status"]["capacity"]["storage"] = json!("1Gi");
    assert!(validate_update(kind, &pvc("2Gi", "a", "Bound"), &old, 35).is_empty());
}

#[test]
fn storage_class_updates() {
    let sc = |p: &str, mode: &str| {
        json!({"metadata": {"name": "x"}, "provisioner": p, "parameters": {"type": p},
        "reclaimPolicy": "Delete", "volumeBindingMode": mode})
    };
    assert_eq!(
        errors(
            "storage.k8s.io",
            "StorageClass",
            sc("b", "Immediate"),
            sc("a", "WaitForFirstConsumer")
        ),
        [
            "parameters: Forbidden: updates to parameters are forbidden.",
            "provisioner: Forbidden: updates to provisioner are forbidden.",
            "volumeBindingMode: Invalid value: \"Immediate\": field is immutable",
        ]
    );
}

#[test]
fn ingress_class_controller_is_immutable() {
    let ic = |c: &str| json!({"metadata": {"name": "x"}, "spec": {"controller": c}});
    assert_eq!(
        errors("networking.k8s.io", "IngressClass", ic("b/c"), ic("a/c")),
        ["spec.controller: Invalid value: \"b/c\": field is immutable"]
    );
}

#[test]
fn role_binding_role_ref_cannot_change() {
    let rb = |name: &str| json!({"metadata": meta(), "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name}});
    for kind in ["RoleBinding", "ClusterRoleBinding"] {
        assert_eq!(
            errors("rbac.authorization.k8s.io", kind, rb("edit"), rb("view")),
            ["roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", Name:\"edit\"}: cannot change roleRef"]
        );
    }
}

#[test]
fn object_meta_uid_is_immutable() {
    let cm = |uid: &str| json!({"metadata": {"name": "x", "namespace": "default", "uid": uid}});
    assert_eq!(
        errors("", "ConfigMap", cm("2"), cm("1")),
        ["metadata.uid: Invalid value: \"2\": field is immutable"]
    );
}

fn pod(spec: Value) -> Value {
    json!({"metadata": meta(), "spec": spec})
}

const POD_FIXED: &str = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

#[test]
fn pod_images_deadline_and_tolerations_may_change_nothing_else() {
    let old = pod(
        json!({"containers": [{"name": "c", "image": "i:1", "args": ["a"]}],
        "activeDeadlineSeconds": 30, "tolerations": [{"key": "k", "operator": "Exists"}]}),
    );
    let mut ok = old.clone();
    ok["spec"]["containers"][0]["image"] = json!("i:2");
    ok["spec"]["activeDeadlineSeconds"] = json!(10);
    ok["spec"]["tolerations"] =
        json!([{"key": "k", "operator": "Exists"}, {"key": "x", "operator": "Exists"}]);
    assert!(errors("", "Pod", ok, old.clone()).is_empty());
    let mut args = old.clone();
    args["spec"]["containers"][0]["args"] = json!(["b"]);
    assert_eq!(
        errors("", "Pod", args, old.clone()),
        [format!(
            "{POD_FIXED}\n- spec.containers[0].args[0]: \"a\"\n+ spec.containers[0].args[0]: \"b\""
        )]
    );
}

#[test]
fn pod_container_count_deadline_tolerations_and_gates() {
    let old = pod(json!({"containers": [{"name": "c", "image": "i"}],
        "activeDeadlineSeconds": 30, "tolerations": [{"key": "k", "operator": "Exists"}],
        "schedulingGates": [{"name": "g"}]}));
    let mut added = old.clone();
    added["spec"]["containers"] = json!([{"name": "c", "image": "i"}, {"name": "d", "image": "i"}]);
    assert_eq!(
        errors("", "Pod", added, old.clone()),
        ["spec.containers: Forbidden: pod updates may not add or remove containers"]
    );
    let mut raised = old.clone();
    raised["spec"]["activeDeadlineSeconds"] = json!(60);
    assert_eq!(
        errors("", "Pod", raised, old.clone()),
        ["spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value"]
    );
    let mut changed = old.clone();
    changed["spec"]["tolerations"] = json!([{"key": "k", "operator": "Equal", "value": "v"}]);
    changed["spec"]["schedulingGates"] = json!([{"name": "h"}]);
    assert_eq!(
        errors("", "Pod", changed, old.clone()),
        [
            "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds",
            "spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'h'",
        ]
    );
    let mut ungated = old.clone();
    ungated["spec"]["schedulingGates"] = json!([]);
    ungated["spec"]["tolerations"][0]["tolerationSeconds"] = json!(5);
    assert!(errors("", "Pod", ungated, old).is_empty());
}

#[test]
fn pod_fields_the_server_filled_in_are_kept_and_quantities_compare_by_value() {
    // The stored Pod (`kubectl get -o yaml`) has its node, service account, token volume
    // and default tolerations; the manifest has none of them.
    let old = pod(json!({"nodeName": "n1", "serviceAccountName": "default",
        "volumes": [{"name": "kube-api-access-x", "projected": {"sources": []}}],
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
        "containers": [{"name": "c", "image": "i", "resources": {"limits": {"memory": "1Gi"}},
            "volumeMounts": [{"name": "kube-api-access-x", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}]}]}));
    let manifest = pod(
        json!({"containers": [{"name": "c", "image": "i", "resources": {"limits": {"memory": "1024Mi"}}}]}),
    );
    assert!(errors("", "Pod", manifest, old).is_empty());
}

#[test]
fn pod_grace_period_may_go_from_negative_to_one() {
    let old = pod(
        json!({"containers": [{"name": "c", "image": "i"}], "terminationGracePeriodSeconds": -1}),
    );
    let mut one = old.clone();
    one["spec"]["terminationGracePeriodSeconds"] = json!(1);
    assert!(errors("", "Pod", one, old.clone()).is_empty());
    let mut two = old.clone();
    two["spec"]["terminationGracePeriodSeconds"] = json!(2);
    assert_eq!(
        errors("", "Pod", two, old),
        [format!("{POD_FIXED}\n- spec.terminationGracePeriodSeconds: -1\n+ spec.terminationGracePeriodSeconds: 2")]
    );
}

#[test]
fn quantities_written_differently_are_no_change() {
    let sts = |size: &str| {
        json!({"metadata": meta(), "spec": {"serviceName": "s",
        "volumeClaimTemplates": [{"metadata": {"name": "d"}, "spec": {"resources": {"requests": {"storage": size}}}}]}})
    };
    assert!(errors("apps", "StatefulSet", sts("1024Mi"), sts("1Gi")).is_empty());
    assert_eq!(
        errors("apps", "StatefulSet", sts("2Gi"), sts("1Gi")).len(),
        1
    );
    let job = |cpu: &str| {
        json!({"metadata": meta(), "spec": {"selector": {"matchLabels": {"a": "b"}},
        "template": {"spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": cpu}}}]}}}})
    };
    assert!(errors("batch", "Job", job("500m"), job("0.5")).is_empty());
}

#[test]
fn persistent_volume_source_mode_and_node_affinity_are_immutable() {
    let pv = |path: &str, mode: &str| {
        json!({"metadata": {"name": "pv"}, "spec": {
        "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "volumeMode": mode,
        "hostPath": {"path": path},
        "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": [path]}]}]}}}})
    };
    let mut resized = pv("/a", "Filesystem");
    resized["spec"]["capacity"]["storage"] = json!("2Gi");
    assert!(errors("", "PersistentVolume", resized, pv("/a", "Filesystem")).is_empty());
    assert_eq!(
        errors("", "PersistentVolume", pv("/b", "Block"), pv("/a", "Filesystem")),
        [
            "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n- spec.hostPath.path: \"/a\"\n+ spec.hostPath.path: \"/b\"",
            "volumeMode: Invalid value: \"Block\": field is immutable",
            "nodeAffinity: Invalid value: core.VolumeNodeAffinity{…}: field is immutable",
        ]
    );
    // A CSI volume may gain a controller expand secret.
    let csi = |secret: bool| {
        let mut v = json!({"metadata": {"name": "pv"}, "spec": {"csi": {"driver": "d", "volumeHandle": "h"}}});
        if secret {
            v["spec"]["csi"]["controllerExpandSecretRef"] = json!({"name": "s", "namespace": "n"});
        }
        v
    };
    assert!(errors("", "PersistentVolume", csi(true), csi(false)).is_empty());
    assert_eq!(
        errors("", "PersistentVolume", csi(false), csi(true)).len(),
        1
    );
}
