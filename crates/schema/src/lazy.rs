//! CRDs read for a run, compiled when used. kustomize runs a plugin once per transformer
//! and overlay, each run with the whole CRD set of a bundle; most runs admit few of its
//! kinds. A [`LazyCrd`] is checked up front only as far as it defines its kind
//! ([`Crd::check_identity`]: strict decoding and the CRD rules outside the schemas); its
//! schemas are checked (structural rules, defaults, CEL compilation and cost), read and
//! built on the first request for its kind, at most once per run, in a thread-safe cell.
//! A CRD whose schemas the API server would refuse is reported then, with the same
//! refusal `Crd::from_value` gives.

use crate::admission::{Definition, Refused};
use crate::definition::Crd;
use crate::kinds::KindSchemas;
use crate::schema::Schema;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// One CRD whose kind is known and whose schemas are checked and built (into `T`) on
/// first use. The CRD's document is shared, not copied: a CRD set is megabytes, and
/// copying it (and dropping the copy) was a fifth of a run that used none of its kinds.
pub struct LazyCrd<T> {
    pub name: String,
    pub group: String,
    pub kind: String,
    raw: Arc<Value>,
    build: fn(Crd) -> T,
    loaded: OnceLock<Result<T, Refused>>,
}

impl<T> LazyCrd<T> {
    /// Reads `raw` as far as its identity; `Err` is the server's refusal of the CRD (every
    /// problem, schemas included). `build` turns the checked CRD into what is kept.
    pub fn read(raw: Arc<Value>, build: fn(Crd) -> T) -> Result<LazyCrd<T>, Refused> {
        Crd::check_identity(&raw)?;
        let text = |pointer: &str| {
            raw.pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        Ok(LazyCrd {
            name: text("/metadata/name"),
            group: text("/spec/group"),
            kind: text("/spec/names/kind"),
            raw,
            build,
            loaded: OnceLock::new(),
        })
    }

    /// The CRD checked and built, on the first call only; `Err` is the server's refusal.
    pub fn get(&self) -> Result<&T, &Refused> {
        self.loaded
            .get_or_init(|| Crd::from_value(&self.raw).map(self.build))
            .as_ref()
    }

    /// Whether [`LazyCrd::get`] has run (observability for tests and benchmarks).
    pub fn is_loaded(&self) -> bool {
        self.loaded.get().is_some()
    }
}

impl LazyCrd<Crd> {
    /// A CRD kept as read ([`Crd`]: names, versions, schemas).
    pub fn crd(raw: Arc<Value>) -> Result<LazyCrd<Crd>, Refused> {
        LazyCrd::read(raw, std::convert::identity)
    }
}

impl LazyCrd<Definition> {
    /// A CRD kept ready to admit its objects ([`Definition`], whose versions compile on
    /// first use in turn).
    pub fn definition(raw: Arc<Value>) -> Result<LazyCrd<Definition>, Refused> {
        LazyCrd::read(raw, Definition::new)
    }
}

/// A set of lazy CRDs: a kind's schema is that of the served version asked for; a CRD
/// the server would refuse has none.
impl KindSchemas for [LazyCrd<Crd>] {
    fn schema(&self, group: &str, version: &str, kind: &str) -> Option<&Schema> {
        let lazy = self.iter().find(|c| c.group == group && c.kind == kind)?;
        lazy.get()
            .ok()?
            .version(version)
            .filter(|v| v.served)
            .and_then(|v| v.schema.as_ref())
    }
}

impl KindSchemas for Vec<LazyCrd<Crd>> {
    fn schema(&self, group: &str, version: &str, kind: &str) -> Option<&Schema> {
        self.as_slice().schema(group, version, kind)
    }
}

#[cfg(test)]
mod tests;
