//! Gatekeeper mutators over the generated corpus: `kadmit transform` with 50 mixed
//! mutators (Assign with globbed and keyed list paths, path tests and `fromMetadata`;
//! AssignMetadata with and without match blocks; ModifySet merge and prune; AssignImage
//! domain and tag rewrites) against pass-through on the same 10,000 resources. Most
//! mutators match some resources, some match none. Run with
//! `cargo bench --bench gatekeeper`; `KADMIT_BENCH_REPS` sets the repetitions (median
//! reported). Numbers only: nothing here asserts a time.
//! `KADMIT_BENCH_WRITE=FILE` also writes the input with the mutators to FILE, for profiling
//! the binary (`kadmit transform < FILE`).

mod common;

use kadmit::run::{run, Mode, Options};
use std::time::{Duration, Instant};

const RESOURCES: usize = 10_000;

/// One mutator document; `spec` is the indented body of `spec:`.
fn mutator(kind: &str, version: &str, name: &str, spec: &str) -> String {
    format!(
        "apiVersion: mutations.gatekeeper.sh/{version}\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n{spec}---\n"
    )
}

/// `applyTo` for one group/version and some kinds.
fn apply_to(group: &str, version: &str, kinds: &str) -> String {
    format!("  applyTo:\n  - groups: [\"{group}\"]\n    versions: [\"{version}\"]\n    kinds: [{kinds}]\n")
}

const WORKLOADS: &str = "Deployment, StatefulSet";
const CONTAINERS: &str = "spec.template.spec.containers[name: *]";

fn assign(name: &str, to: &str, extra: &str, location: &str, params: &str) -> String {
    mutator(
        "Assign",
        "v1",
        name,
        &format!("{to}{extra}  location: '{location}'\n  parameters:\n{params}"),
    )
}

fn must_not_exist(location: &str) -> String {
    format!("    pathTests:\n    - subPath: '{location}'\n      condition: MustNotExist\n")
}

fn value(yaml: &str) -> String {
    format!("    assign:\n      value: {yaml}\n")
}

fn assign_metadata(name: &str, matcher: &str, location: &str, assign: &str) -> String {
    mutator(
        "AssignMetadata",
        "v1",
        name,
        &format!("{matcher}  location: '{location}'\n  parameters:\n    assign:\n      {assign}\n"),
    )
}

fn modify_set(name: &str, to: &str, extra: &str, location: &str, op: &str, list: &str) -> String {
    mutator(
        "ModifySet",
        "v1",
        name,
        &format!("{to}{extra}  location: '{location}'\n  parameters:\n    operation: {op}\n    values:\n      fromList: {list}\n"),
    )
}

fn assign_image(name: &str, to: &str, extra: &str, location: &str, params: &str) -> String {
    mutator(
        "AssignImage",
        "v1alpha1",
        name,
        &format!("{to}{extra}  location: '{location}'\n  parameters:\n{params}"),
    )
}

