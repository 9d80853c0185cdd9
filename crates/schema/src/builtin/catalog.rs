//! The embedded data (`crates/schema/builtin/schemas.json`, written by
//! `scripts/gen-builtin-schemas.py`) and one catalog per Kubernetes minor version over it.
//!
//! Nothing is parsed until a version is first asked for: the JSON (~440 KB, shared by the
//! six versions) is parsed once per process, then each version's index is built once, on
//! its first use. Schemas themselves are built per kind, on request (`resolve`).

use crate::schema::Schema;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The generated file, uncompressed: small enough that a decompressor would cost more
/// code than the bytes it saves (see the script's header for the layout).
static DATA: &str = include_str!("../../builtin/schemas.json");

/// The minor versions embedded (1.30 … 1.35).
pub const MINORS: [u32; 6] = [30, 31, 32, 33, 34, 35];

/// A resource kind as one version serves it.
#[derive(Debug, Clone, Copy)]
pub struct KindEntry {
    pub definition: &'static str,
    pub namespaced: bool,
}

/// One Kubernetes version: its definitions by name and its kinds by group-version.
pub struct Catalog {
    definitions: HashMap<&'static str, &'static Value>,
    /// Group → version → kind → entry; the core group is `""`.
    kinds: HashMap<&'static str, HashMap<&'static str, HashMap<&'static str, KindEntry>>>,
    /// Each kind's whole schema, by definition, built on first use and then shared by
    /// every lookup of the kind (a `&'static Schema` is what `kinds::Builtin` hands out).
    schemas: HashMap<&'static str, OnceLock<Schema>>,
}

impl Catalog {
    /// The catalog of `minor` (30 … 35), built on first use; `None` for other versions.
    pub fn get(minor: u32) -> Option<&'static Catalog> {
        static CATALOGS: [OnceLock<Catalog>; 6] = [const { OnceLock::new() }; 6];
        let slot = MINORS.iter().position(|&m| m == minor)?;
        Some(CATALOGS[slot].get_or_init(|| Catalog::build(minor)))
    }

    fn build(minor: u32) -> Catalog {
        Catalog::build_from(data(), minor)
    }

    /// Parses the data afresh and builds `minor`'s catalog from it, as the first use in a
    /// process does (the parsed data is leaked: for measuring only).
    #[cfg(test)]
    pub fn cold(minor: u32) -> Catalog {
        let data: &'static Value = Box::leak(Box::new(
            serde_json::from_str(DATA).expect("the embedded schemas are JSON"),
        ));
        Catalog::build_from(data, minor)
    }

    fn build_from(data: &'static Value, minor: u32) -> Catalog {
        let entries = data["definitions"].as_array().expect("definitions");
        let index = &data["versions"][minor.to_string()];
        let definitions = index["definitions"]
            .as_array()
            .expect("version definitions")
            .iter()
            .map(|i| {
                let entry = &entries[i.as_u64().expect("definition index") as usize];
                (entry[0].as_str().expect("definition name"), &entry[1])
            })
            .collect();
        let mut kinds: HashMap<_, HashMap<_, HashMap<_, _>>> = HashMap::new();
        let mut schemas = HashMap::new();
        for kind in index["kinds"].as_array().expect("kinds") {
            let text = |i: usize| kind[i].as_str().expect("kind field");
            schemas.entry(text(3)).or_insert_with(OnceLock::new);
            kinds
                .entry(text(0))
                .or_default()
                .entry(text(1))
                .or_default()
                .insert(
                    text(2),
                    KindEntry {
                        definition: text(3),
                        namespaced: kind[4].as_bool().expect("namespaced"),
                    },
                );
        }
        Catalog {
            definitions,
            kinds,
            schemas,
        }
    }

    /// The slot of the whole schema of the kind defined by `definition`.
    pub fn kind_schema(&self, definition: &str) -> Option<&OnceLock<Schema>> {
        self.schemas.get(definition)
    }

    /// The definition named `name` (`io.k8s.api.apps.v1.Deployment`).
    pub fn definition(&self, name: &str) -> Option<&'static Value> {
        self.definitions.get(name).copied()
    }

    /// The kinds of a group-version, or `None` when the version does not serve it.
    pub fn group_version(
        &self,
        group: &str,
        version: &str,
    ) -> Option<&HashMap<&'static str, KindEntry>> {
        self.kinds.get(group)?.get(version)
    }

    /// Every `(group, version, kind)` served, sorted.
    pub fn kinds(&self) -> Vec<(&'static str, &'static str, &'static str)> {
        let mut out: Vec<_> = self
            .kinds
            .iter()
            .flat_map(|(g, versions)| {
                versions
                    .iter()
                    .flat_map(move |(v, kinds)| kinds.keys().map(move |k| (*g, *v, *k)))
            })
            .collect();
        out.sort();
        out
    }
}

/// The embedded JSON, parsed on first use.
fn data() -> &'static Value {
    static PARSED: OnceLock<Value> = OnceLock::new();
    PARSED.get_or_init(|| serde_json::from_str(DATA).expect("the embedded schemas are JSON"))
}
