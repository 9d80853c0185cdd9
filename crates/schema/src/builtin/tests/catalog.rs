use super::super::catalog::Catalog;
use super::super::{kinds, lookup, versions, UnknownKind, NEWEST};
use super::kind;
use serde_json::{json, Value};
use std::time::Instant;

#[test]
fn the_split_data_is_the_parsed_data() {
    // The catalog splits the embedded JSON by the generator's line layout: every
    // definition and every version's index must be what parsing the whole JSON gives.
    let whole = super::super::catalog::parsed();
    let definitions: Vec<Value> = super::super::catalog::split_definitions()
        .into_iter()
        .map(|(name, body)| json!([name, body]))
        .collect();
    assert_eq!(Value::Array(definitions), whole["definitions"]);
    let versions: serde_json::Map<String, Value> = super::super::catalog::split_versions()
        .into_iter()
        .map(|(minor, index)| (minor.to_owned(), index))
        .collect();
    assert_eq!(versions.len(), 6);
    for (minor, index) in &versions {
        assert_eq!(index, &whole["versions"][minor], "1.{minor}");
    }
}

#[test]
fn every_version_loads_and_says_how_long_it_took() {
    assert_eq!(versions(), [30, 31, 32, 33, 34, 35]);
    assert_eq!(NEWEST, 35);
    for &minor in versions() {
        // Cold: what the first use in a process costs (parse the data, index one version).
        let start = Instant::now();
        let cold = Catalog::cold(minor);
        let ready = start.elapsed();
        let served = cold.kinds();
        let start = Instant::now();
        let _ = kind(minor, "v1", "Pod").schema();
        println!(
            "1.{minor}: {} kinds, ready in {ready:?} from cold (parse + index), Pod schema built in {:?}",
            served.len(),
            start.elapsed()
        );
        assert!(served.len() >= 80, "1.{minor} serves {}", served.len());
        assert_eq!(served, kinds(minor));
    }
}

#[test]
fn every_kind_of_every_version_looks_up_and_builds() {
    for &minor in versions() {
        for (group, version, name) in kinds(minor) {
            let found = lookup(minor, group, version, name)
                .unwrap_or_else(|e| panic!("1.{minor}: {e}"))
                .unwrap_or_else(|| panic!("1.{minor}: {group}/{version} {name}"));
            let schema = found.schema();
            assert_eq!(schema.type_.as_deref(), Some("object"), "{name}");
            assert!(
                schema.property("apiVersion").is_some() && schema.property("kind").is_some(),
                "1.{minor} {group}/{version} {name}"
            );
        }
    }
}

#[test]
fn scope_comes_from_the_paths() {
    for (api_version, name, namespaced) in [
        ("v1", "Pod", true),
        ("v1", "Namespace", false),
        ("v1", "Node", false),
        ("v1", "PersistentVolume", false),
        ("apps/v1", "Deployment", true),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", false),
        ("rbac.authorization.k8s.io/v1", "Role", true),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", false),
        ("networking.k8s.io/v1", "IngressClass", false),
        ("policy/v1", "PodDisruptionBudget", true),
    ] {
        assert_eq!(kind(35, api_version, name).namespaced, namespaced, "{name}");
    }
}

#[test]
fn an_unknown_kind_of_a_built_in_group_version_is_kubectls_error() {
    let e = lookup(35, "apps", "v1", "Deploymnet").unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"no matches for kind "Deploymnet" in version "apps/v1""#
    );
    let e = lookup(35, "", "v1", "configmap").unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"no matches for kind "configmap" in version "v1""#
    );
    assert_eq!(
        e,
        UnknownKind {
            group: "".into(),
            version: "v1".into(),
            kind: "configmap".into()
        }
    );
    // Subresource kinds and list kinds are not resources kubectl can create.
    assert!(lookup(35, "apps", "v1", "DeploymentList").is_err());
    assert!(lookup(35, "autoscaling", "v1", "Scale").is_err());
}

