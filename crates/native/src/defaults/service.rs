//! `SetDefaults_Service` (core/v1 defaults.go) and the declarative ServicePort protocol.
//!
//! Not defaults, so not here: clusterIP(s), ipFamilies and ipFamilyPolicy, nodePorts and
//! healthCheckNodePort are allocated by the Service REST storage from cluster state.

use super::value::{default_nil, default_str, each_obj, is_nil, obj_or_new, set, str_of, Obj};
use serde_json::Value;

/// `DefaultClientIPServiceAffinitySeconds`.
const CLIENT_IP_TIMEOUT: i64 = 10800;

pub fn service(svc: &mut Obj) {
    let Some(spec) = obj_or_new(svc, "spec") else {
        return;
    };
    session_affinity(spec);
    default_str(spec, "type", "ClusterIP");
    for port in each_obj(spec, "ports") {
        default_str(port, "protocol", "TCP");
        target_port(port);
    }
    let Some(kind) = str_of(spec, "type").map(str::to_owned) else {
        return;
    };
    let has_external_ips = spec
        .get("externalIPs")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    // service.ExternallyAccessible.
    let externally_accessible =
        kind == "LoadBalancer" || kind == "NodePort" || (kind == "ClusterIP" && has_external_ips);
    if externally_accessible {
        default_str(spec, "externalTrafficPolicy", "Cluster");
    }
    if matches!(kind.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP") {
        default_nil(spec, "internalTrafficPolicy", Value::from("Cluster"));
    }
    if kind == "LoadBalancer" {
        default_nil(spec, "allocateLoadBalancerNodePorts", Value::Bool(true));
        load_balancer_ip_mode(svc);
    }
}

/// sessionAffinity "" → None; None drops sessionAffinityConfig; ClientIP without a timeout
/// gets `{clientIP: {timeoutSeconds: 10800}}` (the whole config is replaced).
fn session_affinity(spec: &mut Obj) {
    default_str(spec, "sessionAffinity", "None");
    match str_of(spec, "sessionAffinity") {
        Some("None") => {
            spec.remove("sessionAffinityConfig");
        }
        Some("ClientIP") => {
            let timeout_missing = match spec.get("sessionAffinityConfig") {
                None | Some(Value::Null) => Some(true),
                Some(Value::Object(config)) => match config.get("clientIP") {
                    None | Some(Value::Null) => Some(true),
                    Some(Value::Object(client_ip)) => Some(is_nil(client_ip, "timeoutSeconds")),
                    Some(_) => None,
                },
                Some(_) => None,
            };
            if timeout_missing == Some(true) {
                let config = serde_json::json!({"clientIP": {"timeoutSeconds": CLIENT_IP_TIMEOUT}});
                set(spec, "sessionAffinityConfig", config);
            }
        }
        _ => {}
    }
}

/// targetPort 0 or "" (or absent: IntOrString's zero value is int 0) → port.
fn target_port(port: &mut Obj) {
    let unset = match port.get("targetPort") {
        None | Some(Value::Null) => true,
        Some(Value::Number(n)) => n.as_i64() == Some(0),
        Some(Value::String(s)) => s.is_empty(),
        Some(_) => false,
    };
    let value = match port.get("port") {
        None | Some(Value::Null) => Some(Value::from(0)),
        Some(Value::Number(n)) if n.as_i64().is_some() => Some(Value::Number(n.clone())),
        Some(_) => None,
    };
    if let (true, Some(value)) = (unset, value) {
        set(port, "targetPort", value);
    }
}

/// LoadBalancer: `status.loadBalancer.ingress[i]` with an ip and no ipMode → VIP (gate
/// LoadBalancerIPMode: beta on in 1.30, GA 1.32).
fn load_balancer_ip_mode(svc: &mut Obj) {
    let ingress = svc
        .get_mut("status")
        .and_then(Value::as_object_mut)
        .and_then(|s| s.get_mut("loadBalancer"))
        .and_then(Value::as_object_mut);
    let Some(lb) = ingress else {
        return;
    };
    for ing in each_obj(lb, "ingress") {
        let has_ip = str_of(ing, "ip").is_some_and(|ip| !ip.is_empty());
        if has_ip {
            default_nil(ing, "ipMode", Value::from("VIP"));
        }
    }
}
