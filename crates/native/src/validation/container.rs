//! One container (`validateContainerCommon` of `pkg/apis/core/validation`): name, image,
//! terminationMessagePolicy, ports, env, envFrom, volumeMounts, imagePullPolicy,
//! resources, securityContext; and the probes/lifecycle checks the container lists add.

use super::resources::validate_resources;
use super::util::{
    child, dns1123_label, get, id_range, index, int_of, invalid_each, list, nonnegative, not_found,
    not_supported, port_name_errors, port_num_errors, port_num_or_name, str_of, Errors,
};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use serde_json::{json, Value};
use std::collections::BTreeSet;

const ENV_VAR_NAME_MSG: &str = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";
const RELAXED_ENV_VAR_NAME_MSG: &str =
    "a valid environment variable name must consist only of printable ASCII characters other than '='";
const CONFIG_KEY_MSG: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/// `validateContainerCommon`. `volumes` are the names of the pod's valid volumes.
pub fn validate_common(c: &Value, volumes: &BTreeSet<String>, path: &str, minor: Minor) -> Errors {
    let mut errs = Errors::new();
    let name = str_of(c, "name");
    let name_path = child(path, "name");
    if name.is_empty() {
        errs.push(FieldError::required(&name_path, ""));
    } else {
        dns1123_label(name, &name_path, &mut errs);
    }
    if str_of(c, "image").is_empty() {
        errs.push(FieldError::required(child(path, "image"), ""));
    }
    let tmp = child(path, "terminationMessagePolicy");
    match str_of(c, "terminationMessagePolicy") {
        "File" | "FallbackToLogsOnError" => {}
        "" => errs.push(FieldError::required(tmp, "")),
        other => errs.push(not_supported(
            tmp,
            json!(other),
            &["File", "FallbackToLogsOnError"],
        )),
    }
    validate_ports(c, &child(path, "ports"), &mut errs);
    validate_env(c, &child(path, "env"), minor, &mut errs);
    validate_env_from(c, &child(path, "envFrom"), minor, &mut errs);
    validate_volume_mounts(c, volumes, &child(path, "volumeMounts"), &mut errs);
    let ipp = child(path, "imagePullPolicy");
    match str_of(c, "imagePullPolicy") {
        "Always" | "IfNotPresent" | "Never" => {}
        "" => errs.push(FieldError::required(ipp, "")),
        other => errs.push(not_supported(
            ipp,
            json!(other),
            &["Always", "IfNotPresent", "Never"],
        )),
    }
    if let Some(resources) = get(c, "resources") {
        validate_resources(resources, &child(path, "resources"), &mut errs);
    }
    if let Some(sc) = get(c, "securityContext") {
        let at = child(path, "securityContext");
        for k in ["runAsUser", "runAsGroup"] {
            if let Some(id) = int_of(sc, k) {
                id_range(id, &child(&at, k), &mut errs);
            }
        }
    }
    errs
}

/// `validateContainerPorts`.
fn validate_ports(c: &Value, path: &str, errs: &mut Errors) {
    let mut names = BTreeSet::new();
    for (i, port) in list(c, "ports").iter().enumerate() {
        let at = index(path, i);
        let name = str_of(port, "name");
        if !name.is_empty() {
            let msgs = port_name_errors(name);
            if !msgs.is_empty() {
                invalid_each(&child(&at, "name"), name, msgs, errs);
            } else if !names.insert(name) {
                errs.push(super::util::duplicate(child(&at, "name"), json!(name)));
            }
        }
        let cp = int_of(port, "containerPort").unwrap_or(0);
        if cp == 0 {
            errs.push(FieldError::required(child(&at, "containerPort"), ""));
        } else {
            for msg in port_num_errors(cp) {
                errs.push(FieldError::invalid(
                    child(&at, "containerPort"),
                    json!(cp),
                    msg,
                ));
            }
        }
        let hp = int_of(port, "hostPort").unwrap_or(0);
        if hp != 0 {
            for msg in port_num_errors(hp) {
                errs.push(FieldError::invalid(child(&at, "hostPort"), json!(hp), msg));
            }
        }
        match get(port, "protocol") {
            None => errs.push(FieldError::required(child(&at, "protocol"), "")),
            Some(Value::String(p)) if p.is_empty() => {
                errs.push(FieldError::required(child(&at, "protocol"), ""))
            }
            Some(Value::String(p)) if ["SCTP", "TCP", "UDP"].contains(&p.as_str()) => {}
            Some(p) => errs.push(not_supported(
                child(&at, "protocol"),
                p.clone(),
                &["SCTP", "TCP", "UDP"],
            )),
        }
    }
}

