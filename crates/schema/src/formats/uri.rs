//! The `uri` format: kube-openapi's strfmt registers govalidator's `IsRequestURI`, which is
//! `url.ParseRequestURI(s) == nil` (an absolute URI or an absolute path), the same check
//! as CEL's `isURL`: both use the port of Go's `net/url` in `kadmit-go`.

pub(super) fn is_request_uri(raw: &str) -> bool {
    kadmit_go::url::parse_request_uri(raw).is_ok()
}
