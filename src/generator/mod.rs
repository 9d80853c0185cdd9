//! Generators: `kadmit.dev/v1alpha1` `Generator` definitions (a CRD-shaped schema plus
//! Tera templates), found the way KEP-993 finds plugins, that turn virtual resources into
//! real ones.

pub mod definition;
pub mod helpers;
pub mod render;
