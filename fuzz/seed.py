#!/usr/bin/env python3
"""Fills fuzz/corpus/<target>/ with seed inputs taken from the repository.

    python3 fuzz/seed.py            # add seeds (files named by content hash; idempotent)
    python3 fuzz/seed.py --clean    # empty each corpus directory first

Sources (see docs/fuzzing.md):
  - YAML and JSON documents of examples/, testdata/, tests/ and the YAML held in string
    literals of the Rust tests (tests/*.rs, unit tests under src/ and crates/);
  - from those documents: ModRule `select` expressions and templated `value` /
    `rejectMessage` strings, Gatekeeper `location` paths, CRD `x-kubernetes-validations`
    rules;
  - string literals of the unit tests of the select language, the location parser, the Go
    template engine and the CEL library;
  - when present, the peer fixtures in ../shared/peer-fixtures (KubeMod JSONPath cases and
    ModRules, Gatekeeper path cases, apiextensions CEL expressions) and the reproducers
    in ../shared/findings;
  - a few hand-written inputs per target (below).

Each target's input format is the one its fuzz_targets/<target>.rs documents. Seeds larger
than MAX_SEED bytes are skipped and each target keeps at most MAX_PER_TARGET seeds (the
smallest first), so the committed corpus stays small.

Needs PyYAML (`pip install pyyaml`).
"""

import hashlib
import json
import os
import re
import shutil
import sys

try:
    import yaml
except ImportError:
    sys.exit("seed.py: PyYAML is needed (pip install pyyaml)")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
CORPUS = os.path.join(HERE, "corpus")
TARGETS = ["yaml_roundtrip", "kubemod_select", "gatekeeper_location", "gotmpl", "cel", "transform"]
MAX_SEED = 16 << 10
MAX_PER_TARGET = 400

seeds = {t: set() for t in TARGETS}


