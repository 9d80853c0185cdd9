#!/usr/bin/env python3
"""Generate a deterministic set of large CustomResourceDefinitions for kadmit benchmarks.

Stands in for an operator's CRD bundle (the Prometheus operator's ten CRDs are 4.4 MB):
each CRD has several served versions, each with a big openAPIV3Schema tree (nested
objects, arrays with list types, maps, enums, patterns, formats, long descriptions) and
x-kubernetes-validations CEL rules at several levels. Every CRD is valid as the API server
checks it on create (structural, CEL rules that compile within the cost budget), so kadmit
accepts the set. The same arguments always produce the same bytes.

    python3 scripts/gen-crd-set.py --out DIR                      # ~4 MB: 10 CRDs
    python3 scripts/gen-crd-set.py --out DIR --crds 2 --kb 20     # small, for tests
    python3 scripts/gen-crd-set.py --out DIR --broken 3           # CRD 3 has an invalid schema

Writes DIR/<plural>.<group>.yaml per CRD, and prints one example resource of each kind
(a YAML stream) to stdout with --examples.

Python 3 standard library only.
"""

import argparse
import json
import os
import random

GROUP = "bench.kadmit.dev"
KINDS = ["Alertmanager", "PodMonitor", "Probe", "Prometheus", "PrometheusRule",
         "ServiceMonitor", "ThanosRuler", "AlertmanagerConfig", "PrometheusAgent",
         "ScrapeConfig", "Receiver", "Silence", "Route", "Recorder", "Federation",
         "Exporter"]
WORDS = ("the of a to is for and when this field which be in not if set by it as are "
         "with default value must an pod container selector label namespace endpoint "
         "scrape interval timeout relabel configuration secret key reference tls "
         "authorization bearer token metric sample limit target port path scheme "
         "storage retention replica shard volume resource request policy").split()
VERSIONS = ["v1", "v1beta1", "v1alpha1"]


