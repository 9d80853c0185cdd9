//! The edges: bytes in, documents out, and back. Protocol adapters live here.

pub mod decode;
pub mod encode;
pub mod lists;
pub mod resource_list;