/// `IsEnvVarName` before RelaxedEnvironmentVariableValidation (beta, on by default, in
/// 1.32; GA 1.34), `IsRelaxedEnvVarName` from then on.
fn env_name_errors(name: &str, minor: Minor) -> Vec<String> {
    if minor >= 32 {
        if name.chars().any(|c| !(' '..='~').contains(&c) || c == '=') {
            return vec![RELAXED_ENV_VAR_NAME_MSG.to_owned()];
        }
        return Vec::new();
    }
    let mut errs = Vec::new();
    let b = name.as_bytes();
    let ok_first = |c: &u8| c.is_ascii_alphabetic() || matches!(c, b'-' | b'.' | b'_');
    if !(b.first().is_some_and(ok_first) && b.iter().all(|c| ok_first(c) || c.is_ascii_digit())) {
        errs.push(ENV_VAR_NAME_MSG.to_owned());
    }
    match name {
        "." => errs.push("must not be '.'".to_owned()),
        ".." => errs.push("must not be '..'".to_owned()),
        n if n.starts_with("..") => errs.push("must not start with '..'".to_owned()),
        _ => {}
    }
    errs
}

/// `ValidateEnv`.
fn validate_env(c: &Value, path: &str, minor: Minor, errs: &mut Errors) {
    for (i, ev) in list(c, "env").iter().enumerate() {
        let at = index(path, i);
        let name = str_of(ev, "name");
        if name.is_empty() {
            errs.push(FieldError::required(child(&at, "name"), ""));
        } else {
            invalid_each(
                &child(&at, "name"),
                name,
                env_name_errors(name, minor),
                errs,
            );
        }
        let Some(from) = get(ev, "valueFrom") else {
            continue;
        };
        let vf = child(&at, "valueFrom");
        let mut sources = 0;
        if let Some(fr) = get(from, "fieldRef") {
            sources += 1;
            let p = child(&vf, "fieldRef");
            if str_of(fr, "apiVersion").is_empty() {
                errs.push(FieldError::required(child(&p, "apiVersion"), ""));
            } else if str_of(fr, "fieldPath").is_empty() {
                errs.push(FieldError::required(child(&p, "fieldPath"), ""));
            }
        }
        if let Some(rf) = get(from, "resourceFieldRef") {
            sources += 1;
            if str_of(rf, "resource").is_empty() {
                errs.push(FieldError::required(
                    child(&child(&vf, "resourceFieldRef"), "resource"),
                    "",
                ));
            }
        }
        for k in ["configMapKeyRef", "secretKeyRef"] {
            if let Some(sel) = get(from, k) {
                sources += 1;
                key_selector(sel, &child(&vf, k), errs);
            }
        }
        if sources == 0 {
            errs.push(FieldError::invalid(
                &vf,
                json!(""),
                "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
            ));
        } else if !str_of(ev, "value").is_empty() {
            errs.push(FieldError::invalid(
                &vf,
                json!(""),
                "may not be specified when `value` is not empty",
            ));
        } else if sources > 1 {
            errs.push(FieldError::invalid(
                &vf,
                json!(""),
                "may not have more than one field specified at a time",
            ));
        }
    }
}

/// `validateConfigMapKeySelector` / `validateSecretKeySelector`.
fn key_selector(sel: &Value, path: &str, errs: &mut Errors) {
    let name = str_of(sel, "name");
    invalid_each(
        &child(path, "name"),
        name,
        kadmit_schema::objectmeta::dns1123_subdomain_errors(name),
        errs,
    );
    let key = str_of(sel, "key");
    if key.is_empty() {
        errs.push(FieldError::required(child(path, "key"), ""));
    } else {
        invalid_each(&child(path, "key"), key, config_key_errors(key), errs);
    }
}

/// `validation.IsConfigMapKey`.
pub fn config_key_errors(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if key.len() > 253 {
        errs.push("must be no more than 253 characters".to_owned());
    }
    if !key
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        errs.push(CONFIG_KEY_MSG.to_owned());
    }
    match key {
        "." => errs.push("must not be '.'".to_owned()),
        ".." => errs.push("must not be '..'".to_owned()),
        k if k.starts_with("..") => errs.push("must not start with '..'".to_owned()),
        _ => {}
    }
    errs
}

