//! OPA Gatekeeper's mutation webhook and `gator expand`, client-side: location paths,
//! the shared path walk, the four mutators, match blocks, the convergence loop, schema
//! conflicts and ExpansionTemplates. Reference: `../shared/reference/gatekeeper.md`.

pub mod apply_to;
mod edits;
pub mod engine;
pub mod expander;
pub mod expansion;
pub mod image;
pub mod matching;
pub mod mutators;
pub mod path;
pub mod schema;
pub mod selector;
pub mod system;
pub mod values;
mod walk;
pub mod wildcard;

/// A group/version/kind, compared as exact strings (Gatekeeper has no globs here).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    /// The GVK of an object from its `apiVersion` and `kind` (missing parts are empty).
    pub fn of(object: &serde_json::Value) -> Gvk {
        let api_version = object
            .get("apiVersion")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        let (group, version) = match api_version.rsplit_once('/') {
            Some((g, v)) => (g.to_owned(), v.to_owned()),
            None => (String::new(), api_version.to_owned()),
        };
        Gvk {
            group,
            version,
            kind: object
                .get("kind")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_owned(),
        }
    }
}
