#!/usr/bin/env python3
"""Checks every test module in testdata/modules/ does what it is for.

Each module runs in wasmtime (PyPI `wasmtime`) the way kadmit's host runs
it: a fresh instance per call, WASI with stdin = the request, no preopened
directory, no environment; the use-case export is called (k8s-wasi), or
`_start` with argv (Kubewarden WASI). Fuel bounds the CPU and a store limit
bounds memory (64 MiB), so the hostile modules stop.

The Rust k8s-wasi modules and the Kubewarden policy are also compiled
natively with `rustc` (when there is one) and run as exec modules
(`program <use-case>`), as is exec/deny-latest.py: the same checks apply.

    python3 verify.py [--wasm-dir DIR] [--no-native]

Prints one line per check and closes with `N passed, N failed`.
"""
import argparse
import base64
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import wasmtime
except ImportError:
    sys.exit("verify.py needs the PyPI package wasmtime: pip install wasmtime")

HERE = os.path.dirname(os.path.abspath(__file__))
FUEL = 200_000_000
MEMORY_LIMIT = 64 << 20

RUST_SOURCES = {
    "magic-validator": "magic_validator",
    "magic-mutator": "magic_mutator",
    "magic-authenticator": "magic_authenticator",
    "magic-authorizer": "magic_authorizer",
    "settings-validator": "settings_validator",
    "jsonpatch-mutator": "jsonpatch_mutator",
    "kubewarden-policy": "kubewarden_policy",
}


def load(kind, name):
    with open(os.path.join(HERE, kind, name + ".json")) as f:
        return json.load(f)


def envelope(request, settings=None, with_settings=False):
    """The k8s-wasi input; `settings` only when given (or forced)."""
    value = {"request": request}
    if settings is not None or with_settings:
        value["settings"] = settings
    return json.dumps(value).encode()


class Outcome:
    """What a call did: stdout text, exit code (0 when it returned), trap text."""

    def __init__(self, stdout, exit_code=0, trap=None, memory_pages=None):
        self.stdout, self.exit_code, self.trap, self.memory_pages = stdout, exit_code, trap, memory_pages

    def json(self):
        return json.loads(self.stdout)


class WasmRunner:
    def __init__(self, wasm_dir):
        config = wasmtime.Config()
        config.consume_fuel = True
        self.engine = wasmtime.Engine(config)
        self.wasm_dir = wasm_dir
        self.modules = {}

    def module(self, name):
        if name not in self.modules:
            self.modules[name] = wasmtime.Module.from_file(self.engine, os.path.join(self.wasm_dir, name + ".wasm"))
        return self.modules[name]

    def exports(self, name):
        return [e.name for e in self.module(name).exports]

    def run(self, name, export, stdin, argv=None):
        store = wasmtime.Store(self.engine)
        store.set_fuel(FUEL)
        store.set_limits(memory_size=MEMORY_LIMIT)
        with tempfile.TemporaryDirectory() as tmp:
            paths = {s: os.path.join(tmp, s) for s in ("stdin", "stdout", "stderr")}
            with open(paths["stdin"], "wb") as f:
                f.write(stdin)
            wasi = wasmtime.WasiConfig()  # no env, no preopens, no argv unless given
            wasi.stdin_file = paths["stdin"]
            wasi.stdout_file = paths["stdout"]
            wasi.stderr_file = paths["stderr"]
            if argv is not None:
                wasi.argv = argv
            store.set_wasi(wasi)
            linker = wasmtime.Linker(self.engine)
            linker.define_wasi()
            instance = linker.instantiate(store, self.module(name))
            exports = instance.exports(store)
            exit_code, trap = 0, None
            try:
                exports[export](store)
            except wasmtime.ExitTrap as e:
                exit_code = e.code
            except (wasmtime.Trap, wasmtime.WasmtimeError) as e:
                trap = str(e)
            memory = exports["memory"] if "memory" in exports else None
            pages = memory.size(store) if memory is not None else None
            with open(paths["stdout"]) as f:
                return Outcome(f.read(), exit_code, trap, pages)


