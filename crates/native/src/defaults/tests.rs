//! Data-driven tests: object in → object out per defaulting function (reference §3), each
//! also checked for idempotency and for the reported change flag; then version-dependent
//! cases, image reference parsing, and malformed input.

mod core_cases;
mod malformed;
mod other_cases;
mod pod_cases;
mod workload_cases;

use super::apply;
use crate::{Kind, Minor};
use serde_json::Value;

/// One table row: `kind` (group/version/Kind) defaulted at each of `minors`.
pub struct Case {
    pub name: &'static str,
    pub kind: (&'static str, &'static str, &'static str),
    pub minors: &'static [Minor],
    pub input: Value,
    pub expected: Value,
}

pub const ALL: &[Minor] = &[30, 31, 32, 33, 34, 35];

pub fn kind(k: (&'static str, &'static str, &'static str)) -> Kind<'static> {
    Kind {
        group: k.0,
        version: k.1,
        kind: k.2,
    }
}

/// Runs one case: the output, the change flag, and a second pass that changes nothing.
fn check(case: &Case) {
    for &minor in case.minors {
        let mut object = case.input.clone();
        let changed = apply(kind(case.kind), &mut object, minor);
        assert_eq!(
            object,
            case.expected,
            "{} @1.{minor}: got\n{}",
            case.name,
            serde_json::to_string_pretty(&object).unwrap()
        );
        assert_eq!(
            changed,
            case.input != case.expected,
            "{} @1.{minor}: change flag",
            case.name
        );
        let once = object.clone();
        assert!(
            !apply(kind(case.kind), &mut object, minor),
            "{} @1.{minor}: not idempotent",
            case.name
        );
        assert_eq!(
            object, once,
            "{} @1.{minor}: second pass changed it",
            case.name
        );
    }
}

/// Every table row.
pub fn all_cases() -> Vec<Case> {
    let mut all = pod_cases::cases();
    all.extend(core_cases::cases());
    all.extend(workload_cases::cases());
    all.extend(other_cases::cases());
    all
}

#[test]
fn table() {
    let cases = all_cases();
    assert!(
        cases.len() >= 54,
        "one case per defaulting function at least: {}",
        cases.len()
    );
    for case in &cases {
        check(case);
    }
}

#[test]
fn minimal_deployment_fully_defaulted() {
    let input: Value =
        serde_json::from_str(include_str!("testdata/deployment-minimal.in.json")).unwrap();
    let expected: Value =
        serde_json::from_str(include_str!("testdata/deployment-minimal.out.json")).unwrap();
    check(&Case {
        name: "minimal Deployment",
        kind: ("apps", "v1", "Deployment"),
        minors: ALL,
        input,
        expected,
    });
}

#[test]
fn unknown_kinds_are_untouched() {
    let input = serde_json::json!({"spec": {"replicas": null, "template": {"spec": {}}}});
    for k in [
        ("apps", "v1beta1", "Deployment"),
        ("example.com", "v1", "Deployment"),
        ("", "v1", "ConfigMap"),
        ("", "v1", "ServiceAccount"),
        ("", "v1", "ResourceQuota"),
        ("networking.k8s.io", "v1", "Ingress"),
        ("policy", "v1", "PodDisruptionBudget"),
    ] {
        let mut object = input.clone();
        assert!(!apply(kind(k), &mut object, 35), "{k:?}");
        assert_eq!(object, input, "{k:?}");
    }
}

#[test]
fn image_pull_policy_parsing() {
    let hex = "a".repeat(64);
    let table = [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("library/nginx", "Always"),
        ("docker.io/library/nginx:latest", "Always"),
        ("index.docker.io/nginx", "Always"),
        ("localhost:5000/app", "Always"),
        ("localhost/app:latest", "Always"),
        ("[::1]:5000/app", "Always"),
        ("registry.k8s.io/pause:3.9", "IfNotPresent"),
        ("nginx:1.25", "IfNotPresent"),
        ("nginx:LATEST", "IfNotPresent"),
        ("nginx:latest-alpine", "IfNotPresent"),
        ("my__app/x", "Always"),
        ("my--app/x:latest", "Always"),
        // Parse errors leave the tag "": IfNotPresent.
        ("", "IfNotPresent"),
        ("Nginx", "IfNotPresent"),
        ("nginx:", "IfNotPresent"),
        ("nginx:bad tag", "IfNotPresent"),
        ("-nginx", "IfNotPresent"),
        ("nginx@sha256:abc", "IfNotPresent"),
        ("a//b", "IfNotPresent"),
        ("localhost:port/app", "IfNotPresent"),
    ];
    for (image, want) in table {
        assert_eq!(super::image::pull_policy(image), want, "{image:?}");
    }
    // Digests: digest only ⇒ IfNotPresent; tag latest plus digest ⇒ Always; a malformed
    // digest (upper-case hex, wrong length, unknown algorithm) is a parse error.
    assert_eq!(
        super::image::pull_policy(&format!("nginx@sha256:{hex}")),
        "IfNotPresent"
    );
    assert_eq!(
        super::image::pull_policy(&format!("nginx:latest@sha256:{hex}")),
        "Always"
    );
    let upper = "A".repeat(64);
    assert_eq!(
        super::image::pull_policy(&format!("nginx:latest@sha256:{upper}")),
        "IfNotPresent"
    );
    let short = "a".repeat(63);
    assert_eq!(
        super::image::pull_policy(&format!("nginx:latest@sha256:{short}")),
        "IfNotPresent"
    );
    assert_eq!(
        super::image::pull_policy(&format!("nginx:latest@md5:{hex}")),
        "IfNotPresent"
    );
    assert_eq!(
        super::image::pull_policy(&format!("nginx:latest@sha512:{}", "b".repeat(128))),
        "Always"
    );
    // A bare 64-hex identifier is refused by ParseNormalizedNamed.
    assert_eq!(super::image::pull_policy(&hex), "IfNotPresent");
    // Name longer than 255 (docker.io/library/ included).
    assert_eq!(super::image::pull_policy(&"a".repeat(240)), "IfNotPresent");
    assert_eq!(super::image::pull_policy(&"a".repeat(200)), "Always");
}

/// A table row.
pub fn case(
    name: &'static str,
    kind: (&'static str, &'static str, &'static str),
    minors: &'static [Minor],
    input: Value,
    expected: Value,
) -> Case {
    Case {
        name,
        kind,
        minors,
        input,
        expected,
    }
}

/// `base` with `delta` merged in: objects key by key, arrays element by element (extra
/// delta elements appended), anything else replaced. Keeps expected outputs short: "the
/// input plus these fields".
pub fn plus(base: &Value, delta: Value) -> Value {
    match (base, delta) {
        (Value::Object(b), Value::Object(d)) => {
            let mut out = b.clone();
            for (k, v) in d {
                let merged = match out.get(&k) {
                    Some(existing) => plus(existing, v),
                    None => v,
                };
                out.insert(k, merged);
            }
            Value::Object(out)
        }
        (Value::Array(b), Value::Array(d)) => {
            let mut out = b.clone();
            for (i, v) in d.into_iter().enumerate() {
                match out.get(i) {
                    Some(existing) => out[i] = plus(existing, v),
                    None => out.push(v),
                }
            }
            Value::Array(out)
        }
        (_, d) => d,
    }
}

/// What `SetDefaults_PodSpec` adds to an empty pod spec.
pub fn pod_spec_defaults() -> Value {
    serde_json::json!({
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30
    })
}

/// What `SetDefaults_Container` adds to a container with `policy` as the pull policy.
pub fn container_defaults(policy: &str) -> Value {
    serde_json::json!({
        "imagePullPolicy": policy,
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File"
    })
}
