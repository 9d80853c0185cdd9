//! OPA Gatekeeper's mutation webhook and `gator expand`, client-side: location paths,
//! the shared path walk, the four mutators, match blocks, the convergence loop, schema
//! conflicts and ExpansionTemplates. Reference: `../shared/reference/gatekeeper.md`.

mod edits;
pub mod engine;
pub mod expander;
pub mod expansion;
pub mod image;
pub mod mutators;
pub mod path;
pub mod schema;
pub mod system;
mod walk;

pub use kadmit_match::{apply_to, matching, selector, values, wildcard, Gvk};
