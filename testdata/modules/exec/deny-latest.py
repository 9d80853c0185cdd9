#!/usr/bin/env python3
"""Exec module speaking the k8s-wasi protocol over stdin/stdout.

Run as `deny-latest.py validate` with `{"request": <AdmissionReview>,
"settings": ...}` on stdin; writes `{"response": <AdmissionReview>,
"error": null}`. Rejects Pods, and workloads with a pod template
(Deployments, StatefulSets, Jobs, CronJobs...), whose containers use an
image tagged `latest` or no tag at all; an image pinned by digest passes.
Anything but the one argument `validate` is a usage error (exit 2);
unreadable input answers an `error`.
"""
import json
import sys

POD_SPEC_PATHS = (
    ("spec",),
    ("spec", "template", "spec"),
    ("spec", "jobTemplate", "spec", "template", "spec"),
)
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def floats(image):
    """nginx, nginx:latest, host:5000/nginx float; nginx:1.25, x@sha256:... do not."""
    if "@" in image:
        return False
    last = image.rsplit("/", 1)[-1]
    return ":" not in last or last.rsplit(":", 1)[1] == "latest"


def dig(value, path):
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def floating_images(obj):
    messages = []
    for path in POD_SPEC_PATHS:
        spec = dig(obj, path)
        if not isinstance(spec, dict):
            continue
        for list_name in CONTAINER_LISTS:
            for container in spec.get(list_name) or []:
                image = container.get("image", "")
                if floats(image):
                    messages.append("container %s uses image %s: the tag latest (or no tag) is not allowed"
                                    % (container.get("name", "?"), image))
    return messages


def admit(review):
    request = review.get("request")
    if not isinstance(request, dict):
        raise ValueError('the AdmissionReview has no "request"')
    response = {"uid": request.get("uid", ""), "allowed": True}
    obj = request.get("object")
    offenders = floating_images(obj) if isinstance(obj, dict) else []
    if offenders:
        response["allowed"] = False
        response["status"] = {"apiVersion": "v1", "kind": "Status", "message": "; ".join(offenders)}
    return {"kind": "AdmissionReview", "apiVersion": review.get("apiVersion", "admission.k8s.io/v1"),
            "response": response}


def main():
    if sys.argv[1:] != ["validate"]:
        sys.stderr.write("usage: deny-latest.py validate   (k8s-wasi request JSON on stdin)\n")
        return 2
    try:
        answer = {"response": admit(json.load(sys.stdin)["request"]), "error": None}
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        answer = {"response": None, "error": "invalid input: %s" % e}
    sys.stdout.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
