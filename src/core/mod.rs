//! The core every engine builds on: the pipeline's stage traits and order, the resource
//! and its identity and origin, the table of kinds (scope, plural), configuration items,
//! diagnostics with their exit codes, who is asking (`requester`), decoding a stream into
//! documents, the threads a run spreads its work over (`jobs`), and the files documents
//! say they come from.

pub mod config;
pub mod confine;
pub mod decode;
pub mod diagnostic;
pub mod engine;
pub mod jobs;
pub mod kinds;
pub mod lists;
pub mod origins;
pub mod pipeline;
pub mod requester;
pub mod resource;
#[cfg(test)]
pub mod test_support;
pub mod update;