class NativeRunner:
    """Runs `program <export>` (or the Kubewarden argv) as a child process."""

    def __init__(self, programs):
        self.programs = programs

    def run(self, name, export, stdin, argv=None):
        args = [self.programs[name]] + (argv[1:] if argv is not None else [export])
        done = subprocess.run(args, input=stdin, capture_output=True, timeout=30)
        return Outcome(done.stdout.decode(), done.returncode)


def build_native(out_dir):
    rustc = shutil.which("rustc")
    if rustc is None:
        return None
    programs = {}
    for name, source in RUST_SOURCES.items():
        out = os.path.join(out_dir, name)
        subprocess.run([rustc, "--edition", "2021", "-O", os.path.join(HERE, "src", source + ".rs"), "-o", out],
                       check=True)
        programs[name] = out
    return programs


# ---- checks ------------------------------------------------------------------

class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, label, fn):
        try:
            fn()
        except AssertionError as e:
            self.failed += 1
            print("FAIL %s: %s" % (label, e))
            return
        except Exception as e:  # a crash in a check is a failure too
            self.failed += 1
            print("FAIL %s: %s: %s" % (label, type(e).__name__, e))
            return
        self.passed += 1
        print("ok   %s" % label)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def answer(outcome):
    """The `response` of a successful k8s-wasi call (error must be empty)."""
    expect(outcome.trap is None and outcome.exit_code == 0, "failed: exit %s, trap %s" % (outcome.exit_code, outcome.trap))
    value = outcome.json()
    expect(not value.get("error"), "error: %r" % value.get("error"))
    return value["response"]


def admission(outcome, review):
    """The inner AdmissionResponse, after checking the review around it."""
    response = answer(outcome)
    expect(response["kind"] == "AdmissionReview", "kind %r" % response.get("kind"))
    expect(response["apiVersion"] == "admission.k8s.io/v1", "apiVersion %r" % response.get("apiVersion"))
    inner = response["response"]
    expect(inner["uid"] == review["request"]["uid"], "uid %r" % inner["uid"])
    return inner


def decoded_patch(inner, patch_type):
    expect(inner.get("patchType") == patch_type, "patchType %r" % inner.get("patchType"))
    return json.loads(base64.b64decode(inner["patch"], validate=True))


def apply_adds(obj, operations):
    """Applies RFC 6902 `add` operations (all these modules emit)."""
    obj = copy.deepcopy(obj)
    for op in operations:
        expect(op["op"] == "add", "op %r" % op["op"])
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]]
        target = obj
        for token in tokens[:-1]:
            target = target[token]
        target[tokens[-1]] = op["value"]
    return obj


