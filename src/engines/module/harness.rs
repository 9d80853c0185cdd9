//! `kadmit module run`'s model of one call: which use case a request is for, the
//! envelope the module reads, and what the module's answer means.

use super::kubewarden::validation_verdict;
use super::response::{admission_verdict, check_type, read_envelope, Decision};
use super::review::{admission_review, envelope, ADMISSION_API_VERSION, ADMISSION_REVIEW};
use super::spec::Protocol;
use serde_json::Value;

/// The k8s-wasi use cases: the export called and the review it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UseCase {
    /// Admission (validating and mutating): an AdmissionReview.
    Validate,
    /// Authentication: a TokenReview.
    Authn,
    /// Authorization: a SubjectAccessReview.
    Authz,
}

impl UseCase {
    pub const ALL: [UseCase; 3] = [UseCase::Validate, UseCase::Authn, UseCase::Authz];

    /// The use case whose module export (and command-line name) is `text`.
    pub fn from_name(text: &str) -> Option<UseCase> {
        UseCase::ALL.into_iter().find(|u| u.export() == text)
    }

    /// The module export this use case calls, also its name on the command line.
    pub fn export(self) -> &'static str {
        match self {
            UseCase::Validate => "validate",
            UseCase::Authn => "authn",
            UseCase::Authz => "authz",
        }
    }

    /// The apiVersion and kind of the review this use case reads and answers.
    fn review(self) -> (&'static str, &'static str) {
        match self {
            UseCase::Validate => (ADMISSION_API_VERSION, ADMISSION_REVIEW),
            UseCase::Authn => ("authentication.k8s.io/v1", "TokenReview"),
            UseCase::Authz => ("authorization.k8s.io/v1", "SubjectAccessReview"),
        }
    }

    fn of_kind(kind: &str) -> Option<UseCase> {
        UseCase::ALL.into_iter().find(|u| u.review().1 == kind)
    }
}

/// A request ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub use_case: UseCase,
    /// The review (k8s-wasi) or AdmissionRequest (Kubewarden) the module reads.
    pub request: Value,
    /// An admission request's `uid`, which the response must repeat.
    pub uid: Option<String>,
    /// The object an admission request carries, which a patch applies to.
    pub object: Option<Value>,
    /// `settings` the request file carried in its envelope.
    pub settings: Option<Value>,
}

impl Call {
    /// Reads a request document: an envelope `{"request": …, "settings": …}`, a bare
    /// AdmissionReview, TokenReview or SubjectAccessReview, or a bare AdmissionRequest.
    pub fn from_document(
        document: Value,
        protocol: Protocol,
        use_case: Option<UseCase>,
    ) -> Result<Call, String> {
        let (review, settings) = match document {
            Value::Object(mut fields)
                if !fields.contains_key("kind") && fields.contains_key("request") =>
            {
                let request = fields.remove("request").unwrap_or(Value::Null);
                (request, fields.remove("settings").filter(|s| !s.is_null()))
            }
            other => (other, None),
        };
        let kind = review.get("kind").and_then(Value::as_str);
        let is_admission_request = review.get("uid").is_some() && review.get("operation").is_some();
        let inferred = match kind {
            Some(kind) if review.get("apiVersion").is_some() => UseCase::of_kind(kind),
            _ if is_admission_request => Some(UseCase::Validate),
            _ => None,
        };
        let Some(inferred) = inferred else {
            return Err("the request must be an AdmissionReview, TokenReview or SubjectAccessReview (or an AdmissionRequest), bare or as {\"request\": …}".into());
        };
        let use_case = use_case.unwrap_or(inferred);
        if use_case != inferred {
            let (_, wanted) = use_case.review();
            return Err(format!(
                "the use case {} reads a {wanted}; the request's kind is {}",
                use_case.export(),
                inferred.review().1
            ));
        }
        if protocol.is_kubewarden() && use_case != UseCase::Validate {
            return Err(
                "Kubewarden policies answer admission requests only (use case validate)".into(),
            );
        }
        let (request, admission) = match (use_case, is_admission_request && kind.is_none()) {
            (UseCase::Validate, true) => (admission_review(review.clone()), review),
            (UseCase::Validate, false) => {
                let inner = review
                    .get("request")
                    .cloned()
                    .ok_or("the AdmissionReview has no request")?;
                (review, inner)
            }
            _ => (review, Value::Null),
        };
        let uid = admission
            .get("uid")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let object = admission.get("object").filter(|o| !o.is_null()).cloned();
        let request = match protocol {
            Protocol::K8sWasi => request,
            Protocol::KubewardenWasi | Protocol::KubewardenWapc => admission,
        };
        Ok(Call {
            use_case,
            request,
            uid,
            object,
            settings,
        })
    }

    pub fn stdin(&self, protocol: Protocol, settings: Option<&Value>) -> Vec<u8> {
        let envelope = envelope(protocol, self.request.clone(), settings);
        serde_json::to_vec(&envelope).expect("a JSON value serializes")
    }

