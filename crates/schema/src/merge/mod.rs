//! Structured-merge apply: what a MutatingAdmissionPolicy `ApplyConfiguration` mutation
//! does to the object (apiserver `mutating/patch/smd.go` `ApplyStructuredMergeDiff`,
//! reference admission-policies.md §9.2). The patch is the JSON the expression's
//! `Object{...}` denotes.
//!
//! In upstream's order: the patch is converted against the schema
//! ([`convert`]: unknown fields, wrong types, keyed items without keys, duplicates), then
//! refused if it sets any atomic list, map or struct ([`atomics`]), then the live object
//! is converted (duplicates tolerated), then the patch is merged in ([`apply`]: list
//! types and map keys decide; nothing is removed; field order kept, see there).
//!
//! Where kadmit cannot be exact, it says so here:
//! - Go iterates the patch's maps in random order; kadmit reports several errors and
//!   atomic paths in the patch's order;
//! - upstream types a CRD's `metadata` as ObjectMeta (its published schema); kadmit
//!   accepts any keys there, as for an undeclared field under preserve-unknown-fields;
//! - upstream hard-codes Quantity as a scalar; in the inlined schema it has no type and,
//!   like int-or-string, also converts as a list or map, where upstream says
//!   `expected any scalar, got ...`.
//!
//! ```
//! use kadmit_schema::kinds::Builtin;
//! use kadmit_schema::merge::apply_configuration;
//! use serde_json::json;
//! let schema = Builtin::newest().kind("apps", "v1", "Deployment").unwrap();
//! let live = json!({"spec": {"template": {"spec": {"volumes": [{"name": "x"}]}}}});
//! let patch = json!({"spec": {"template": {"spec": {"volumes": [{"name": "y"}]}}}});
//! let merged = apply_configuration(&live, &patch, schema).unwrap();
//! assert_eq!(merged["spec"]["template"]["spec"]["volumes"], json!([{"name": "x"}, {"name": "y"}]));
//! ```

mod apply;
mod atom;
mod atomics;
mod convert;
mod path;
#[cfg(test)]
mod tests;

pub use convert::{ConversionErrors, FieldError};

use crate::schema::Schema;
use atom::Type;
use serde_json::Value;
use std::fmt;

/// Why an apply configuration was not applied; displays the server's text (which the
/// MAP dispatcher prefixes with `error applying patch: `).
#[derive(Debug, Clone, PartialEq)]
pub enum MergeError {
    /// `failed to convert patch object to typed object: .spec.replicasx: field not declared in schema`
    Patch(ConversionErrors),
    /// `invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector`
    /// (the paths, joined with `, `).
    Atomic(Vec<String>),
    /// `failed to convert original object to typed object: ...`
    Live(ConversionErrors),
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::Patch(e) => {
                write!(f, "failed to convert patch object to typed object: {e}")
            }
            MergeError::Atomic(paths) => write!(
                f,
                "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: {}",
                paths.join(", ")
            ),
            MergeError::Live(e) => {
                write!(f, "failed to convert original object to typed object: {e}")
            }
        }
    }
}

impl std::error::Error for MergeError {}

/// `live` with the apply configuration `patch` merged into it, both objects of the kind
/// whose whole schema is `schema` (a built-in kind's or a CRD version's).
pub fn apply_configuration(
    live: &Value,
    patch: &Value,
    schema: &Schema,
) -> Result<Value, MergeError> {
    let mut merged = live.clone();
    apply_configuration_in_place(&mut merged, patch, schema)?;
    Ok(merged)
}

/// [`apply_configuration`] into `live` itself, for a caller that needs no copy of the
/// object as it was: every check comes first, so on an error `live` is left as it was.
pub fn apply_configuration_in_place(
    live: &mut Value,
    patch: &Value,
    schema: &Schema,
) -> Result<(), MergeError> {
    merge_checked(live, patch, schema, true)
}

/// [`apply_configuration_in_place`] into a `live` object known to convert: it did
/// (this function or [`apply_configuration_in_place`] took it), and nothing but these
/// merges changed it since. A merge of a patch that converts into an object that
/// converts gives one that does (each field, list item and value of the result is the
/// live one's or the patch's, merged by the same types), so the live object is not
/// walked again.
pub fn apply_configuration_to_converted(
    live: &mut Value,
    patch: &Value,
    schema: &Schema,
) -> Result<(), MergeError> {
    merge_checked(live, patch, schema, false)
}

fn merge_checked(
    live: &mut Value,
    patch: &Value,
    schema: &Schema,
    check_live: bool,
) -> Result<(), MergeError> {
    let root = Type::Resource(schema);
    convert::check(patch, root, false).map_err(MergeError::Patch)?;
    let atomics = atomics::find(patch, root);
    if !atomics.is_empty() {
        return Err(MergeError::Atomic(atomics));
    }
    if check_live {
        convert::check(live, root, true).map_err(MergeError::Live)?;
    }
    apply::merge_into(live, patch, root);
    Ok(())
}