def k8s_wasi_checks(c, run, tag):
    """The Rust k8s-wasi modules; `run(name, export, stdin)` gives an Outcome."""
    not_allowed = load("requests", "configmap-not-allowed")
    mutate = load("requests", "configmap-mutate")
    no_data = load("requests", "configmap-no-data")
    pod_latest = load("requests", "pod-latest")
    pod_pinned = load("requests", "pod-pinned")
    deployment = load("requests", "deployment-latest")
    required = load("settings", "required-labels")

    def validator_rejects():
        inner = admission(run("magic-validator", "validate", envelope(not_allowed)), not_allowed)
        expect(inner["allowed"] is False, "allowed")
        expect(inner["status"]["message"] == "value not-allowed-value not allowed in configmap", inner["status"])
        expect("patch" not in inner and "patchType" not in inner, "a validator answered a patch")

    def validator_allows():
        for review in (no_data, pod_latest):
            inner = admission(run("magic-validator", "validate", envelope(review)), review)
            expect(inner["allowed"] is True and "status" not in inner, inner)

    def mutator_adds_magic_value():
        inner = admission(run("magic-mutator", "validate", envelope(mutate)), mutate)
        expect(inner["allowed"] is True, "allowed")
        patched = decoded_patch(inner, "Full")
        wanted = copy.deepcopy(mutate["request"]["object"])
        wanted["data"]["magic-value"] = "foobar"
        expect(patched == wanted, patched)

    def mutator_creates_data():
        inner = admission(run("magic-mutator", "validate", envelope(no_data)), no_data)
        expect(decoded_patch(inner, "Full")["data"] == {"magic-value": "foobar"}, inner)

    def mutator_leaves_alone():
        for review in (not_allowed, pod_latest):
            inner = admission(run("magic-mutator", "validate", envelope(review)), review)
            expect(inner["allowed"] is True and "patch" not in inner and "patchType" not in inner, inner)

    def mutator_keeps_any_json():
        # The JSON code must carry everything through unchanged.
        review = copy.deepcopy(no_data)
        obj = review["request"]["object"]
        obj["spec"] = {"quotes": 'say "hi"\\ / \b\f\n\r\t\u0001\u001f', "unicode": "h\u00e9llo \u4e16\U0001f600",
                       "numbers": [0, -1, 1.5, -2.5e-3, 1E+20, 12345678901234567890123], "deep": [[[{"a": [None, True, False]}]]],
                       "empty": [{}, [], ""]}
        text = json.dumps({"request": review}, ensure_ascii=True).replace("1e+20", "1E+20")
        inner = admission(run("magic-mutator", "validate", text.encode()), review)
        patched = decoded_patch(inner, "Full")
        expect(patched["spec"] == obj["spec"] and patched["metadata"] == obj["metadata"], patched)
        expect("12345678901234567890123" in base64.b64decode(inner["patch"]).decode(), "big integer kept as written")

    def mutator_allows_delete():
        review = copy.deepcopy(mutate)
        review["request"]["operation"] = "DELETE"
        review["request"]["object"] = None
        inner = admission(run("magic-mutator", "validate", envelope(review)), review)
        expect(inner == {"uid": review["request"]["uid"], "allowed": True}, inner)

    def authenticates_magic_token():
        response = answer(run("magic-authenticator", "authn", envelope(load("requests", "tokenreview-magic-token"))))
        expect(response == {  # the specification's output, exactly
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "status": {"authenticated": True,
                       "user": {"groups": ["magic-group"], "uid": "0", "username": "magic-user"}}}, response)

    def refuses_other_token():
        response = answer(run("magic-authenticator", "authn", envelope(load("requests", "tokenreview-other-token"))))
        expect(response["status"] == {"authenticated": False}, response)

    def denies_listing_pods():
        response = answer(run("magic-authorizer", "authz", envelope(load("requests", "subjectaccessreview-list-pods"))))
        expect(response["apiVersion"] == "authorization.k8s.io/v1" and response["kind"] == "SubjectAccessReview", response)
        expect(response["status"]["allowed"] is False and response["status"]["reason"], response)

    def allows_getting_a_pod():
        response = answer(run("magic-authorizer", "authz", envelope(load("requests", "subjectaccessreview-get-pod"))))
        expect(response["status"]["allowed"] is True and response["status"]["reason"], response)

    def settings_required():
        for stdin in (envelope(pod_pinned), envelope(pod_pinned, None, with_settings=True)):
            value = run("settings-validator", "validate", stdin).json()
            expect(value["response"] is None, value)
            expect(value["error"].startswith("settings are required: "), value)

    def settings_invalid():
        value = run("settings-validator", "validate", envelope(pod_pinned, {"requiredLabels": "team"})).json()
        expect(value["error"].startswith("invalid settings"), value)

    def settings_allow_labelled():
        inner = admission(run("settings-validator", "validate", envelope(pod_pinned, required)), pod_pinned)
        expect(inner["allowed"] is True, inner)

    def settings_reject_unlabelled():
        inner = admission(run("settings-validator", "validate", envelope(pod_latest, required)), pod_latest)
        expect(inner["allowed"] is False and inner["status"]["message"] == "missing required labels: team", inner)
        two = {"requiredLabels": ["team", "owner", "app"]}
        inner = admission(run("settings-validator", "validate", envelope(pod_latest, two)), pod_latest)
        expect(inner["status"]["message"] == "missing required labels: team, owner", inner)

    def jsonpatch(review, wanted_path):
        inner = admission(run("jsonpatch-mutator", "validate", envelope(review)), review)
        expect(len(inner.get("warnings", [])) == 1, inner)
        operations = decoded_patch(inner, "JSONPatch")
        expect([op["path"] for op in operations] == [wanted_path], operations)
        patched = apply_adds(review["request"]["object"], operations)
        expect(patched["metadata"]["labels"]["kadmit.dev/checked"] == "true", patched)
        return patched

    def jsonpatch_adds_to_labels():
        patched = jsonpatch(pod_pinned, "/metadata/labels/kadmit.dev~1checked")
        expect(patched["metadata"]["labels"]["team"] == "platform", "other labels kept")

    def jsonpatch_creates_labels():
        jsonpatch(deployment, "/metadata/labels")

    def jsonpatch_creates_metadata():
        review = copy.deepcopy(no_data)
        del review["request"]["object"]["metadata"]
        jsonpatch(review, "/metadata")

    def jsonpatch_already_checked():
        review = copy.deepcopy(pod_pinned)
        review["request"]["object"]["metadata"]["labels"]["kadmit.dev/checked"] = "true"
        inner = admission(run("jsonpatch-mutator", "validate", envelope(review)), review)
        expect("patch" not in inner and len(inner["warnings"]) == 1, inner)

    def unusable_input_is_an_error():
        for stdin in (b"not json", b'{"settings": {}}', b'{"request": {"kind": "AdmissionReview"}}'):
            value = run("magic-validator", "validate", stdin).json()
            expect(value["response"] is None and value["error"], value)

    for label, fn in [
        ("magic-validator rejects the spec's ConfigMap", validator_rejects),
        ("magic-validator allows other objects", validator_allows),
        ("magic-mutator answers the spec's Full patch", mutator_adds_magic_value),
        ("magic-mutator creates data", mutator_creates_data),
        ("magic-mutator leaves magic and non-ConfigMaps alone", mutator_leaves_alone),
        ("magic-mutator allows a DELETE (no object)", mutator_allows_delete),
        ("magic-mutator keeps escapes, unicode, numbers, nesting", mutator_keeps_any_json),
        ("magic-authenticator authenticates magic-token (spec output)", authenticates_magic_token),
        ("magic-authenticator refuses other tokens", refuses_other_token),
        ("magic-authorizer denies listing pods", denies_listing_pods),
        ("magic-authorizer allows getting a pod", allows_getting_a_pod),
        ("settings-validator without settings answers an error", settings_required),
        ("settings-validator with bad settings answers an error", settings_invalid),
        ("settings-validator allows a labelled object", settings_allow_labelled),
        ("settings-validator names the missing labels", settings_reject_unlabelled),
        ("jsonpatch-mutator adds to existing labels", jsonpatch_adds_to_labels),
        ("jsonpatch-mutator creates labels", jsonpatch_creates_labels),
        ("jsonpatch-mutator creates metadata", jsonpatch_creates_metadata),
        ("jsonpatch-mutator leaves a checked object alone", jsonpatch_already_checked),
        ("unusable input is answered with an error", unusable_input_is_an_error),
    ]:
        c.check("%s %s" % (tag, label), fn)


