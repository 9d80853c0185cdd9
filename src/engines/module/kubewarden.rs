//! Kubewarden WASI policies' answer, a `ValidationResponse`
//! (`{"accepted", "message", "code", "mutated_object", "warnings"}`), read into the same
//! verdict a k8s-wasi module gives. A mutated object replaces the object, as kwctl's
//! JSONPatch diff of it would.

use super::response::{check_replacement, warnings, Decision, Verdict};
use serde_json::Value;

pub fn validation_verdict(
    stdout: &[u8],
    mutating: bool,
    object: Option<&Value>,
) -> Result<Verdict, String> {
    let response: Value = serde_json::from_slice(stdout).map_err(|e| {
        format!(
            "the output is not a JSON ValidationResponse ({e}): {}",
            super::excerpt(stdout)
        )
    })?;
    let accepted = match response.get("accepted") {
        Some(Value::Bool(b)) => *b,
        _ => {
            return Err(format!(
                "the output is not a ValidationResponse (no boolean \"accepted\"): {}",
                super::excerpt(stdout)
            ))
        }
    };
    let warnings = warnings(response.get("warnings"), "warnings")?;
    if !accepted {
        let message = response
            .get("message")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .unwrap_or("without explanation");
        let message = match response.get("code").and_then(Value::as_u64) {
            Some(code) => format!("{message} (code {code})"),
            None => message.to_owned(),
        };
        return Ok(Verdict {
            decision: Decision::Denied(message),
            warnings,
        });
    }
    let mutated = match response.get("mutated_object").filter(|v| !v.is_null()) {
        None => None,
        Some(_) if !mutating => {
            return Err("a validating module may not return mutated_object (set spec.mutating: true for a mutating module)".into())
        }
        Some(_) if object.is_none() => {
            return Err("a module may not mutate a DELETE request (there is no object)".into())
        }
        Some(new) => {
            let old = object.expect("checked above");
            check_replacement(old, new)?;
            (new != old).then(|| new.clone())
        }
    };
    Ok(Verdict {
        decision: Decision::Allowed(mutated),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod() -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}})
    }

    fn verdict(out: Value, mutating: bool) -> Result<Verdict, String> {
        validation_verdict(&serde_json::to_vec(&out).unwrap(), mutating, Some(&pod()))
    }

    #[test]
    fn accepted_rejected_and_mutated() {
        assert_eq!(
            verdict(json!({"accepted": true}), false).unwrap().decision,
            Decision::Allowed(None)
        );
        assert_eq!(
            verdict(
                json!({"accepted": false, "message": "no latest", "code": 400}),
                false
            )
            .unwrap()
            .decision,
            Decision::Denied("no latest (code 400)".into())
        );
        let mut mutated = pod();
        mutated["metadata"]["labels"] = json!({"a": "b"});
        let got = verdict(
            json!({"accepted": true, "mutated_object": mutated, "warnings": ["w"]}),
            true,
        )
        .unwrap();
        assert_eq!(got.decision, Decision::Allowed(Some(mutated)));
        assert_eq!(got.warnings, vec!["w"]);
    }

    #[test]
    fn what_a_policy_may_not_answer() {
        assert!(verdict(json!({"allowed": true}), false)
            .unwrap_err()
            .contains("no boolean \"accepted\""));
        assert!(validation_verdict(b"nope", false, None)
            .unwrap_err()
            .contains("not a JSON ValidationResponse"));
        assert!(
            verdict(json!({"accepted": true, "mutated_object": pod()}), false)
                .unwrap_err()
                .contains("validating module may not return mutated_object")
        );
        let mut renamed = pod();
        renamed["metadata"]["name"] = json!("db");
        assert!(
            verdict(json!({"accepted": true, "mutated_object": renamed}), true)
                .unwrap_err()
                .contains("may not change metadata.name")
        );
    }
}
