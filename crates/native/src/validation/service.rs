//! `ValidateService` (core/v1), the checks that need no cluster state: ports, type,
//! ExternalName, headless restrictions, session affinity, traffic policies. ClusterIP and
//! nodePort allocation happen before validation on the server and are not reproduced.

use super::labels::validate_labels;
use super::util::not_supported;
use super::util::{
    child, dns1123_label, duplicate, get, index, int_of, list, obj, port_num_errors,
    port_num_or_name, qualified_name, str_of, Errors,
};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use serde_json::{json, Value};
use std::collections::BTreeSet;

pub fn service(o: &Value, _minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(o, "spec").unwrap_or(&empty);
    let mut errs = Errors::new();
    let ty = str_of(spec, "type");
    let headless = str_of(spec, "clusterIP") == "None";
    let ports = list(spec, "ports");
    if ports.is_empty() && !headless && ty != "ExternalName" {
        errs.push(FieldError::required("spec.ports", ""));
    }
    match ty {
        "LoadBalancer" => {
            if headless {
                errs.push(FieldError::invalid(
                    "spec.clusterIPs[0]",
                    json!("None"),
                    "may not be set to 'None' for LoadBalancer services",
                ));
            }
            for (i, p) in ports.iter().enumerate() {
                if int_of(p, "port") == Some(10250) {
                    errs.push(FieldError::invalid(
                        index("spec.ports", i),
                        json!(10250),
                        "may not expose port 10250 externally since it is used by kubelet",
                    ));
                }
            }
        }
        "NodePort" if headless => errs.push(FieldError::invalid(
            "spec.clusterIPs[0]",
            json!("None"),
            "may not be set to 'None' for NodePort services",
        )),
        "ExternalName" => {
            if !str_of(spec, "clusterIP").is_empty() || !list(spec, "clusterIPs").is_empty() {
                errs.push(FieldError::forbidden(
                    "spec.clusterIPs",
                    "may not be set for ExternalName services",
                ));
            }
            if !list(spec, "ipFamilies").is_empty() {
                errs.push(FieldError::forbidden(
                    "spec.ipFamilies",
                    "may not be set for ExternalName services",
                ));
            }
            if get(spec, "ipFamilyPolicy").is_some() {
                errs.push(FieldError::forbidden(
                    "spec.ipFamilyPolicy",
                    "may not be set for ExternalName services",
                ));
            }
            let cname = str_of(spec, "externalName");
            let cname = cname.strip_suffix('.').unwrap_or(cname);
            if cname.is_empty() {
                errs.push(FieldError::required("spec.externalName", ""));
            } else {
                super::util::dns1123_subdomain(cname, "spec.externalName", &mut errs);
            }
        }
        _ => {}
    }
    let mut names = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        service_port(
            p,
            ports.len() > 1,
            &mut names,
            &index("spec.ports", i),
            &mut errs,
        );
    }
    if obj(spec, "selector").is_some() {
        validate_labels(spec, "selector", "spec.selector", &mut errs);
    }
    let affinity = str_of(spec, "sessionAffinity");
    match affinity {
        "" => errs.push(FieldError::required("spec.sessionAffinity", "")),
        "ClientIP" => {
            let timeout = get(spec, "sessionAffinityConfig")
                .and_then(|c| get(c, "clientIP"))
                .and_then(|c| int_of(c, "timeoutSeconds"));
            if let Some(t) = timeout.filter(|t| *t <= 0 || *t > 86400) {
                errs.push(FieldError::invalid(
                    "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
                    json!(t),
                    "must be greater than 0 and less than 86400",
                ));
            }
        }
        "None" => {
            if get(spec, "sessionAffinityConfig").is_some() {
                errs.push(FieldError::forbidden(
                    "spec.sessionAffinityConfig",
                    "must not be set when session affinity is None",
                ));
            }
        }
        other => errs.push(not_supported(
            "spec.sessionAffinity",
            json!(other),
            &["ClientIP", "None"],
        )),
    }
    match ty {
        "" => errs.push(FieldError::required("spec.type", "")),
        "ClusterIP" | "ExternalName" | "LoadBalancer" | "NodePort" => {}
        other => errs.push(not_supported(
            "spec.type",
            json!(other),
            &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"],
        )),
    }
    if ty == "ClusterIP" {
        for (i, p) in ports.iter().enumerate() {
            if int_of(p, "nodePort").unwrap_or(0) != 0 {
                errs.push(FieldError::forbidden(
                    child(&index("spec.ports", i), "nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    let mut node_ports = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        let np = int_of(p, "nodePort").unwrap_or(0);
        if np != 0 && !node_ports.insert((str_of(p, "protocol"), np)) {
            errs.push(duplicate(
                child(&index("spec.ports", i), "nodePort"),
                json!(np),
            ));
        }
    }
    let mut seen = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        let (proto, port) = (str_of(p, "protocol"), int_of(p, "port").unwrap_or(0));
        if !seen.insert((proto, port)) {
            // The key is an internal core.ServicePort{Protocol, Port}: Go marshals the
            // struct with its field names (internal types carry no json tags).
            errs.push(duplicate(
                index("spec.ports", i),
                json!({"Name": "", "Protocol": proto, "AppProtocol": null, "Port": port, "TargetPort": 0, "NodePort": 0}),
            ));
        }
    }
    traffic_policies(spec, ty, &mut errs);
    errs
}

/// `validateServicePort`.
fn service_port<'a>(
    p: &'a Value,
    require_name: bool,
    names: &mut BTreeSet<&'a str>,
    at: &str,
    errs: &mut Errors,
) {
    let name = str_of(p, "name");
    if require_name && name.is_empty() {
        errs.push(FieldError::required(child(at, "name"), ""));
    } else if !name.is_empty() {
        dns1123_label(name, &child(at, "name"), errs);
        if !names.insert(name) {
            errs.push(duplicate(child(at, "name"), json!(name)));
        }
    }
    let port = int_of(p, "port").unwrap_or(0);
    for msg in port_num_errors(port) {
        errs.push(FieldError::invalid(child(at, "port"), json!(port), msg));
    }
    match get(p, "protocol") {
        None => errs.push(FieldError::required(child(at, "protocol"), "")),
        Some(v) if v.as_str() == Some("") => {
            errs.push(FieldError::required(child(at, "protocol"), ""))
        }
        Some(v) if ["SCTP", "TCP", "UDP"].contains(&v.as_str().unwrap_or("")) => {}
        Some(v) => errs.push(not_supported(
            child(at, "protocol"),
            v.clone(),
            &["SCTP", "TCP", "UDP"],
        )),
    }
    port_num_or_name(get(p, "targetPort"), &child(at, "targetPort"), errs);
    if let Some(ap) = get(p, "appProtocol").and_then(Value::as_str) {
        qualified_name(ap, &child(at, "appProtocol"), errs);
    }
}

/// `validateServiceExternalTrafficPolicy` and `validateServiceInternalTrafficFieldsValue`.
fn traffic_policies(spec: &Value, ty: &str, errs: &mut Errors) {
    let externally_accessible = ty == "LoadBalancer"
        || ty == "NodePort"
        || (ty == "ClusterIP" && !list(spec, "externalIPs").is_empty());
    let etp = str_of(spec, "externalTrafficPolicy");
    if !externally_accessible {
        if !etp.is_empty() {
            errs.push(FieldError::invalid(
                "spec.externalTrafficPolicy",
                json!(etp),
                "may only be set for externally-accessible services",
            ));
        }
    } else if etp.is_empty() {
        errs.push(FieldError::required("spec.externalTrafficPolicy", ""));
    } else if etp != "Cluster" && etp != "Local" {
        errs.push(not_supported(
            "spec.externalTrafficPolicy",
            json!(etp),
            &["Cluster", "Local"],
        ));
    }
    let hc = int_of(spec, "healthCheckNodePort").unwrap_or(0);
    if hc != 0 && !(ty == "LoadBalancer" && etp == "Local") {
        errs.push(FieldError::invalid(
            "spec.healthCheckNodePort",
            json!(hc),
            "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ));
    }
    if let Some(itp) = get(spec, "internalTrafficPolicy") {
        let v = itp.as_str().unwrap_or("");
        if v != "Cluster" && v != "Local" {
            errs.push(not_supported(
                "spec.internalTrafficPolicy",
                itp.clone(),
                &["Cluster", "Local"],
            ));
        }
    } else if ty != "ExternalName" {
        errs.push(FieldError::required("spec.internalTrafficPolicy", ""));
    }
}