def kubewarden_checks(c, run, tag):
    """The Kubewarden WASI policy: `run(name, export, stdin, argv)`."""
    def policy(mode, stdin):
        return run("kubewarden-policy", "_start", stdin, ["policy.wasm", mode])

    def validate(review_name, settings):
        request = load("requests", review_name)["request"]
        outcome = policy("validate", json.dumps({"request": request, "settings": settings}).encode())
        expect(outcome.exit_code == 0 and outcome.trap is None, "exit %s trap %s" % (outcome.exit_code, outcome.trap))
        return outcome.json()

    def rejects_latest():
        for name in ("pod-latest", "deployment-latest"):
            value = validate(name, {})
            expect(value["accepted"] is False and value["code"] == 400 and "latest" in value["message"], value)
        value = validate("pod-latest", {})
        expect("nginx:latest" in value["message"] and "tools/sidecar" in value["message"], value)

    def accepts_pinned():
        expect(validate("pod-pinned", {}) == {"accepted": True}, "accepted without mutation")
        expect(validate("configmap-mutate", None) == {"accepted": True}, "other kinds accepted")

    def mutates_with_add_label():
        value = validate("pod-pinned", load("settings", "add-label"))
        expect(value["accepted"] is True and len(value["warnings"]) == 1, value)
        wanted = copy.deepcopy(load("requests", "pod-pinned")["request"]["object"])
        wanted["metadata"]["labels"]["kadmit.dev/policy"] = "checked"
        expect(value["mutated_object"] == wanted, value["mutated_object"])

    def validates_settings():
        good = load("settings", "add-label")
        for stdin, valid in ((good, True), ({}, True), ({"settings": good}, True),
                             ({"addLabel": {"key": ""}}, False), ({"other": 1}, False), ([1], False)):
            outcome = policy("validate-settings", json.dumps(stdin).encode())
            value = outcome.json()
            expect(outcome.exit_code == 0 and value["valid"] is valid, (stdin, value))
            expect(valid or value["message"], value)

    def usage_errors():
        outcome = run("kubewarden-policy", "_start", b"{}", ["policy.wasm"])
        expect(outcome.exit_code == 2 and outcome.stdout == "", "exit %s" % outcome.exit_code)
        outcome = policy("validate", b"garbage")
        expect(outcome.exit_code == 1 and outcome.stdout == "", "exit %s" % outcome.exit_code)

    for label, fn in [
        ("kubewarden-policy rejects latest / untagged images (400)", rejects_latest),
        ("kubewarden-policy accepts pinned images", accepts_pinned),
        ("kubewarden-policy addLabel answers mutated_object", mutates_with_add_label),
        ("kubewarden-policy validate-settings", validates_settings),
        ("kubewarden-policy usage errors exit non-zero", usage_errors),
    ]:
        c.check("%s %s" % (tag, label), fn)


