//! batch/v1 (`pkg/apis/batch/validation`): Job and CronJob.

use super::cron::parse_standard;
use super::labels::{selector_matches, selector_parses, validate_selector};
use super::pod::validate_template;
use super::util::{child, get, int_of, nonnegative_opt, not_supported, str_of, Errors};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use serde_json::{json, Value};

/// `validateJobSpec` (shared by Job and CronJob's jobTemplate), `path` the JobSpec's.
fn job_spec(spec: &Value, path: &str, minor: Minor, errs: &mut Errors) {
    for k in [
        "activeDeadlineSeconds",
        "parallelism",
        "completions",
        "backoffLimit",
        "ttlSecondsAfterFinished",
    ] {
        nonnegative_opt(spec, k, path, errs);
    }
    if let Some(mode) = get(spec, "completionMode") {
        let m = mode.as_str().unwrap_or("");
        if m != "NonIndexed" && m != "Indexed" {
            errs.push(not_supported(
                child(path, "completionMode"),
                mode.clone(),
                &["NonIndexed", "Indexed"],
            ));
        }
        if m == "Indexed" {
            if get(spec, "completions").is_none() {
                errs.push(FieldError::required(
                    child(path, "completions"),
                    "when completion mode is Indexed",
                ));
            }
            if let Some(p) = int_of(spec, "parallelism").filter(|p| *p > 100_000) {
                errs.push(FieldError::invalid(
                    child(path, "parallelism"),
                    json!(p),
                    "must be less than or equal to 100000 when completion mode is Indexed",
                ));
            }
        }
    }
    if let Some(prp) = get(spec, "podReplacementPolicy") {
        let v = prp.as_str().unwrap_or("");
        if v != "TerminatingOrFailed" && v != "Failed" {
            errs.push(not_supported(
                child(path, "podReplacementPolicy"),
                prp.clone(),
                &["Failed", "TerminatingOrFailed"],
            ));
        }
    }
    let tpath = child(path, "template");
    errs.extend(validate_template(get(spec, "template"), &tpath, minor));
    let rp_path = child(&child(&tpath, "spec"), "restartPolicy");
    let rp = get(spec, "template")
        .and_then(|t| get(t, "spec"))
        .map(|s| str_of(s, "restartPolicy"))
        .unwrap_or("");
    if rp == "Always" || rp.is_empty() {
        // Defaulting turns a missing restartPolicy into Always, so every Job that omits
        // it gets this Required error.
        errs.push(FieldError::required(
            rp_path,
            "valid values: \"OnFailure\", \"Never\"",
        ));
    } else if rp != "OnFailure" && rp != "Never" {
        errs.push(not_supported(rp_path, json!(rp), &["OnFailure", "Never"]));
    } else if get(spec, "podFailurePolicy").is_some() && rp != "Never" {
        errs.push(FieldError::invalid(
            rp_path,
            json!(rp),
            "only \"Never\" is supported when podFailurePolicy is specified",
        ));
    }
}

/// `ValidateJob` after ObjectMeta. With `manualSelector` unset the strategy generates the
/// selector and template labels before validation, so they always match; a manual
/// selector is checked like upstream's `ValidateJobSpec` does.
pub fn job(obj: &Value, minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(obj, "spec").unwrap_or(&empty);
    let mut errs = Errors::new();
    job_spec(spec, "spec", minor, &mut errs);
    if get(spec, "manualSelector").and_then(Value::as_bool) == Some(true) {
        let selector = get(spec, "selector");
        match selector {
            None => errs.push(FieldError::required("spec.selector", "")),
            Some(s) => validate_selector(Some(s), "spec.selector", &mut errs),
        }
        if let Some(sel) = selector.filter(|s| selector_parses(Some(s))) {
            let labels = get(spec, "template")
                .and_then(|t| get(t, "metadata"))
                .and_then(|m| get(m, "labels"));
            if !selector_matches(sel, labels) {
                errs.push(FieldError::invalid(
                    "spec.template.metadata.labels",
                    labels.cloned().unwrap_or(Value::Null),
                    "`selector` does not match template `labels`",
                ));
            }
        }
    }
    let indexed = str_of(spec, "completionMode") == "Indexed";
    if let Some(c) = int_of(spec, "completions").filter(|c| indexed && *c > 0) {
        let name = get(obj, "metadata")
            .map(|m| str_of(m, "name"))
            .unwrap_or("");
        let hostname = format!("{name}-{}", c - 1);
        if !kadmit_schema::objectmeta::dns1123_label_errors(&hostname).is_empty() {
            errs.push(FieldError::invalid(
                "metadata.name",
                json!(name),
                format!("will not able to create pod with invalid DNS label: {hostname}"),
            ));
        }
    }
    errs
}

