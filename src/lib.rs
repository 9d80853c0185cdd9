//! kadmit: the Kubernetes admission chain, client-side. See DESIGN.md in the project
//! notes and docs/ for the architecture; `main.rs` is only the process edge.

pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod gatekeeper;
pub mod generator;
pub mod install;
pub mod io;
pub mod kubemod;
pub mod module;
pub mod pipeline;
pub mod resource;
pub mod run;
pub mod scope;
pub mod engines;
