//! The engines: each turns its own configuration items into pipeline stages. An engine
//! imports only the core (`pipeline`, `resource`, `scope`, `config`, `diagnostic`) and the
//! library crates, never another engine, `run` or `cli` (tests/architecture.rs checks).

pub mod builtin;
pub mod crd;
pub mod gatekeeper;
pub mod generator;
pub mod kubemod;
pub mod module;
pub mod policy;