/// Twenty-five Assigns: container fields on every workload (globbed containers, keyed env
/// and sidecar entries), pod and workload defaults, Service fields, and some that apply to
/// kinds the corpus does not have.
fn assigns() -> Vec<String> {
    let workloads = apply_to("apps", "v1", WORKLOADS);
    let deployments = apply_to("apps", "v1", "Deployment");
    let statefulsets = apply_to("apps", "v1", "StatefulSet");
    let services = apply_to("", "v1", "Service");
    let in_prod = "  match:\n    namespaces: ['*-prod-*']\n";
    let c = CONTAINERS;
    let pull = format!("{c}.imagePullPolicy");
    let non_root = format!("{c}.securityContext.runAsNonRoot");
    let escalation = format!("{c}.securityContext.allowPrivilegeEscalation");
    let read_only = format!("{c}.securityContext.readOnlyRootFilesystem");
    let cpu_limit = format!("{c}.resources.limits.cpu");
    let sidecar = "spec.template.spec.containers[name: sidecar]";
    let sidecar_memory = format!("{sidecar}.resources.requests.memory");
    let readiness = format!("{c}.readinessProbe");
    let grace = "spec.template.spec.terminationGracePeriodSeconds";
    let os = "spec.template.spec.nodeSelector.\"kubernetes.io/os\"";
    let policy = "spec.podManagementPolicy";
    let http_port = "spec.ports[name: http]";
    vec![
        assign(
            "pull-if-not-present",
            &deployments,
            "",
            &pull,
            &format!("{}{}", must_not_exist(&pull), value("IfNotPresent")),
        ),
        assign("pull-always-statefulsets", &statefulsets, "", &pull, &value("Always")),
        assign(
            "run-as-non-root",
            &workloads,
            "",
            &non_root,
            &format!("{}{}", must_not_exist(&non_root), value("true")),
        ),
        assign(
            "no-privilege-escalation",
            &workloads,
            "",
            &escalation,
            &value("false"),
        ),
        assign("read-only-root-prod", &workloads, in_prod, &read_only, &value("true")),
        assign(
            "seccomp-runtime-default",
            &workloads,
            "",
            "spec.template.spec.securityContext.seccompProfile.type",
            &value("RuntimeDefault"),
        ),
        assign(
            "default-cpu-limit",
            &workloads,
            "",
            &cpu_limit,
            &format!("{}{}", must_not_exist(&cpu_limit), value("'1'")),
        ),
        assign(
            "sidecar-memory-request",
            &workloads,
            "",
            &sidecar_memory,
            &format!(
                "    pathTests:\n    - subPath: '{sidecar}'\n      condition: MustExist\n{}",
                value("96Mi")
            ),
        ),
        assign(
            "frontend-no-token",
            &deployments,
            "  match:\n    labelSelector:\n      matchLabels:\n        tier: frontend\n",
            "spec.template.spec.automountServiceAccountToken",
            &value("false"),
        ),
        assign(
            "termination-grace",
            &workloads,
            "",
            grace,
            &format!("{}{}", must_not_exist(grace), value("30")),
        ),
        assign(
            "revision-history",
            &deployments,
            "",
            "spec.revisionHistoryLimit",
            &value("5"),
        ),
        assign(
            "no-external-ips",
            &services,
            "",
            "spec.externalIPs",
            &value("[]"),
        ),
        assign(
            "frontend-single-stack",
            &services,
            "  match:\n    labelSelector:\n      matchExpressions:\n      - key: tier\n        operator: In\n        values: [frontend]\n",
            "spec.ipFamilyPolicy",
            &value("SingleStack"),
        ),
        assign(
            "http-app-protocol",
            &services,
            "",
            &format!("{http_port}.appProtocol"),
            &format!(
                "    pathTests:\n    - subPath: '{http_port}'\n      condition: MustExist\n{}",
                value("http")
            ),
        ),
        assign(
            "prod-local-traffic",
            &services,
            in_prod,
            "spec.internalTrafficPolicy",
            &value("Local"),
        ),
        assign(
            "parallel-pods",
            &statefulsets,
            "",
            policy,
            &format!("{}{}", must_not_exist(policy), value("Parallel")),
        ),
        assign(
            "data-storage-class",
            &statefulsets,
            "  match:\n    namespaces: ['payments-*', 'data-*', 'billing-*']\n",
            "spec.volumeClaimTemplates[name: *].spec.storageClassName",
            &value("fast-ssd"),
        ),
        assign(
            "batch-toleration",
            &workloads,
            "  match:\n    namespaces: ['data-*', 'ml-*']\n",
            "spec.template.spec.tolerations[key: dedicated]",
            &value("{key: dedicated, operator: Equal, value: batch, effect: NoSchedule}"),
        ),
        assign(
            "linux-nodes",
            &workloads,
            "",
            os,
            &format!("{}{}", must_not_exist(os), value("linux")),
        ),
        assign(
            "readiness-timeout",
            &workloads,
            "",
            &format!("{readiness}.timeoutSeconds"),
            &format!(
                "    pathTests:\n    - subPath: '{readiness}'\n      condition: MustExist\n{}",
                value("2")
            ),
        ),
        assign(
            "env-tz",
            &workloads,
            "",
            &format!("{c}.env[name: TZ].value"),
            &value("UTC"),
        ),
        assign(
            "env-pod-namespace",
            &deployments,
            "  match:\n    excludedNamespaces: ['*-dev-*']\n",
            &format!("{c}.env[name: POD_NAMESPACE].value"),
            "    assign:\n      fromMetadata:\n        field: namespace\n",
        ),
        assign(
            "api-progress-deadline",
            &deployments,
            "  match:\n    name: 'api-*'\n",
            "spec.progressDeadlineSeconds",
            &value("600"),
        ),
        assign(
            "jobs-backoff",
            &apply_to("batch", "v1", "Job"),
            "",
            "spec.backoffLimit",
            &value("2"),
        ),
        assign(
            "pods-pull-always",
            &apply_to("", "v1", "Pod"),
            "",
            "spec.containers[name: *].imagePullPolicy",
            &value("Always"),
        ),
    ]
}

