#!/usr/bin/env python3
"""Write the configuration scripts/bench.sh admits its corpus with (figure 2 of issue 20):
50 KubeMod ModRules, 50 Gatekeeper mutators, and a CRD with custom resources of its kind
for CRD validation. The ModRules and mutators have the shapes of benches/modrules.rs and
benches/gatekeeper.rs (the same fifty each: kind and label matches, regexes, templates,
Reject rules that do not fire; Assign, AssignMetadata, ModifySet, AssignImage). The same
arguments always produce the same bytes.

    python3 scripts/gen-bench-config.py --out DIR --widgets 1000

Writes DIR/config.yaml (the rules and mutators, for --config), DIR/crd.yaml (the Widget
CRD, for --crd) and DIR/widgets.yaml (that many valid Widgets, to add to the stream).

Python 3 standard library only.
"""

import argparse
import os
import random


def modrule(name, spec):
    return f"apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata:\n  name: {name}\nspec:\n{spec}---\n"


def modrules():
    """benches/modrules.rs's fifty rules."""
    teams = ["catalog", "search", "billing", "checkout", "identity"]
    out = []
    for i in range(10):
        team = teams[i % len(teams)]
        out.append(modrule(f"owner-{i}", (
            f"  type: Patch\n  match:\n  - select: '$.metadata.labels.team'\n    matchValue: {team}\n"
            "  - select: '$.kind'\n    matchValues: [Deployment, StatefulSet]\n"
            f"  patch:\n  - op: add\n    path: /metadata/annotations/rule-{i}\n"
            "    value: '\"{{ .Target.metadata.name }} in {{ .Namespace }}\"'\n")))
    for i in range(10):
        out.append(modrule(f"pull-policy-{i}", (
            "  type: Patch\n  match:\n  - select: '$.spec.template.spec.containers[*].image'\n"
            f"    matchRegex: 'registry.example.com/.*:{i}'\n  patch:\n  - op: add\n"
            "    select: '$.spec.template.spec.containers[? @.image =~ \"example\"]'\n"
            "    path: /spec/template/spec/containers/#0/imagePullPolicy\n    value: Always\n")))
    for i in range(10):
        out.append(modrule(f"replicas-{i}", (
            f"  type: Patch\n  executionTier: {i % 3}\n  match:\n  - select: '$.spec.replicas > {i}'\n"
            "  - select: 'isDefined($.spec.template.spec.containers)'\n"
            "  - select: 'length($.spec.template.spec.containers) > 0'\n"
            f"  patch:\n  - op: add\n    path: /metadata/labels/replicas-over-{i}\n"
            "    value: '\"{{ .Target.spec.replicas }}\"'\n")))
    for i in range(10):
        out.append(modrule(f"deny-{i}", (
            f"  type: Reject\n  rejectMessage: 'host network is not allowed ({i})'\n"
            "  match:\n  - select: '$.spec.template.spec.hostNetwork == true'\n"
            f"  - select: '$.metadata.namespace'\n    matchRegex: '^team-{i}-'\n")))
    for i in range(10):
        out.append(modrule(f"scrape-{i}", (
            "  type: Patch\n  match:\n  - select: '$.metadata.annotations[\"prometheus.io/scrape\"]'\n"
            f"    matchValue: 'true'\n  - select: '$.metadata.namespace'\n    matchRegex: '-{i}$'\n"
            "  - select: '$.spec.ports[*].port'\n    matchValues: ['443', '80', '8080']\n"
            "  patch:\n  - op: add\n    path: /metadata/labels/scraped\n    value: 'yes'\n")))
    return out


def mutator(kind, version, name, spec):
    return f"apiVersion: mutations.gatekeeper.sh/{version}\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n{spec}---\n"


def apply_to(group, version, kinds):
    return f"  applyTo:\n  - groups: [\"{group}\"]\n    versions: [\"{version}\"]\n    kinds: [{kinds}]\n"


WORKLOADS = "Deployment, StatefulSet"
CONTAINERS = "spec.template.spec.containers[name: *]"


def assign(name, to, extra, location, params):
    return mutator("Assign", "v1", name, f"{to}{extra}  location: '{location}'\n  parameters:\n{params}")


def must_not_exist(location):
    return f"    pathTests:\n    - subPath: '{location}'\n      condition: MustNotExist\n"


def must_exist(location):
    return f"    pathTests:\n    - subPath: '{location}'\n      condition: MustExist\n"


def value(yaml):
    return f"    assign:\n      value: {yaml}\n"


