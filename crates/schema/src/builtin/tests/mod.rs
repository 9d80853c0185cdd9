//! Tests of the embedded built-in schemas: the catalog (`catalog`), the schemas on real
//! objects (`objects`), strict decoding (`decoding`).

mod catalog;
mod decoding;
mod objects;

use super::{lookup, KindSchema};

/// The kind, which must be built in.
fn kind(minor: u32, api_version: &str, kind: &str) -> KindSchema {
    super::lookup_api_version(minor, api_version, kind)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("{api_version} is built in"))
}

#[test]
fn lookup_splits_core_and_named_groups() {
    assert_eq!(kind(35, "v1", "Pod").group, "");
    assert_eq!(
        lookup(35, "apps", "v1", "Deployment")
            .unwrap()
            .unwrap()
            .version,
        "v1"
    );
}
