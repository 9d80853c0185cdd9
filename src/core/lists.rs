//! `kind: List` and any other `*List` kind with `items` stand for their items (kubectl's
//! resource builder and kustomize both flatten them).

use super::decode::Document;
use crate::core::resource::Origin;
use serde_json::Value;

/// Hands `doc` to `sink`, or its items (recursively) when it is a list.
pub fn flatten_document(doc: Document, sink: &mut impl FnMut(Document)) {
    if !is_list(&doc.value) {
        sink(doc);
        return;
    }
    let Document { value, origin } = doc;
    let items = match value {
        Value::Object(mut map) => map.remove("items"),
        _ => None,
    };
    if let Some(Value::Array(items)) = items {
        for (i, item) in items.into_iter().enumerate() {
            if item.is_null() {
                continue;
            }
            let origin = Origin {
                list_item: Some(i),
                ..origin.clone()
            };
            flatten_document(
                Document {
                    value: item,
                    origin,
                },
                sink,
            );
        }
    }
}

pub fn flatten(docs: Vec<Document>) -> Vec<Document> {
    let mut out = Vec::with_capacity(docs.len());
    for doc in docs {
        flatten_document(doc, &mut |d| out.push(d));
    }
    out
}

pub fn is_list(value: &Value) -> bool {
    let kind_is_list = value
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List") && k != "ResourceList");
    kind_is_list
        && value
            .get("items")
            .is_some_and(|i| i.is_array() || i.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    fn doc(value: Value) -> Document {
        Document {
            value,
            origin: Origin {
                source: Arc::from("t"),
                index: 0,
                line: 1,
                list_item: None,
                declared: None,
            },
        }
    }

    #[test]
    fn flattens_lists_recursively_and_keeps_others() {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [
            {"kind": "A"}, null,
            {"kind": "ConfigMapList", "items": [{"kind": "B"}]}
        ]});
        let out = flatten(vec![
            doc(list),
            doc(json!({"kind": "WidgetList", "spec": {}})),
        ]);
        let kinds: Vec<_> = out.iter().map(|d| d.value["kind"].clone()).collect();
        assert_eq!(kinds, vec![json!("A"), json!("B"), json!("WidgetList")]);
        assert_eq!(out[0].origin.list_item, Some(0));
    }
}
