//! The edges: bytes in, documents out, and back. Protocol adapters live here.

pub mod compose;
pub mod decode;
pub mod emit;
pub mod encode;
pub mod json;
pub mod lists;
pub mod resource_list;
pub mod scalar;
pub mod split;
