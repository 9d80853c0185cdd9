//! Edge cases of matching beyond `matching_test.go`: subresource forms, excludes,
//! scope, resourceNames, selectors, defaults and the policy/binding intersection.

use super::equivalence::gvk;
use super::*;
use serde_json::json;

fn pod_request<'a>(operation: &'a str, subresource: &'a str) -> Request<'a> {
    Request {
        operation,
        kind: gvk("", "v1", "Pod"),
        resource: Gvr::new("", "v1", "pods"),
        subresource,
        name: "web",
        namespace: "default",
        ..Request::default()
    }
}

fn rule(resources: &[&str]) -> Value {
    json!({"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": resources})
}

fn rules_match(rules: Value, request: &Request) -> bool {
    matches(&json!({ "resourceRules": rules }), request).unwrap()
}

#[test]
fn subresource_forms() {
    let main = pod_request("UPDATE", "");
    let status = pod_request("UPDATE", "status");
    for (entry, on_main, on_status) in [
        ("pods", true, false),
        ("*", true, false),
        ("pods/status", false, true),
        ("*/status", false, true),
        // `sub == "*"` also accepts the empty subresource: `pods/*` covers pods itself.
        ("pods/*", true, true),
        ("*/*", true, true),
        ("pods/log", false, false),
        ("deployments/*", false, false),
    ] {
        assert_eq!(
            rules_match(json!([rule(&[entry])]), &main),
            on_main,
            "{entry} main"
        );
        assert_eq!(
            rules_match(json!([rule(&[entry])]), &status),
            on_status,
            "{entry} status"
        );
    }
}

#[test]
fn operations_groups_versions() {
    let request = pod_request("DELETE", "");
    let with = |ops: Value, groups: Value, versions: Value| json!([{"operations": ops, "apiGroups": groups, "apiVersions": versions, "resources": ["pods"]}]);
    assert!(rules_match(
        with(json!(["DELETE"]), json!([""]), json!(["v1"])),
        &request
    ));
    assert!(!rules_match(
        with(json!(["CREATE", "UPDATE"]), json!([""]), json!(["v1"])),
        &request
    ));
    assert!(!rules_match(
        with(json!(["*"]), json!(["apps"]), json!(["v1"])),
        &request
    ));
    assert!(!rules_match(
        with(json!(["*"]), json!([""]), json!(["v2"])),
        &request
    ));
    // Empty lists match nothing (`[{}]` is matching_test-20).
    assert!(!rules_match(
        with(json!([]), json!(["*"]), json!(["*"])),
        &request
    ));
}

#[test]
fn exclude_resource_rules_win() {
    let request = pod_request("CREATE", "");
    let constraints = json!({
        "resourceRules": [rule(&["pods"])],
        "excludeResourceRules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}],
    });
    assert!(!matches(&constraints, &request).unwrap());
    assert!(matches(&constraints, &pod_request("UPDATE", "")).unwrap());
}

#[test]
fn scope_namespaced_and_cluster() {
    let namespaced = pod_request("CREATE", "");
    let node = Request {
        kind: gvk("", "v1", "Node"),
        resource: Gvr::new("", "v1", "nodes"),
        namespace: "",
        ..pod_request("CREATE", "")
    };
    // A Namespace object is cluster-scoped although upstream reports its name as namespace.
    let namespace = Request {
        kind: gvk("", "v1", "Namespace"),
        resource: Gvr::new("", "v1", "namespaces"),
        name: "team-a",
        namespace: "team-a",
        ..pod_request("CREATE", "")
    };
    let scoped = |scope: &str| json!([{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "scope": scope}]);
    for (scope, want) in [
        ("*", [true, true, true]),
        ("Namespaced", [true, false, false]),
        ("Cluster", [false, true, true]),
        ("Other", [false, false, false]),
    ] {
        let got = [&namespaced, &node, &namespace].map(|r| rules_match(scoped(scope), r));
        assert_eq!(got, want, "scope {scope}");
    }
}