/// `validateCronJobSpec`.
pub fn cron_job(obj: &Value, minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(obj, "spec").unwrap_or(&empty);
    let mut errs = Errors::new();
    let schedule = str_of(spec, "schedule");
    if schedule.is_empty() {
        errs.push(FieldError::required("spec.schedule", ""));
    } else {
        if let Err(e) = parse_standard(schedule) {
            errs.push(FieldError::invalid("spec.schedule", json!(schedule), e));
        }
        if schedule.contains("TZ") {
            errs.push(FieldError::invalid(
                "spec.schedule",
                json!(schedule),
                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            ));
        }
    }
    nonnegative_opt(spec, "startingDeadlineSeconds", "spec", &mut errs);
    if let Some(tz) = get(spec, "timeZone").and_then(Value::as_str) {
        time_zone(tz, &mut errs);
    }
    let cp = str_of(spec, "concurrencyPolicy");
    match cp {
        "Allow" | "Forbid" | "Replace" => {}
        "" => errs.push(FieldError::required("spec.concurrencyPolicy", "")),
        other => errs.push(not_supported(
            "spec.concurrencyPolicy",
            json!(other),
            &["Allow", "Forbid", "Replace"],
        )),
    }
    // ValidateJobTemplateSpec
    let jt = get(spec, "jobTemplate").unwrap_or(&empty);
    let jspec = get(jt, "spec").unwrap_or(&empty);
    job_spec(jspec, "spec.jobTemplate.spec", minor, &mut errs);
    if let Some(sel) = get(jspec, "selector") {
        errs.push(FieldError::invalid(
            "spec.jobTemplate.spec.selector",
            sel.clone(),
            "`selector` will be auto-generated",
        ));
    }
    if get(jspec, "manualSelector").and_then(Value::as_bool) == Some(true) {
        errs.push(not_supported(
            "spec.jobTemplate.spec.manualSelector",
            json!(true),
            &["nil", "false"],
        ));
    }
    for k in ["successfulJobsHistoryLimit", "failedJobsHistoryLimit"] {
        nonnegative_opt(spec, k, "spec", &mut errs);
    }
    errs
}

/// `validateTimeZone` without `time.LoadLocation` (kadmit has no zone database).
fn time_zone(tz: &str, errs: &mut Errors) {
    let at = "spec.timeZone";
    if tz.is_empty() {
        errs.push(FieldError::invalid(
            at,
            json!(tz),
            "timeZone must be nil or non-empty string",
        ));
        return;
    }
    let bad_part = tz.split('/').any(|p| {
        p == "."
            || p == ".."
            || p.starts_with('-')
            || p.is_empty()
            || p.len() > 14
            || !p
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'+'))
    });
    if bad_part {
        errs.push(FieldError::invalid(
            at,
            json!(tz),
            format!("unknown time zone {tz}"),
        ));
        return;
    }
    if tz.eq_ignore_ascii_case("Local") {
        errs.push(FieldError::invalid(
            at,
            json!(tz),
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        ));
    }
}

/// `ValidateCronJobCreate`'s last check: the controller appends an 11-character suffix to
/// make Job names, which are DNS labels (63).
pub fn cron_job_name_length(obj: &Value) -> Errors {
    let name = get(obj, "metadata")
        .map(|m| str_of(m, "name"))
        .unwrap_or("");
    if name.len() > 52 {
        vec![FieldError::invalid(
            "metadata.name",
            json!(name),
            "must be no more than 52 characters",
        )]
    } else {
        Vec::new()
    }
}
