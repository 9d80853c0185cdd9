//! autoscaling/v2 HorizontalPodAutoscaler (`validateHorizontalPodAutoscalerSpec`):
//! replicas bounds, scaleTargetRef, metrics by type, behavior.

use super::util::{child, get, index, int_of, invalid_each, list, not_supported, str_of, Errors};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use kadmit_schema::objectmeta::NameRule;
use kadmit_schema::quantity::Quantity;
use serde_json::{json, Value};

const METRIC_TYPES: &[&str] = &[
    "ContainerResource",
    "External",
    "Object",
    "Pods",
    "Resource",
];

pub fn hpa(o: &Value, _minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(o, "spec").unwrap_or(&empty);
    let mut errs = Errors::new();
    let min = int_of(spec, "minReplicas");
    let max = int_of(spec, "maxReplicas").unwrap_or(0);
    // HPAScaleToZero is alpha (off): the lower bound is 1.
    if let Some(m) = min.filter(|m| *m < 1) {
        errs.push(FieldError::invalid(
            "spec.minReplicas",
            json!(m),
            "must be greater than or equal to 1",
        ));
    }
    if max < 1 {
        errs.push(FieldError::invalid(
            "spec.maxReplicas",
            json!(max),
            "must be greater than 0",
        ));
    }
    if min.is_some_and(|m| max < m) {
        errs.push(FieldError::invalid(
            "spec.maxReplicas",
            json!(max),
            "must be greater than or equal to `minReplicas`",
        ));
    }
    let r = get(spec, "scaleTargetRef").unwrap_or(&empty);
    for k in ["kind", "name"] {
        let v = str_of(r, k);
        let at = child("spec.scaleTargetRef", k);
        if v.is_empty() {
            errs.push(FieldError::required(at, ""));
        } else {
            invalid_each(&at, v, NameRule::PathSegment.errors(v, false), &mut errs);
        }
    }
    for (i, m) in list(spec, "metrics").iter().enumerate() {
        metric(m, &index("spec.metrics", i), &mut errs);
    }
    if let Some(b) = get(spec, "behavior") {
        for k in ["scaleUp", "scaleDown"] {
            if let Some(rules) = get(b, k) {
                scaling_rules(rules, k, &mut errs);
            }
        }
    }
    errs
}

/// `validateMetricSpec`.
fn metric(m: &Value, at: &str, errs: &mut Errors) {
    let ty = str_of(m, "type");
    let tp = child(at, "type");
    if ty.is_empty() {
        errs.push(FieldError::required(
            &tp,
            "must specify a metric source type",
        ));
    }
    if !METRIC_TYPES.contains(&ty) {
        errs.push(not_supported(&tp, json!(ty), METRIC_TYPES));
    }
    let sources = [
        ("Object", "object"),
        ("External", "external"),
        ("Pods", "pods"),
        ("Resource", "resource"),
        ("ContainerResource", "containerResource"),
    ];
    let mut present = Vec::new();
    for (name, k) in sources {
        if let Some(s) = get(m, k) {
            present.push(name);
            if present.len() == 1 {
                source(k, s, &child(at, k), errs);
            }
        }
    }
    match sources.iter().find(|(name, _)| *name == ty) {
        Some((_, k)) => {
            if get(m, k).is_none() {
                errs.push(FieldError::required(
                    child(at, k),
                    "must populate information for the given metric source",
                ));
            }
        }
        None => errs.push(not_supported(&tp, json!(ty), METRIC_TYPES)),
    }
    if present.len() != 1 {
        for name in present.into_iter().filter(|n| *n != ty) {
            errs.push(FieldError::forbidden(
                child(at, name),
                "must populate the given metric source only",
            ));
        }
    }
}

fn source(kind: &str, s: &Value, at: &str, errs: &mut Errors) {
    let empty = json!({});
    let target = get(s, "target").unwrap_or(&empty);
    let tp = child(at, "target");
    match kind {
        "resource" | "containerResource" => {
            if str_of(s, "name").is_empty() {
                errs.push(FieldError::required(
                    child(at, "name"),
                    "must specify a resource name",
                ));
            }
            if kind == "containerResource" && str_of(s, "container").is_empty() {
                errs.push(FieldError::required(
                    child(at, "container"),
                    "must specify a container",
                ));
            }
            metric_target(target, &tp, errs);
            let (u, v) = (
                get(target, "averageUtilization"),
                get(target, "averageValue"),
            );
            if u.is_none() && v.is_none() {
                errs.push(FieldError::required(
                    child(&tp, "averageUtilization"),
                    "must set either a target raw value or a target utilization",
                ));
            }
            if u.is_some() && v.is_some() {
                errs.push(FieldError::forbidden(
                    child(&tp, "averageValue"),
                    "may not set both a target raw value and a target utilization",
                ));
            }
        }
        "pods" => {
            metric_identifier(s, at, errs);
            metric_target(target, &tp, errs);
            if get(target, "averageValue").is_none() {
                errs.push(FieldError::required(
                    child(&tp, "averageValue"),
                    "must specify a positive target averageValue",
                ));
            }
        }
        _ => {
            if kind == "object" {
                let d = get(s, "describedObject").unwrap_or(&empty);
                for k in ["kind", "name"] {
                    if str_of(d, k).is_empty() {
                        errs.push(FieldError::required(
                            child(&child(at, "describedObject"), k),
                            "",
                        ));
                    }
                }
            }
            metric_identifier(s, at, errs);
            metric_target(target, &tp, errs);
            if get(target, "value").is_none() && get(target, "averageValue").is_none() {
                errs.push(FieldError::required(
                    child(&tp, "averageValue"),
                    "must set either a target value or averageValue",
                ));
            }
        }
    }
}

