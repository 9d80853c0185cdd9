//! JSON Pointer (RFC 6901) and JSON Patch (RFC 6902), one copy for every engine.
//!
//! - [`pointer`]: escaping, parsing and building pointers.
//! - [`patch`]: add/replace/remove with the extensions admission engines rely on
//!   (KubeMod's: parents created on `add`, negative list indices, a `remove` of a missing
//!   path ignored), applied all or nothing.
//! - [`rfc6902`]: the six operations with plain RFC semantics, as webhooks and admission
//!   modules send them (`patchType: JSONPatch`).
//! - [`diff`]: which fields differ between two values, as pointers, for change records.

pub mod diff;
pub mod patch;
pub mod pointer;
pub mod rfc6902;
