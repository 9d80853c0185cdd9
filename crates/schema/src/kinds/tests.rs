use super::{Builtin, KindSchemas};
use crate::builtin;
use crate::definition::Crd;
use serde_json::json;

const POD_SPEC: [&str; 3] = ["spec", "template", "spec"];

fn deployment_at(path: &[&str]) -> Option<&'static crate::schema::Schema> {
    static KINDS: Builtin = Builtin {
        minor: builtin::NEWEST,
    };
    KINDS.schema_at("apps", "v1", "Deployment", path)
}

#[test]
fn builtin_deployment_paths_give_list_and_map_types() {
    let containers = deployment_at(&[&POD_SPEC[..], &["containers"]].concat()).unwrap();
    assert_eq!(containers.list_type.as_deref(), Some("map"));
    assert_eq!(containers.list_map_keys, ["name"]);
    let env = deployment_at(&[&POD_SPEC[..], &["containers", "0", "env"]].concat()).unwrap();
    assert_eq!(env.list_type.as_deref(), Some("map"));
    let args = deployment_at(&[&POD_SPEC[..], &["containers", "x", "args"]].concat()).unwrap();
    assert_eq!(args.list_type.as_deref(), Some("atomic"));
    let selector = deployment_at(&["spec", "selector"]).unwrap();
    assert_eq!(selector.map_type.as_deref(), Some("atomic"));
    let label = deployment_at(&["metadata", "labels", "app"]).unwrap();
    assert_eq!(label.type_.as_deref(), Some("string"));
    assert!(deployment_at(&["spec", "replicasx"]).is_none());
    assert!(Builtin::newest()
        .schema("apps", "v1", "Deploymnet")
        .is_none());
    assert!(Builtin::newest()
        .schema("example.com", "v1", "Foo")
        .is_none());
}

#[test]
fn builtin_schema_at_agrees_with_the_shared_walk() {
    let deployment = builtin::lookup(builtin::NEWEST, "apps", "v1", "Deployment")
        .unwrap()
        .unwrap();
    for path in [
        &["spec", "template", "spec", "containers", "0", "ports"][..],
        &[
            "spec", "template", "spec", "volumes", "v", "hostPath", "path",
        ],
        &["metadata", "annotations", "a"],
        &["spec", "strategy", "rollingUpdate", "maxSurge"],
    ] {
        let field = deployment.schema_at(path).unwrap();
        assert_eq!(
            Some(&field.schema),
            deployment.schema().at(path),
            "{path:?}"
        );
    }
    assert!(deployment.schema_at(&["spec", "nope"]).is_none());
    // The catalog builds a kind's schema once for every lookup.
    let again = builtin::lookup(builtin::NEWEST, "apps", "v1", "Deployment")
        .unwrap()
        .unwrap();
    assert!(std::ptr::eq(deployment.schema(), again.schema()));
}

fn foo_crd() -> Crd {
    Crd::from_value(&json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"plural": "foos", "kind": "Foo"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1", "served": true, "storage": true,
                 "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "items": {"type": "array", "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["id"],
                            "items": {"type": "object", "required": ["id"], "properties": {
                                "id": {"type": "integer"}}}},
                        "tags": {"type": "object", "additionalProperties": {"type": "string"}}
                    }}}}}},
                {"name": "v0", "served": false, "storage": false,
                 "schema": {"openAPIV3Schema": {"type": "object"}}}
            ]
        }
    }))
    .unwrap()
}

#[test]
fn crd_served_versions_answer_paths() {
    let crds = vec![foo_crd()];
    let items = crds
        .schema_at("example.com", "v1", "Foo", &["spec", "items"])
        .unwrap();
    assert_eq!(items.list_type.as_deref(), Some("map"));
    assert_eq!(items.list_map_keys, ["id"]);
    let id = crds.schema_at("example.com", "v1", "Foo", &["spec", "items", "0", "id"]);
    assert_eq!(id.unwrap().type_.as_deref(), Some("integer"));
    let tag = crds.schema_at("example.com", "v1", "Foo", &["spec", "tags", "k"]);
    assert_eq!(tag.unwrap().type_.as_deref(), Some("string"));
    assert!(
        crds.schema("example.com", "v0", "Foo").is_none(),
        "not served"
    );
    assert!(crds.schema("example.com", "v1", "Bar").is_none());
}

#[test]
fn builtins_then_crds() {
    let both = (Builtin::newest(), vec![foo_crd()]);
    assert!(both.schema("apps", "v1", "Deployment").is_some());
    assert!(both.schema("example.com", "v1", "Foo").is_some());
    assert!(both.schema("example.com", "v1", "Nope").is_none());
}
