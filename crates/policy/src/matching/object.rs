//! `objectSelector`: `MatchObjectSelector` (AP
//! `pkg/admission/plugin/webhook/predicates/object/matcher.go`).

use super::resources::SelectorState;
use super::Request;
use kadmit_match::selector::{labels_of, Selector};
use serde_json::Value;

/// Matches when `object` or `oldObject` has matching labels (DELETE: only `oldObject`
/// exists); an empty selector matches everything, `labels.Nothing()` nothing.
pub(crate) fn matches(selector: &SelectorState, request: &Request) -> Result<bool, String> {
    let selector = match selector {
        SelectorState::Invalid(e) => return Err(e.clone()),
        SelectorState::Nothing => return Ok(false),
        SelectorState::Parsed(s) => s,
    };
    if selector.is_empty() {
        return Ok(true);
    }
    Ok(match_object(request.object, selector) || match_object(request.old_object, selector))
}

/// `matchObject`: an absent object never matches.
fn match_object(object: Option<&Value>, selector: &Selector) -> bool {
    object
        .filter(|o| !o.is_null())
        .is_some_and(|o| selector.matches(labels_of(o)))
}
