//! The OpenAPI schemas of the Kubernetes built-in kinds, 1.30–1.35, embedded
//! (`crates/schema/builtin/schemas.json`, from `scripts/gen-builtin-schemas.py`), and
//! the strict decoding kube-apiserver does to a built-in object before it defaults and
//! validates it.
//!
//! ```no_run
//! use kadmit_schema::admission::FieldValidation;
//! use kadmit_schema::builtin::{self, NEWEST};
//! # let object = serde_json::json!({});
//! let deployment = builtin::lookup(NEWEST, "apps", "v1", "Deployment")
//!     .expect("apps/v1 is built in")
//!     .expect("and serves Deployment");
//! let schema = deployment.schema(); // the crate's `Schema`: run `openapi::validate` on it
//! let containers = deployment.schema_at(&["spec", "template", "spec", "containers"]);
//! let decoded = builtin::strict_decode(&deployment, &object, FieldValidation::Strict);
//! ```
//!
//! Everything is lazy: the data is parsed on the first lookup, each version's index on
//! its first use, a kind's [`Schema`] on the first [`KindSchema::schema`] call.

mod catalog;
mod decode;
mod goerrors;
mod inline;
mod node;
mod shape;
mod strict;
#[cfg(test)]
mod tests;

pub use catalog::MINORS;
pub use strict::{strict_decode, strict_decode_with_duplicates, StrictResult};

use crate::schema::Schema;
use catalog::Catalog;
use node::Node;
use std::fmt;

/// The newest embedded version (1.35), the default.
pub const NEWEST: u32 = 35;

/// The embedded minor versions, oldest first.
pub fn versions() -> &'static [u32] {
    &MINORS
}

/// kubectl's error for a kind a built-in group-version does not have (apimachinery
/// `meta.NoKindMatchError`): `no matches for kind "Deploymnet" in version "apps/v1"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let group_version = match self.group.as_str() {
            "" => self.version.clone(),
            g => format!("{g}/{}", self.version),
        };
        write!(
            f,
            "no matches for kind {} in version {}",
            quote(&self.kind),
            quote(&group_version)
        )
    }
}

impl std::error::Error for UnknownKind {}

/// The schema of one built-in kind in one version.
#[derive(Clone)]
pub struct KindSchema {
    pub minor: u32,
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
    /// From the API paths: `true` when the resource lives in a namespace.
    pub namespaced: bool,
    /// The OpenAPI definition (`io.k8s.api.apps.v1.Deployment`).
    pub definition: &'static str,
    catalog: &'static Catalog,
}

impl fmt::Debug for KindSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KindSchema")
            .field("minor", &self.minor)
            .field("group", &self.group)
            .field("version", &self.version)
            .field("kind", &self.kind)
            .field("namespaced", &self.namespaced)
            .field("definition", &self.definition)
            .finish()
    }
}

/// The schema of `group/version` `kind` in Kubernetes 1.`minor`:
/// - `Ok(Some(_))` for a built-in kind;
/// - `Err(UnknownKind)` when the group-version is built in but has no such kind (kubectl
///   refuses the object: no CRD can add a kind to a built-in group-version);
/// - `Ok(None)` when the group-version is not built in (a CRD's business), or `minor` is
///   not one of [`versions`].
pub fn lookup(
    minor: u32,
    group: &str,
    version: &str,
    kind: &str,
) -> Result<Option<KindSchema>, UnknownKind> {
    let Some(catalog) = Catalog::get(minor) else {
        return Ok(None);
    };
    let Some(kinds) = catalog.group_version(group, version) else {
        return Ok(None);
    };
    match kinds.get(kind) {
        Some(entry) => Ok(Some(KindSchema {
            minor,
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            namespaced: entry.namespaced,
            definition: entry.definition,
            catalog,
        })),
        None => Err(UnknownKind {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
        }),
    }
}

/// [`lookup`] by `apiVersion` (`apps/v1`, or `v1` for the core group).
pub fn lookup_api_version(
    minor: u32,
    api_version: &str,
    kind: &str,
) -> Result<Option<KindSchema>, UnknownKind> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    lookup(minor, group, version, kind)
}

/// Every `(group, version, kind)` 1.`minor` serves, sorted (empty for other versions).
pub fn kinds(minor: u32) -> Vec<(&'static str, &'static str, &'static str)> {
    Catalog::get(minor).map(Catalog::kinds).unwrap_or_default()
}

/// The schema at one path of a kind, with what server-side apply and strategic merge
/// patch read there.
#[derive(Debug, Clone)]
pub struct FieldSchema {
    /// The node's schema, `$ref`s inlined.
    pub schema: Schema,
    /// The OpenAPI definition the node refers to, when it refers to one.
    pub definition: Option<&'static str>,
    /// `x-kubernetes-patch-strategy` (`merge`, `retainKeys`, `merge,retainKeys`).
    pub patch_strategy: Option<&'static str>,
    /// `x-kubernetes-patch-merge-key` (`name` for containers).
    pub patch_merge_key: Option<&'static str>,
}

impl FieldSchema {
    /// `x-kubernetes-list-type`: `atomic`, `set` or `map`.
    pub fn list_type(&self) -> Option<&str> {
        self.schema.list_type.as_deref()
    }

    /// `x-kubernetes-list-map-keys`.
    pub fn list_map_keys(&self) -> &[String] {
        &self.schema.list_map_keys
    }

    /// `x-kubernetes-map-type`: `atomic` or `granular`.
    pub fn map_type(&self) -> Option<&str> {
        self.schema.map_type.as_deref()
    }
}

impl KindSchema {
    /// The whole kind's schema, built on first use. Recursive definitions (only
    /// apiextensions' `JSONSchemaProps`) end in `x-kubernetes-preserve-unknown-fields` where
    /// they would recurse.
    /// Built once per version and kind, shared by every lookup (see [`crate::kinds`]).
    pub fn schema(&self) -> &'static Schema {
        self.catalog
            .kind_schema(self.definition)
            .expect("a kind's definition has a schema slot")
            .get_or_init(|| inline::schema(self.catalog, self.root()))
    }

    /// The schema at `path`: JSON field names, and anything (an index) for a list's
    /// items; a map's keys are any name. `None` when the kind has no such field.
    /// `&[]` is the kind itself.
    pub fn schema_at<S: AsRef<str>>(&self, path: &[S]) -> Option<FieldSchema> {
        let catalog = self.catalog;
        let node = crate::path::walk(node::At::new(catalog, self.root()), path)?.node;
        Some(FieldSchema {
            schema: inline::schema(catalog, node),
            definition: node.definition,
            patch_strategy: node.text("x-kubernetes-patch-strategy"),
            patch_merge_key: node.text("x-kubernetes-patch-merge-key"),
        })
    }

    /// `<Kind> in version "<version>" cannot be handled as a <Kind>: <detail>`.
    pub fn cannot_handle(&self, detail: &str) -> String {
        format!(
            "{kind} in version {} cannot be handled as a {kind}: {detail}",
            quote(&self.version),
            kind = self.kind
        )
    }

    pub(crate) fn root(&self) -> Node {
        Node::named(self.catalog, self.definition).expect("a kind's definition is in its catalog")
    }
}

fn quote(s: &str) -> String {
    kadmit_go::strconv::quote(s, false)
}