#[test]
fn resource_names() {
    let named = json!([{"operations": ["*"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "resourceNames": ["web", "db"]}]);
    assert!(rules_match(named.clone(), &pod_request("UPDATE", "")));
    let other = Request {
        name: "cache",
        ..pod_request("UPDATE", "")
    };
    assert!(!rules_match(named.clone(), &other));
    // CREATE with generateName: no name yet, never matches.
    let generated = Request {
        name: "",
        ..pod_request("CREATE", "")
    };
    assert!(!rules_match(named, &generated));
}

#[test]
fn object_selector_uses_old_object_on_delete() {
    let old = json!({"metadata": {"labels": {"app": "web"}}});
    let delete = Request {
        old_object: Some(&old),
        ..pod_request("DELETE", "")
    };
    let selecting =
        |selector: Value| json!({"objectSelector": selector, "resourceRules": [rule(&["pods"])]});
    assert!(matches(&selecting(json!({"matchLabels": {"app": "web"}})), &delete).unwrap());
    assert!(!matches(&selecting(json!({"matchLabels": {"app": "db"}})), &delete).unwrap());
    // UPDATE: either object or oldObject.
    let new = json!({"metadata": {"labels": {"app": "db"}}});
    let update = Request {
        object: Some(&new),
        old_object: Some(&old),
        ..pod_request("UPDATE", "")
    };
    assert!(matches(&selecting(json!({"matchLabels": {"app": "web"}})), &update).unwrap());
    assert!(matches(&selecting(json!({"matchLabels": {"app": "db"}})), &update).unwrap());
    // No object at all: a non-empty selector never matches, `{}` always does.
    let bare = pod_request("CONNECT", "");
    assert!(!matches(
        &selecting(json!({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]})),
        &bare
    )
    .unwrap());
    assert!(matches(&selecting(json!({})), &bare).unwrap());
}

#[test]
fn namespace_selector() {
    let ns = json!({"metadata": {"name": "default", "labels": {"env": "prod"}}});
    let selecting =
        |selector: Value| json!({"namespaceSelector": selector, "resourceRules": [rule(&["*"])]});
    let with_doc = Request {
        namespace_object: Some(&ns),
        ..pod_request("CREATE", "")
    };
    assert!(matches(
        &selecting(json!({"matchLabels": {"env": "prod"}})),
        &with_doc
    )
    .unwrap());
    assert!(!matches(
        &selecting(json!({"matchLabels": {"env": "dev"}})),
        &with_doc
    )
    .unwrap());
    // Without a document, the namespace carries only its name label.
    let by_name = json!({"matchLabels": {"kubernetes.io/metadata.name": "default"}});
    assert!(matches(&selecting(by_name.clone()), &pod_request("CREATE", "")).unwrap());
    assert!(matches(&selecting(by_name), &with_doc).unwrap());
    // Cluster-scoped resources other than namespaces are never exempted.
    let node = Request {
        resource: Gvr::new("", "v1", "nodes"),
        namespace: "",
        ..pod_request("CREATE", "")
    };
    assert!(matches(&selecting(json!({"matchLabels": {"env": "dev"}})), &node).unwrap());
    // A Namespace being created is judged by its own labels.
    let created = json!({"metadata": {"name": "team-a", "labels": {"env": "dev"}}});
    let namespace = Request {
        resource: Gvr::new("", "v1", "namespaces"),
        name: "team-a",
        namespace: "",
        object: Some(&created),
        ..pod_request("CREATE", "")
    };
    assert!(matches(
        &selecting(json!({"matchLabels": {"env": "dev"}})),
        &namespace
    )
    .unwrap());
    assert!(matches(
        &selecting(json!({"matchLabels": {"kubernetes.io/metadata.name": "team-a"}})),
        &namespace
    )
    .unwrap());
}

#[test]
fn invalid_selector_errors_only_when_rules_match() {
    let bad = json!({"matchLabels": {"env": "not valid"}});
    let pods = json!({"namespaceSelector": bad, "resourceRules": [rule(&["pods"])]});
    let nodes = json!({"namespaceSelector": bad, "resourceRules": [rule(&["nodes"])]});
    let err = matches(&pods, &pod_request("CREATE", "")).unwrap_err();
    assert!(err.starts_with("Internal error occurred: "), "{err}");
    assert!(!matches(&nodes, &pod_request("CREATE", "")).unwrap());
}

