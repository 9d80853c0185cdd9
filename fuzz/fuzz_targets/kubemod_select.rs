//! KubeMod's select language: parse a fuzzed expression in one of the three dialects
//! (the first byte chooses) and evaluate it against a small fixed object. A panic is a
//! crash; so is an evaluation that gives a different result the second time (selects are
//! pure, and kadmit's output must be deterministic).

#![no_main]

use kadmit::testing::kubemod::select::{compile_with, key_parts, Dialect};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// Longer expressions are skipped: the parser's own limits bound everything below this.
const MAX_INPUT: usize = 64 << 10;

/// A Deployment-shaped object with every JSON type, empty containers, odd keys and
/// numbers at the edges of float64.
fn object() -> &'static Value {
    static OBJECT: OnceLock<Value> = OnceLock::new();
    OBJECT.get_or_init(|| {
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "web",
                "namespace": "default",
                "labels": {"app": "web", "tier": "frontend", "app.kubernetes.io/name": "web"},
                "annotations": {"my-inject-annotation": "true", "": "empty key", "é": "ü"},
            },
            "spec": {
                "replicas": 3,
                "paused": false,
                "ratio": 0.5,
                "big": 9007199254740993u64,
                "negative": -7,
                "tiny": 5e-324,
                "huge": 1.7976931348623157e308,
                "nothing": null,
                "emptyList": [],
                "emptyMap": {},
                "template": {
                    "spec": {
                        "containers": [
                            {"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}]},
                            {"name": "sidecar", "image": "envoy:latest", "args": ["-c", "x"]},
                        ],
                        "volumes": [{"name": "data", "emptyDir": {}}],
                    }
                },
                "matrix": [[1, 2], [3, [4, 5]], "s", true, null],
            },
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if rest.len() > MAX_INPUT {
        return;
    }
    let Ok(expression) = std::str::from_utf8(rest) else {
        return;
    };
    let dialect = match which % 3 {
        0 => Dialect::KubeMod,
        1 => Dialect::JsonPath,
        _ => Dialect::JsonPathPlaceholders,
    };
    // The key of a placeholder select result, as KubeMod splits it.
    let _ = key_parts(expression);
    let Ok(select) = compile_with(expression, dialect) else {
        return;
    };
    let first = select.evaluate(object());
    let second = select.evaluate(object());
    let show = |r: &Result<_, String>| match r {
        Ok(v) => {
            let v: &kadmit::testing::kubemod::select::Val = v;
            format!("Ok({} / {:?})", v.format(), v.to_json())
        }
        Err(e) => format!("Err({e})"),
    };
    let (a, b) = (show(&first), show(&second));
    assert_eq!(
        a, b,
        "two evaluations of {expression:?} ({dialect:?}) differ"
    );
});
