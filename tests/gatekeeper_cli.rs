//! Gatekeeper mutators through the binary: invalid mutators are configuration errors (exit
//! 2) naming the mutator and where it was read; a mutator that fails on a resource rejects
//! it (exit 1) naming both; good mutators mutate, and show up in the report and in the
//! `gatekeeper.sh/mutations` annotation.

use assert_cmd::Command;
use serde::Deserialize;
use serde_json::{json, Value};

fn kadmit(args: &[&str], input: &str) -> assert_cmd::assert::Assert {
    Command::cargo_bin("kadmit")
        .unwrap()
        .args(args)
        .write_stdin(input)
        .assert()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

/// Every document of kadmit's YAML output, as JSON.
fn docs(a: &assert_cmd::assert::Assert) -> Vec<Value> {
    let text = stdout(a);
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| Value::deserialize(doc).unwrap_or_else(|e| panic!("{e}:\n{text}")))
        .filter(|v| !v.is_null())
        .collect()
}

/// The only output document of `kind` named `name`.
fn find<'a>(docs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    let found: Vec<&Value> = docs
        .iter()
        .filter(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .collect();
    assert_eq!(found.len(), 1, "{kind} {name} in {docs:#?}");
    found[0]
}

fn contains_all(text: &str, expected: &[&str]) {
    for e in expected {
        assert!(text.contains(e), "expected {e:?} in:\n{text}");
    }
}

/// An Assign on Pods (`apiVersion: v1`) at `location`; `extra` is indented spec YAML.
fn assign(name: &str, location: &str, value: &str, extra: &str) -> String {
    format!(
        r#"apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: {name}
spec:
  applyTo:
  - groups: [""]
    kinds: ["Pod"]
    versions: ["v1"]
{extra}  location: "{location}"
  parameters:
    assign:
      value: {value}
---
"#
    )
}

fn assign_metadata(name: &str, location: &str, value: &str, extra: &str) -> String {
    format!(
        r#"apiVersion: mutations.gatekeeper.sh/v1
kind: AssignMetadata
metadata:
  name: {name}
spec:
{extra}  location: "{location}"
  parameters:
    assign:
      value: {value}
---
"#
    )
}

/// An AssignImage on the images of a Pod's containers.
fn assign_image(name: &str, parameters: &str, extra: &str) -> String {
    format!(
        r#"apiVersion: mutations.gatekeeper.sh/v1alpha1
kind: AssignImage
metadata:
  name: {name}
spec:
  applyTo:
  - groups: [""]
    kinds: ["Pod"]
    versions: ["v1"]
{extra}  location: "spec.containers[name: *].image"
  parameters:
{parameters}---
"#
    )
}

fn always_pull(extra: &str) -> String {
    assign(
        "always-pull",
        "spec.containers[name: *].imagePullPolicy",
        "Always",
        extra,
    )
}

fn pod(namespace: &str, image: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: {namespace}
spec:
  containers:
  - name: app
    image: {image}
"
    )
}

fn pod_a() -> String {
    pod("team-a", "nginx:1.27")
}

