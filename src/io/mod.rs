//! The edges: bytes in, documents out, and back. Protocol adapters live here.

pub mod compose;
pub mod decode;
pub mod emit;
pub mod json;
pub mod scalar;
pub mod split;
