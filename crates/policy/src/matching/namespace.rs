//! `namespaceSelector`: `MatchNamespaceSelector` and `GetNamespaceLabels` (AP
//! `pkg/admission/plugin/webhook/predicates/namespace/matcher.go`).

use super::resources::SelectorState;
use super::Request;
use kadmit_match::selector::labels_of;
use serde_json::{Map, Value};

/// The label every Namespace carries (set by the apiserver's defaulting).
const NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// `Ok(true)` match, `Ok(false)` clean non-match, `Err` the selector's parse error.
pub(crate) fn matches(selector: &SelectorState, request: &Request) -> Result<bool, String> {
    let namespace = request.namespace_name();
    // A cluster-scoped resource other than `namespaces` is never exempted.
    if namespace.is_empty() && request.resource.resource != "namespaces" {
        return Ok(true);
    }
    let selector = match selector {
        SelectorState::Invalid(e) => return Err(e.clone()),
        SelectorState::Nothing => return Ok(false),
        SelectorState::Parsed(s) => s,
    };
    if selector.is_empty() {
        return Ok(true);
    }
    Ok(selector.matches(Some(&namespace_labels(request, namespace))))
}

/// `GetNamespaceLabels`: a Namespace being created or updated is judged by its own labels;
/// any other request by its namespace's (the caller's Namespace document, else one that
/// carries only the name label; upstream would answer 404 for a namespace that does not exist).
fn namespace_labels(request: &Request, namespace: &str) -> Map<String, Value> {
    let own = request.resource.resource == "namespaces"
        && request.subresource.is_empty()
        && matches!(request.operation, "CREATE" | "UPDATE");
    let document = if own {
        request.object
    } else {
        request.namespace_object
    };
    let mut labels = document.and_then(labels_of).cloned().unwrap_or_default();
    labels
        .entry(NAME_LABEL)
        .or_insert_with(|| Value::String(namespace.to_owned()));
    labels
}
