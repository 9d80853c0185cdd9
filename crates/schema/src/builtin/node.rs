//! One node of the embedded schemas with its `$ref` followed. The generator folds
//! `allOf: [{$ref}]` into `$ref` with the referring node's keys beside it; those keys
//! (`default`, `x-kubernetes-patch-strategy`, ...) override the definition's, as
//! kube-openapi's inlining does. Definitions are never references themselves, so one
//! step is all there is.

use super::catalog::Catalog;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// A node: the keys written where it is used (`site`) over those of the definition it
/// refers to (`target`, the node itself when it refers to none).
#[derive(Clone, Copy)]
pub struct Node {
    site: &'static Map<String, Value>,
    target: &'static Map<String, Value>,
    /// The definition followed, when there was a `$ref`.
    pub definition: Option<&'static str>,
}

impl Node {
    /// `value` read in `catalog` (a `$ref` to a missing definition reads as `{}`).
    pub fn new(catalog: &Catalog, value: &'static Value) -> Node {
        let site = value.as_object().unwrap_or_else(empty);
        match site.get("$ref").and_then(Value::as_str) {
            Some(name) => Node {
                site,
                target: catalog
                    .definition(name)
                    .and_then(Value::as_object)
                    .unwrap_or_else(empty),
                definition: Some(name),
            },
            None => Node {
                site,
                target: site,
                definition: None,
            },
        }
    }

    /// The definition named `name` itself (a kind's root), or `None` when missing.
    pub fn named(catalog: &Catalog, name: &'static str) -> Option<Node> {
        let target = catalog.definition(name)?.as_object()?;
        Some(Node {
            site: target,
            target,
            definition: Some(name),
        })
    }

    /// Where the keywords written at the node live: with [`Node::target_address`], what
    /// tells one node from another (the embedded schemas are never freed).
    pub fn site_address(&self) -> usize {
        self.site as *const Map<String, Value> as usize
    }

    /// Where the keywords of the definition followed live.
    pub fn target_address(&self) -> usize {
        self.target as *const Map<String, Value> as usize
    }

    /// A keyword, the site's over the definition's.
    pub fn get(&self, key: &str) -> Option<&'static Value> {
        self.site
            .get(key)
            .filter(|_| key != "$ref")
            .or_else(|| self.target.get(key))
    }

    pub fn text(&self, key: &str) -> Option<&'static str> {
        self.get(key).and_then(Value::as_str)
    }

    pub fn flag(&self, key: &str) -> bool {
        self.get(key).and_then(Value::as_bool).unwrap_or(false)
    }

    pub fn type_(&self) -> Option<&'static str> {
        self.text("type")
    }

    /// The keywords in effect: the definition's, then the site's (which win).
    pub fn entries(&self) -> impl Iterator<Item = (&'static String, &'static Value)> {
        let site = self.site;
        let own = std::ptr::eq(self.site, self.target);
        self.target
            .iter()
            .filter(move |(k, _)| own || !site.contains_key(k.as_str()))
            .chain(
                self.site
                    .iter()
                    .filter(move |(k, _)| !own && k.as_str() != "$ref"),
            )
    }

    /// `properties`, in the data's (sorted) order.
    pub fn properties(&self) -> Option<&'static Map<String, Value>> {
        self.get("properties").and_then(Value::as_object)
    }

    pub fn property(&self, catalog: &Catalog, name: &str) -> Option<Node> {
        Some(Node::new(catalog, self.properties()?.get(name)?))
    }

    pub fn items(&self, catalog: &Catalog) -> Option<Node> {
        Some(Node::new(catalog, self.get("items")?))
    }

    /// The schema of a map's values (`additionalProperties` when it is a schema).
    pub fn additional(&self, catalog: &Catalog) -> Option<Node> {
        self.get("additionalProperties")
            .filter(|v| v.is_object())
            .map(|v| Node::new(catalog, v))
    }
}

fn empty() -> &'static Map<String, Value> {
    static EMPTY: OnceLock<Map<String, Value>> = OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

/// A node with its catalog: what [`crate::path::walk`] steps through, so `schema_at`
/// resolves a path exactly as [`crate::schema::Schema::at`] does.
#[derive(Clone, Copy)]
pub struct At<'c> {
    catalog: &'c Catalog,
    pub node: Node,
}

impl<'c> At<'c> {
    pub fn new(catalog: &'c Catalog, node: Node) -> At<'c> {
        At { catalog, node }
    }
}

impl crate::path::Walk for At<'_> {
    fn is_list(&self) -> bool {
        self.node.type_() == Some("array")
    }

    fn items(&self) -> Option<Self> {
        Some(At::new(self.catalog, self.node.items(self.catalog)?))
    }

    fn field(&self, name: &str) -> Option<Self> {
        let node = self.node.property(self.catalog, name);
        let node = node.or_else(|| self.node.additional(self.catalog))?;
        Some(At::new(self.catalog, node))
    }
}
