//! Built-in kinds through the binary (on unless `--no-builtins`): strict decoding with the server's
//! texts, native defaults written and recorded, native validation in kubectl's envelope,
//! the Kubernetes version chosen by flag or by a `kadmit.dev` `Settings` document.

use predicates::prelude::*;

mod common;

use common::{kadmit_isolated as kadmit, write};

/// The Deployment: a bad name, a selector that does not match its template, an
/// unsupported pull policy.
const BAD_DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: Web_App
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: webx}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        imagePullPolicy: Sometimes
";

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
";

/// What the server stores for `DEPLOYMENT` (minus uid, timestamps, status).
const DEPLOYMENT_STORED: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
          protocol: TCP
        imagePullPolicy: IfNotPresent
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      securityContext: {}
      terminationGracePeriodSeconds: 30
      schedulerName: default-scheduler
  replicas: 1
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 25%
      maxSurge: 25%
  revisionHistoryLimit: 10
  progressDeadlineSeconds: 600
";

#[test]
fn native_validation_reports_every_error_in_kubectls_envelope() {
    kadmit()
        .args(["transform"])
        .write_stdin(BAD_DEPLOYMENT)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "error: Deployment Web_App: The Deployment \"Web_App\" is invalid: \n\
             * metadata.name: Invalid value: \"Web_App\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n\
             * spec.template.metadata.labels: Invalid value: {\"app\":\"webx\"}: `selector` does not match template `labels`\n\
             * spec.template.spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\" [stdin, document 1, line 1]",
        ));
    // With --no-builtins the object passes as before.
    kadmit()
        .args(["transform", "--no-builtins"])
        .write_stdin(BAD_DEPLOYMENT)
        .assert()
        .success();
}

#[test]
fn strict_decoding_refuses_unknown_fields_and_wrong_types_with_the_servers_texts() {
    let unknown = DEPLOYMENT.replace("        ports:\n", "        portz: 1\n        ports:\n");
    kadmit()
        .args(["transform"])
        .write_stdin(unknown.clone())
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.template.spec.containers[0].portz\"",
        ));
    // Warn: the field is dropped with the server's warning; Ignore: dropped silently.
    kadmit()
        .args(["transform", "--field-validation", "Warn"])
        .write_stdin(unknown.clone())
        .assert()
        .success()
        .stdout(DEPLOYMENT_STORED)
        .stderr(predicate::str::contains(
            "warning: Deployment web: unknown field \"spec.template.spec.containers[0].portz\"",
        ));
    kadmit()
        .args(["transform", "--field-validation", "Ignore"])
        .write_stdin(unknown)
        .assert()
        .success()
        .stdout(DEPLOYMENT_STORED)
        .stderr(predicate::str::contains("portz").not());
    let typed = DEPLOYMENT.replace(
        "spec:\n  selector",
        "spec:\n  replicas: \"two\"\n  selector",
    );
    kadmit()
        .args(["transform", "--field-validation", "Ignore"])
        .write_stdin(typed)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
        ));
}

#[test]
fn an_unknown_kind_of_a_built_in_group_version_is_kubectls_no_matches_error() {
    kadmit()
        .args(["transform"])
        .write_stdin(DEPLOYMENT.replace("kind: Deployment", "kind: Deploymnet"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "resource mapping not found for name: \"web\" namespace: \"\" from \"stdin\": no matches for kind \"Deploymnet\" in version \"apps/v1\"\nensure CRDs are installed first",
        ));
}

#[test]
fn native_defaults_are_written_recorded_and_idempotent() {
    let out = kadmit()
        .args(["transform", "--report", "-"])
        .write_stdin(DEPLOYMENT)
        .assert()
        .success()
        .stdout(DEPLOYMENT_STORED)
        .get_output()
        .clone();
    let report = String::from_utf8(out.stderr).unwrap();
    assert!(
        report.contains("\"path\": \"/spec/template/spec/containers/0/imagePullPolicy\",\n          \"rule\": \"defaults apps/v1 Deployment\""),
        "{report}"
    );
    // Admitting the output again changes nothing.
    kadmit()
        .args(["transform"])
        .write_stdin(DEPLOYMENT_STORED)
        .assert()
        .success()
        .stdout(DEPLOYMENT_STORED);
    // --no-defaults: validated with the defaults, written without them.
    kadmit()
        .args(["transform", "--no-defaults"])
        .write_stdin(DEPLOYMENT)
        .assert()
        .success()
        .stdout(predicate::str::contains("imagePullPolicy").not());
}

