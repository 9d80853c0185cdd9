//! "The schema of this kind, and the schema and list type at this path of it", one
//! answer for built-in kinds and CRDs alike: what an apply configuration is merged by,
//! and what any engine reading list types or map keys needs.
//!
//! ```
//! use kadmit_schema::kinds::{Builtin, KindSchemas};
//! let kinds = Builtin::newest();
//! let volumes = kinds
//!     .schema_at("apps", "v1", "Deployment", &["spec", "template", "spec", "volumes"])
//!     .unwrap();
//! assert_eq!(volumes.list_type.as_deref(), Some("map"));
//! ```

use crate::builtin::{self, NEWEST};
use crate::definition::Crd;
use crate::schema::Schema;

/// A source of kinds' structural schemas.
pub trait KindSchemas {
    /// The whole schema of `group/version` `kind` (`""` for the core group), or `None`
    /// when this source does not know the kind.
    fn schema(&self, group: &str, version: &str, kind: &str) -> Option<&Schema>;

    /// The schema at `path` of the kind ([`Schema::at`]): its `list_type`,
    /// `list_map_keys`, `map_type` say how it merges.
    fn schema_at(&self, group: &str, version: &str, kind: &str, path: &[&str]) -> Option<&Schema> {
        self.schema(group, version, kind)?.at(path)
    }
}

/// The built-in kinds of Kubernetes 1.`minor` (the embedded OpenAPI, `$ref`s inlined).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    pub minor: u32,
}

impl Builtin {
    pub fn newest() -> Builtin {
        Builtin { minor: NEWEST }
    }

    /// [`KindSchemas::schema`], for as long as the process runs: the schema lives in the
    /// version's catalog, built on first use.
    pub fn kind(&self, group: &str, version: &str, kind: &str) -> Option<&'static Schema> {
        Some(
            builtin::lookup(self.minor, group, version, kind)
                .ok()??
                .schema(),
        )
    }
}

impl KindSchemas for Builtin {
    fn schema(&self, group: &str, version: &str, kind: &str) -> Option<&Schema> {
        self.kind(group, version, kind)
    }
}

/// A set of CRDs: a kind's schema is that of the served version asked for.
impl KindSchemas for [Crd] {
    fn schema(&self, group: &str, version: &str, kind: &str) -> Option<&Schema> {
        let crd = self.iter().find(|c| c.group == group && c.kind == kind)?;
        crd.version(version)
            .filter(|v| v.served)
            .and_then(|v| v.schema.as_ref())
    }
}

impl KindSchemas for Vec<Crd> {
    fn schema(&self, group: &str, version: &str, kind: &str) -> Option<&Schema> {
        self.as_slice().schema(group, version, kind)
    }
}

/// Two sources, the first one asked first (built-ins, then CRDs: a CRD cannot add a
/// kind to a built-in group-version).
impl<A: KindSchemas, B: KindSchemas> KindSchemas for (A, B) {
    fn schema(&self, group: &str, version: &str, kind: &str) -> Option<&Schema> {
        self.0
            .schema(group, version, kind)
            .or_else(|| self.1.schema(group, version, kind))
    }
}

#[cfg(test)]
mod tests;