def assign_metadata(name, matcher, location, assigned):
    return mutator("AssignMetadata", "v1", name,
                   f"{matcher}  location: '{location}'\n  parameters:\n    assign:\n      {assigned}\n")


def modify_set(name, to, extra, location, op, values):
    return mutator("ModifySet", "v1", name,
                   f"{to}{extra}  location: '{location}'\n  parameters:\n    operation: {op}\n"
                   f"    values:\n      fromList: {values}\n")


def assign_image(name, to, extra, location, params):
    return mutator("AssignImage", "v1alpha1", name, f"{to}{extra}  location: '{location}'\n  parameters:\n{params}")


def mutators():
    """benches/gatekeeper.rs's fifty mutators."""
    workloads = apply_to("apps", "v1", WORKLOADS)
    deployments = apply_to("apps", "v1", "Deployment")
    statefulsets = apply_to("apps", "v1", "StatefulSet")
    services = apply_to("", "v1", "Service")
    in_prod = "  match:\n    namespaces: ['*-prod-*']\n"
    c = CONTAINERS
    pull = f"{c}.imagePullPolicy"
    non_root = f"{c}.securityContext.runAsNonRoot"
    cpu_limit = f"{c}.resources.limits.cpu"
    sidecar = "spec.template.spec.containers[name: sidecar]"
    readiness = f"{c}.readinessProbe"
    grace = "spec.template.spec.terminationGracePeriodSeconds"
    os_selector = "spec.template.spec.nodeSelector.\"kubernetes.io/os\""
    policy = "spec.podManagementPolicy"
    http_port = "spec.ports[name: http]"
    assigns = [
        assign("pull-if-not-present", deployments, "", pull, must_not_exist(pull) + value("IfNotPresent")),
        assign("pull-always-statefulsets", statefulsets, "", pull, value("Always")),
        assign("run-as-non-root", workloads, "", non_root, must_not_exist(non_root) + value("true")),
        assign("no-privilege-escalation", workloads, "", f"{c}.securityContext.allowPrivilegeEscalation",
               value("false")),
        assign("read-only-root-prod", workloads, in_prod, f"{c}.securityContext.readOnlyRootFilesystem",
               value("true")),
        assign("seccomp-runtime-default", workloads, "",
               "spec.template.spec.securityContext.seccompProfile.type", value("RuntimeDefault")),
        assign("default-cpu-limit", workloads, "", cpu_limit, must_not_exist(cpu_limit) + value("'1'")),
        assign("sidecar-memory-request", workloads, "", f"{sidecar}.resources.requests.memory",
               must_exist(sidecar) + value("96Mi")),
        assign("frontend-no-token", deployments,
               "  match:\n    labelSelector:\n      matchLabels:\n        tier: frontend\n",
               "spec.template.spec.automountServiceAccountToken", value("false")),
        assign("termination-grace", workloads, "", grace, must_not_exist(grace) + value("30")),
        assign("revision-history", deployments, "", "spec.revisionHistoryLimit", value("5")),
        assign("no-external-ips", services, "", "spec.externalIPs", value("[]")),
        assign("frontend-single-stack", services,
               "  match:\n    labelSelector:\n      matchExpressions:\n      - key: tier\n"
               "        operator: In\n        values: [frontend]\n",
               "spec.ipFamilyPolicy", value("SingleStack")),
        assign("http-app-protocol", services, "", f"{http_port}.appProtocol",
               must_exist(http_port) + value("http")),
        assign("prod-local-traffic", services, in_prod, "spec.internalTrafficPolicy", value("Local")),
        assign("parallel-pods", statefulsets, "", policy, must_not_exist(policy) + value("Parallel")),
        assign("data-storage-class", statefulsets,
               "  match:\n    namespaces: ['payments-*', 'data-*', 'billing-*']\n",
               "spec.volumeClaimTemplates[name: *].spec.storageClassName", value("fast-ssd")),
        assign("batch-toleration", workloads, "  match:\n    namespaces: ['data-*', 'ml-*']\n",
               "spec.template.spec.tolerations[key: dedicated]",
               value("{key: dedicated, operator: Equal, value: batch, effect: NoSchedule}")),
        assign("linux-nodes", workloads, "", os_selector, must_not_exist(os_selector) + value("linux")),
        assign("readiness-timeout", workloads, "", f"{readiness}.timeoutSeconds",
               must_exist(readiness) + value("2")),
        assign("env-tz", workloads, "", f"{c}.env[name: TZ].value", value("UTC")),
        assign("env-pod-namespace", deployments, "  match:\n    excludedNamespaces: ['*-dev-*']\n",
               f"{c}.env[name: POD_NAMESPACE].value", "    assign:\n      fromMetadata:\n        field: namespace\n"),
        assign("api-progress-deadline", deployments, "  match:\n    name: 'api-*'\n",
               "spec.progressDeadlineSeconds", value("600")),
        assign("jobs-backoff", apply_to("batch", "v1", "Job"), "", "spec.backoffLimit", value("2")),
        assign("pods-pull-always", apply_to("", "v1", "Pod"), "", "spec.containers[name: *].imagePullPolicy",
               value("Always")),
    ]

    def label(key):
        return f"metadata.labels.\"{key}\""

    def annotation(key):
        return f"metadata.annotations.\"{key}\""

    def kinds(group, names):
        return f"  match:\n    kinds:\n    - apiGroups: [\"{group}\"]\n      kinds: [{names}]\n"

    metadata = [
        assign_metadata("mutated-by", "", annotation("kadmit.dev/mutated-by"), "value: gatekeeper"),
        assign_metadata("namespace-label", "  match:\n    scope: Namespaced\n", label("kadmit.dev/namespace"),
                        "fromMetadata:\n        field: namespace"),
        assign_metadata("managed-by", "", label("app.kubernetes.io/managed-by"), "value: gatekeeper"),
        assign_metadata("default-owner", "", annotation("owner"), "value: unowned@example.com"),
        assign_metadata("prod-env", "  match:\n    namespaces: ['*-prod-*']\n", label("env"), "value: prod"),
        assign_metadata("payments-cost-center",
                        "  match:\n    labelSelector:\n      matchLabels:\n        team: payments\n",
                        label("cost-center"), "value: cc-100"),
        assign_metadata("config-reload", kinds("", "ConfigMap"), annotation("reloader.stakater.com/match"),
                        "value: 'true'"),
        assign_metadata("service-topology", kinds("", "Service"),
                        annotation("service.kubernetes.io/topology-mode"), "value: Auto"),
        assign_metadata("workload-name", kinds("apps", "Deployment, StatefulSet"), label("kadmit.dev/workload"),
                        "fromMetadata:\n        field: name"),
        assign_metadata("namespaces-only", kinds("", "Namespace"), label("kadmit.dev/namespace-owner"),
                        "value: platform"),
        assign_metadata("cluster-scoped-only", "  match:\n    scope: Cluster\n", annotation("kadmit.dev/cluster"),
                        "value: 'yes'"),
        assign_metadata("tier-known",
                        "  match:\n    labelSelector:\n      matchExpressions:\n      - key: tier\n"
                        "        operator: Exists\n      - key: tier\n        operator: NotIn\n"
                        "        values: [data]\n",
                        label("kadmit.dev/tiered"), "value: 'true'"),
        assign_metadata("config-name", "  match:\n    name: '*-config-*'\n", annotation("kadmit.dev/config"),
                        "value: 'true'"),
    ]
    args = f"{CONTAINERS}.args"
    sets = [
        modify_set("json-logs", workloads, "", args, "merge", "['--log-format=json']"),
        modify_set("no-debug-logs", workloads, "  match:\n    namespaces: ['*-prod-*', '*-staging-*']\n", args,
                   "prune", "['--log-level=debug']"),
        modify_set("registry-credentials", deployments, "", "spec.template.spec.imagePullSecrets", "merge",
                   "[{name: regcred}]"),
        modify_set("claim-access-modes", statefulsets, "",
                   "spec.volumeClaimTemplates[name: *].spec.accessModes", "merge", "[ReadWriteOnce]"),
        modify_set("lb-source-ranges", services, "", "spec.loadBalancerSourceRanges", "merge", "['10.0.0.0/8']"),
        modify_set("daemonset-args", apply_to("apps", "v1", "DaemonSet"), "",
                   "spec.template.spec.containers[name: *].args", "merge", "['--node']"),
    ]
    image = f"{CONTAINERS}.image"
    images = [
        assign_image("prod-mirror", deployments, in_prod, image, "    assignDomain: mirror.example.com\n"),
        assign_image("dev-stable-tag", statefulsets, "  match:\n    namespaces: ['*-dev-*']\n", image,
                     "    assignTag: ':stable'\n"),
        assign_image("qa-mirror-and-tag", deployments, "  match:\n    namespaces: ['*-qa-*']\n", image,
                     "    assignDomain: qa-mirror.example.com:5000\n    assignTag: ':qa'\n"),
        assign_image("statefulset-registry", statefulsets, "  match:\n    excludedNamespaces: ['*-dev-*']\n", image,
                     "    assignDomain: registry.example.com\n"),
        assign_image("init-containers", deployments, "", "spec.template.spec.initContainers[name: *].image",
                     "    assignDomain: mirror.example.com\n"),
        assign_image("pods-digest", apply_to("", "v1", "Pod"), "", "spec.containers[name: *].image",
                     "    assignDomain: foocorp.org\n    assignTag: '@sha256:abcde67890123456789abc345678901a'\n"),
    ]
    out = assigns + metadata + sets + images
    assert len(out) == 50, len(out)
    return out


