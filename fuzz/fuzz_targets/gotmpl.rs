//! Go text/template with Sprig (kadmit-gotmpl): parse a fuzzed template and execute it on
//! fixed data shaped like KubeMod's template context. A panic is a crash; execution is
//! bounded by the engine's own limits (steps, output, string bytes, nesting).

#![no_main]

use kadmit_gotmpl::{parse, Data};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// Longer templates are skipped: the engine's own limits bound everything below this.
const MAX_INPUT: usize = 64 << 10;

fn target() -> &'static Value {
    static TARGET: OnceLock<Value> = OnceLock::new();
    TARGET.get_or_init(|| {
        json!({
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": "my-service",
                "namespace": "my-namespace",
                "labels": {"app": "web", "version": "1.2.3"},
                "annotations": {"note": "a <b> & \"c\"", "empty": ""},
            },
            "spec": {
                "type": "ClusterIP",
                "replicas": 3,
                "ratio": 0.25,
                "ports": [{"port": 80, "name": "http"}, {"port": 443, "name": "https"}],
                "externalIPs": ["1.2.3.4", "10.0.0.1"],
                "flag": true,
                "nothing": null,
                "list": [],
                "map": {},
            },
        })
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(template) = parse("fuzz", text) else {
        return;
    };
    // KubeMod's patch context: the target, the namespace, the selected item and the
    // select key parts (Go ints and strings).
    let selected = &target()["spec"]["ports"][0];
    let context = Data::Map(vec![
        ("Target".into(), Data::Json(target())),
        ("Namespace".into(), Data::String("my-namespace".into())),
        ("SelectedItem".into(), Data::Json(selected)),
        (
            "SelectKeyParts".into(),
            Data::List(vec![
                Data::String("spec".into()),
                Data::String("ports".into()),
                Data::Int(0),
            ]),
        ),
    ]);
    let _ = template.execute_data(&context);
    // Plain JSON data (every number a float64).
    let _ = template.execute(target());
});
