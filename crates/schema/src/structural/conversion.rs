//! `spec.conversion`: the strategy, and for `Webhook` the client config (a URL or a
//! service) and the ConversionReview versions (reported under the internal field names
//! `webhookClientConfig` and `conversionReviewVersions`).

use super::errs::{child, enum_string, forbidden, index, invalid, invalid_str, required};
use super::internal::Crd;
use super::node::Node;
use crate::field_error::FieldError;
use crate::objectmeta::{
    dns1035_label_errors as dns1035_label, dns1123_subdomain_errors as dns1123_subdomain,
};
use serde_json::{json, Value};

/// `validateCustomResourceConversion` and the strategy's dependency on pruning.
pub fn check(crd: &Crd<'_>, out: &mut Vec<FieldError>) {
    let c = &crd.conversion;
    let at = "spec.conversion";
    if c.strategy != "None" && crd.preserve_unknown_fields != Some(false) {
        out.push(invalid_str(
            child(at, "strategy"),
            c.strategy,
            "must be None if spec.preserveUnknownFields is true",
        ));
    }
    out.extend(enum_string(
        child(at, "strategy"),
        c.strategy,
        &["None", "Webhook"],
    ));
    let config_path = child(at, "webhookClientConfig");
    let versions_path = child(at, "conversionReviewVersions");
    if c.strategy != "Webhook" {
        let not_webhook = "should not be set when strategy is not set to Webhook";
        if c.client_config.is_some() {
            out.push(forbidden(config_path, not_webhook));
        }
        if c.review_versions.as_ref().is_some_and(|v| !v.is_empty()) {
            out.push(forbidden(versions_path, not_webhook));
        }
        return;
    }
    match c.client_config.map(Node::new) {
        None => out.push(required(
            config_path,
            "required when strategy is set to Webhook",
        )),
        Some(cc) => match (cc.get("url").and_then(Value::as_str), cc.schema("service")) {
            (Some(url), None) => out.extend(webhook_url(url, child(&config_path, "url"))),
            (None, Some(service)) => out.extend(webhook_service(
                service,
                &child(&config_path, "service"),
                crd.v1,
            )),
            _ => out.push(required(
                config_path,
                "exactly one of url or service is required",
            )),
        },
    }
    let versions = c.review_versions.clone().unwrap_or_default();
    if versions.is_empty() {
        out.push(required(versions_path, ""));
        return;
    }
    let mut seen = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        if seen.contains(v) {
            out.push(invalid_str(
                index(&versions_path, i),
                v,
                "duplicate version",
            ));
            continue;
        }
        seen.push(*v);
        for problem in dns1035_label(v) {
            out.push(invalid_str(index(&versions_path, i), v, problem));
        }
    }
    if !versions.iter().any(|v| *v == "v1" || *v == "v1beta1") {
        out.push(invalid(
            versions_path,
            json!(versions),
            "must include at least one of v1, v1beta1",
        ));
    }
}

/// `webhook.ValidateWebhookURL` with https required, on Go `url.Parse`'s split of the URL.
fn webhook_url(url: &str, at: String) -> Vec<FieldError> {
    const FORM: &str = "; desired format: https://host[/path]";
    let (rest, fragment) = url.split_once('#').unwrap_or((url, ""));
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let scheme_end = rest.find(':').filter(|&i| {
        let s = &rest[..i];
        s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    let (scheme, rest) = match scheme_end {
        Some(i) => (rest[..i].to_lowercase(), &rest[i + 1..]),
        None => (String::new(), rest),
    };
    let authority = rest
        .strip_prefix("//")
        .map(|a| a.split('/').next().unwrap_or(""));
    let (user, host) = match authority {
        Some(a) => match a.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, a),
        },
        None => (None, ""),
    };
    let mut out = Vec::new();
    if scheme != "https" {
        out.push(invalid_str(
            at.clone(),
            &scheme,
            format!("'https' is the only allowed URL scheme{FORM}"),
        ));
    }
    if host.is_empty() {
        out.push(invalid_str(
            at.clone(),
            host,
            format!("host must be specified{FORM}"),
        ));
    }
    if let Some(u) = user {
        out.push(invalid_str(
            at.clone(),
            u,
            "user information is not permitted in the URL",
        ));
    }
    if !fragment.is_empty() {
        out.push(invalid_str(
            at.clone(),
            fragment,
            "fragments are not permitted in the URL",
        ));
    }
    if !query.is_empty() {
        out.push(invalid_str(
            at,
            query,
            "query parameters are not permitted in the URL",
        ));
    }
    out
}

/// `webhook.ValidateWebhookService`. The CRD validation passes the service's name where
/// the function expects the namespace and vice versa, so the texts are swapped upstream too.
fn webhook_service(service: Node<'_>, at: &str, v1: bool) -> Vec<FieldError> {
    let mut out = Vec::new();
    if service.str("namespace").is_empty() {
        out.push(required(child(at, "name"), "service name is required"));
    }
    if service.str("name").is_empty() {
        out.push(required(
            child(at, "namespace"),
            "service namespace is required",
        ));
    }
    let default_port = if v1 { 443 } else { 0 };
    let port = service
        .get("port")
        .and_then(Value::as_i64)
        .unwrap_or(default_port);
    if !(1..=65535).contains(&port) {
        out.push(invalid(
            child(at, "port"),
            json!(port),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    let Some(path) = service.get("path").and_then(Value::as_str) else {
        return out;
    };
    let path_at = child(at, "path");
    if path == "/" || path.is_empty() {
        return out;
    }
    if path == "//" {
        out.push(invalid_str(path_at, path, "segment[0] may not be empty"));
        return out;
    }
    if !path.starts_with('/') {
        out.push(invalid_str(path_at.clone(), path, "must start with a '/'"));
    }
    let inner = path.get(1..).unwrap_or("");
    let inner = inner.strip_suffix('/').unwrap_or(inner);
    for (i, step) in inner.split('/').enumerate() {
        if step.is_empty() {
            out.push(invalid_str(
                path_at.clone(),
                path,
                format!("segment[{i}] may not be empty"),
            ));
            continue;
        }
        for failure in dns1123_subdomain(step) {
            out.push(invalid_str(
                path_at.clone(),
                path,
                format!("segment[{i}]: {failure}"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhook_urls() {
        let texts = |u: &str| {
            webhook_url(u, "u".into())
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
        };
        assert!(texts("https://example.com/convert").is_empty());
        assert_eq!(
            texts("http://a@example.com/x?y#z"),
            [
                r#"u: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]"#,
                r#"u: Invalid value: "a": user information is not permitted in the URL"#,
                r#"u: Invalid value: "z": fragments are not permitted in the URL"#,
                r#"u: Invalid value: "y": query parameters are not permitted in the URL"#,
            ]
        );
    }
}