# A CRD of moderate size: nested objects, defaults (written into the output), enums,
# patterns, a map list and CEL rules at two levels, so that validation does real work.
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.bench.example.com
spec:
  group: bench.example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [image]
            x-kubernetes-validations:
            - rule: "self.minReplicas <= self.replicas"
              message: minReplicas must not exceed replicas
            properties:
              image:
                type: string
                maxLength: 253
                pattern: '^[a-z0-9.:/_-]+$'
              replicas:
                type: integer
                minimum: 0
                maximum: 100
                default: 1
              minReplicas:
                type: integer
                minimum: 0
                default: 0
              mode:
                type: string
                enum: [Active, Passive, Drain]
                default: Active
              ports:
                type: array
                maxItems: 16
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port]
                  properties:
                    name:
                      type: string
                      maxLength: 15
                    port:
                      type: integer
                      minimum: 1
                      maximum: 65535
                    protocol:
                      type: string
                      enum: [TCP, UDP]
                      default: TCP
              settings:
                type: object
                maxProperties: 32
                additionalProperties:
                  type: string
                  maxLength: 256
              resources:
                type: object
                properties:
                  cpu:
                    x-kubernetes-int-or-string: true
                  memory:
                    x-kubernetes-int-or-string: true
              rollout:
                type: object
                x-kubernetes-validations:
                - rule: "!has(self.maxSurge) || self.maxSurge <= 10"
                  message: maxSurge is at most 10
                properties:
                  maxSurge:
                    type: integer
                  paused:
                    type: boolean
                    default: false
    subresources:
      status: {}