fn pull_policies(pod: &Value) -> Vec<Value> {
    pod["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["imagePullPolicy"].clone())
        .collect()
}

// ---------------------------------------------------------------------------------------
// Invalid mutators: exit 2 before any resource is touched.

#[test]
fn invalid_location_names_the_mutator_and_where_it_was_read() {
    let input = assign(
        "always-pull",
        "spec.containers[name: ].imagePullPolicy",
        "Always",
        "",
    ) + &pod_a();
    let a = kadmit(&["transform"], &input).code(2).stdout("");
    contains_all(
        &stderr(&a),
        &[
            "invalid location format `spec.containers[name: ].imagePullPolicy` for Assign always-pull",
            "unexpected token: expected key value or glob in listSpec, got: RBRACKET: \"]\"",
            "(Assign always-pull)",
            "[stdin, document 1, line 1]",
        ],
    );

    // From --config, the message names the file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("always-pull.yaml");
    std::fs::write(
        &file,
        assign(
            "always-pull",
            "spec.containers[name: ].imagePullPolicy",
            "Always",
            "",
        ),
    )
    .unwrap();
    let a = kadmit(&["transform", "--config", file.to_str().unwrap()], &pod_a())
        .code(2)
        .stdout("");
    contains_all(
        &stderr(&a),
        &[
            "for Assign always-pull",
            "(Assign always-pull)",
            "always-pull.yaml, document 1, line 1]",
        ],
    );
}

#[test]
fn assign_image_with_a_bad_domain_is_refused() {
    for domain in ["not a domain", "registry", "https://registry.example.com"] {
        let input =
            assign_image("mirror", &format!("    assignDomain: {domain:?}\n"), "") + &pod_a();
        let a = kadmit(&["transform"], &input).code(2).stdout("");
        contains_all(
            &stderr(&a),
            &[
                &format!(
                    "assignImage mirror has invalid parameters: assignDomain {domain:?} must be a fully-qualified domain name or localhost"
                ),
                "(AssignImage mirror)",
                "[stdin, document 1, line 1]",
            ],
        );
    }
    // The same mutator with a good domain runs.
    let input = assign_image("mirror", "    assignDomain: \"localhost:5000\"\n", "") + &pod_a();
    let a = kadmit(&["transform"], &input).success();
    assert_eq!(
        find(&docs(&a), "Pod", "web")["spec"]["containers"][0]["image"],
        "localhost:5000/nginx:1.27"
    );
}

#[test]
fn conflicting_schemas_are_refused_with_gatekeepers_message() {
    let input = assign("set-image", "spec.containers.image", "nginx:1", "")
        + &assign(
            "foo-image",
            "spec.containers[name: foo].image",
            "nginx:2",
            "",
        )
        + &pod_a();
    let a = kadmit(&["transform"], &input).code(2).stdout("");
    contains_all(
        &stderr(&a),
        &[
            "the following mutators have conflicting schemas: [Assign.mutations.gatekeeper.sh /foo-image,Assign.mutations.gatekeeper.sh /set-image]",
            "[stdin, document 2",
        ],
    );

    // Different applyTo kinds: no shared schema, no conflict.
    let other_kind = assign("set-image", "spec.containers.image", "nginx:1", "")
        .replace("kinds: [\"Pod\"]", "kinds: [\"PodTemplate\"]");
    let input = other_kind
        + &assign(
            "foo-image",
            "spec.containers[name: foo].image",
            "nginx:2",
            "",
        )
        + &pod_a();
    kadmit(&["transform"], &input).success();
}

#[test]
fn external_data_is_not_supported_offline() {
    let input = r#"apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: tag-to-digest
spec:
  applyTo:
  - groups: [""]
    kinds: ["Pod"]
    versions: ["v1"]
  location: "spec.containers[name: *].image"
  parameters:
    assign:
      externalData:
        provider: tag-to-digest
        dataSource: ValueAtLocation
        failurePolicy: Fail
---
"#
    .to_owned()
        + &pod_a();
    let a = kadmit(&["transform"], &input).code(2).stdout("");
    contains_all(
        &stderr(&a),
        &[
            "Assign tag-to-digest: externalData is not supported offline",
            "(Assign tag-to-digest)",
            "[stdin, document 1, line 1]",
        ],
    );
}

// ---------------------------------------------------------------------------------------
// Namespaces and namespaceSelector.

const TEAM_NAMESPACE: &str = "apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels:
    tier: team
---
";

fn team_pull() -> String {
    assign(
        "team-pull",
        "spec.containers[name: *].imagePullPolicy",
        "Always",
        "  match:\n    namespaceSelector:\n      matchLabels:\n        tier: team\n",
    )
}

#[test]
fn namespace_selector_without_the_namespace_object_says_how_to_supply_it() {
    let a = kadmit(&["transform"], &(team_pull() + &pod_a()))
        .code(1)
        .stdout("");
    contains_all(
        &stderr(&a),
        &[
            "Pod team-a/web",
            "matching for mutator Assign.mutations.gatekeeper.sh /team-pull failed for  Pod team-a web",
            "namespace selector for namespace-scoped object but missing Namespace",
            "Namespace \"team-a\"",
            "add that Namespace object to the input or to --config",
        ],
    );
}

#[test]
fn namespace_selector_with_the_namespace_object_in_the_stream_or_config() {
    // The objects are valid; their native defaults (imagePullPolicy, the Namespace's
    // `kubernetes.io/metadata.name` label, ...) would bury what the mutator did or left.
    let a = kadmit(
        &["transform", "--no-defaults"],
        &(team_pull() + TEAM_NAMESPACE + &pod_a()),
    )
    .success();
    let out = docs(&a);
    assert_eq!(
        pull_policies(find(&out, "Pod", "web")),
        vec![json!("Always")]
    );
    assert_eq!(
        find(&out, "Namespace", "team-a")["metadata"]["labels"],
        json!({"tier": "team"})
    );

    let dir = tempfile::tempdir().unwrap();
    let ns = dir.path().join("namespaces.yaml");
    std::fs::write(&ns, TEAM_NAMESPACE).unwrap();
    let a = kadmit(
        &[
            "transform",
            "--no-defaults",
            "--config",
            ns.to_str().unwrap(),
        ],
        &(team_pull() + &pod_a()),
    )
    .success();
    let out = docs(&a);
    assert_eq!(out.len(), 1, "{out:#?}");
    assert_eq!(pull_policies(&out[0]), vec![json!("Always")]);

    // A Namespace whose labels do not match: present, evaluated, not mutated.
    let other = TEAM_NAMESPACE.replace("tier: team", "tier: platform");
    let a = kadmit(
        &["transform", "--no-defaults"],
        &(team_pull() + &other + &pod_a()),
    )
    .success();
    assert_eq!(
        pull_policies(find(&docs(&a), "Pod", "web")),
        vec![Value::Null]
    );
}

#[test]
fn namespace_selector_in_default_needs_no_namespace_object() {
    // `default` without a Namespace object is a Namespace with no labels, as in gator.
    // The Pod is valid; its native imagePullPolicy default would hide whether the mutator
    // set the field.
    let a = kadmit(
        &["transform", "--no-defaults"],
        &(team_pull() + &pod("default", "nginx:1.27")),
    )
    .success();
    assert_eq!(
        stderr(&a),
        "info: 1 rule matched no object: Assign team-pull\n"
    );
    assert_eq!(
        pull_policies(find(&docs(&a), "Pod", "web")),
        vec![Value::Null]
    );
    // A selector that matches no labels at all does apply there.
    let any = team_pull().replace(
        "namespaceSelector:\n      matchLabels:\n        tier: team\n",
        "namespaceSelector:\n      matchExpressions:\n      - {key: tier, operator: DoesNotExist}\n",
    );
    let a = kadmit(
        &["transform", "--no-defaults"],
        &(any + &pod("default", "nginx:1.27")),
    )
    .success();
    assert_eq!(
        pull_policies(find(&docs(&a), "Pod", "web")),
        vec![json!("Always")]
    );
}

// ---------------------------------------------------------------------------------------
// Failures on a resource: exit 1, nothing written.

/// AssignImage's validation keeps assigned parts from leaking into their neighbours, but
/// not an existing tag that holds a `/`: `assignPath: library.nginx` on `nginx@edge/x` gives
/// `library.nginx@edge/x`, whose first segment `library.nginx@edge` now reads as a domain,
/// so the next round gives `library.nginx@edge/library.nginx`. One mutator allows two
/// rounds; the second still changes the object. (Gatekeeper's imageparser.go does the same.)
fn renamer(extra: &str) -> String {
    assign_image("rename", "    assignPath: \"library.nginx\"\n", extra)
}

#[test]
fn a_mutator_that_does_not_converge_fails_the_resource() {
    let a = kadmit(
        &["transform"],
        &(renamer("") + &pod("default", "nginx@edge/x")),
    )
    .code(1)
    .stdout("");
    contains_all(
        &stderr(&a),
        &[
            "Pod default/web",
            "mutation not converging for  Pod default web after 2 rounds",
            "AssignImage.mutations.gatekeeper.sh /rename",
        ],
    );
    // The same mutator on an ordinary image converges in one round.
    let a = kadmit(
        &["transform"],
        &(renamer("") + &pod("default", "nginx:1.27")),
    )
    .success();
    assert_eq!(
        find(&docs(&a), "Pod", "web")["spec"]["containers"][0]["image"],
        "library.nginx:1.27"
    );
}

#[test]
fn a_pair_of_mutators_that_does_not_converge_fails_the_resource() {
    // AssignMetadata (sorted after AssignImage) labels the Pod in round 1; the label
    // enables the AssignImage from round 2 on, which changes the image in rounds 2 and 3:
    // two mutators allow three rounds.
    let gated =
        renamer("  match:\n    labelSelector:\n      matchLabels:\n        rename: \"yes\"\n");
    let label = assign_metadata("label", "metadata.labels.rename", "\"yes\"", "");
    let a = kadmit(
        &["transform"],
        &(label.clone() + &gated + &pod("default", "nginx@edge/x")),
    )
    .code(1)
    .stdout("");
    contains_all(
        &stderr(&a),
        &[
            "Pod default/web",
            "mutation not converging for  Pod default web after 3 rounds",
            "AssignImage.mutations.gatekeeper.sh /rename",
        ],
    );
    // Without the label mutator the AssignImage never matches: nothing to converge.
    let a = kadmit(&["transform"], &(gated + &pod("default", "nginx@edge/x"))).success();
    assert_eq!(
        find(&docs(&a), "Pod", "web")["spec"]["containers"][0]["image"],
        "nginx@edge/x"
    );
}

#[test]
fn assign_metadata_on_null_labels_is_a_type_mismatch() {
    let owner = assign_metadata("owner", "metadata.labels.owner", "\"y\"", "");
    let config_map = |labels: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: default\n  labels:{labels}\ndata:\n  a: b\n"
        )
    };
    let a = kadmit(&["transform"], &(owner.clone() + &config_map("")))
        .code(1)
        .stdout("");
    contains_all(
        &stderr(&a),
        &[
            "ConfigMap default/cfg",
            "mutation for mutator AssignMetadata.mutations.gatekeeper.sh /owner failed for  ConfigMap default cfg",
            "mismatch between path entry (type: object) and received object (type: <nil>)",
        ],
    );
    // Empty but not null: the label is added (and `"y"` stays a string).
    let a = kadmit(&["transform"], &(owner + &config_map(" {}"))).success();
    assert_eq!(
        find(&docs(&a), "ConfigMap", "cfg")["metadata"]["labels"],
        json!({"owner": "y"})
    );
}