fn metric_identifier(s: &Value, at: &str, errs: &mut Errors) {
    let empty = json!({});
    let m = get(s, "metric").unwrap_or(&empty);
    let name = str_of(m, "name");
    let np = child(&child(at, "metric"), "name");
    if name.is_empty() {
        errs.push(FieldError::required(np, "must specify a metric name"));
    } else {
        invalid_each(&np, name, NameRule::PathSegment.errors(name, false), errs);
    }
}

/// `validateMetricTarget`.
fn metric_target(t: &Value, at: &str, errs: &mut Errors) {
    let ty = str_of(t, "type");
    if ty.is_empty() {
        errs.push(FieldError::required(
            child(at, "type"),
            "must specify a metric target type",
        ));
    }
    if !["Utilization", "Value", "AverageValue"].contains(&ty) {
        errs.push(FieldError::invalid(
            child(at, "type"),
            json!(ty),
            "must be either Utilization, Value, or AverageValue",
        ));
    }
    for k in ["value", "averageValue"] {
        if let Some(q) = get(t, k)
            .and_then(Value::as_str)
            .and_then(|s| Quantity::parse(s).ok())
        {
            if q.sign() != 1 {
                errs.push(FieldError::invalid(
                    child(at, k),
                    json!(q.canonical()),
                    "must be positive",
                ));
            }
        }
    }
    if let Some(u) = int_of(t, "averageUtilization").filter(|u| *u < 1) {
        errs.push(FieldError::invalid(
            child(at, "averageUtilization"),
            json!(u),
            "must be greater than 0",
        ));
    }
}

/// `validateScalingRules`.
fn scaling_rules(r: &Value, k: &str, errs: &mut Errors) {
    let at = child("spec.behavior", k);
    if let Some(w) = int_of(r, "stabilizationWindowSeconds") {
        let wp = child(&at, "stabilizationWindowSeconds");
        if w < 0 {
            errs.push(FieldError::invalid(
                &wp,
                json!(w),
                "must be greater than or equal to zero",
            ));
        }
        if w > 3600 {
            errs.push(FieldError::invalid(
                &wp,
                json!(w),
                "must be less than or equal to 3600",
            ));
        }
    }
    if let Some(sp) = get(r, "selectPolicy") {
        let s = sp.as_str().unwrap_or("");
        if !["Disabled", "Max", "Min"].contains(&s) {
            errs.push(not_supported(
                child(&at, "selectPolicy"),
                sp.clone(),
                &["Disabled", "Max", "Min"],
            ));
        }
    }
    let policies = list(r, "policies");
    if policies.is_empty() {
        errs.push(FieldError::required(
            child(&at, "policies"),
            "must specify at least one Policy",
        ));
    }
    for (i, p) in policies.iter().enumerate() {
        let pp = index(&child(&at, "policies"), i);
        let ty = str_of(p, "type");
        if ty != "Pods" && ty != "Percent" {
            errs.push(not_supported(
                child(&pp, "type"),
                json!(ty),
                &["Percent", "Pods"],
            ));
        }
        let v = int_of(p, "value").unwrap_or(0);
        if v <= 0 {
            errs.push(FieldError::invalid(
                child(&pp, "value"),
                json!(v),
                "must be greater than zero",
            ));
        }
        let ps = int_of(p, "periodSeconds").unwrap_or(0);
        if ps <= 0 {
            errs.push(FieldError::invalid(
                child(&pp, "periodSeconds"),
                json!(ps),
                "must be greater than zero",
            ));
        }
        if ps > 1800 {
            errs.push(FieldError::invalid(
                child(&pp, "periodSeconds"),
                json!(ps),
                "must be less than or equal to 1800",
            ));
        }
    }
}