def hostile_checks(c, wasm):
    review = load("requests", "configmap-not-allowed")
    stdin = envelope(review)

    def loop():
        outcome = wasm.run("hostile-loop", "validate", stdin)
        expect(outcome.trap and "fuel" in outcome.trap, outcome.trap)

    def memory():
        outcome = wasm.run("hostile-memory", "validate", stdin)
        expect(outcome.trap and "unreachable" in outcome.trap, outcome.trap)
        expect(outcome.memory_pages == MEMORY_LIMIT // 65536, "stopped at %s pages" % outcome.memory_pages)

    def trap():
        outcome = wasm.run("hostile-trap", "validate", stdin)
        expect(outcome.trap and "unreachable" in outcome.trap, outcome.trap)

    def garbage():
        outcome = wasm.run("hostile-garbage", "validate", stdin)
        expect(outcome.trap is None and outcome.stdout == "this is not json", outcome.stdout)

    def wrong_uid():
        response = answer(wasm.run("hostile-wrong-uid", "validate", stdin))
        expect(response["kind"] == "AdmissionReview" and response["response"] == {"uid": "wrong-uid", "allowed": True},
               response)

    def exits_3():
        outcome = wasm.run("hostile-exit", "validate", stdin)
        expect(outcome.exit_code == 3 and outcome.stdout == "", "exit %s" % outcome.exit_code)

    def no_validate():
        exports = wasm.exports("hostile-no-validate")
        expect("validate" not in exports and "authn" in exports, exports)
        response = answer(wasm.run("hostile-no-validate", "authn", envelope(load("requests", "tokenreview-other-token"))))
        expect(response["status"] == {"authenticated": False}, response)

    def probe_report(request_bytes, uid):
        response = answer(wasm.run("hostile-wasi-probe", "validate", request_bytes))
        inner = response["response"]
        expect(inner["uid"] == uid and inner["allowed"] is True, inner)
        return json.loads(inner["status"]["message"])

    def wasi_probe():
        report = probe_report(stdin, review["request"]["uid"])
        expect(report["args_sizes_get"] == {"errno": 0, "argc": 0, "bytes": 0}, report)
        expect(report["environ_sizes_get"] == {"errno": 0, "count": 0, "bytes": 0}, report)
        expect(report["fd_prestat_get"]["errno"] == 8, report)  # EBADF: nothing preopened
        expect(report["path_open"]["errno"] == 8, report)
        expect(report["clock_time_get"]["realtime"]["errno"] == 0, report)
        expect(report["random_get"]["errno"] == 0, report)
        print("     probe report: %s" % json.dumps(report))

    def wasi_probe_finds_the_request_uid():
        # uid after userInfo.uid and object.metadata.uid, pretty-printed.
        r = copy.deepcopy(review)
        inner = r["request"]
        uid = inner.pop("uid")
        inner["uid"] = uid
        text = json.dumps({"request": r}, indent=3).encode()
        expect(text.index(b'"uid": "' + uid.encode()) > text.index(b'"uid": "0"'), "uid comes last")
        probe_report(text, uid)
        r["request"]["object"]["data"]["big"] = "x" * 300_000  # more than the first page holds
        probe_report(json.dumps({"request": r}).encode(), uid)
        r["request"]["uid"] = 'quote"and\\backslash'
        probe_report(json.dumps({"request": r}).encode(), 'quote"and\\backslash')

    for label, fn in [
        ("hostile-loop is stopped by fuel", loop),
        ("hostile-memory grows to the limit, then traps", memory),
        ("hostile-trap traps", trap),
        ("hostile-garbage writes non-JSON", garbage),
        ("hostile-wrong-uid answers uid wrong-uid", wrong_uid),
        ("hostile-exit exits with 3", exits_3),
        ("hostile-no-validate exports authn only", no_validate),
        ("hostile-wasi-probe reports the sandbox", wasi_probe),
        ("hostile-wasi-probe copies the request uid", wasi_probe_finds_the_request_uid),
    ]:
        c.check("wasm %s" % label, fn)


def exec_checks(c):
    script = os.path.join(HERE, "exec", "deny-latest.py")

    def run(review_name):
        stdin = envelope(load("requests", review_name))
        done = subprocess.run([script, "validate"], input=stdin, capture_output=True, timeout=30)
        return Outcome(done.stdout.decode(), done.returncode)

    def rejects():
        for name in ("pod-latest", "deployment-latest"):
            review = load("requests", name)
            inner = admission(run(name), review)
            expect(inner["allowed"] is False and "latest" in inner["status"]["message"], inner)

    def allows():
        for name in ("pod-pinned", "configmap-mutate"):
            inner = admission(run(name), load("requests", name))
            expect(inner["allowed"] is True, inner)

    def usage():
        done = subprocess.run([script], input=b"{}", capture_output=True, timeout=30)
        expect(done.returncode == 2, "exit %s" % done.returncode)

    c.check("exec deny-latest.py rejects latest / untagged", rejects)
    c.check("exec deny-latest.py allows pinned and other kinds", allows)
    c.check("exec deny-latest.py without `validate` exits 2", usage)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wasm-dir", default=os.path.join(HERE, "wasm"))
    parser.add_argument("--no-native", action="store_true", help="skip the natively built Rust modules")
    args = parser.parse_args()

    c = Checks()
    wasm = WasmRunner(args.wasm_dir)
    k8s_wasi_checks(c, wasm.run, "wasm")
    kubewarden_checks(c, wasm.run, "wasm")
    hostile_checks(c, wasm)
    exec_checks(c)
    if not args.no_native:
        with tempfile.TemporaryDirectory() as tmp:
            programs = build_native(tmp)
            if programs is None:
                print("note: no rustc: the native builds are not checked")
            else:
                native = NativeRunner(programs)
                k8s_wasi_checks(c, native.run, "native")
                kubewarden_checks(c, native.run, "native")
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