// ---------------------------------------------------------------------------------------
// What a mutation leaves behind: the annotation and the report.

/// Three mutators of three kinds, listed in the reverse of Gatekeeper's order.
fn three_mutators() -> String {
    assign_metadata(
        "owner",
        "metadata.labels.owner",
        "\"team-a\"",
        "  match:\n    kinds:\n    - apiGroups: [\"\"]\n      kinds: [\"Pod\"]\n",
    ) + &assign_image("mirror", "    assignDomain: \"registry.example.com\"\n", "")
        + &always_pull("")
}

const SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  name: front
  namespace: team-a
spec:
  ports:
  - port: 80
---
";

#[test]
fn gatekeeper_annotations_list_the_mutators_sorted() {
    let input = three_mutators() + SERVICE + &pod_a();
    let a = kadmit(&["transform", "--gatekeeper-annotations"], &input).success();
    let out = docs(&a);
    assert_eq!(
        find(&out, "Pod", "web")["metadata"]["annotations"],
        json!({"gatekeeper.sh/mutations": "Assign//always-pull:1, AssignImage//mirror:1, AssignMetadata//owner:1"})
    );
    // No mutator applies to the Service: no annotation.
    assert_eq!(
        find(&out, "Service", "front")["metadata"].get("annotations"),
        None
    );

    // The mutator's generation, when it has one.
    let input = always_pull("").replace(
        "  name: always-pull\n",
        "  name: always-pull\n  generation: 4\n",
    ) + &pod_a();
    let a = kadmit(&["transform", "--gatekeeper-annotations"], &input).success();
    assert_eq!(
        find(&docs(&a), "Pod", "web")["metadata"]["annotations"]["gatekeeper.sh/mutations"],
        "Assign//always-pull:4"
    );

    // Without the flag the same run writes no annotation.
    let a = kadmit(&["transform"], &(three_mutators() + SERVICE + &pod_a())).success();
    let out = docs(&a);
    let pod = find(&out, "Pod", "web");
    assert_eq!(pod["metadata"].get("annotations"), None, "{pod:#}");
    assert_eq!(pull_policies(pod), vec![json!("Always")]);
    assert!(!stdout(&a).contains("gatekeeper.sh"), "{}", stdout(&a));
}

