//! Gatekeeper's match semantics, shared by every engine that selects objects the way
//! Gatekeeper does: match blocks (`kinds`, `scope`, `namespaces`/`excludedNamespaces` with
//! prefix/suffix globs, `labelSelector`, `namespaceSelector`, `name`, `source`),
//! `applyTo` GVK lists with operations, label selectors with the apimachinery rules and
//! texts, and Go's `%T` names for values in error messages. Reproduces Gatekeeper v3.18
//! (`pkg/mutation/match`, `pkg/mutation/types`); reference: `shared/reference/gatekeeper.md`.

pub mod apply_to;
pub mod matching;
pub mod selector;
pub mod values;
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
