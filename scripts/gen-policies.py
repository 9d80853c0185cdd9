#!/usr/bin/env python3
"""Writes the admission-policy benchmark's configuration (docs/performance.md,
"Admission policies"): 20 ValidatingAdmissionPolicies with params and 5
MutatingAdmissionPolicies (3 ApplyConfiguration, 2 JSONPatch), each bound once, plus the
param ConfigMaps, as one YAML stream on stdout.

usage: scripts/gen-policies.py > policies.yaml

The policies are the kind platform teams write for the corpus of scripts/gen-corpus.py
(Deployments, StatefulSets, Services, ConfigMaps): label requirements, replica and
resource limits read from params, image registries, probes; the mutations add labels and
annotations, default a security context and rewrite images. Every resource of the corpus
passes them (the benchmark measures admission, not rejection).
"""
import json

RULE_WORKLOADS = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                  "resources": ["deployments", "statefulsets"]}
RULE_ALL = {"apiGroups": ["", "apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
            "resources": ["deployments", "statefulsets", "services", "configmaps"]}

# (name, rules, validations): each expression reads params (a ConfigMap's data).
VALIDATIONS = [
    ("max-replicas", RULE_WORKLOADS, "!has(object.spec.replicas) || object.spec.replicas <= int(params.data.limit)", "1000"),
    ("min-replicas", RULE_WORKLOADS, "!has(object.spec.replicas) || object.spec.replicas >= int(params.data.limit)", "0"),
    ("name-length", RULE_ALL, "size(object.metadata.name) <= int(params.data.limit)", "253"),
    ("no-default-ns", RULE_ALL, "!has(object.metadata.namespace) || object.metadata.namespace != params.data.forbidden", "kube-system"),
    ("label-count", RULE_ALL, "!has(object.metadata.labels) || size(object.metadata.labels) <= int(params.data.limit)", "64"),
    ("annotation-count", RULE_ALL, "!has(object.metadata.annotations) || size(object.metadata.annotations) <= int(params.data.limit)", "64"),
    ("container-count", RULE_WORKLOADS, "size(object.spec.template.spec.containers) <= int(params.data.limit)", "20"),
    ("image-registry", RULE_WORKLOADS, "object.spec.template.spec.containers.all(c, !c.image.startsWith(params.data.forbidden))", "evil.example.com/"),
    ("no-latest", RULE_WORKLOADS, "object.spec.template.spec.containers.all(c, !c.image.endsWith(params.data.forbidden))", ":never-used"),
    ("image-length", RULE_WORKLOADS, "object.spec.template.spec.containers.all(c, size(c.image) <= int(params.data.limit))", "512"),
    ("container-names", RULE_WORKLOADS, "object.spec.template.spec.containers.all(c, size(c.name) <= int(params.data.limit))", "63"),
    ("env-count", RULE_WORKLOADS, "object.spec.template.spec.containers.all(c, !has(c.env) || size(c.env) <= int(params.data.limit))", "200"),
    ("port-range", RULE_WORKLOADS, "object.spec.template.spec.containers.all(c, !has(c.ports) || c.ports.all(p, p.containerPort <= int(params.data.limit)))", "65535"),
    ("host-network", RULE_WORKLOADS, "!has(object.spec.template.spec.hostNetwork) || string(object.spec.template.spec.hostNetwork) != params.data.forbidden", "true"),
    ("service-type", {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["services"]},
     "!has(object.spec.type) || object.spec.type != params.data.forbidden", "ExternalName"),
    ("service-ports", {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["services"]},
     "!has(object.spec.ports) || size(object.spec.ports) <= int(params.data.limit)", "100"),
    ("configmap-keys", {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["configmaps"]},
     "!has(object.data) || size(object.data) <= int(params.data.limit)", "1000"),
    ("template-labels", RULE_WORKLOADS, "!has(object.spec.template.metadata.labels) || size(object.spec.template.metadata.labels) <= int(params.data.limit)", "64"),
    ("selector-labels", RULE_WORKLOADS, "!has(object.spec.selector.matchLabels) || size(object.spec.selector.matchLabels) <= int(params.data.limit)", "64"),
    ("generation-name", RULE_ALL, "!object.metadata.name.startsWith(params.data.forbidden)", "forbidden-"),
]

MUTATIONS = [
    ("team-label", "ApplyConfiguration",
     'Object{metadata: Object.metadata{labels: {"admission.example.com/checked": "true"}}}'),
    ("template-annotation", "ApplyConfiguration",
     'Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{annotations: {"admission.example.com/policy": "v1"}}}}}'),
    ("run-as-non-root", "ApplyConfiguration",
     "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{securityContext: Object.spec.template.spec.securityContext{runAsNonRoot: true}}}}}"),
    ("mirror-images", "JSONPatch",
     'object.spec.template.spec.containers.transformList(i, c, c.image.startsWith("docker.io/"), '
     'JSONPatch{op: "replace", path: "/spec/template/spec/containers/" + string(i) + "/image", '
     'value: "mirror.example.com/" + c.image.substring(10)})'),
    ("owner-annotation", "JSONPatch",
     '[JSONPatch{op: "add", path: "/metadata/annotations", value: {}}].filter(p, !has(object.metadata.annotations)) + '
     '[JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("admission.example.com/owner"), value: "platform"}]'),
]

docs = []
for name, rules, expression, value in VALIDATIONS:
    docs.append({"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": name + "-params", "namespace": "policy-params"},
                 "data": {"limit": value, "forbidden": value}})
    docs.append({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                 "metadata": {"name": name},
                 "spec": {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                          "matchConstraints": {"resourceRules": [rules]},
                          "validations": [{"expression": expression,
                                           "messageExpression": "'" + name + " failed for ' + object.metadata.name"}]}})
    docs.append({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                 "metadata": {"name": name},
                 "spec": {"policyName": name, "validationActions": ["Deny"],
                          "paramRef": {"name": name + "-params", "namespace": "policy-params",
                                       "parameterNotFoundAction": "Deny"}}})
for name, patch_type, expression in MUTATIONS:
    mutation = {"patchType": patch_type}
    if patch_type == "ApplyConfiguration":
        mutation["applyConfiguration"] = {"expression": expression}
    else:
        mutation["jsonPatch"] = {"expression": expression}
    rules = RULE_ALL if name in ("team-label", "owner-annotation") else RULE_WORKLOADS
    docs.append({"apiVersion": "admissionregistration.k8s.io/v1beta1", "kind": "MutatingAdmissionPolicy",
                 "metadata": {"name": name},
                 "spec": {"matchConstraints": {"resourceRules": [dict(rules, operations=["CREATE"])]},
                          "reinvocationPolicy": "Never", "mutations": [mutation]}})
    docs.append({"apiVersion": "admissionregistration.k8s.io/v1beta1", "kind": "MutatingAdmissionPolicyBinding",
                 "metadata": {"name": name}, "spec": {"policyName": name}})
print("\n".join("---\n" + json.dumps(d) for d in docs))
