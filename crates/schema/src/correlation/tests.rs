use super::*;
use serde_json::json;

fn schema(v: Value) -> Schema {
    Schema::from_value(&v).unwrap()
}

#[test]
fn map_lists_correlate_by_key_and_ignore_order() {
    let s = schema(json!({"type": "array", "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}}));
    let new = json!([{"name": "b", "v": 2}, {"name": "a", "v": 1}]);
    let old = json!([{"name": "a", "v": 1}, {"name": "b", "v": 2}]);
    let c = Correlated::new(&new, &old, &s);
    assert_eq!(c.index(0).unwrap().old, &json!({"name": "b", "v": 2}));
    assert!(c.deep_equal());
}

#[test]
fn only_map_lists_correlate_their_items() {
    let items = json!({"type": "string"});
    let new = json!(["a", "b"]);
    let old = json!(["a", "c"]);
    let plain = json!({"type": "array", "items": items});
    for list_type in [None, Some("set"), Some("atomic")] {
        let mut s = plain.clone();
        if let Some(t) = list_type {
            s["x-kubernetes-list-type"] = json!(t);
        }
        let s = schema(s);
        let c = Correlated::new(&new, &old, &s);
        assert!(c.index(0).is_none());
        assert!(!c.deep_equal());
        assert!(Correlated::new(&new, &new, &s).deep_equal());
    }
}

#[test]
fn an_undescribed_field_makes_its_object_unequal() {
    let s = schema(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
    let v = json!({"a": 1});
    assert!(!Correlated::new(&v, &v, &s).deep_equal());
    let empty = json!({});
    assert!(Correlated::new(&empty, &empty, &s).deep_equal());
}

#[test]
fn integers_and_floats_differ() {
    let s = schema(json!({"type": "number"}));
    assert!(!Correlated::new(&json!(1), &json!(1.0), &s).deep_equal());
}

#[test]
fn map_list_keys_must_all_be_scalars() {
    let s = schema(json!({"type": "array", "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["a", "b"], "items": {"type": "object"}}));
    let old = [
        json!({"a": "x", "b": 1}),
        json!({"a": "x", "b": [1]}),
        json!({"a": "x"}),
    ];
    let list = MapList::new(&s, &old);
    assert_eq!(list.get(&json!({"a": "x", "b": 1, "c": 0})), Some(&old[0]));
    assert_eq!(list.get(&json!({"a": "x"})), None);
    assert_eq!(list.get(&json!({"a": "x", "b": 1.0})), None);
}
