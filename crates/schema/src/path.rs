//! One walk from a schema's root to the node at a path, shared by every schema tree the
//! crate holds (the crate's [`Schema`], the built-in catalogs' raw OpenAPI nodes), so that
//! "the schema at `spec.template.spec.containers`" means the same thing everywhere.
//!
//! A path is JSON field names; under a list any step (an index, a key, `*`) goes to the
//! items; under a map without the property the step goes to `additionalProperties`.

use crate::schema::Schema;

/// A schema node that can be stepped into.
pub trait Walk: Sized {
    /// Whether the node is a list: its one child is `items`, whatever the step says.
    fn is_list(&self) -> bool;
    /// `items`.
    fn items(&self) -> Option<Self>;
    /// The property `name`, else the map's value schema (`additionalProperties`).
    fn field(&self, name: &str) -> Option<Self>;
}

/// The node at `path` below `root`, or `None` when the schema has no such field.
pub fn walk<N: Walk, S: AsRef<str>>(root: N, path: &[S]) -> Option<N> {
    path.iter()
        .try_fold(root, |node, step| match node.is_list() {
            true => node.items(),
            false => node.field(step.as_ref()),
        })
}

impl Walk for &Schema {
    fn is_list(&self) -> bool {
        self.type_.as_deref() == Some("array")
    }

    fn items(&self) -> Option<Self> {
        self.items.as_deref()
    }

    fn field(&self, name: &str) -> Option<Self> {
        Schema::field(self, name)
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::Schema;
    use serde_json::json;

    #[test]
    fn steps_through_properties_items_and_map_values() {
        let s = Schema::from_value(&json!({
            "type": "object",
            "properties": {
                "list": {"type": "array", "items": {"type": "object",
                    "properties": {"name": {"type": "string"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            }
        }))
        .unwrap();
        let name = s.at(&["list", "7", "name"]).unwrap();
        assert_eq!(name.type_.as_deref(), Some("string"));
        assert_eq!(
            s.at(&["list", "*"]).unwrap().type_.as_deref(),
            Some("object")
        );
        assert_eq!(
            s.at(&["labels", "any"]).unwrap().type_.as_deref(),
            Some("string")
        );
        assert!(s.at(&["nope"]).is_none());
        assert!(s.at(&["list", "0", "nope"]).is_none());
        assert_eq!(s.at::<&str>(&[]), Some(&s));
    }
}