def add(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if 0 < len(data) <= MAX_SEED:
        seeds[target].add(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def files(top, exts):
    if not os.path.isdir(top):
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in ("target", ".git", "corpus", "artifacts"))
        for name in sorted(filenames):
            if name.endswith(exts):
                out.append(os.path.join(dirpath, name))
    return out


# --- Rust string literals ---------------------------------------------------------------

ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def rust_strings(source):
    """The string literals of a Rust source file ("...", r"...", r#"..."#, b"..."), unescaped."""
    out = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "r" and re.match(r'r#*"', source[i:]) and not (i > 0 and (source[i - 1].isalnum() or source[i - 1] == "_")):
            m = re.match(r'r(#*)"', source[i:])
            end = '"' + m.group(1)
            j = source.find(end, i + len(m.group(0)))
            if j < 0:
                break
            out.append(source[i + len(m.group(0)):j])
            i = j + len(end)
        elif c == '"':
            buf, j = [], i + 1
            while j < n and source[j] != '"':
                if source[j] == "\\" and j + 1 < n:
                    e = source[j + 1]
                    if e in ESCAPES:
                        buf.append(ESCAPES[e])
                        j += 2
                    elif e == "x":
                        buf.append(chr(int(source[j + 2:j + 4], 16)))
                        j += 4
                    elif e == "u":
                        k = source.find("}", j)
                        try:
                            buf.append(chr(int(source[j + 3:k], 16)))
                        except ValueError:
                            pass
                        j = k + 1
                    elif e == "\n":  # line continuation: skip the break and the indentation
                        j += 2
                        while j < n and source[j] in " \t\n\r":
                            j += 1
                    else:
                        buf.append(e)
                        j += 2
                else:
                    buf.append(source[j])
                    j += 1
            out.append("".join(buf))
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '"') or a lifetime ('a): skip it either way.
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", source[i:])
            i += len(m.group(0)) if m else 1
        else:
            i += 1
    return out


def literals(paths):
    out = []
    for path in paths:
        try:
            out.extend(rust_strings(read(path).decode("utf-8")))
        except (UnicodeDecodeError, ValueError):
            pass
    return out


# --- YAML documents and the strings inside them -----------------------------------------

documents = []  # parsed YAML documents, for the field extraction below


def load_all(text):
    try:
        return [d for d in yaml.safe_load_all(text) if d is not None]
    except Exception:
        return []


def walk(node, parent_key=None):
    """Yields (key, value, parent mapping) for every mapping entry of a document."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield k, v, node
            yield from walk(v, k)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item, parent_key)


def harvest(doc):
    for key, value, parent in walk(doc):
        if not isinstance(value, str):
            if key == "x-kubernetes-validations" and isinstance(value, list):
                for rule in value:
                    if isinstance(rule, dict):
                        for k in ("rule", "messageExpression"):
                            if isinstance(rule.get(k), str):
                                add("cel", rule[k])
            continue
        if key == "select":
            add("kubemod_select", b"\x00" + value.encode())
        elif key == "location":
            add("gatekeeper_location", value)
        elif key in ("value", "rejectMessage") and "{{" in value:
            add("gotmpl", value)
        elif key in ("rule", "messageExpression") and "x-kubernetes-validations" not in parent:
            add("cel", value)


def add_document_text(text, target="yaml_roundtrip"):
    add(target, text)
    for doc in load_all(text):
        documents.append(doc)
        harvest(doc)


# --- the transform target's input: HEAD NUL STREAM ----------------------------------------

STREAM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
  labels: {app: web}
data:
  a: "1"
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  labels: {app: web}
spec:
  containers:
  - name: nginx
    image: nginx:1.25
    args: ["--a"]
  - name: sidecar
    image: registry.io/team/envoy@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  annotations: {my-inject-annotation: "true"}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  externalIPs: [1.2.3.4]
  ports: [{port: 80}]
"""

# Template byte, then fields separated by 0x1F (see fuzz_targets/transform.rs).
HEADS = [
    (0, ["$.kind", "ConfigMap", "add", "/data/b", "2"]),
    (0, ["$.kind", "Deployment", "add", "/metadata/labels/name", "{{ .Target.metadata.name }}"]),
    (0, ["$.metadata.annotations['my-inject-annotation']", "true", "add",
         "/spec/template/spec/containers/-1", "name: agent\nimage: agent:1\n"]),
    (0, ["$.kind", "Pod", "replace", "/spec/containers/#0/image", "mirror/{{ .SelectedItem }}",
         "$.spec.containers[*].image"]),
    (0, ["$.kind", "Service", "remove", "/spec/externalIPs"]),
    (1, ["$.spec.externalIPs[*]", r"^1\.2\..*", "external IP {{ index .Target.spec.externalIPs 0 }}"]),
    (1, ["$.kind", "Pod", "pods in {{ .Namespace }} are refused"]),
    (2, ["spec.containers[name: *].imagePullPolicy", "Always"]),
    (2, ["spec.containers[name: nginx].securityContext", '{"runAsNonRoot": true}',
         '[{"subPath": "spec.containers[name: nginx]", "condition": "MustExist"}]']),
    (2, ["spec.externalIPs", "[]"]),
    (2, ['metadata.annotations."a.b/c"', "1"]),
    (3, ["metadata.labels.owner", "gatekeeper"]),
    (3, ["metadata.annotations.note", "x"]),
    (4, ["spec.containers[name: *].args", "merge", '["--b", "--a"]']),
    (4, ["spec.containers[name: nginx].args", "prune", '["--a"]']),
    (5, ["spec.containers[name: *].image", "registry.example.com"]),
    (5, ["spec.template.spec.containers[name: *].image", "", "library/nginx", ":v2"]),
]


def add_transform_seeds(locations):
    for which, fields in HEADS:
        add("transform", bytes([which]) + "\x1f".join(fields).encode() + b"\x00" + STREAM.encode())
    for location in sorted(locations)[:40]:
        add("transform", b"\x02" + location + b"\x1f" + b"x\x00" + STREAM.encode())
    add("transform", STREAM)


# --- hand-written seeds --------------------------------------------------------------------

CEL_RULES = [
    "self.n > 0",
    "self.s.startsWith('hello') && self.s.size() < 64",
    "self.list.all(x, x.size() <= 16)",
    "self.list.exists_one(x, x == 'b')",
    "self.set.map(x, x * 2).filter(x, x > 2).size() == 2",
    "self.entries.all(e, e.name.matches('^[a-z]+$'))",
    "has(self.labels.k) && self.labels['k'] == 'v'",
    "self.ts < timestamp('2030-01-01T00:00:00Z')",
    "self.dur > duration('1h')",
    "string(self.raw) == 'hello'",
    "type(self.ios) == string ? self.ios.endsWith('%') : self.ios > 0",
    "isQuantity(self.q) && quantity(self.q).isGreaterThan(quantity('1Mi'))",
    "self.f * 2.0 == 3.0 && self.i32 % 2 == 0",
    "self.nested.deep.x == 'y'",
    "url('https://example.com/a?b=c').getHost() == 'example.com'",
    "ip('10.0.0.1').family() == 4 && cidr('10.0.0.0/8').containsIP(ip('10.0.0.1'))",
    "self.s.split(' ').size() == 2 && self.s.lowerAscii().replace('l', 'L', 1) != ''",
    "[1, 2, 3].sum() == 6 && [3, 1].min() == 1 && [1, 2].isSorted()",
    "self.s.format([1]) != '' || true",
    "optional.of(self.s).orValue('') == self.s && self.?missing.orValue(1) == 1",
    "self.any.free.size() == 2",
    "self.defaulted == 'dflt'",
    "self.n == 9223372036854775807 && int(self.f) == 1 && uint(1) == 1u",
    "self.s\x00'message: ' + self.s",
    "self.list.size() > 5\x00self.list.join(',')",
    "matches(self.s, '(a|b)*c') || self.s.indexOf('w') >= 0",
    "base64.encode(b'abc') == 'YWJj'",
    "self.entries.map(e, e.v).exists(v, v < 0)",
]

SELECTS = [
    "$",
    "$.kind",
    "$.metadata.labels.app == 'web'",
    "$.spec.template.spec.containers[*].image",
    "$.spec.template.spec.containers[?(@.name == 'nginx')].image",
    "$..name",
    "$.spec.matrix[1][1][0]",
    "$.spec.replicas > 2 && $.spec.paused == false",
    "length($.spec.template.spec.containers) == 2",
    "$.metadata.annotations['my-inject-annotation']",
    "$.spec.template.spec.containers[0:2].name",
    "$.spec.template.spec.containers[-1:].name",
    "$.spec.huge * 2",
    "'x' =~ '^x$'",
    "$.metadata.labels[*]",
    "$.spec.big + 1",
]

TEMPLATES = [
    "{{ .Target.metadata.name }}",
    "{{ range $i, $p := .Target.spec.ports }}{{ $i }}={{ $p.port }} {{ end }}",
    "{{ if eq .Namespace \"my-namespace\" }}yes{{ else }}no{{ end }}",
    "{{ index .SelectKeyParts 2 }} {{ .SelectedItem.name | upper }}",
    "{{ toJson .Target.spec }} {{ .Target.spec.ratio | printf \"%.3f\" }}",
    "{{ define \"t\" }}[{{ . }}]{{ end }}{{ template \"t\" .Namespace }}",
    "{{- with .Target.metadata.labels -}}{{ .app }}{{- end -}}",
    "{{ $x := dict \"a\" 1 }}{{ $_ := set $x \"b\" 2 }}{{ keys $x | join \",\" }}",
    "{{ regexReplaceAll \"[0-9]+\" .Target.metadata.labels.version \"N\" }}",
    "{{ semverCompare \">=1.2\" .Target.metadata.labels.version }}",
    "{{ b64enc .Namespace | b64dec | sha256sum | trunc 8 }}",
    "{{ range until 3 }}{{ . }}{{ end }}{{ len .Target.spec.externalIPs }}",
    "{{ .Target.spec.replicas | int | add 1 }} {{ div 7 2 }} {{ mod 7 2 }}",
    "{{ default \"d\" .Target.spec.nothing }} {{ empty .Target.spec.list }}",
    "{{/* comment */}}{{ \"a\" | quote | squote }}",
]

LOCATIONS = [
    "spec.containers[name: *].image",
    "spec.containers[name: nginx].securityContext.runAsNonRoot",
    'metadata.annotations."a.b/c"',
    "spec.list[key: 007]",
    "spec['quoted key': 'v'].x",
    "a.b.c.d.e.f",
    "spec.containers[name: \"x\\\"y\"]",
]

YAML_EDGES = [
    "a: 5°C\nb: 1–2\n",
    "? |\n  block key\n: &a [1, *a]\n",
    "a: !!binary aGVsbG8=\nb: !!str 1\nc: 0x1F\nd: 0o17\ne: .inf\nf: -.Inf\ng: .nan\nh: 1_000\n",
    "a: yes\nb: No\nc: ~\nd: 2001-12-14t21:59:43.10-05:00\ne: 1e3\nf: +12\n",
    "- [a, {b: c}]\n- {d: [e]}\n- 'it''s'\n- \"\\u00e9\\x41\\t\"\n",
    "anchors:\n  base: &base {a: 1}\n  derived:\n    <<: *base\n    b: 2\n",
    "text: |+\n  keep\n\n...\n---\nfolded: >-\n  a\n  b\n",
    '{"apiVersion": "v1", "kind": "List", "items": [{"a": 1.0}, {"b": -0.0}, {"c": 1e400}]}',
    '{"a": 1}\n{"b": [true, null]}\n',
    "'... x': 1\n'--- y': 2\n",
    "%YAML 1.1\n---\na: b\n",
]


def main():
    if "--clean" in sys.argv:
        for t in TARGETS:
            shutil.rmtree(os.path.join(CORPUS, t), ignore_errors=True)

    # YAML and JSON files of the repository.
    for top in ("examples", "testdata", "tests"):
        for path in files(os.path.join(ROOT, top), (".yaml", ".yml", ".json")):
            add_document_text(read(path).decode("utf-8", "replace"))

    # YAML in the Rust tests' string literals.
    rust_tests = files(os.path.join(ROOT, "tests"), (".rs",))
    rust_units = files(os.path.join(ROOT, "src"), (".rs",)) + files(os.path.join(ROOT, "crates"), (".rs",))
    for text in literals(rust_tests + rust_units):
        if "\n" in text and ":" in text and ("apiVersion" in text or text.startswith(("{", "-", "a:"))):
            add_document_text(text)
        for m in re.finditer(r"(?m)^\s*- rule: (.+)$", text):
            add("cel", m.group(1).strip().strip("'\""))

    # Unit-test literals of each parser.
    for text in literals(files(os.path.join(ROOT, "src/engines/kubemod/select"), (".rs",))):
        if text and len(text) < 300 and ("$" in text or "@" in text):
            add("kubemod_select", b"\x00" + text.encode())
    for text in literals(files(os.path.join(ROOT, "src/engines/gatekeeper/path"), (".rs",))):
        if text and len(text) < 300 and "\n" not in text and " " not in text.strip()[:1]:
            add("gatekeeper_location", text)
    for text in literals(files(os.path.join(ROOT, "crates/gotmpl/src"), (".rs",))):
        if "{{" in text:
            add("gotmpl", text)
    cel_sources = files(os.path.join(ROOT, "crates/schema/src/cel"), (".rs",)) + rust_tests
    for text in literals(cel_sources):
        if "self" in text and "\n" not in text and len(text) < 400 and not text.startswith(("{", "spec")):
            add("cel", text)

    # Peer fixtures and findings, when checked out beside the repository.
    fixtures = os.path.join(SHARED, "peer-fixtures")
    if os.path.isdir(fixtures):
        jsonpath = os.path.join(fixtures, "kubemod/jsonpath-cases.yaml")
        if os.path.exists(jsonpath):
            for case in yaml.safe_load(read(jsonpath))["cases"]:
                byte = b"\x02" if case.get("language") == "jsonpath+placeholders" else b"\x01"
                add("kubemod_select", byte + str(case["expression"]).encode())
                add("kubemod_select", b"\x00" + str(case["expression"]).encode())
        for path in files(os.path.join(fixtures, "kubemod/core/testdata/modrules"), (".yaml",)):
            for doc in load_all(read(path).decode()):
                harvest(doc)
        cases = os.path.join(fixtures, "gatekeeper/cases.yaml")
        if os.path.exists(cases):
            for doc in load_all(read(cases).decode()):
                for key, value, parent in walk(doc):
                    if key == "input" and parent.get("kind") == "path-parse" and isinstance(value, str):
                        add("gatekeeper_location", value)
                    elif key == "location" and isinstance(value, str):
                        add("gatekeeper_location", value)
        cel = os.path.join(fixtures, "apiextensions/cel_expressions.yaml")
        if os.path.exists(cel):
            for group in yaml.safe_load(read(cel))["groups"]:
                for expression in group.get("valid") or []:
                    add("cel", str(expression))
                for entry in group.get("errors") or []:
                    add("cel", str(entry.get("expression", "")))
        for path in files(os.path.join(fixtures, "apiextensions"), ("cases.yaml",)):
            for doc in load_all(read(path).decode()):
                harvest(doc)
    else:
        print(f"seed.py: {fixtures} not found: peer-fixture seeds skipped", file=sys.stderr)
    findings = os.path.join(SHARED, "findings")
    for path in files(findings, (".yaml", ".bin", ".json")):
        data = read(path)
        if len(data) <= 4096:
            add("yaml_roundtrip", data)

    for text in YAML_EDGES:
        add("yaml_roundtrip", text)
    for rule in CEL_RULES:
        add("cel", rule)
    for select in SELECTS:
        for byte in (b"\x00", b"\x01"):
            add("kubemod_select", byte + select.encode())
    for template in TEMPLATES:
        add("gotmpl", template)
    for location in LOCATIONS:
        add("gatekeeper_location", location)

    # The transform target: whole example streams (rules and resources together) ...
    for group in (
        ["examples/basic/resources.yaml"],
        ["examples/kubemod/modrules", "examples/kubemod/workloads.yaml"],
        ["examples/kubemod/modrules/reject-external-ips.yaml", "examples/kubemod/rejected/service.yaml"],
        ["examples/gatekeeper/mutators", "examples/gatekeeper/workloads.yaml"],
        ["examples/crd/crd.yaml", "examples/crd/valid"],
        ["examples/crd/crd.yaml", "examples/crd/invalid"],
    ):
        parts = []
        for rel in group:
            path = os.path.join(ROOT, rel)
            for p in files(path, (".yaml",)) if os.path.isdir(path) else [path]:
                parts.append(read(p).decode().strip("\n"))
        add("transform", "\n---\n".join(parts) + "\n")
    # ... and the rule templates with the harvested locations.
    add_transform_seeds({s for s in seeds["gatekeeper_location"] if len(s) < 100})

    total = 0
    for target in TARGETS:
        directory = os.path.join(CORPUS, target)
        os.makedirs(directory, exist_ok=True)
        chosen = sorted(seeds[target], key=lambda d: (len(d), d))[:MAX_PER_TARGET]
        for data in chosen:
            name = hashlib.sha1(data).hexdigest()
            with open(os.path.join(directory, name), "wb") as f:
                f.write(data)
        size = sum(len(d) for d in chosen)
        total += size
        print(f"{target}: {len(chosen)} seeds, {size} bytes")
    print(f"total: {total} bytes")


if __name__ == "__main__":
    main()
