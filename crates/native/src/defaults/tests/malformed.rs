//! Malformed input: wrong JSON types anywhere must neither panic nor be overwritten, and
//! defaulting stays idempotent.

use super::{all_cases, kind, ALL};
use crate::defaults::apply;
use serde_json::{json, Value};

/// Values of every JSON type, to put where the schema expects something else.
fn wrong_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!("x"),
        json!(""),
        json!(0),
        json!(5),
        json!(-1.5),
        json!(true),
        json!([]),
        json!([1, "a", null]),
        json!({}),
        json!({"a": 1}),
    ]
}

/// Every path (object keys and array indices) inside `v`.
fn paths(v: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    let children: Vec<(Step, &Value)> = match v {
        Value::Object(m) => m.iter().map(|(k, c)| (Step::Key(k.clone()), c)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, c)| (Step::Index(i), c))
            .collect(),
        _ => return,
    };
    for (step, child) in children {
        prefix.push(step);
        out.push(prefix.clone());
        paths(child, prefix, out);
        prefix.pop();
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn at<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

#[test]
fn every_field_of_every_case_replaced_by_every_type() {
    let mut runs = 0;
    for case in all_cases() {
        let mut all_paths = Vec::new();
        paths(&case.input, &mut Vec::new(), &mut all_paths);
        for path in &all_paths {
            for wrong in wrong_values() {
                let mut input = case.input.clone();
                *at(&mut input, path) = wrong.clone();
                for minor in [30, 35] {
                    let mut object = input.clone();
                    apply(kind(case.kind), &mut object, minor);
                    let once = object.clone();
                    let again = apply(kind(case.kind), &mut object, minor);
                    assert!(
                        !again && object == once,
                        "{} {path:?} = {wrong}: not idempotent",
                        case.name
                    );
                    runs += 1;
                }
            }
        }
    }
    assert!(runs > 10_000, "{runs}");
}

#[test]
fn non_objects_are_left_alone() {
    for case in all_cases() {
        for minor in ALL {
            for wrong in wrong_values().into_iter().filter(|v| !v.is_object()) {
                let mut object = wrong.clone();
                assert!(
                    !apply(kind(case.kind), &mut object, *minor),
                    "{}",
                    case.name
                );
                assert_eq!(object, wrong);
            }
        }
    }
}

#[test]
fn wrong_types_are_not_overwritten() {
    let mut deployment = json!({"spec": {
        "replicas": "3",
        "strategy": {"type": 7},
        "revisionHistoryLimit": null,
        "template": {"spec": {
            "dnsPolicy": 1,
            "securityContext": "x",
            "containers": [
                {"name": "a", "image": 5, "imagePullPolicy": null, "ports": "80"},
                "not-a-container",
                {"name": "b", "image": "nginx", "livenessProbe": {"timeoutSeconds": "1", "httpGet": []}}
            ],
            "volumes": {"name": "v"}
        }}
    }});
    apply(kind(("apps", "v1", "Deployment")), &mut deployment, 35);
    let spec = &deployment["spec"];
    assert_eq!(spec["replicas"], json!("3"));
    assert_eq!(spec["strategy"], json!({"type": 7}));
    assert_eq!(spec["revisionHistoryLimit"], json!(10));
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["dnsPolicy"], json!(1));
    assert_eq!(pod["securityContext"], json!("x"));
    assert_eq!(pod["restartPolicy"], json!("Always"));
    assert_eq!(pod["volumes"], json!({"name": "v"}));
    let a = &pod["containers"][0];
    assert_eq!(
        a["imagePullPolicy"],
        Value::Null,
        "a non-string image decides nothing"
    );
    assert_eq!(a["ports"], json!("80"));
    assert_eq!(a["terminationMessagePolicy"], json!("File"));
    assert_eq!(pod["containers"][1], json!("not-a-container"));
    let probe = &pod["containers"][2]["livenessProbe"];
    assert_eq!(probe["timeoutSeconds"], json!("1"));
    assert_eq!(probe["httpGet"], json!([]));
    assert_eq!(probe["periodSeconds"], json!(10));
}
