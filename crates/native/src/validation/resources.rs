//! `ValidateResourceRequirements` of a container: resource names, quantities
//! (non-negative; whole numbers for extended resources), requests ≤ limits, and
//! requests = limits for resources that cannot be overcommitted (hugepages, extended).
//! Go ranges over the maps in random order; kadmit goes by sorted name.

use super::util::{child, key, string_map, Errors, IS_NEGATIVE};
use kadmit_schema::field_error::FieldError;
use kadmit_schema::objectmeta::qualified_name_errors;
use kadmit_schema::quantity::Quantity;
use serde_json::{json, Value};
use std::cmp::Ordering;

const STANDARD_RESOURCES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "quota",
    "services",
    "replicationcontrollers",
    "secrets",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

fn is_hugepages(name: &str) -> bool {
    name.starts_with("hugepages-")
}

/// `helper.IsNativeResource`: unprefixed or `*kubernetes.io/`.
fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `helper.IsExtendedResourceName`.
fn is_extended(name: &str) -> bool {
    !is_native(name)
        && !name.starts_with("requests.")
        && qualified_name_errors(&format!("requests.{name}")).is_empty()
}

/// `helper.IsOvercommitAllowed`.
fn overcommit_allowed(name: &str) -> bool {
    is_native(name) && !is_hugepages(name)
}

/// `validateContainerResourceName`.
fn validate_name(name: &str, path: &str, errs: &mut Errors) {
    let msgs = qualified_name_errors(name);
    let valid = msgs.is_empty();
    for msg in msgs {
        errs.push(FieldError::invalid(path, json!(name), msg));
    }
    if !name.contains('/') {
        if valid && !STANDARD_RESOURCES.contains(&name) && !is_hugepages(name) {
            errs.push(FieldError::invalid(
                path,
                json!(name),
                "must be a standard resource type or fully qualified",
            ));
        }
        if !matches!(name, "cpu" | "memory" | "ephemeral-storage") && !is_hugepages(name) {
            errs.push(FieldError::invalid(
                path,
                json!(name),
                "must be a standard resource for containers",
            ));
        }
    } else if !is_native(name) && !is_extended(name) {
        errs.push(FieldError::invalid(
            path,
            json!(name),
            "doesn't follow extended resource name standard",
        ));
    }
}

/// `ValidateResourceQuantityValue`.
fn validate_value(name: &str, q: &Quantity, path: &str, errs: &mut Errors) {
    if q.sign() < 0 {
        errs.push(FieldError::invalid(path, json!(q.canonical()), IS_NEGATIVE));
    }
    if is_extended(name) && !q.is_integer() {
        errs.push(FieldError::invalid(
            path,
            json!(q.canonical()),
            "must be an integer",
        ));
    }
}

fn quantities<'a>(r: &'a Value, k: &str) -> Vec<(&'a str, Option<Quantity>)> {
    string_map(r, k)
        .into_iter()
        .map(|(name, v)| (name, Quantity::parse(v).ok()))
        .collect()
}

pub fn validate_resources(r: &Value, path: &str, errs: &mut Errors) {
    let lim_path = child(path, "limits");
    let req_path = child(path, "requests");
    let limits = quantities(r, "limits");
    let requests = quantities(r, "requests");
    let (mut lim_cpu_mem, mut req_cpu_mem, mut lim_huge, mut req_huge) =
        (false, false, false, false);
    for (name, q) in &limits {
        let at = key(&lim_path, name);
        validate_name(name, &at, errs);
        if let Some(q) = q {
            validate_value(name, q, &at, errs);
        }
        lim_huge |= is_hugepages(name);
        lim_cpu_mem |= matches!(*name, "cpu" | "memory");
    }
    for (name, q) in &requests {
        let at = key(&req_path, name);
        validate_name(name, &at, errs);
        let Some(q) = q else { continue };
        validate_value(name, q, &at, errs);
        match limits.iter().find(|(n, _)| n == name) {
            Some((_, Some(limit))) => {
                let ord = q.compare(limit);
                if ord != Ordering::Equal && !overcommit_allowed(name) {
                    errs.push(FieldError::invalid(
                        &req_path,
                        json!(q.canonical()),
                        format!("must be equal to {name} limit of {}", limit.canonical()),
                    ));
                } else if ord == Ordering::Greater {
                    errs.push(FieldError::invalid(
                        &req_path,
                        json!(q.canonical()),
                        format!(
                            "must be less than or equal to {name} limit of {}",
                            limit.canonical()
                        ),
                    ));
                }
            }
            Some(_) => {}
            None if !overcommit_allowed(name) => errs.push(FieldError::required(
                &lim_path,
                "Limit must be set for non overcommitable resources",
            )),
            None => {}
        }
        req_huge |= is_hugepages(name);
        req_cpu_mem |= matches!(*name, "cpu" | "memory");
    }
    if !lim_cpu_mem && !req_cpu_mem && (req_huge || lim_huge) {
        errs.push(FieldError::forbidden(
            path,
            "HugePages require cpu or memory",
        ));
    }
}
