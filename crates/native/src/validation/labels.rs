//! Label maps, annotation maps and label selectors (apimachinery `meta/v1/validation`
//! `ValidateLabels`, `ValidateLabelSelector`, `api/validation.ValidateAnnotations`) and
//! `labels.Selector.Matches` for the "`selector` does not match template `labels`" rule.

use super::util::{child, get, index, list, str_of, string_map, Errors};
use kadmit_schema::field_error::{ErrorType, FieldError};
use kadmit_schema::objectmeta::{label_value_errors, qualified_name_errors};
use serde_json::{json, Value};

/// `ValidateLabels(m, path)`: key errors and value errors, both at `path`.
pub fn validate_labels(owner: &Value, k: &str, path: &str, errs: &mut Errors) {
    for (key, value) in string_map(owner, k) {
        for msg in qualified_name_errors(key) {
            errs.push(FieldError::invalid(path, json!(key), msg));
        }
        for msg in label_value_errors(value) {
            errs.push(FieldError::invalid(path, json!(value), msg));
        }
    }
}

/// `ValidateAnnotations(m, path)`: keys (lower-cased) are qualified names; the total size
/// is at most 256 KiB.
pub fn validate_annotations(owner: &Value, k: &str, path: &str, errs: &mut Errors) {
    let pairs = string_map(owner, k);
    for (key, _) in &pairs {
        for msg in qualified_name_errors(&key.to_lowercase()) {
            errs.push(FieldError::invalid(path, json!(key), msg));
        }
    }
    let size: usize = pairs.iter().map(|(k, v)| k.len() + v.len()).sum();
    if size > 256 * 1024 {
        errs.push(FieldError::new(
            ErrorType::TooLong,
            path,
            Value::Null,
            "may not be more than 262144 bytes",
        ));
    }
}

/// `ValidateLabelSelector` (strict label values, as the workload kinds use it).
pub fn validate_selector(selector: Option<&Value>, path: &str, errs: &mut Errors) {
    let Some(selector) = selector else { return };
    for (i, req) in list(selector, "matchExpressions").iter().enumerate() {
        let at = index(&child(path, "matchExpressions"), i);
        let values = list(req, "values");
        match str_of(req, "operator") {
            "In" | "NotIn" => {
                if values.is_empty() {
                    errs.push(FieldError::required(
                        child(&at, "values"),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    ));
                }
            }
            "Exists" | "DoesNotExist" => {
                if !values.is_empty() {
                    errs.push(FieldError::forbidden(
                        child(&at, "values"),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    ));
                }
            }
            op => errs.push(FieldError::invalid(
                child(&at, "operator"),
                json!(op),
                "not a valid selector operator",
            )),
        }
        let key = str_of(req, "key");
        for msg in qualified_name_errors(key) {
            errs.push(FieldError::invalid(child(&at, "key"), json!(key), msg));
        }
        for (j, v) in values.iter().enumerate() {
            let v = v.as_str().unwrap_or("");
            for msg in label_value_errors(v) {
                errs.push(FieldError::invalid(
                    index(&child(&at, "values"), j),
                    json!(v),
                    msg,
                ));
            }
        }
    }
    validate_labels(selector, "matchLabels", &child(path, "matchLabels"), errs);
}

/// Whether `LabelSelectorAsSelector` accepts the selector (a nil selector is "nothing").
pub fn selector_parses(selector: Option<&Value>) -> bool {
    let Some(selector) = selector else {
        return true;
    };
    list(selector, "matchExpressions").iter().all(|req| {
        let n = list(req, "values").len();
        match str_of(req, "operator") {
            "In" | "NotIn" => n > 0,
            "Exists" | "DoesNotExist" => n == 0,
            _ => false,
        }
    })
}

/// A selector with neither `matchLabels` nor `matchExpressions` (`selector.Empty()`).
pub fn selector_is_empty(selector: Option<&Value>) -> bool {
    selector.is_none_or(|s| {
        string_map(s, "matchLabels").is_empty() && list(s, "matchExpressions").is_empty()
    })
}

/// `selector.Matches(labels.Set(labels))`.
pub fn selector_matches(selector: &Value, labels: Option<&Value>) -> bool {
    let label = |k: &str| labels.and_then(|l| get(l, k)).and_then(Value::as_str);
    let labels_ok = string_map(selector, "matchLabels")
        .into_iter()
        .all(|(k, v)| label(k) == Some(v));
    labels_ok
        && list(selector, "matchExpressions").iter().all(|req| {
            let key = str_of(req, "key");
            let values: Vec<&str> = list(req, "values")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            match str_of(req, "operator") {
                "In" => label(key).is_some_and(|v| values.contains(&v)),
                "NotIn" => label(key).is_none_or(|v| !values.contains(&v)),
                "Exists" => label(key).is_some(),
                "DoesNotExist" => label(key).is_none(),
                _ => false,
            }
        })
}
