//! A Service's UPDATE rules (`ValidateServiceUpdate`, kube-apiserver 1.30–1.35):
//! cluster IPs and IP families may be added, or the secondary released with
//! `ipFamilyPolicy: SingleStack`, never changed, unless the Service is or was
//! ExternalName; a LoadBalancer keeps its `loadBalancerClass`.
//!
//! What the server allocated and a manifest leaves out (cluster IPs, IP families and
//! policy) is taken from the old Service while the type still has cluster IPs, as the
//! strategy's `patchAllocatedValues` does.

use super::gofmt;
use super::rules::at;
use kadmit_schema::field_error::{BadValue, ErrorType, FieldError};
use serde_json::Value;

/// The Service as the server holds it on update: `new` with the allocated values it
/// leaves out taken from `old`.
struct Held {
    kind: String,
    cluster_ips: Vec<String>,
    families: Vec<String>,
    policy: Option<String>,
    load_balancer_class: Option<String>,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn string(v: &Value, pointer: &str) -> Option<String> {
    at(v, pointer).and_then(Value::as_str).map(str::to_owned)
}

fn service_type(v: &Value) -> String {
    string(v, "/spec/type").unwrap_or_else(|| "ClusterIP".to_owned())
}

fn own_cluster_ips(v: &Value) -> Vec<String> {
    let ips = strings(at(v, "/spec/clusterIPs"));
    if !ips.is_empty() {
        return ips;
    }
    match string(v, "/spec/clusterIP") {
        Some(ip) if !ip.is_empty() => vec![ip],
        _ => Vec::new(),
    }
}

fn held(v: &Value, old: &Value) -> Held {
    let kind = service_type(v);
    let carries = kind != "ExternalName" && service_type(old) != "ExternalName";
    let mut cluster_ips = own_cluster_ips(v);
    let mut families = strings(at(v, "/spec/ipFamilies"));
    let mut policy = string(v, "/spec/ipFamilyPolicy");
    if carries {
        if cluster_ips.is_empty() {
            cluster_ips = own_cluster_ips(old);
        }
        if families.is_empty() {
            families = strings(at(old, "/spec/ipFamilies"));
        }
        if policy.is_none() {
            policy = string(old, "/spec/ipFamilyPolicy");
        }
    }
    Held {
        kind,
        cluster_ips,
        families,
        policy,
        load_balancer_class: string(v, "/spec/loadBalancerClass"),
    }
}

fn headless(s: &Held) -> bool {
    s.cluster_ips.len() == 1 && s.cluster_ips[0] == "None"
}

/// `%#v` of a `[]core.IPFamily`.
fn families_shown(families: &[String]) -> String {
    let shown = gofmt::string_slice(Some(&Value::from(families.to_vec())));
    shown.replacen("[]string", "[]core.IPFamily", 1)
}

fn invalid_shown(field: String, shown: &str, detail: &str) -> FieldError {
    FieldError {
        kind: ErrorType::Invalid,
        field,
        value: BadValue::Omit,
        detail: format!("{shown}: {detail}"),
    }
}

/// A pointer to a string-like value as `field.Error` prints it: the value quoted, a nil
/// one as `"null"`.
fn pointer_value(v: &Option<String>) -> Value {
    Value::String(v.clone().unwrap_or_else(|| "null".to_owned()))
}

pub fn service(new: &Value, old: &Value) -> Vec<FieldError> {
    let after = held(new, old);
    let before = held(old, old);
    let mut errs = Vec::new();
    if after.kind != "ExternalName" && before.kind != "ExternalName" {
        errs.extend(cluster_ips(&after, &before));
        errs.extend(ip_families(&after, &before));
    }
    if after.kind == "LoadBalancer"
        && before.kind == "LoadBalancer"
        && after.load_balancer_class != before.load_balancer_class
    {
        errs.push(FieldError::invalid(
            "spec.loadBalancerClass",
            pointer_value(&after.load_balancer_class),
            "may not change once set",
        ));
    }
    errs
}

fn release_policy(after: &Held, what: &str) -> Option<FieldError> {
    (after.policy.as_deref() != Some("SingleStack")).then(|| {
        FieldError::invalid(
            "spec.ipFamilyPolicy",
            pointer_value(&after.policy),
            format!("must be set to 'SingleStack' when releasing the secondary {what}"),
        )
    })
}

/// `validateUpgradeDowngradeClusterIPs`.
fn cluster_ips(after: &Held, before: &Held) -> Vec<FieldError> {
    if headless(after) && headless(before) {
        return Vec::new();
    }
    let shown = gofmt::string_slice(Some(&Value::from(after.cluster_ips.clone())));
    let invalid =
        |i: usize, detail: &str| invalid_shown(format!("spec.clusterIPs[{i}]"), &shown, detail);
    let (a, b) = (&after.cluster_ips, &before.cluster_ips);
    let mut errs = Vec::new();
    if a.len() == b.len() {
        for (i, ip) in b.iter().enumerate() {
            if *ip != a[i] {
                errs.push(invalid(i, "may not change once set"));
            }
        }
    } else if b.len() > a.len() {
        if a.is_empty() {
            errs.push(invalid(0, "primary clusterIP can not be unset"));
        } else if a[0] != b[0] {
            errs.push(invalid(0, "may not change once set"));
        }
        if a.len() == 1 {
            errs.extend(release_policy(after, "clusterIP"));
        }
    } else if !b.is_empty() && a[0] != b[0] {
        errs.push(invalid(0, "may not change once set"));
    }
    errs
}

/// `validateUpgradeDowngradeIPFamilies`.
fn ip_families(after: &Held, before: &Held) -> Vec<FieldError> {
    if headless(after) || headless(before) {
        return Vec::new();
    }
    let families = families_shown(&after.families);
    let ips = gofmt::string_slice(Some(&Value::from(after.cluster_ips.clone())));
    let invalid =
        |shown: &str, detail: &str| invalid_shown("spec.ipFamilies[0]".to_owned(), shown, detail);
    let (a, b) = (&after.families, &before.families);
    let mut errs = Vec::new();
    if a.len() == b.len() {
        for (i, family) in b.iter().enumerate() {
            if *family != a[i] {
                errs.push(invalid(&families, "may not change once set"));
            }
        }
    } else if b.len() > a.len() {
        if after.cluster_ips.is_empty() {
            errs.push(invalid(&families, "primary ipFamily can not be unset"));
        }
        if !a.is_empty() && a[0] != b[0] {
            errs.push(invalid(&ips, "may not change once set"));
        }
        if a.len() == 1 {
            errs.extend(release_policy(after, "ipFamily"));
        }
    } else if !b.is_empty() && !a.is_empty() && a[0] != b[0] {
        errs.push(invalid(&ips, "may not change once set"));
    }
    errs
}
