//! A module's `Full` patch or `mutated_object` is a whole new object, its keys in whatever
//! order the module's JSON library wrote them. kadmit keeps the original order: keys the
//! object had stay where they were, new keys follow in the module's order, so the output
//! differs from the input only where the module changed something.

use serde_json::{Map, Value};

/// `patched` with the key order of `original` wherever the two share keys.
pub fn in_original_order(original: &Value, patched: Value) -> Value {
    match (original, patched) {
        (Value::Object(before), Value::Object(mut after)) => {
            let mut ordered = Map::with_capacity(after.len());
            for (key, old) in before {
                if let Some(new) = after.shift_remove(key) {
                    ordered.insert(key.clone(), in_original_order(old, new));
                }
            }
            ordered.extend(after);
            Value::Object(ordered)
        }
        (Value::Array(before), Value::Array(after)) => Value::Array(
            after
                .into_iter()
                .enumerate()
                .map(|(i, new)| match before.get(i) {
                    Some(old) => in_original_order(old, new),
                    None => new,
                })
                .collect(),
        ),
        (_, patched) => patched,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shared_keys_keep_their_places_and_new_keys_follow() {
        let original = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "b"}, "data": {"z": "1", "a": "2"}});
        let patched = json!({"data": {"a": "2", "new": "3", "z": "1"}, "kind": "ConfigMap", "apiVersion": "v1", "metadata": {"labels": {"x": "y"}, "namespace": "b", "name": "a"}});
        let ordered = in_original_order(&original, patched.clone());
        assert_eq!(ordered, patched, "the same object");
        assert_eq!(
            serde_json::to_string(&ordered).unwrap(),
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"b","labels":{"x":"y"}},"data":{"z":"1","a":"2","new":"3"}}"#
        );
    }

    #[test]
    fn list_elements_are_ordered_by_position() {
        let original = json!({"containers": [{"name": "a", "image": "x"}]});
        let patched =
            json!({"containers": [{"image": "y", "name": "a"}, {"image": "z", "name": "b"}]});
        assert_eq!(
            serde_json::to_string(&in_original_order(&original, patched)).unwrap(),
            r#"{"containers":[{"name":"a","image":"y"},{"image":"z","name":"b"}]}"#
        );
    }
}