/// `ValidateEnvFrom`. Note upstream reports the source-count errors at `envFrom` itself,
/// not at the item.
fn validate_env_from(c: &Value, path: &str, minor: Minor, errs: &mut Errors) {
    for (i, ev) in list(c, "envFrom").iter().enumerate() {
        let at = index(path, i);
        let prefix = str_of(ev, "prefix");
        if !prefix.is_empty() {
            invalid_each(
                &child(&at, "prefix"),
                prefix,
                env_name_errors(prefix, minor),
                errs,
            );
        }
        let mut sources = 0;
        for k in ["configMapRef", "secretRef"] {
            if let Some(r) = get(ev, k) {
                sources += 1;
                let np = child(&child(&at, k), "name");
                let name = str_of(r, "name");
                if name.is_empty() {
                    errs.push(FieldError::required(np, ""));
                } else {
                    let masked = mask_prefix(name);
                    for msg in kadmit_schema::objectmeta::dns1123_subdomain_errors(&masked) {
                        errs.push(FieldError::invalid(&np, json!(name), msg));
                    }
                }
            }
        }
        if sources == 0 {
            errs.push(FieldError::invalid(
                path,
                json!(""),
                "must specify one of: `configMapRef` or `secretRef`",
            ));
        } else if sources > 1 {
            errs.push(FieldError::invalid(
                path,
                json!(""),
                "may not have more than one field specified at a time",
            ));
        }
    }
}

/// Upstream checks these names with `prefix == true` (a trailing dash is masked).
fn mask_prefix(name: &str) -> String {
    let b = name.as_bytes();
    if b.len() > 1 && b.ends_with(b"-") {
        let mut m = b[..b.len() - 2].to_vec();
        m.push(b'a');
        String::from_utf8_lossy(&m).into_owned()
    } else {
        name.to_owned()
    }
}

/// `ValidateVolumeMounts` (volumeDevices overlap not checked).
fn validate_volume_mounts(c: &Value, volumes: &BTreeSet<String>, path: &str, errs: &mut Errors) {
    let mut mount_points = BTreeSet::new();
    for (i, m) in list(c, "volumeMounts").iter().enumerate() {
        let at = index(path, i);
        let name = str_of(m, "name");
        if name.is_empty() {
            errs.push(FieldError::required(child(&at, "name"), ""));
        }
        if !volumes.contains(name) {
            errs.push(not_found(child(&at, "name"), json!(name)));
        }
        let mp = str_of(m, "mountPath");
        if mp.is_empty() {
            errs.push(FieldError::required(child(&at, "mountPath"), ""));
        }
        if !mount_points.insert(mp) {
            errs.push(FieldError::invalid(
                child(&at, "mountPath"),
                json!(mp),
                "must be unique",
            ));
        }
        // Upstream passes the list's path, not the item's, for subPath/subPathExpr.
        let sub = str_of(m, "subPath");
        if !sub.is_empty() {
            local_descending_path(sub, &child(path, "subPath"), errs);
        }
        let expr = str_of(m, "subPathExpr");
        if !expr.is_empty() {
            if !sub.is_empty() {
                errs.push(FieldError::invalid(
                    child(&at, "subPathExpr"),
                    json!(expr),
                    "subPathExpr and subPath are mutually exclusive",
                ));
            }
            local_descending_path(expr, &child(path, "subPathExpr"), errs);
        }
    }
}

/// `validateLocalDescendingPath`.
fn local_descending_path(p: &str, path: &str, errs: &mut Errors) {
    if p.starts_with('/') {
        errs.push(FieldError::invalid(
            path,
            json!(p),
            "must be a relative path",
        ));
    }
    if p.split('/').any(|s| s == "..") {
        errs.push(FieldError::invalid(path, json!(p), "must not contain '..'"));
    }
}

