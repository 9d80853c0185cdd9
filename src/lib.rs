//! kadmit: the Kubernetes admission chain, client-side. See DESIGN.md in the project
//! notes and docs/ for the architecture; `main.rs` is only the process edge.

pub mod cli;
pub mod core;
pub mod engines;
pub mod install;
pub mod io;
pub mod run;
