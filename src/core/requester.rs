//! Who kadmit says is asking: the `userInfo` of every admission request it builds
//! (admission modules' AdmissionReviews, admission policies' `request.userInfo`), from
//! `--user` and `--group`, as the API server would fill it for an authenticated user.

use serde_json::{json, Value};

pub const DEFAULT_USERNAME: &str = "kadmit";
/// The API server adds this group to every authenticated user.
pub const AUTHENTICATED_GROUP: &str = "system:authenticated";

/// Who kadmit says is asking (`--user`, `--group`).
#[derive(Debug, Clone, PartialEq)]
pub struct Requester {
    pub username: String,
    pub groups: Vec<String>,
}

impl Requester {
    /// `--user` (default `kadmit`) and the `--group`s, then `system:authenticated`.
    pub fn new(user: Option<&str>, groups: &[String]) -> Requester {
        let mut all: Vec<String> = groups.to_vec();
        if !all.iter().any(|g| g == AUTHENTICATED_GROUP) {
            all.push(AUTHENTICATED_GROUP.to_owned());
        }
        Requester {
            username: user.unwrap_or(DEFAULT_USERNAME).to_owned(),
            groups: all,
        }
    }

    pub fn to_value(&self) -> Value {
        json!({"username": self.username, "groups": self.groups})
    }
}
