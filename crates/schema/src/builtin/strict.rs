//! Strict decoding of a built-in object, with the server's texts (reference §2): what
//! `POST` with `fieldValidation=Strict|Warn|Ignore` answers before defaulting and
//! validation run.
//!
//! - A type mismatch or a failing `UnmarshalJSON` refuses the object in every mode.
//!   Go's decoder reports one error only: the first failing `UnmarshalJSON` (Quantity,
//!   IntOrString, Time), else the first type mismatch it saved. kadmit finds them all
//!   (`errors`); the refusal `message` carries the one the server would.
//! - Unknown and duplicate fields: `Strict` refuses with all of them
//!   (`strict decoding error: unknown field "a", unknown field "b"`), `Warn` makes each a
//!   warning, `Ignore` says nothing. The unknown fields are dropped in every mode (the Go
//!   struct has nowhere to keep them): `drop` lists them as JSON Pointers.
//! - Refused: `<Kind> in version "<version>" cannot be handled as a <Kind>: <error>`,
//!   400 BadRequest (`rest.go` `transformDecodeError`).

use super::decode::Decoder;
use super::KindSchema;
use crate::admission::{FieldValidation, Refused};
use crate::unknown::UnknownField;
use serde_json::Value;

/// What strict decoding made of one object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StrictResult {
    /// The server's refusal text when it refuses the object (400 BadRequest).
    pub message: Option<String>,
    /// Every problem that refuses the object under the mode, the server's texts: the
    /// type errors (each in decode order), then under `Strict` the unknown and duplicate
    /// fields (in decode order).
    pub errors: Vec<String>,
    /// Under `Warn`: one warning per unknown or duplicate field (`unknown field "x"`).
    pub warnings: Vec<String>,
    /// The unknown fields with the field probably meant (whatever the mode), for hints.
    pub unknown: Vec<UnknownField>,
    /// JSON Pointers of the fields the decoded object does not keep.
    pub drop: Vec<String>,
}

impl StrictResult {
    /// The refusal as the server's Status (400 BadRequest).
    pub fn refused(&self) -> Option<Refused> {
        self.message.clone().map(Refused::BadRequest)
    }

    /// What `kubectl create -f <source>` prints for the refusal:
    /// `Error from server (BadRequest): error when creating "<source>": <message>`.
    pub fn kubectl_message(&self, source: &str) -> Option<String> {
        let message = self.message.as_ref()?;
        Some(format!(
            "Error from server (BadRequest): error when creating {}: {message}",
            kadmit_go::strconv::quote(source, false)
        ))
    }

    /// Removes the fields the server drops (the unknown ones) from `object`.
    pub fn apply(&self, object: &mut Value) {
        // Deepest and last first, so that earlier pointers stay valid.
        for pointer in self.drop.iter().rev() {
            let Some((parent, key)) = pointer.rsplit_once('/') else {
                continue;
            };
            let key = key.replace("~1", "/").replace("~0", "~");
            if let Some(Value::Object(map)) = object.pointer_mut(parent) {
                map.shift_remove(&key);
            }
        }
    }
}

/// Strictly decodes `object` as `kind`.
pub fn strict_decode(kind: &KindSchema, object: &Value, mode: FieldValidation) -> StrictResult {
    strict_decode_with_duplicates(kind, object, mode, &[])
}

/// [`strict_decode`] with the keys the reader found twice (their strict paths,
/// `spec.replicas`), which a `serde_json::Value` cannot hold: each is reported as
/// `duplicate field "<path>"` after that field, in decode order.
pub fn strict_decode_with_duplicates(
    kind: &KindSchema,
    object: &Value,
    mode: FieldValidation,
    duplicates: &[String],
) -> StrictResult {
    let mut decoder = Decoder::new(kind.catalog, duplicates);
    decoder.value(kind.root(), object);
    decoder.finish(duplicates);
    let found = decoder.found;

    let refusal = found
        .fatal
        .clone()
        .or_else(|| found.type_errors.first().cloned());
    let mut result = StrictResult {
        errors: found.type_errors,
        unknown: found.unknown,
        drop: found.drop,
        ..StrictResult::default()
    };
    let detail = match (refusal, mode) {
        (Some(error), _) => Some(error),
        (None, FieldValidation::Strict) if !found.strict.is_empty() => Some(format!(
            "strict decoding error: {}",
            found.strict.join(", ")
        )),
        _ => None,
    };
    match mode {
        FieldValidation::Strict => result.errors.extend(found.strict),
        FieldValidation::Warn => result.warnings = found.strict,
        FieldValidation::Ignore => {}
    }
    result.message = detail.map(|detail| kind.cannot_handle(&detail));
    result
}