/// Thirteen AssignMetadata: labels and annotations for everything or behind `match`
/// (kinds, scope, namespaces, labelSelector, name); AssignMetadata never overwrites.
fn assign_metadatas() -> Vec<String> {
    let label = |key: &str| format!("metadata.labels.\"{key}\"");
    let annotation = |key: &str| format!("metadata.annotations.\"{key}\"");
    let kinds = |group: &str, kinds: &str| {
        format!("  match:\n    kinds:\n    - apiGroups: [\"{group}\"]\n      kinds: [{kinds}]\n")
    };
    vec![
        assign_metadata(
            "mutated-by",
            "",
            &annotation("kadmit.dev/mutated-by"),
            "value: gatekeeper",
        ),
        assign_metadata(
            "namespace-label",
            "  match:\n    scope: Namespaced\n",
            &label("kadmit.dev/namespace"),
            "fromMetadata:\n        field: namespace",
        ),
        assign_metadata(
            "managed-by",
            "",
            &label("app.kubernetes.io/managed-by"),
            "value: gatekeeper",
        ),
        assign_metadata(
            "default-owner",
            "",
            &annotation("owner"),
            "value: unowned@example.com",
        ),
        assign_metadata(
            "prod-env",
            "  match:\n    namespaces: ['*-prod-*']\n",
            &label("env"),
            "value: prod",
        ),
        assign_metadata(
            "payments-cost-center",
            "  match:\n    labelSelector:\n      matchLabels:\n        team: payments\n",
            &label("cost-center"),
            "value: cc-100",
        ),
        assign_metadata(
            "config-reload",
            &kinds("", "ConfigMap"),
            &annotation("reloader.stakater.com/match"),
            "value: 'true'",
        ),
        assign_metadata(
            "service-topology",
            &kinds("", "Service"),
            &annotation("service.kubernetes.io/topology-mode"),
            "value: Auto",
        ),
        assign_metadata(
            "workload-name",
            &kinds("apps", "Deployment, StatefulSet"),
            &label("kadmit.dev/workload"),
            "fromMetadata:\n        field: name",
        ),
        assign_metadata(
            "namespaces-only",
            &kinds("", "Namespace"),
            &label("kadmit.dev/namespace-owner"),
            "value: platform",
        ),
        assign_metadata(
            "cluster-scoped-only",
            "  match:\n    scope: Cluster\n",
            &annotation("kadmit.dev/cluster"),
            "value: 'yes'",
        ),
        assign_metadata(
            "tier-known",
            "  match:\n    labelSelector:\n      matchExpressions:\n      - key: tier\n        operator: Exists\n      - key: tier\n        operator: NotIn\n        values: [data]\n",
            &label("kadmit.dev/tiered"),
            "value: 'true'",
        ),
        assign_metadata(
            "config-name",
            "  match:\n    name: '*-config-*'\n",
            &annotation("kadmit.dev/config"),
            "value: 'true'",
        ),
    ]
}

/// Six ModifySets: merge and prune on container `args`, `imagePullSecrets`, claim access
/// modes and Service source ranges; one for a kind the corpus does not have.
fn modify_sets() -> Vec<String> {
    let workloads = apply_to("apps", "v1", WORKLOADS);
    let args = format!("{CONTAINERS}.args");
    vec![
        modify_set(
            "json-logs",
            &workloads,
            "",
            &args,
            "merge",
            "['--log-format=json']",
        ),
        modify_set(
            "no-debug-logs",
            &workloads,
            "  match:\n    namespaces: ['*-prod-*', '*-staging-*']\n",
            &args,
            "prune",
            "['--log-level=debug']",
        ),
        modify_set(
            "registry-credentials",
            &apply_to("apps", "v1", "Deployment"),
            "",
            "spec.template.spec.imagePullSecrets",
            "merge",
            "[{name: regcred}]",
        ),
        modify_set(
            "claim-access-modes",
            &apply_to("apps", "v1", "StatefulSet"),
            "",
            "spec.volumeClaimTemplates[name: *].spec.accessModes",
            "merge",
            "[ReadWriteOnce]",
        ),
        modify_set(
            "lb-source-ranges",
            &apply_to("", "v1", "Service"),
            "",
            "spec.loadBalancerSourceRanges",
            "merge",
            "['10.0.0.0/8']",
        ),
        modify_set(
            "daemonset-args",
            &apply_to("apps", "v1", "DaemonSet"),
            "",
            "spec.template.spec.containers[name: *].args",
            "merge",
            "['--node']",
        ),
    ]
}