#[test]
fn a_mutation_is_decoded_and_defaulted_again_as_the_server_does() {
    let dir = tempfile::tempdir().unwrap();
    // The rule writes a string where the server wants an int32.
    let rule = write(
        dir.path(),
        "rule.yaml",
        "apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: {name: replicas-as-text}
spec:
  type: Patch
  match:
  - select: '$.kind'
    matchValue: Deployment
  patch:
  - op: add
    path: /spec/template/spec/containers/-
    value: '{\"name\": \"sidecar\", \"image\": \"busybox:1.36\"}'
  - op: replace
    path: /spec/replicas
    value: '\"3\"'
",
    );
    kadmit()
        .args(["transform", "--config"])
        .arg(&rule)
        .write_stdin(DEPLOYMENT)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
        ));
    // The sidecar a rule adds is defaulted like any container.
    std::fs::write(
        &rule,
        std::fs::read_to_string(&rule).unwrap().replace(
            "  - op: replace\n    path: /spec/replicas\n    value: '\"3\"'\n",
            "",
        ),
    )
    .unwrap();
    kadmit()
        .args(["transform", "--config"])
        .arg(&rule)
        .write_stdin(DEPLOYMENT)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "      - name: sidecar\n        image: busybox:1.36\n        imagePullPolicy: IfNotPresent\n        terminationMessagePath: /dev/termination-log\n",
        ));
}

#[test]
fn the_kubernetes_version_comes_from_the_flag_or_a_settings_document() {
    // Pod-level `spec.resources` exists in 1.35, not in 1.30.
    let pod = "apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: busybox:1.36
    resources:
      limits: {cpu: 100m}
  resources: {}
";
    kadmit()
        .args(["transform", "--kubernetes-version", "1.30"])
        .write_stdin(pod)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unknown field \"spec.resources\""));
    kadmit()
        .args(["transform", "--kubernetes-version", "1.35"])
        .write_stdin(pod)
        .assert()
        .success();
    let dir = tempfile::tempdir().unwrap();
    let settings = write(
        dir.path(),
        "settings.yaml",
        "apiVersion: kadmit.dev/v1alpha1\nkind: Settings\nmetadata: {name: pin}\nspec:\n  kubernetesVersion: \"1.30\"\n",
    );
    kadmit()
        .args(["transform", "--config"])
        .arg(&settings)
        .write_stdin(pod)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unknown field \"spec.resources\""));
    // The flag wins over the pin.
    kadmit()
        .args(["transform", "--kubernetes-version", "1.35", "--config"])
        .arg(&settings)
        .write_stdin(pod)
        .assert()
        .success();
    kadmit()
        .args(["transform", "--kubernetes-version", "1.29"])
        .write_stdin(pod)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "Kubernetes version \"1.29\" is not one kadmit has the built-in kinds of (1.30 to 1.35)",
        ));
    std::fs::write(
        &settings,
        "apiVersion: kadmit.dev/v1alpha1\nkind: Settings\nmetadata: {name: pin}\nspec:\n  kubernetesVersion: \"1.36\"\n",
    )
    .unwrap();
    kadmit()
        .args(["transform", "--config"])
        .arg(&settings)
        .write_stdin(pod)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("spec.kubernetesVersion"));
}

#[test]
fn status_defaults_are_the_servers_to_fill_and_not_written() {
    // SetDefaults_NamespaceStatus and the claim's phase: real defaults, but of status,
    // which the server fills itself; the stored label is written.
    kadmit()
        .arg("transform")
        .write_stdin(
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n",
        )
        .assert()
        .success()
        .stdout(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    kubernetes.io/metadata.name: shop\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes:\n  - ReadWriteOnce\n  resources:\n    requests:\n      storage: 1Gi\n  volumeMode: Filesystem\n",
        );
}

/// One object of every kind with UPDATE rules, as a manifest leaves them (no cluster IPs,
/// no Job selector, a Secret's `stringData`).
const UPDATABLE: &str = "apiVersion: v1
kind: Secret
metadata: {name: s}
immutable: true
stringData: {password: x}
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: busybox}]
";

#[test]
fn operation_update_without_old_objects_reaches_the_update_rules_and_reports_no_change() {
    let created = kadmit()
        .args(["transform"])
        .write_stdin(format!("{DEPLOYMENT}---\n{UPDATABLE}"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    // Each object is its own old object: the update rules run and find nothing changed.
    kadmit()
        .args(["transform", "--operation", "UPDATE"])
        .write_stdin(format!("{DEPLOYMENT}---\n{UPDATABLE}"))
        .assert()
        .success()
        .stderr("")
        .stdout(String::from_utf8(created).unwrap());
}
