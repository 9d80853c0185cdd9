//! The embedded data (`crates/schema/builtin/schemas.json`, written by
//! `scripts/gen-builtin-schemas.py`) and one catalog per Kubernetes minor version over it.
//!
//! Nothing is parsed until a version is first asked for. Then the JSON (~440 KB, shared by
//! the six versions) is split once per process into its lines, which the generator lays
//! out one definition or one version's index per line, and the version's index is parsed;
//! a definition is parsed when it is first asked for, so a run pays for the definitions of
//! the kinds it admits (a Deployment's reach a few dozen of the 971), not for all of them
//! (parsing the whole JSON was most of a small run's instructions). Schemas themselves are
//! built per kind, on request (`resolve`).

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

/// The embedded data, split: every definition (of all versions) and each version's index
/// (by minor, `"35"`), as text.
struct Data {
    definitions: Vec<Definition>,
    versions: HashMap<&'static str, &'static str>,
}

/// One definition of the data: its name, and its body's text, parsed on first use.
struct Definition {
    name: &'static str,
    body: &'static str,
    value: OnceLock<Value>,
}

/// Where a line of the data is: `scripts/gen-builtin-schemas.py` writes the header, then
/// `"definitions":[`, one `["<name>",{<body>}]` per line, `],"versions":{`, one
/// `"<minor>":{<index>}` per line and `}}` (compact JSON, whose strings hold no line
/// break). `the_split_data_is_the_parsed_data` holds the split to a whole parse.
#[derive(Clone, Copy, PartialEq)]
enum Section {
    Header,
    Definitions,
    Versions,
}

impl Data {
    fn split(json: &'static str) -> Data {
        let mut data = Data {
            definitions: Vec::new(),
            versions: HashMap::new(),
        };
        let mut section = Section::Header;
        for line in json.lines() {
            match line {
                "\"definitions\":[" => section = Section::Definitions,
                "],\"versions\":{" => section = Section::Versions,
                "}}" => section = Section::Header,
                _ if section == Section::Definitions => {
                    let entry = line.strip_suffix(',').unwrap_or(line);
                    let (name, body) = entry
                        .strip_prefix("[\"")
                        .and_then(|e| e.strip_suffix(']'))
                        .and_then(|e| e.split_once("\","))
                        .expect("a definition line is [\"<name>\",<body>]");
                    data.definitions.push(Definition {
                        name,
                        body,
                        value: OnceLock::new(),
                    });
                }
                _ if section == Section::Versions => {
                    let entry = line.strip_suffix(',').unwrap_or(line);
                    let (minor, index) = entry
                        .strip_prefix('"')
                        .and_then(|e| e.split_once("\":"))
                        .expect("a version line is \"<minor>\":<index>");
                    data.versions.insert(minor, index);
                }
                _ => {}
            }
        }
        data
    }
}

impl Definition {
    fn value(&self) -> &Value {
        self.value.get_or_init(|| {
            serde_json::from_str(self.body).expect("an embedded definition is JSON")
        })
    }
}

/// One Kubernetes version: its definitions by name and its kinds by group-version.
pub struct Catalog {
    definitions: HashMap<&'static str, &'static Definition>,
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

    /// Splits the data afresh and builds `minor`'s catalog from it, as the first use in a
    /// process does (the split data is leaked: for measuring only).
    #[cfg(test)]
    pub fn cold(minor: u32) -> Catalog {
        let data: &'static Data = Box::leak(Box::new(Data::split(DATA)));
        Catalog::build_from(data, minor)
    }

    fn build_from(data: &'static Data, minor: u32) -> Catalog {
        // Kept for the process, as the catalog that points into it is (12 KB a version).
        let index: &'static Value = Box::leak(Box::new(
            serde_json::from_str(data.versions[minor.to_string().as_str()])
                .expect("a version's index is JSON"),
        ));
        let definitions = index["definitions"]
            .as_array()
            .expect("version definitions")
            .iter()
            .map(|i| {
                let entry = &data.definitions[i.as_u64().expect("definition index") as usize];
                (entry.name, entry)
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

    /// The definition named `name` (`io.k8s.api.apps.v1.Deployment`), parsed on first use.
    pub fn definition(&self, name: &str) -> Option<&'static Value> {
        self.definitions.get(name).map(|d| d.value())
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

/// Every definition of the data as `(name, body)`, parsing each: for tests.
#[cfg(test)]
pub fn split_definitions() -> Vec<(&'static str, Value)> {
    Data::split(DATA)
        .definitions
        .iter()
        .map(|d| (d.name, d.value().clone()))
        .collect()
}

/// Every version's index, parsed: for tests.
#[cfg(test)]
pub fn split_versions() -> HashMap<&'static str, Value> {
    Data::split(DATA)
        .versions
        .into_iter()
        .map(|(minor, index)| (minor, serde_json::from_str(index).expect("index")))
        .collect()
}

/// The embedded JSON, parsed whole: for tests.
#[cfg(test)]
pub fn parsed() -> Value {
    serde_json::from_str(DATA).expect("the embedded schemas are JSON")
}

/// The embedded JSON, split on first use.
fn data() -> &'static Data {
    static SPLIT: OnceLock<Data> = OnceLock::new();
    SPLIT.get_or_init(|| Data::split(DATA))
}