    /// What the module answered: the response to print, and whether it granted the
    /// request (`Err` for an answer the host would refuse).
    pub fn answer(&self, protocol: Protocol, stdout: &[u8]) -> Result<Answer, String> {
        if protocol.is_kubewarden() {
            let verdict = validation_verdict(stdout, true, self.object.as_ref())?;
            let response = serde_json::from_slice(stdout).map_err(|e| e.to_string())?;
            return Ok(Answer::from_decision(response, verdict.decision));
        }
        let response = read_envelope(stdout)?;
        let (api_version, kind) = self.use_case.review();
        match self.use_case {
            UseCase::Validate => {
                let uid = self.uid.as_deref().unwrap_or("");
                let verdict = admission_verdict(&response, uid, true, self.object.as_ref())?;
                Ok(Answer::from_decision(response, verdict.decision))
            }
            UseCase::Authn => {
                check_type(&response, api_version, kind)?;
                Ok(Answer::from_status(
                    response,
                    "authenticated",
                    "error",
                    "did not authenticate the token",
                ))
            }
            UseCase::Authz => {
                check_type(&response, api_version, kind)?;
                Ok(Answer::from_status(
                    response,
                    "allowed",
                    "reason",
                    "did not authorize the request",
                ))
            }
        }
    }
}

/// A module's answer, as `module run` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The response as the module wrote it.
    pub response: Value,
    /// Why the request was not granted, when it was not.
    pub refusal: Option<String>,
    /// The object as a patch left it, when the module changed it.
    pub patched: Option<Value>,
}

impl Answer {
    /// A TokenReview or SubjectAccessReview answer: granted when `status.<granted>` is
    /// true, else refused with `status.<reason>`.
    fn from_status(response: Value, granted: &str, reason: &str, refused: &str) -> Answer {
        let status = response.get("status");
        let is_granted = status.and_then(|s| s.get(granted)) == Some(&Value::Bool(true));
        let why = status
            .and_then(|s| s.get(reason))
            .and_then(Value::as_str)
            .filter(|e| !e.is_empty())
            .unwrap_or("without explanation");
        Answer {
            refusal: (!is_granted).then(|| format!("{refused}: {why}")),
            patched: None,
            response,
        }
    }

    fn from_decision(response: Value, decision: Decision) -> Answer {
        match decision {
            Decision::Allowed(patched) => Answer {
                response,
                refusal: None,
                patched,
            },
            Decision::Denied(message) => Answer {
                response,
                refusal: Some(format!("denied the request: {message}")),
                patched: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn review() -> Value {
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "u", "operation": "CREATE", "object": {"kind": "ConfigMap"}}})
    }

    #[test]
    fn requests_come_in_every_shape() {
        let bare = Call::from_document(review(), Protocol::K8sWasi, None).unwrap();
        assert_eq!(bare.use_case, UseCase::Validate);
        assert_eq!(bare.uid.as_deref(), Some("u"));
        assert_eq!(bare.request, review());
        let wrapped = Call::from_document(
            json!({"request": review(), "settings": {"a": 1}}),
            Protocol::K8sWasi,
            None,
        )
        .unwrap();
        assert_eq!(wrapped.request, review());
        assert_eq!(wrapped.settings, Some(json!({"a": 1})));
        let request_only =
            Call::from_document(review()["request"].clone(), Protocol::K8sWasi, None).unwrap();
        assert_eq!(request_only.request, review());
        let kubewarden = Call::from_document(review(), Protocol::KubewardenWasi, None).unwrap();
        assert_eq!(kubewarden.request, review()["request"]);
        let token = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": "t"}});
        assert_eq!(
            Call::from_document(token, Protocol::K8sWasi, None)
                .unwrap()
                .use_case,
            UseCase::Authn
        );
    }

    #[test]
    fn a_use_case_must_fit_its_request() {
        let got =
            Call::from_document(review(), Protocol::K8sWasi, Some(UseCase::Authz)).unwrap_err();
        assert_eq!(
            got,
            "the use case authz reads a SubjectAccessReview; the request's kind is AdmissionReview"
        );
        assert!(Call::from_document(
            json!({"kind": "ConfigMap", "apiVersion": "v1"}),
            Protocol::K8sWasi,
            None
        )
        .is_err());
    }

    #[test]
    fn authorization_answers_are_read() {
        let sar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {}});
        let call = Call::from_document(sar, Protocol::K8sWasi, None).unwrap();
        let out = br#"{"response": {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "status": {"allowed": false}}, "error": null}"#;
        let answer = call.answer(Protocol::K8sWasi, out).unwrap();
        assert_eq!(
            answer.refusal.as_deref(),
            Some("did not authorize the request: without explanation")
        );
        let wrong =
            br#"{"response": {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview"}}"#;
        assert!(call
            .answer(Protocol::K8sWasi, wrong)
            .unwrap_err()
            .contains("Kind=SubjectAccessReview"));
    }
}
