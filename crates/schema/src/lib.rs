//! CustomResourceDefinitions, client-side: what kube-apiserver does to a custom resource on
//! create (prune, default, validate with OpenAPI and CEL), and the checks it makes on the
//! CRD itself. Reference: `../shared/reference/crd-cel.md`.

pub mod admission;
pub mod cel;
pub mod defaulting;
pub mod definition;
pub mod field_error;
pub mod formats;
pub mod listtype;
pub mod objectmeta;
pub mod openapi;
pub mod prune;
pub mod schema;
pub mod structural;
