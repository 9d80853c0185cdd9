//! The edges: bytes in, documents out, and back. Protocol adapters live here.

pub mod diff;
pub mod encode;
pub mod output;
pub mod resource_list;
