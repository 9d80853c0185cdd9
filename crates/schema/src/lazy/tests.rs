use super::*;
use crate::admission::{create, FieldValidation, Settings};
use serde_json::json;

fn crd(schema: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"plural": "widgets", "kind": "Widget"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1", "served": true, "storage": true,
                 "schema": {"openAPIV3Schema": schema.clone()}},
                {"name": "v2", "served": true, "storage": false,
                 "schema": {"openAPIV3Schema": schema}}
            ]
        }
    })
}

fn valid_schema() -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object",
        "x-kubernetes-validations": [{"rule": "self.size <= 3", "message": "too big"}],
        "properties": {"size": {"type": "integer", "default": 1}}}}})
}

const SETTINGS: Settings = Settings {
    field_validation: FieldValidation::Strict,
    write_defaults: true,
};

#[test]
fn an_identity_problem_is_found_up_front_with_every_problem_of_the_crd() {
    let mut broken = crd(json!({"type": "object", "properties": {"spec": {"properties": {}}}}));
    broken["spec"]["scope"] = json!("Everywhere");
    let refusal = LazyCrd::crd(Arc::new(broken)).err().expect("refused");
    let message = refusal.kubectl_message();
    assert!(
        message.contains("spec.scope: Unsupported value: \"Everywhere\""),
        "{message}"
    );
    // The schema's problem is in the same message: all problems at once.
    assert!(
        message.contains("properties[spec].type: Required value"),
        "{message}"
    );
}

#[test]
fn an_unknown_field_outside_the_schemas_is_found_up_front() {
    let mut typo = crd(valid_schema());
    typo["spec"]["nmaes"] = json!({});
    let refusal = LazyCrd::crd(Arc::new(typo)).err().expect("refused");
    assert!(
        matches!(refusal, Refused::BadRequest(m) if m.contains("unknown field \"spec.nmaes\""))
    );
}

#[test]
fn a_schema_problem_is_found_when_the_kind_is_used_with_the_eager_refusal() {
    let broken = crd(
        json!({"type": "object", "properties": {"spec": {"properties": {},
        "x-kubernetes-validations": [{"rule": "self.size >"}]}}}),
    );
    let lazy = LazyCrd::definition(Arc::new(broken.clone())).expect("the identity is fine");
    assert!(!lazy.is_loaded());
    assert_eq!(lazy.get().err(), Crd::from_value(&broken).err().as_ref());
    assert!(lazy.is_loaded());
    // An unknown field inside a schema is a schema problem too.
    let mut typo = crd(valid_schema());
    typo["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["maxium"] = json!(1);
    let lazy = LazyCrd::definition(Arc::new(typo)).expect("the identity is fine");
    assert!(
        matches!(lazy.get(), Err(Refused::BadRequest(m)) if m.contains("openAPIV3Schema.maxium"))
    );
}

#[test]
fn only_the_versions_asked_for_are_compiled_and_admission_is_as_eager() {
    let lazy = LazyCrd::definition(Arc::new(crd(valid_schema()))).unwrap();
    let definition = lazy.get().unwrap();
    assert_eq!(definition.compiled_versions(), 0);
    let widget = |version: &str, size: i64| {
        json!({"apiVersion": format!("example.com/{version}"), "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default"}, "spec": {"size": size}})
    };
    let eager = Definition::new(Crd::from_value(&crd(valid_schema())).unwrap());
    // v1 is the storage version: a v1 request compiles v1 only.
    for size in [2, 5] {
        let lazily = create(definition, &widget("v1", size), SETTINGS);
        let eagerly = create(&eager, &widget("v1", size), SETTINGS);
        assert_eq!(format!("{lazily:?}"), format!("{eagerly:?}"));
    }
    assert_eq!(definition.compiled_versions(), 1);
    // A v2 request goes through the storage version too: both are compiled, once.
    let lazily = create(definition, &widget("v2", 5), SETTINGS);
    assert!(lazily.is_err());
    create(definition, &widget("v2", 1), SETTINGS).unwrap();
    assert_eq!(definition.compiled_versions(), 2);
}

#[test]
fn kind_schemas_come_from_crds_that_load() {
    let good = LazyCrd::crd(Arc::new(crd(valid_schema()))).unwrap();
    let set = vec![good];
    assert!(!set[0].is_loaded());
    assert!(set
        .schema_at("example.com", "v1", "Widget", &["spec", "size"])
        .is_some());
    assert!(set.schema("example.com", "v1", "Gadget").is_none());
    let bad = crd(json!({"type": "object", "properties": {"spec": {"properties": {}}}}));
    let set = vec![LazyCrd::crd(Arc::new(bad)).unwrap()];
    assert!(set.schema("example.com", "v1", "Widget").is_none());
}

/// Admission may share definitions across threads.
#[test]
fn lazy_definitions_are_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<LazyCrd<Definition>>();
    shared::<LazyCrd<Crd>>();
}
