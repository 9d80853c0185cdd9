//! YAML and JSON read as kubectl reads them, and written so every reader agrees.
//!
//! Reading reproduces go-yaml v2 as used by `sigs.k8s.io/yaml` (kubectl 1.30–1.35):
//! YAML 1.1 plain scalars (`yes`, `0777`, `1:30`, `.inf`), merge keys, the document
//! splitting of `k8s.io/apimachinery`'s YAMLOrJSONDecoder, and JSON streams with
//! `encoding/json`'s number rules. The event parser is `yaml-rust2`; composing its events
//! into values, and the scalar resolver, are written here because no crate reads
//! YAML 1.1 scalars the way go-yaml v2 does. Writing quotes every string a YAML 1.1 or
//! 1.2 reader would take for something else. docs/yaml.md has the details.

pub mod compose;
pub mod emit;
pub mod json;
pub mod scalar;
pub mod split;
