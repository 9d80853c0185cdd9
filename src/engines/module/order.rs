//! A module's `Full` patch or `mutated_object` is a whole new object, its keys in whatever
//! order the module's JSON library wrote them. kadmit keeps the original order: keys the
//! object had stay where they were, new keys follow in the module's order, so the output
//! differs from the input only where the module changed something.

use serde_json::{Map, Value};

/// `patched` with the key order of `original` wherever the two share keys.
pub fn in_original_order(original: &Value, patched: Value) -> Value {
    match (original, patched) {
        (Value::Object(before), Value::Object(after)) => {
            // One pass over each map, each lookup O(1): the shared keys are set aside in a
            // map of their own (taken out of it by `swap_remove`, which does not shift the
            // rest; its order does not matter), the new keys in a list that keeps the
            // module's order. (Taking the shared keys out of `after` with `shift_remove`
            // shifted everything behind each key: quadratic, 7 s for 42,000 keys.)
            let mut shared = Map::with_capacity(after.len());
            let mut added = Vec::new();
            for (key, new) in after {
                if before.contains_key(&key) {
                    shared.insert(key, new);
                } else {
                    added.push((key, new));
                }
            }
            let mut ordered = Map::with_capacity(shared.len() + added.len());
            for (key, old) in before {
                if let Some((key, new)) = shared.swap_remove_entry(key) {
                    ordered.insert(key, in_original_order(old, new));
                }
            }
            ordered.extend(added);
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

    #[test]
    fn a_large_object_is_reordered_in_one_pass() {
        // 200,000 keys in the original's order with a new key after every 1,000th: taking
        // each shared key out with `shift_remove` moved all the keys behind it, so this
        // took minutes (42,000 keys: 7 s); it is now one pass over each map.
        const KEYS: usize = 200_000;
        let original: Map<String, Value> = (0..KEYS)
            .map(|i| (format!("k{i}"), Value::from(i)))
            .collect();
        let mut patched = Map::new();
        for i in 0..KEYS {
            patched.insert(format!("k{i}"), Value::from(i + 1));
            if i % 1000 == 0 {
                patched.insert(format!("new{i}"), Value::Null);
            }
        }
        let Value::Object(ordered) =
            in_original_order(&Value::Object(original), Value::Object(patched))
        else {
            panic!("an object");
        };
        assert_eq!(ordered.len(), KEYS + KEYS / 1000);
        let keys: Vec<&String> = ordered.keys().collect();
        assert_eq!(keys[0], "k0");
        assert_eq!(keys[KEYS - 1], &format!("k{}", KEYS - 1));
        assert_eq!(keys[KEYS], "new0");
        assert_eq!(keys[KEYS + 1], "new1000");
        assert!(keys[..KEYS]
            .iter()
            .enumerate()
            .all(|(i, key)| **key == format!("k{i}")));
        assert_eq!(ordered["k7"], 8, "the module's values");
    }
}