/// `validateLivenessProbe` / `validateReadinessProbe` / `validateStartupProbe`.
pub fn validate_probe(c: &Value, k: &str, grace: Option<i64>, path: &str, errs: &mut Errors) {
    let Some(probe) = get(c, k) else { return };
    let at = child(path, k);
    let handler = Handler {
        exec: get(probe, "exec"),
        http_get: get(probe, "httpGet"),
        tcp_socket: get(probe, "tcpSocket"),
        grpc: get(probe, "grpc"),
        sleep: None,
    };
    handler.validate(grace, &at, errs);
    for f in [
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    ] {
        nonnegative(int_of(probe, f).unwrap_or(0), &child(&at, f), errs);
    }
    let tgps = int_of(probe, "terminationGracePeriodSeconds");
    if let Some(t) = tgps.filter(|t| *t <= 0) {
        errs.push(FieldError::invalid(
            child(&at, "terminationGracePeriodSeconds"),
            json!(t),
            "must be greater than 0",
        ));
    }
    let success = int_of(probe, "successThreshold").unwrap_or(0);
    if (k == "livenessProbe" || k == "startupProbe") && success != 1 {
        errs.push(FieldError::invalid(
            child(&at, "successThreshold"),
            json!(success),
            "must be 1",
        ));
    }
    if k == "readinessProbe" {
        if let Some(t) = tgps {
            errs.push(FieldError::invalid(
                child(&at, "terminationGracePeriodSeconds"),
                json!(t),
                "must not be set for readinessProbes",
            ));
        }
    }
}

/// `validateLifecycle`.
pub fn validate_lifecycle(c: &Value, grace: Option<i64>, path: &str, errs: &mut Errors) {
    let Some(lc) = get(c, "lifecycle") else {
        return;
    };
    let at = child(path, "lifecycle");
    for k in ["postStart", "preStop"] {
        if let Some(h) = get(lc, k) {
            let handler = Handler {
                exec: get(h, "exec"),
                http_get: get(h, "httpGet"),
                tcp_socket: get(h, "tcpSocket"),
                grpc: None,
                sleep: get(h, "sleep"),
            };
            handler.validate(grace, &child(&at, k), errs);
        }
    }
}

/// `commonHandler`.
struct Handler<'a> {
    exec: Option<&'a Value>,
    http_get: Option<&'a Value>,
    tcp_socket: Option<&'a Value>,
    grpc: Option<&'a Value>,
    sleep: Option<&'a Value>,
}

impl Handler<'_> {
    /// `validateHandler`: exactly one handler, checked in the order exec, httpGet,
    /// tcpSocket, grpc, sleep.
    fn validate(&self, grace: Option<i64>, path: &str, errs: &mut Errors) {
        let mut n = 0;
        let handlers = [
            ("exec", self.exec),
            ("httpGet", self.http_get),
            ("tcpSocket", self.tcp_socket),
            ("grpc", self.grpc),
            ("sleep", self.sleep),
        ];
        for (name, h) in handlers {
            let Some(h) = h else { continue };
            let at = child(path, name);
            if n > 0 {
                errs.push(FieldError::forbidden(
                    at,
                    "may not specify more than 1 handler type",
                ));
                continue;
            }
            n += 1;
            match name {
                "exec" => {
                    if list(h, "command").is_empty() {
                        errs.push(FieldError::required(child(&at, "command"), ""));
                    }
                }
                "httpGet" => {
                    if str_of(h, "path").is_empty() {
                        errs.push(FieldError::required(child(&at, "path"), ""));
                    }
                    port_num_or_name(get(h, "port"), &child(&at, "port"), errs);
                    let scheme = str_of(h, "scheme");
                    if !["HTTP", "HTTPS"].contains(&scheme) {
                        errs.push(not_supported(
                            child(&at, "scheme"),
                            json!(scheme),
                            &["HTTP", "HTTPS"],
                        ));
                    }
                }
                "tcpSocket" => port_num_or_name(get(h, "port"), &child(&at, "port"), errs),
                "grpc" => {
                    let port = int_of(h, "port").unwrap_or(0);
                    port_num_or_name(Some(&json!(port)), &child(&at, "port"), errs);
                }
                _ => {
                    let secs = int_of(h, "seconds").unwrap_or(0);
                    let g = grace.unwrap_or(0);
                    if secs <= 0 || secs > g {
                        errs.push(FieldError::invalid(
                            at,
                            json!(secs),
                            format!("must be greater than 0 and less than terminationGracePeriodSeconds ({g})"),
                        ));
                    }
                }
            }
        }
        if n == 0 {
            errs.push(FieldError::required(path, "must specify a handler type"));
        }
    }
}