def description(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def field_name(rng, taken):
    while True:
        name = rng.choice(WORDS) + rng.choice(WORDS).capitalize() + str(rng.randrange(100))
        if name not in taken:
            taken.add(name)
            return name


def scalar_schema(rng, desc_words):
    choice = rng.randrange(6)
    out = {"description": description(rng, desc_words)}
    if choice == 0:
        out.update(type="string", maxLength=253, pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    elif choice == 1:
        out.update(type="string", enum=["Always", "Never", "IfNotPresent"], default="Always")
    elif choice == 2:
        out.update(type="integer", format="int32", minimum=0, maximum=65535)
    elif choice == 3:
        out.update(type="boolean")
    elif choice == 4:
        out.update(type="string", format="duration", maxLength=64)
    else:
        out.update({"x-kubernetes-int-or-string": True,
                    "anyOf": [{"type": "integer"}, {"type": "string"}]})
    return out


def object_schema(rng, depth, breadth, desc_words):
    """An object with scalar fields, nested objects, a map-list and a string map."""
    taken = set()
    props = {}
    ints = []
    for _ in range(breadth):
        name = field_name(rng, taken)
        props[name] = scalar_schema(rng, desc_words)
        if props[name].get("type") == "integer":
            ints.append(name)
    if depth > 0:
        for _ in range(max(1, breadth // 3)):
            props[field_name(rng, taken)] = object_schema(rng, depth - 1, breadth, desc_words)
        item = object_schema(rng, depth - 1, breadth, desc_words)
        item["properties"]["name"] = {"type": "string", "maxLength": 63,
                                      "description": description(rng, desc_words)}
        item["required"] = ["name"]
        props[field_name(rng, taken)] = {
            "type": "array", "maxItems": 16, "description": description(rng, desc_words),
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": item,
        }
    props[field_name(rng, taken)] = {
        "type": "object", "maxProperties": 32, "description": description(rng, desc_words),
        "additionalProperties": {"type": "string", "maxLength": 256},
    }
    out = {"type": "object", "description": description(rng, desc_words), "properties": props}
    rules = []
    if len(ints) >= 2:
        a, b = ints[0], ints[1]
        rules.append({"rule": f"!has(self.{a}) || !has(self.{b}) || self.{a} <= self.{b}",
                      "message": f"{a} must not exceed {b}"})
    if ints:
        rules.append({"rule": f"!has(self.{ints[0]}) || self.{ints[0]} % 2 == 0",
                      "messageExpression": f"'{ints[0]} must be even, not ' + string(self.{ints[0]})"})
    if rules:
        out["x-kubernetes-validations"] = rules
    return out


def crd(rng, kind, size_kb, broken):
    plural = kind.lower() + "s"
    versions = []
    # Grow the tree until one version's schema reaches its share of the size (its block
    # YAML, indented, is about twice its compact JSON).
    per_version = size_kb * 1024 // len(VERSIONS) // 2
    for i, name in enumerate(VERSIONS):
        breadth, depth = 4, 1
        while True:
            state = rng.getstate()
            spec = object_schema(rng, depth, breadth, 12)
            if len(json.dumps(spec)) >= per_version or depth >= 4:
                break
            rng.setstate(state)
            if breadth < 12:
                breadth += 1
            else:
                depth += 1
                breadth = 4
        schema = {
            "type": "object",
            "description": description(rng, 30),
            "properties": {
                "apiVersion": {"type": "string", "description": description(rng, 20)},
                "kind": {"type": "string", "description": description(rng, 20)},
                "metadata": {"type": "object"},
                "spec": spec,
                "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
            "required": ["spec"],
        }
        # A defaulted field at the top of spec: a resource of any kind shows its CRD ran.
        spec["properties"]["pullPolicy"] = {
            "type": "string", "enum": ["Always", "Never", "IfNotPresent"],
            "default": "Always", "description": description(rng, 12)}
        if broken:
            # Not structural: a type the API server refuses on create.
            spec["properties"]["brokenField"] = {"type": "strnig"}
        versions.append({
            "name": name, "served": True, "storage": i == 0,
            "deprecated": i == len(VERSIONS) - 1,
            "schema": {"openAPIV3Schema": schema},
            "subresources": {"status": {}},
            "additionalPrinterColumns": [
                {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
        })
    return plural, {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}",
                     "annotations": {"controller-gen.kubebuilder.io/version": "v0.16.0"}},
        "spec": {
            "group": GROUP,
            "names": {"kind": kind, "listKind": kind + "List", "plural": plural,
                      "singular": kind.lower(), "categories": ["bench"]},
            "scope": "Namespaced",
            "versions": versions,
        },
    }


def emit(value, indent, out):
    """Block-style YAML; scalars as JSON (a JSON string is a YAML double-quoted scalar)."""
    pad = " " * indent
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                out.append(f"{pad}{key}:")
                emit(item, indent + 2, out)
            else:
                out.append(f"{pad}{key}: {json.dumps(item)}")
    else:
        for item in value:
            if isinstance(item, (dict, list)) and item:
                lines = []
                emit(item, indent + 2, lines)
                lines[0] = pad + "- " + lines[0][indent + 2:]
                out.extend(lines)
            else:
                out.append(f"{pad}- {json.dumps(item)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory to write the CRDs into")
    parser.add_argument("--crds", type=int, default=10, help="how many CRDs (at most 16)")
    parser.add_argument("--kb", type=int, default=420, help="approximate size of each CRD")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--broken", type=int, default=0,
                        help="1-based index of a CRD to give an invalid schema (0: none)")
    parser.add_argument("--examples", action="store_true",
                        help="print one resource of each kind to stdout")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    for index, kind in enumerate(KINDS[:args.crds], start=1):
        plural, document = crd(rng, kind, args.kb, index == args.broken)
        lines = []
        emit(document, 0, lines)
        with open(os.path.join(args.out, f"{plural}.{GROUP}.yaml"), "w") as f:
            f.write("---\n" + "\n".join(lines) + "\n")
        if args.examples:
            print(f"---\napiVersion: {GROUP}/v1\nkind: {kind}\nmetadata:\n"
                  f"  name: example\n  namespace: default\nspec: {{}}")


if __name__ == "__main__":
    main()
