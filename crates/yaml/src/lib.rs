//! YAML and JSON read as kubectl reads them, and written so every reader agrees.
//!
//! Reading reproduces go-yaml v2 as used by `sigs.k8s.io/yaml` (kubectl 1.30–1.35):
//! YAML 1.1 plain scalars (`yes`, `0777`, `1:30`, `.inf`), merge keys, the document
//! splitting of `k8s.io/apimachinery`'s YAMLOrJSONDecoder, and JSON streams with
//! `encoding/json`'s number rules. Documents in the block subset manifests use are read by
//! a hand-written reader (`block`) that gives every other document, and every error, to
//! the full parser. The event parser is `yaml-rust2`; composing its events
//! into values, and the scalar resolver, are written here because no crate reads
//! YAML 1.1 scalars the way go-yaml v2 does. Writing quotes every string a YAML 1.1 or
//! 1.2 reader would take for something else. docs/yaml.md has the details.

pub mod block;
pub mod compose;
pub mod emit;
pub mod json;
pub mod portable;
mod prescan;
pub mod scalar;
pub mod spans;
pub mod split;

/// How much one document may hold once read. The parsed tree of a document costs about
/// 100 bytes a node however few bytes of text each node took (`1,` in a flow list is two),
/// so this bounds the memory one document can take whatever its density
/// (docs/security.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Nodes (mappings, sequences, keys and scalars, aliases expanded) per document.
    pub max_nodes: usize,
}

/// Two million nodes: a tree of about 200 MB at most, and far more than kube-apiserver
/// stores in one object (its request limit is 3 MiB; a 3 MiB object has at most ~1.5
/// million nodes, and a realistic one about 150,000).
pub const DEFAULT_MAX_NODES: usize = 2_000_000;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_nodes: DEFAULT_MAX_NODES,
        }
    }
}

/// How a document over [`Limits::max_nodes`] is refused (the start of the message).
pub const TOO_MANY_NODES: &str = "document holds more than";

fn too_many_nodes(max_nodes: usize) -> String {
    format!("{TOO_MANY_NODES} {max_nodes} nodes (keys, values and collections)")
}
