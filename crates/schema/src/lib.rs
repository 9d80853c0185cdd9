//! The Kubernetes schema rules, client-side: what kube-apiserver (1.30–1.35,
//! `k8s.io/apiextensions-apiserver` and `k8s.io/apiserver/pkg/cel`) does to a custom
//! resource on create (route the version, coerce ObjectMeta, prune, default, validate with
//! OpenAPI, list types and CEL with the Kubernetes CEL libraries and cost model), and the
//! checks it makes on a CustomResourceDefinition itself (strict decoding into the typed
//! structs, structural schemas, defaults, rule compilation). Messages are the apiserver's field errors. The CRD engine and the
//! generator engine of the binary both build on it.

pub mod admission;
pub mod builtin;
pub mod cel;
pub mod correlation;
pub mod defaulting;
pub mod definition;
pub mod field_error;
pub mod formats;
pub mod kinds;
pub mod lazy;
pub mod listtype;
pub mod merge;
pub mod objectmeta;
pub mod openapi;
pub mod path;
pub mod prune;
pub mod quantity;
pub mod schema;
pub mod structural;
pub mod typed;
pub mod unknown;