"""


def widgets(count, seed):
    """Valid Widgets, some relying on the CRD's defaults."""
    r = random.Random(seed)
    out = []
    for i in range(count):
        replicas = r.randint(1, 20)
        doc = [
            "apiVersion: bench.example.com/v1\nkind: Widget\nmetadata:\n",
            f"  name: widget-{i}\n  namespace: {r.choice(['payments', 'search', 'data', 'edge'])}-{r.choice(['dev', 'prod'])}-0\n",
            f"  labels:\n    app.kubernetes.io/name: widget-{i}\n    team: {r.choice(['catalog', 'search', 'billing'])}\n",
            f"spec:\n  image: registry.example.com/widget:{r.randint(1, 9)}.{r.randint(0, 20)}\n",
        ]
        if r.random() < 0.7:
            doc.append(f"  replicas: {replicas}\n  minReplicas: {r.randint(0, replicas)}\n")
        if r.random() < 0.5:
            doc.append(f"  mode: {r.choice(['Active', 'Passive', 'Drain'])}\n")
        doc.append("  ports:\n")
        for p in range(r.randint(1, 3)):
            doc.append(f"  - name: p{p}\n    port: {8000 + p}\n")
            if r.random() < 0.5:
                doc.append(f"    protocol: {r.choice(['TCP', 'UDP'])}\n")
        if r.random() < 0.6:
            doc.append("  settings:\n")
            for k in r.sample(["LOG_LEVEL", "REGION", "TIMEOUT", "RETRIES", "MODE"], r.randint(1, 4)):
                doc.append(f"    {k}: \"{r.choice(['info', 'eu-west-1', '30s', '3', 'strict'])}\"\n")
        if r.random() < 0.5:
            doc.append(f"  resources:\n    cpu: {r.choice(['500m', '1', 2])}\n    memory: {r.choice(['128Mi', '1Gi'])}\n")
        if r.random() < 0.4:
            doc.append(f"  rollout:\n    maxSurge: {r.randint(0, 10)}\n")
        out.append("".join(doc))
    return "---\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="directory to write config.yaml, crd.yaml and widgets.yaml into")
    p.add_argument("--widgets", type=int, default=1000, help="how many Widgets (default 1000)")
    p.add_argument("--seed", type=int, default=1, help="random seed of the Widgets (default 1)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)

    def write(name, text):
        with open(os.path.join(a.out, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)

    write("config.yaml", "".join(modrules() + mutators()))
    write("crd.yaml", CRD)
    write("widgets.yaml", widgets(a.widgets, a.seed))


if __name__ == "__main__":
    main()
