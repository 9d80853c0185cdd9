//! Finding container images that float: tagged `latest`, or untagged
//! (which means `latest`). An image pinned by digest (`@sha256:…`) never
//! floats. Pods and the pod templates of workloads are both looked at.
#![allow(dead_code)]

use crate::json::Value;

/// Where a pod spec sits: a Pod; a Deployment, ReplicaSet, StatefulSet,
/// DaemonSet, Job…; a CronJob.
const POD_SPEC_PATHS: &[&[&str]] = &[
    &["spec"],
    &["spec", "template", "spec"],
    &["spec", "jobTemplate", "spec", "template", "spec"],
];

const CONTAINER_LISTS: &[&str] = &["initContainers", "containers", "ephemeralContainers"];

/// One message per container whose image floats, in document order.
pub fn floating_images(object: &Value) -> Vec<String> {
    let mut messages = Vec::new();
    for path in POD_SPEC_PATHS {
        let spec = match object.at(path) {
            Some(s) => s,
            None => continue,
        };
        for list in CONTAINER_LISTS {
            for container in spec.get(list).and_then(Value::as_array).into_iter().flatten() {
                let name = container.get("name").and_then(Value::as_str).unwrap_or("?");
                let image = container.get("image").and_then(Value::as_str).unwrap_or("");
                if floats(image) {
                    messages.push(format!(
                        "container {} uses image {}: the tag latest (or no tag) is not allowed",
                        name, image
                    ));
                }
            }
        }
    }
    messages
}

/// `nginx`, `nginx:latest`, `registry:5000/nginx` float;
/// `nginx:1.25`, `nginx@sha256:…` do not.
pub fn floats(image: &str) -> bool {
    if image.contains('@') {
        return false;
    }
    let last_segment = image.rsplit('/').next().unwrap_or(image);
    match last_segment.rsplit_once(':') {
        Some((_, tag)) => tag == "latest",
        None => true,
    }
}