#[test]
fn api_defaults_differ_from_undefaulted_structs() {
    let request = Request {
        kind: gvk("apps", "v1", "Deployment"),
        resource: Gvr::new("apps", "v1", "deployments"),
        ..pod_request("CREATE", "")
    };
    // matching_test-1: no objectSelector is `labels.Nothing()` only without defaulting.
    let bare = json!({"resourceRules": []});
    let table = Table::new();
    assert!(MatchResources::from_value(&bare)
        .unwrap()
        .matches(&request, &table)
        .unwrap()
        .is_some());
    assert!(MatchResources::from_value_undefaulted(&bare)
        .unwrap()
        .matches(&request, &table)
        .unwrap()
        .is_none());
    assert_eq!(
        MatchResources::from_value(&bare).unwrap().match_policy,
        MatchPolicy::Equivalent
    );
}

#[test]
fn builtin_equivalence_events() {
    let request = Request {
        kind: gvk("", "v1", "Event"),
        resource: Gvr::new("", "v1", "events"),
        ..pod_request("CREATE", "")
    };
    let rules = |policy: &str| json!({"matchPolicy": policy, "resourceRules": [{"operations": ["*"], "apiGroups": ["events.k8s.io"], "apiVersions": ["v1"], "resources": ["events"]}]});
    let matched = match_resources(&rules("Equivalent"), &request, &Table::builtin()).unwrap();
    assert_eq!(
        matched,
        Some(Matched {
            resource: Gvr::new("events.k8s.io", "v1", "events"),
            kind: gvk("events.k8s.io", "v1", "Event")
        })
    );
    assert!(!matches(&rules("Exact"), &request).unwrap());
}

#[test]
fn unknown_equivalent_kind_errors() {
    struct NoKinds;
    impl Equivalents for NoKinds {
        fn equivalent_resources(&self, resource: &Gvr, _: &str) -> Vec<Gvr> {
            vec![resource.clone(), Gvr::new("example.com", "v2", "widgets")]
        }
        fn kind_for(&self, _: &Gvr, _: &str) -> Option<Gvk> {
            None
        }
    }
    let request = Request {
        resource: Gvr::new("example.com", "v1", "widgets"),
        ..pod_request("CREATE", "")
    };
    let rules = json!({"resourceRules": [{"operations": ["*"], "apiGroups": ["example.com"], "apiVersions": ["v2"], "resources": ["widgets"]}]});
    let err = match_resources(&rules, &request, &NoKinds).unwrap_err();
    assert_eq!(
        err,
        "unable to convert to example.com/v2, Resource=widgets: unknown kind"
    );
}

#[test]
fn policy_and_binding_intersect() {
    let request = pod_request("CREATE", "");
    let policy = json!({"resourceRules": [rule(&["pods"])]});
    let table = Table::builtin();
    let run =
        |binding: Option<&Value>| policy_and_binding_match(&policy, binding, &request, &table);
    // No matchResources: the binding adds no restriction.
    assert!(run(None).unwrap().is_some());
    // Empty resourceRules: only the selectors restrict.
    let selector_only =
        json!({"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "default"}}});
    assert!(run(Some(&selector_only)).unwrap().is_some());
    let other_ns = json!({"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}});
    assert!(run(Some(&other_ns)).unwrap().is_none());
    let other_rules = json!({"resourceRules": [rule(&["services"])]});
    assert!(run(Some(&other_rules)).unwrap().is_none());
    // Errors say which side they came from.
    let bad = json!({"objectSelector": {"matchLabels": {"a": "b c"}}});
    assert!(matches!(run(Some(&bad)), Err(MatchError::Binding(_))));
    let none = policy_and_binding_match(&bad, None, &request, &table);
    assert!(matches!(none, Err(MatchError::Policy(_))), "{none:?}");
}
