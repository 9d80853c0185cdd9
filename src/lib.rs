//! kadmit: the Kubernetes admission chain, client-side. The picture of the code, its
//! layers and the dependency rule are in docs/architecture.md; `main.rs` is only the
//! process edge.
//!
//! The public API is what the binary and the benchmarks need: [`cli`] (argv to an
//! [`cli::Invocation`]), [`run`] (one invocation: [`run::run`] with [`run::Options`]) and
//! [`install`]. Everything else is crate-private, so unused code is found by the lints;
//! [`testing`] re-exports the few engine pieces the peer-conformance suites call directly.

pub mod cli;
mod core;
mod engines;
pub mod install;
mod io;
pub mod run;
#[doc(hidden)]
pub mod testing;
