#!/usr/bin/env python3
"""Write a deterministic CRD set of about 4 MB for scripts/bench.sh (figure 3 of issue 20:
what a run pays for CRDs whose kinds its stream does not hold). It stands in for the
Prometheus operator's ten CRDs (4.4 MB): each CRD serves three versions, each version a big
openAPIV3Schema tree (nested objects, arrays, maps, enums, patterns, bounds, long
descriptions) with x-kubernetes-validations CEL rules at several levels. The same
arguments always produce the same bytes.

    python3 scripts/gen-bench-crds.py --out DIR [--crds 10] [--kb 420] [--examples > kinds.yaml]

Writes DIR/<plural>.<group>.yaml, one CRD each; with --examples, prints one valid resource
of each kind (a YAML stream) on stdout.

Python 3 standard library only.
"""

import argparse
import json
import os
import random

GROUP = "crdset.bench.example.com"
KINDS = ["Alertmanager", "PodMonitor", "Probe", "Prometheus", "PrometheusRule", "ServiceMonitor",
         "ThanosRuler", "AlertmanagerConfig", "PrometheusAgent", "ScrapeConfig", "Receiver", "Silence"]
VERSIONS = ["v1", "v1beta1", "v1alpha1"]
WORDS = ("the of a to is for and when this field which be in not if set by it as are with default "
         "value must an pod container selector label namespace endpoint scrape interval timeout "
         "relabel configuration secret key reference tls authorization bearer token metric sample "
         "limit target port path scheme storage retention replica shard volume resource").split()


def description(r):
    return " ".join(r.choice(WORDS) for _ in range(r.randint(12, 40))).capitalize() + "."


def name(r, taken):
    while True:
        n = r.choice(WORDS) + r.choice(WORDS).capitalize() + str(r.randrange(100))
        if n not in taken:
            taken.add(n)
            return n


def scalar(r):
    kind = r.randrange(5)
    s = {"description": description(r)}
    if kind == 0:
        s.update(type="string", maxLength=253, pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
        if r.random() < 0.3:
            s["x-kubernetes-validations"] = [{"rule": "!self.startsWith('-')", "message": "must not start with -"}]
    elif kind == 1:
        s.update(type="string", enum=["Always", "Never", "IfNotPresent"], default="Always")
    elif kind == 2:
        s.update(type="integer", format="int32", minimum=0, maximum=65535)
    elif kind == 3:
        s.update(type="boolean")
    else:
        s.update(type="string", format="duration")
    return s


def obj(r, depth, budget):
    """An object schema of about `budget` bytes."""
    taken = set()
    props = {}
    used = 0
    while used < budget:
        n = name(r, taken)
        roll = r.random()
        if depth < 4 and roll < 0.25:
            child = obj(r, depth + 1, min(budget - used, r.randint(2000, 20000)))
        elif depth < 4 and roll < 0.35:
            child = {"type": "array", "description": description(r), "maxItems": 64,
                     "items": obj(r, depth + 1, min(budget - used, r.randint(1000, 8000)))}
        elif roll < 0.42:
            child = {"type": "object", "description": description(r), "maxProperties": 64,
                     "additionalProperties": {"type": "string", "maxLength": 1024}}
        else:
            child = scalar(r)
        props[n] = child
        used += len(json.dumps(child))
    s = {"type": "object", "description": description(r), "properties": props}
    ints = [k for k, v in props.items() if v.get("type") == "integer"]
    if ints:
        s["x-kubernetes-validations"] = [
            {"rule": f"!has(self.{ints[0]}) || self.{ints[0]} >= 0", "message": f"{ints[0]} is not negative"}]
    return s


def key(k):
    return k if k.replace("-", "").replace("_", "").isalnum() else json.dumps(k)


def emit(out, v, pad):
    """Block YAML, scalars as JSON (valid YAML) so that strings stay strings."""
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                out.append(f"{pad}{key(k)}:\n")
                emit(out, x, pad + ("  " if isinstance(x, dict) else ""))
            else:
                out.append(f"{pad}{key(k)}: {json.dumps(x)}\n")
    else:
        for x in v:
            if isinstance(x, dict) and x:
                sub = []
                emit(sub, x, pad + "  ")
                sub[0] = pad + "- " + sub[0][len(pad) + 2:]
                out.extend(sub)
            else:
                out.append(f"{pad}- {json.dumps(x)}\n")


def crd(index, kb, seed):
    kind = KINDS[index]
    plural = kind.lower() + "s"
    versions = []
    for vi, version in enumerate(VERSIONS):
        r = random.Random(f"{seed}/{kind}/{version}")
        # The YAML is about 1.5 times the JSON size the budget counts.
        spec = obj(r, 1, kb * 1000 * 2 // 3 // len(VERSIONS))
        versions.append({
            "name": version, "served": True, "storage": vi == 0,
            "schema": {"openAPIV3Schema": {
                "type": "object", "description": description(r),
                "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                    "spec": spec,
                    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                }}},
            "subresources": {"status": {}},
        })
    doc = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"{plural}.{GROUP}"},
           "spec": {"group": GROUP, "scope": "Namespaced",
                    "names": {"kind": kind, "listKind": kind + "List", "plural": plural,
                              "singular": kind.lower()},
                    "versions": versions}}
    return plural, doc


def example(doc):
    """A valid resource of the CRD's storage version: its top-level scalar fields set."""
    version = doc["spec"]["versions"][0]
    spec = {}
    for k, s in version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].items():
        t = s.get("type")
        if t == "string" and "enum" in s:
            spec[k] = s["enum"][-1]
        elif t == "string" and s.get("format") == "duration":
            spec[k] = "30s"
        elif t == "string":
            spec[k] = "value-1"
        elif t == "integer":
            spec[k] = 8080
        elif t == "boolean":
            spec[k] = True
    kind = doc["spec"]["names"]["kind"]
    return {"apiVersion": f"{GROUP}/{version['name']}", "kind": kind,
            "metadata": {"name": f"example-{kind.lower()}", "namespace": "monitoring"}, "spec": spec}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="directory to write the CRDs into")
    p.add_argument("--crds", type=int, default=10, help=f"how many CRDs (at most {len(KINDS)}; default 10)")
    p.add_argument("--kb", type=int, default=420, help="approximate size of each CRD in KB (default 420)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--examples", action="store_true", help="print one resource of each kind on stdout")
    a = p.parse_args()
    if not 1 <= a.crds <= len(KINDS) or a.kb < 1:
        p.error(f"--crds must be 1 to {len(KINDS)} and --kb positive")
    os.makedirs(a.out, exist_ok=True)
    examples = []
    for i in range(a.crds):
        plural, doc = crd(i, a.kb, a.seed)
        out = []
        emit(out, doc, "")
        with open(os.path.join(a.out, f"{plural}.{GROUP}.yaml"), "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(out))
        examples.append(example(doc))
    if a.examples:
        for ex in examples:
            out = ["---\n"]
            emit(out, ex, "")
            print("".join(out), end="")


if __name__ == "__main__":
    main()