#[test]
fn a_group_version_that_is_not_built_in_is_left_to_crds() {
    assert!(lookup(35, "example.com", "v1", "Widget").unwrap().is_none());
    assert!(lookup(35, "apps", "v2", "Deployment").unwrap().is_none());
    assert!(lookup(29, "apps", "v1", "Deployment").unwrap().is_none());
}

#[test]
fn group_versions_come_and_go_between_versions() {
    assert!(lookup(30, "networking.k8s.io", "v1alpha1", "ServiceCIDR")
        .unwrap()
        .is_some());
    assert!(lookup(35, "networking.k8s.io", "v1alpha1", "ServiceCIDR")
        .unwrap()
        .is_none());
    assert!(lookup(30, "networking.k8s.io", "v1", "ServiceCIDR").is_err());
    assert!(lookup(35, "networking.k8s.io", "v1", "ServiceCIDR")
        .unwrap()
        .is_some());
}

#[test]
fn schema_at_gives_list_types_map_keys_and_patch_metadata() {
    let deployment = kind(35, "apps/v1", "Deployment");
    let containers = deployment
        .schema_at(&["spec", "template", "spec", "containers"])
        .unwrap();
    assert_eq!(containers.list_type(), Some("map"));
    assert_eq!(containers.list_map_keys(), ["name"]);
    assert_eq!(containers.patch_strategy, Some("merge"));
    assert_eq!(containers.patch_merge_key, Some("name"));
    let ports = deployment
        .schema_at(&["spec", "template", "spec", "containers", "0", "ports"])
        .unwrap();
    assert_eq!(ports.list_map_keys(), ["containerPort", "protocol"]);
    let strategy = deployment.schema_at(&["spec", "strategy"]).unwrap();
    assert_eq!(strategy.patch_strategy, Some("retainKeys"));
    assert_eq!(
        strategy.definition,
        Some("io.k8s.api.apps.v1.DeploymentStrategy")
    );
    let cpu = deployment
        .schema_at(&[
            "spec",
            "template",
            "spec",
            "containers",
            "3",
            "resources",
            "limits",
            "cpu",
        ])
        .unwrap();
    assert_eq!(
        cpu.definition,
        Some("io.k8s.apimachinery.pkg.api.resource.Quantity")
    );
    assert!(cpu.schema.nullable, "AnnotateNullable");
    let labels = deployment.schema_at(&["metadata", "labels"]).unwrap();
    assert_eq!(labels.map_type(), None);
    assert_eq!(
        deployment
            .schema_at(&["metadata", "finalizers"])
            .unwrap()
            .list_type(),
        Some("set")
    );
    assert!(deployment.schema_at(&["spec", "portz"]).is_none());
    let root = deployment.schema_at::<&str>(&[]).unwrap();
    assert_eq!(root.definition, Some("io.k8s.api.apps.v1.Deployment"));
    assert!(root.schema.property("spec").is_some());
}

#[test]
fn int_or_string_and_byte_fields_carry_the_kubectl_validate_patches() {
    let service = kind(35, "v1", "Service");
    let target = service
        .schema_at(&["spec", "ports", "0", "targetPort"])
        .unwrap();
    assert!(target.schema.int_or_string);
    assert!(target.schema.one_of.is_empty());
    let secret = kind(35, "v1", "Secret");
    let data = secret.schema_at(&["data", "key"]).unwrap();
    assert_eq!(data.schema.format, None, "AllowEmptyByteFormat");
    assert_eq!(data.schema.all_of[0].any_of.len(), 2);
}

#[test]
fn recursive_definitions_end() {
    let crd = kind(35, "apiextensions.k8s.io/v1", "CustomResourceDefinition");
    let schema = crd
        .schema_at(&["spec", "versions", "0", "schema", "openAPIV3Schema"])
        .unwrap()
        .schema;
    let inner = schema
        .property("properties")
        .unwrap()
        .additional_schema()
        .unwrap();
    assert!(
        inner.preserve_unknown_fields,
        "cut where JSONSchemaProps recurses"
    );
    assert!(inner.properties.is_empty());
    let _ = crd.schema();
}