/// Six AssignImages: registry mirrors and tag pins behind namespace and name matches, one
/// on init containers (none in the corpus), one for Pods.
fn assign_images() -> Vec<String> {
    let deployments = apply_to("apps", "v1", "Deployment");
    let statefulsets = apply_to("apps", "v1", "StatefulSet");
    let image = format!("{CONTAINERS}.image");
    vec![
        assign_image(
            "prod-mirror",
            &deployments,
            "  match:\n    namespaces: ['*-prod-*']\n",
            &image,
            "    assignDomain: mirror.example.com\n",
        ),
        assign_image(
            "dev-stable-tag",
            &statefulsets,
            "  match:\n    namespaces: ['*-dev-*']\n",
            &image,
            "    assignTag: ':stable'\n",
        ),
        assign_image(
            "qa-mirror-and-tag",
            &deployments,
            "  match:\n    namespaces: ['*-qa-*']\n",
            &image,
            "    assignDomain: qa-mirror.example.com:5000\n    assignTag: ':qa'\n",
        ),
        assign_image(
            "statefulset-registry",
            &statefulsets,
            "  match:\n    excludedNamespaces: ['*-dev-*']\n",
            &image,
            "    assignDomain: registry.example.com\n",
        ),
        assign_image(
            "init-containers",
            &deployments,
            "",
            "spec.template.spec.initContainers[name: *].image",
            "    assignDomain: mirror.example.com\n",
        ),
        assign_image(
            "pods-digest",
            &apply_to("", "v1", "Pod"),
            "",
            "spec.containers[name: *].image",
            "    assignDomain: foocorp.org\n    assignTag: '@sha256:abcde67890123456789abc345678901a'\n",
        ),
    ]
}

/// Fifty mutators shaped like real ones.
fn mutators() -> String {
    let all: Vec<String> = [
        assigns(),
        assign_metadatas(),
        modify_sets(),
        assign_images(),
    ]
    .concat();
    assert_eq!(all.len(), 50, "the bench runs 50 mutators");
    all.concat()
}

fn median_time(input: &[u8], reps: usize) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..reps {
        let start = Instant::now();
        let outcome = run(Options::new(Mode::Transform), input);
        times.push(start.elapsed());
        assert_eq!(
            outcome.exit_code,
            0,
            "{:?}",
            outcome.diagnostics.first().map(|d| d.to_string())
        );
        bytes = outcome.stdout.len();
    }
    times.sort();
    (times[times.len() / 2], bytes)
}

fn main() {
    let reps: usize = std::env::var("KADMIT_BENCH_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let corpus = common::corpus(&common::corpus_dir(), RESOURCES);
    let with_mutators = format!("{}{corpus}", mutators());
    if let Ok(path) = std::env::var("KADMIT_BENCH_WRITE") {
        std::fs::write(&path, &with_mutators).expect("input with mutators written");
    }
    let (base, base_out) = median_time(corpus.as_bytes(), reps);
    let (mutated, mutated_out) = median_time(with_mutators.as_bytes(), reps);
    let mb = corpus.len() as f64 / 1e6;
    println!("gatekeeper: {RESOURCES} resources, {mb:.1} MB, 50 mutators, median of {reps}");
    println!(
        "  pass-through       {:>8.3} s  {:>6.1} MB/s  ({base_out} bytes out)",
        base.as_secs_f64(),
        mb / base.as_secs_f64()
    );
    println!(
        "  with 50 mutators   {:>8.3} s  {:>6.1} MB/s  ({mutated_out} bytes out)",
        mutated.as_secs_f64(),
        mb / mutated.as_secs_f64()
    );
    println!(
        "  mutators add {:+.0}% over pass-through",
        (mutated.as_secs_f64() / base.as_secs_f64() - 1.0) * 100.0
    );
}
