//! rbac.authorization.k8s.io/v1 (pkg/apis/rbac/v1/defaults.go).

use super::value::{default_str, each_obj, obj_or_new, str_of, Obj};

const GROUP: &str = "rbac.authorization.k8s.io";

/// `SetDefaults_RoleBinding` / `SetDefaults_ClusterRoleBinding` (roleRef.apiGroup "" → the
/// rbac group; roleRef is a non-pointer struct), then `SetDefaults_Subject` per subject.
pub fn binding(o: &mut Obj) {
    if let Some(role_ref) = obj_or_new(o, "roleRef") {
        default_str(role_ref, "apiGroup", GROUP);
    }
    for subject in each_obj(o, "subjects") {
        subject_defaults(subject);
    }
}

/// `SetDefaults_Subject`: apiGroup "" → rbac group for User and Group. For ServiceAccount
/// the default is "" (the Go zero value, omitted on output), so nothing shows.
fn subject_defaults(s: &mut Obj) {
    if matches!(str_of(s, "kind"), Some("User" | "Group")) {
        default_str(s, "apiGroup", GROUP);
    }
}