#[test]
fn report_lists_each_changing_mutator_with_its_paths() {
    let two_containers =
        pod_a() + "  - name: metrics\n    image: quay.io/prometheus/node-exporter:v1.8.2\n";
    // A second Pod the mutators match but do not change.
    let settled = pod("team-a", "registry.example.com/nginx:1.27")
        .replace("name: web", "name: settled")
        .replace(
            "  namespace: team-a\n",
            "  namespace: team-a\n  labels:\n    owner: someone\n",
        )
        + "    imagePullPolicy: Always\n";
    let input = three_mutators() + &two_containers + "---\n" + &settled;
    // The Pods are valid; their native defaults would be reported as changes too and bury
    // the mutators' entries (and change the untouched Pod) that this test is about.
    let a = kadmit(&["transform", "--no-defaults", "--report", "-"], &input).success();
    let report: Value =
        serde_json::from_str(&stderr(&a)).unwrap_or_else(|e| panic!("{e}: {}", stderr(&a)));
    assert_eq!(report["exitCode"], 0);
    let changes = report["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "only the changed Pod: {report:#}");
    assert_eq!(
        changes[0]["resource"],
        json!({"apiVersion": "v1", "kind": "Pod", "namespace": "team-a", "name": "web"})
    );
    assert_eq!(
        changes[0]["changes"],
        json!([
            {"path": "/spec/containers/0/imagePullPolicy", "rule": "Assign always-pull"},
            {"path": "/spec/containers/1/imagePullPolicy", "rule": "Assign always-pull"},
            {"path": "/spec/containers/0/image", "rule": "AssignImage mirror"},
            {"path": "/spec/containers/1/image", "rule": "AssignImage mirror"},
            {"path": "/metadata/labels", "rule": "AssignMetadata owner"},
        ])
    );
    let out = docs(&a);
    assert_eq!(
        find(&out, "Pod", "web")["spec"]["containers"][1]["image"],
        "registry.example.com/prometheus/node-exporter:v1.8.2"
    );
    assert_eq!(
        find(&out, "Pod", "settled")["metadata"]["labels"],
        json!({"owner": "someone"})
    );

    // Into a file; an existing labels map is changed at the label's own path.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.json");
    let labelled = pod_a().replace(
        "  namespace: team-a\n",
        "  namespace: team-a\n  labels:\n    app: web\n",
    );
    kadmit(
        &[
            "transform",
            "--no-defaults",
            "--report",
            file.to_str().unwrap(),
        ],
        &(three_mutators() + &labelled),
    )
    .success();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let paths: Vec<(&str, &str)> = report["changes"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["rule"].as_str().unwrap(), c["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        paths,
        vec![
            ("Assign always-pull", "/spec/containers/0/imagePullPolicy"),
            ("AssignImage mirror", "/spec/containers/0/image"),
            ("AssignMetadata owner", "/metadata/labels/owner"),
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Matching the admission operation, and numbers in keyed lists.

#[test]
fn operation_is_matched_against_apply_to_operations() {
    let on = |ops: &str| {
        always_pull("").replace(
            "    versions: [\"v1\"]\n",
            &format!("    versions: [\"v1\"]\n    operations: {ops}\n"),
        )
    };
    // The Pod is valid; its native imagePullPolicy default would hide whether the mutator
    // set the field.
    let policy = |args: &[&str], ops: &str| {
        let args: Vec<&str> = args.iter().copied().chain(["--no-defaults"]).collect();
        let a = kadmit(&args, &(on(ops) + &pod_a())).success();
        pull_policies(find(&docs(&a), "Pod", "web"))
    };
    let always = vec![json!("Always")];
    let untouched = vec![Value::Null];
    assert_eq!(policy(&["transform"], "[CREATE]"), always);
    assert_eq!(
        policy(&["transform", "--operation", "CREATE"], "[CREATE]"),
        always
    );
    assert_eq!(
        policy(&["transform", "--operation", "UPDATE"], "[CREATE]"),
        untouched
    );
    assert_eq!(policy(&["transform"], "[UPDATE]"), untouched);
    assert_eq!(
        policy(&["transform", "--operation", "UPDATE"], "[UPDATE]"),
        always
    );
    assert_eq!(
        policy(&["transform", "--operation", "UPDATE"], "[\"*\"]"),
        always
    );
    // The webhook is not called for DELETE.
    assert_eq!(
        policy(&["transform", "--operation", "DELETE"], "[\"*\"]"),
        untouched
    );
}

const PORTS_POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: team-a
spec:
  containers:
  - name: app
    image: nginx:1.27
    ports:
    - containerPort: 8080
      name: http
    - containerPort: 9090
      name: metrics
";

fn ports(a: &assert_cmd::assert::Assert) -> Value {
    find(&docs(a), "Pod", "web")["spec"]["containers"][0]["ports"].clone()
}

#[test]
fn integer_list_keys_match_existing_elements() {
    let protocol = assign(
        "tcp",
        "spec.containers[name: app].ports[containerPort: 8080].protocol",
        "TCP",
        "",
    );
    // The Pod is valid; the native `protocol: TCP` default on every port would hide which
    // element the mutator matched.
    let a = kadmit(&["transform", "--no-defaults"], &(protocol + PORTS_POD)).success();
    assert_eq!(
        ports(&a),
        json!([
            {"containerPort": 8080, "name": "http", "protocol": "TCP"},
            {"containerPort": 9090, "name": "metrics"},
        ])
    );

    // A port that is not there is appended with an integer key.
    let missing = assign(
        "tcp",
        "spec.containers[name: app].ports[containerPort: 8081].protocol",
        "TCP",
        "",
    );
    let a = kadmit(&["transform", "--no-defaults"], &(missing + PORTS_POD)).success();
    assert_eq!(
        ports(&a)[2],
        json!({"containerPort": 8081, "protocol": "TCP"})
    );
    assert_eq!(ports(&a).as_array().unwrap().len(), 3);

    // A quoted key is a string, which no integer port equals: a new element.
    let quoted = assign(
        "tcp",
        "spec.containers[name: app].ports[containerPort: \\\"8080\\\"].protocol",
        "TCP",
        "",
    );
    // The string `containerPort` this makes is not a valid Pod: a synthetic result, built-in
    // admission is not what this test is about.
    let a = kadmit(&["transform", "--no-builtins"], &(quoted + PORTS_POD)).success();
    assert_eq!(
        ports(&a)[2],
        json!({"containerPort": "8080", "protocol": "TCP"})
    );

    // A location ending in the integer-keyed element replaces that element whole.
    let replace = assign(
        "udp",
        "spec.containers[name: app].ports[containerPort: 8080]",
        "{containerPort: 8080, protocol: UDP}",
        "",
    );
    let a = kadmit(&["transform", "--no-defaults"], &(replace + PORTS_POD)).success();
    assert_eq!(
        ports(&a),
        json!([
            {"containerPort": 8080, "protocol": "UDP"},
            {"containerPort": 9090, "name": "metrics"},
        ])
    );
}

/// `levels` levels of `width` ExpansionTemplates each way (`G<i>` to `M<i>x<j>` and back
/// to `G<i+1>`, all reading `spec.t`) and one `G0` nesting `spec.t` as deep, as JSON
/// documents. The graph is acyclic; the resultants grow as width^levels.
fn fan_out(width: usize, levels: usize) -> String {
    let gvk = |kind: &str| json!({"group": "x.example.com", "version": "v1", "kind": kind});
    let template = |name: String, from: &str, to: &str| {
        json!({"apiVersion": "expansion.gatekeeper.sh/v1alpha1", "kind": "ExpansionTemplate",
            "metadata": {"name": name},
            "spec": {"applyTo": [{"groups": ["x.example.com"], "versions": ["v1"], "kinds": [from]}],
                "templateSource": "spec.t", "generatedGVK": gvk(to)}})
    };
    let mut docs = Vec::new();
    for i in 0..levels {
        for j in 0..width {
            let (g, m, next) = (format!("G{i}"), format!("M{i}x{j}"), format!("G{}", i + 1));
            docs.push(template(format!("g{i}-m{j}"), &g, &m));
            docs.push(template(format!("m{i}-{j}-g"), &m, &next));
        }
    }
    let mut t = json!({"metadata": {"labels": {"a": "b"}}});
    for _ in 0..levels * 2 {
        t = json!({"metadata": {"labels": {"a": "b"}}, "spec": {"t": t}});
    }
    docs.push(json!({"apiVersion": "x.example.com/v1", "kind": "G0",
        "metadata": {"name": "root", "namespace": "default"}, "spec": {"t": t}}));
    docs.iter().map(|d| format!("---\n{d}\n")).collect()
}

/// Regression (finding 12): 3 templates per level over 12 levels (a few KB) made 3^12
/// resultants at the last level and aborted out of memory; expansion now stops at
/// kadmit's limit of 1,000 resultants per resource, rejecting the generator (exit 1).
#[test]
fn expansion_fan_out_is_refused_at_the_resultant_limit() {
    let a = kadmit(&["generate"], &fan_out(3, 12)).code(1);
    contains_all(
        &stderr(&a),
        &["G0 default/root: error expanding resource root: expansion produced more than 1000 resultants (kadmit's limit per resource)"],
    );
    assert!(docs(&a).is_empty());
    // Below the limit everything is expanded: 2 * (2 + 4 + 8 + 16) resultants.
    let a = kadmit(&["generate"], &fan_out(2, 4)).success();
    assert_eq!(docs(&a).len(), 60);
}

/// Matching is remembered across convergence rounds only for mutators whose `match` reads
/// nothing a round can change: one that selects by labels is matched again in each round,
/// so it applies once an earlier round's AssignMetadata gave the label (Assign sorts before
/// AssignMetadata: in the first round the label is not there yet).
#[test]
fn a_label_added_in_one_round_is_matched_in_the_next() {
    let selected = "  match:\n    labelSelector:\n      matchLabels:\n        tier: web\n";
    let config = always_pull(selected)
        + &assign("no-token", "spec.automountServiceAccountToken", "false", "")
        + &assign_metadata("tier", "metadata.labels.tier", "web", "");
    let a = kadmit(&["transform", "--no-defaults"], &(config + &pod_a())).success();
    let docs = docs(&a);
    let pod = find(&docs, "Pod", "web");
    assert_eq!(pod["metadata"]["labels"]["tier"], "web");
    assert_eq!(pull_policies(pod), [json!("Always")]);
    assert_eq!(pod["spec"]["automountServiceAccountToken"], false);
}
