//! networking/v1 (`pkg/apis/networking/validation`): Ingress and NetworkPolicy.

use super::labels::validate_selector;
use super::util::{
    as_int, child, dns1123_subdomain, get, index, int_of, invalid_each, list, not_supported,
    port_name_errors, port_num_errors, str_of, Errors,
};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use kadmit_schema::objectmeta::{dns1035_label_errors, dns1123_subdomain_errors};
use serde_json::{json, Value};

const WILDCARD_MSG: &str = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `ValidateIngressSpec`.
pub fn ingress(obj: &Value, _minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(obj, "spec").unwrap_or(&empty);
    let mut errs = Errors::new();
    let rules = list(spec, "rules");
    let default_backend = get(spec, "defaultBackend");
    if rules.is_empty() && default_backend.is_none() {
        errs.push(FieldError::invalid(
            "spec",
            get(spec, "rules").cloned().unwrap_or(Value::Null),
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    if let Some(b) = default_backend {
        backend(b, "spec.defaultBackend", &mut errs);
    }
    for (i, rule) in rules.iter().enumerate() {
        let at = index("spec.rules", i);
        let host = str_of(rule, "host");
        if !host.is_empty() {
            if host.parse::<std::net::IpAddr>().is_ok() {
                errs.push(FieldError::invalid(
                    child(&at, "host"),
                    json!(host),
                    "must be a DNS name, not an IP address",
                ));
            }
            if host.contains('*') {
                let ok = host
                    .strip_prefix("*.")
                    .is_some_and(|rest| dns1123_subdomain_errors(rest).is_empty());
                if host.len() > 253 {
                    errs.push(FieldError::invalid(
                        child(&at, "host"),
                        json!(host),
                        "must be no more than 253 characters",
                    ));
                }
                if !ok {
                    errs.push(FieldError::invalid(
                        child(&at, "host"),
                        json!(host),
                        WILDCARD_MSG,
                    ));
                }
            } else {
                dns1123_subdomain(host, &child(&at, "host"), &mut errs);
            }
        }
        if let Some(http) = get(rule, "http") {
            let hp = child(&at, "http");
            let paths = list(http, "paths");
            if paths.is_empty() {
                errs.push(FieldError::required(child(&hp, "paths"), ""));
            }
            for (j, p) in paths.iter().enumerate() {
                http_path(p, &index(&child(&hp, "paths"), j), &mut errs);
            }
        }
    }
    for (i, tls) in list(spec, "tls").iter().enumerate() {
        for (j, h) in list(tls, "hosts").iter().enumerate() {
            let h = h.as_str().unwrap_or("");
            let at = index(&child(&index("spec.tls", i), "hosts"), j);
            if let Some(rest) = h.strip_prefix("*.") {
                if !dns1123_subdomain_errors(rest).is_empty() {
                    errs.push(FieldError::invalid(at, json!(h), WILDCARD_MSG));
                }
            } else {
                dns1123_subdomain(h, &at, &mut errs);
            }
        }
    }
    if let Some(class) = get(spec, "ingressClassName").and_then(Value::as_str) {
        dns1123_subdomain(class, "spec.ingressClassName", &mut errs);
    }
    errs
}

/// `validateHTTPIngressPath`.
fn http_path(p: &Value, at: &str, errs: &mut Errors) {
    let Some(path_type) = get(p, "pathType") else {
        errs.push(FieldError::required(
            child(at, "pathType"),
            "pathType must be specified",
        ));
        return;
    };
    let path = str_of(p, "path");
    let pp = child(at, "path");
    match path_type.as_str().unwrap_or("") {
        "Exact" | "Prefix" => {
            if !path.starts_with('/') {
                errs.push(FieldError::invalid(
                    &pp,
                    json!(path),
                    "must be an absolute path",
                ));
            }
            if !path.is_empty() {
                for seq in ["//", "/./", "/../", "%2f", "%2F"] {
                    if path.contains(seq) {
                        errs.push(FieldError::invalid(
                            &pp,
                            json!(path),
                            format!("must not contain '{seq}'"),
                        ));
                    }
                }
                for suffix in ["/..", "/."] {
                    if path.ends_with(suffix) {
                        errs.push(FieldError::invalid(
                            &pp,
                            json!(path),
                            format!("cannot end with '{suffix}'"),
                        ));
                    }
                }
            }
        }
        "ImplementationSpecific" => {
            if !path.is_empty() && !path.starts_with('/') {
                errs.push(FieldError::invalid(
                    &pp,
                    json!(path),
                    "must be an absolute path",
                ));
            }
        }
        _ => errs.push(not_supported(
            child(at, "pathType"),
            path_type.clone(),
            &["Exact", "ImplementationSpecific", "Prefix"],
        )),
    }
    backend(
        get(p, "backend").unwrap_or(&json!({})),
        &child(at, "backend"),
        errs,
    );
}

/// `validateIngressBackend`: exactly one of service and resource; a service needs a name
/// (a DNS-1035 label, as Service names are) and a port name or number.
fn backend(b: &Value, at: &str, errs: &mut Errors) {
    match (get(b, "resource"), get(b, "service")) {
        (Some(_), Some(_)) => errs.push(FieldError::invalid(
            at,
            json!(""),
            "cannot set both resource and service backends",
        )),
        (Some(r), None) => {
            let rp = child(at, "resource");
            for k in ["kind", "name"] {
                if str_of(r, k).is_empty() {
                    errs.push(FieldError::required(child(&rp, k), ""));
                }
            }
        }
        (None, Some(s)) => {
            let sp = child(at, "service");
            let name = str_of(s, "name");
            if name.is_empty() {
                errs.push(FieldError::required(child(&sp, "name"), ""));
            } else {
                invalid_each(&child(&sp, "name"), name, dns1035_label_errors(name), errs);
            }
            let empty = json!({});
            let port = get(s, "port").unwrap_or(&empty);
            let pname = str_of(port, "name");
            let pnum = int_of(port, "number").unwrap_or(0);
            let pp = child(&sp, "port");
            if !pname.is_empty() && pnum != 0 {
                errs.push(FieldError::invalid(
                    at,
                    json!(""),
                    "cannot set both port name & port number",
                ));
            } else if !pname.is_empty() {
                invalid_each(&child(&pp, "name"), pname, port_name_errors(pname), errs);
            } else if pnum != 0 {
                for msg in port_num_errors(pnum) {
                    errs.push(FieldError::invalid(child(&pp, "number"), json!(pnum), msg));
                }
            } else {
                errs.push(FieldError::required(at, "port name or number is required"));
            }
        }
        (None, None) => errs.push(FieldError::invalid(
            at,
            json!(""),
            "resource or service backend is required",
        )),
    }
}

/// `ValidateNetworkPolicySpec`.
pub fn network_policy(obj: &Value, _minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(obj, "spec").unwrap_or(&empty);
    let mut errs = Errors::new();
    validate_selector(
        Some(get(spec, "podSelector").unwrap_or(&empty)),
        "spec.podSelector",
        &mut errs,
    );
    for (dir, peers) in [("ingress", "from"), ("egress", "to")] {
        for (i, rule) in list(spec, dir).iter().enumerate() {
            let at = index(&child("spec", dir), i);
            for (j, port) in list(rule, "ports").iter().enumerate() {
                policy_port(port, &index(&child(&at, "ports"), j), &mut errs);
            }
            for (j, peer) in list(rule, peers).iter().enumerate() {
                policy_peer(peer, &index(&child(&at, peers), j), &mut errs);
            }
        }
    }
    let types = list(spec, "policyTypes");
    if types.len() > 2 {
        errs.push(FieldError::invalid(
            "spec.policyTypes",
            json!(types),
            "may not specify more than two policyTypes",
        ));
        return errs;
    }
    for (i, t) in types.iter().enumerate() {
        let s = t.as_str().unwrap_or("");
        if s != "Ingress" && s != "Egress" {
            errs.push(not_supported(
                index("spec.policyTypes", i),
                t.clone(),
                &["Ingress", "Egress"],
            ));
        }
    }
    errs
}

/// `ValidateNetworkPolicyPort`.
fn policy_port(port: &Value, at: &str, errs: &mut Errors) {
    if let Some(p) = get(port, "protocol") {
        if !["TCP", "UDP", "SCTP"].contains(&p.as_str().unwrap_or("")) {
            errs.push(not_supported(
                child(at, "protocol"),
                p.clone(),
                &["TCP", "UDP", "SCTP"],
            ));
        }
    }
    let end = int_of(port, "endPort");
    match get(port, "port") {
        Some(Value::String(name)) => {
            if let Some(e) = end {
                errs.push(FieldError::invalid(
                    child(at, "endPort"),
                    json!(e),
                    "may not be specified when `port` is non-numeric",
                ));
            }
            invalid_each(&child(at, "port"), name, port_name_errors(name), errs);
        }
        Some(v) => {
            let n = as_int(v).unwrap_or(0);
            for msg in port_num_errors(n) {
                errs.push(FieldError::invalid(child(at, "port"), json!(n), msg));
            }
            if let Some(e) = end {
                if e < n {
                    errs.push(FieldError::invalid(
                        child(at, "endPort"),
                        json!(n),
                        "must be greater than or equal to `port`",
                    ));
                }
                for msg in port_num_errors(e) {
                    errs.push(FieldError::invalid(child(at, "endPort"), json!(e), msg));
                }
            }
        }
        None => {
            if let Some(e) = end {
                errs.push(FieldError::invalid(
                    child(at, "endPort"),
                    json!(e),
                    "may not be specified when `port` is not specified",
                ));
            }
        }
    }
}

/// `ValidateNetworkPolicyPeer`.
fn policy_peer(peer: &Value, at: &str, errs: &mut Errors) {
    let mut n = 0;
    for k in ["podSelector", "namespaceSelector"] {
        if let Some(sel) = get(peer, k) {
            n += 1;
            validate_selector(Some(sel), &child(at, k), errs);
        }
    }
    let ip_block = get(peer, "ipBlock");
    if let Some(b) = ip_block {
        n += 1;
        if str_of(b, "cidr").is_empty() {
            errs.push(FieldError::required(
                child(&child(at, "ipBlock"), "cidr"),
                "",
            ));
        }
    }
    if n == 0 {
        errs.push(FieldError::required(at, "must specify a peer"));
    } else if n > 1 && ip_block.is_some() {
        errs.push(FieldError::forbidden(
            at,
            "may not specify both ipBlock and another peer",
        ));
    }
}
