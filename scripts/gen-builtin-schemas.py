#!/usr/bin/env python3
"""Generates crates/schema/builtin/schemas.json: the OpenAPI schemas of the Kubernetes
built-in kinds, 1.30-1.35, as kadmit's `kadmit_schema::builtin` embeds them.

Input: the upstream OpenAPI v3 documents (one per group-version, as kube-apiserver serves
/openapi/v3), default /work/shared/kubernetes-openapi/<1.NN>/{api/v1.json,apis/<g>/<v>.json}.

Kept: what the engines read (types, formats, properties, required, items,
additionalProperties, enum, default, nullable, oneOf, the x-kubernetes-* list/map/patch
extensions). Dropped: descriptions, examples, x-kubernetes-group-version-kind (moved to the
per-version kind index), x-kubernetes-unions (informational).

The kubectl-validate schema patches (pkg/validator/schema_patcher.go) are applied, as the
README of the input lists them, because the raw documents have holes a validator trips on:
  1. AllowEmptyByteFormat: {type: string, format: byte} -> no format +
     allOf: [{anyOf: [{format: byte}, {maxLength: 0}]}] (native types accept "").
  2. AnnotateNullable: RawExtension, Time, MicroTime, Duration, Quantity and the
     apiextensions JSON* wrappers get nullable: true (their Go UnmarshalJSON accepts null).
  3. IntOrStringDefinition: IntOrString becomes {x-kubernetes-int-or-string: true}.
  4. RemoveInvalidDefaults: `default: {}` on a field referring to one of those is removed.
Not applied: kubectl-validate's `patches/1.23` (Container.required image, the ContainerPort
protocol enum): the real server reports those from Go validation (kadmit-native).

References: `{"$ref": "<definition name>"}` (the `#/components/schemas/` prefix dropped); a
single-element `allOf: [{$ref}]` wrapper becomes that `$ref` with the wrapper's other keys
beside it (they override the target's, as kube-openapi inlining does).

Output layout (JSON, one definition per line so that a regeneration diffs readably;
uncompressed: ~440 KB for the six versions, small enough to embed as it is):
  {"generator": ..., "definitions": [[name, body], ...],   unique (name, body) pairs
   "versions": {"30": {"definitions": [i, ...],             indexes into definitions
                       "kinds": [[group, version, kind, definition, namespaced], ...]}}}
`kinds` are the resources each group-version serves (from `paths`, subresources and
connect options left out); namespaced when one of their paths has `{namespace}`.

DETERMINISTIC: same input, same bytes (sorted keys, sorted lists); the
checked-in file is exactly what this script writes. Python 3 standard library only.

Usage: scripts/gen-builtin-schemas.py [--input DIR] [--output FILE]
"""

import argparse
import copy
import json
import os
import sys

VERSIONS = ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35"]
REF_PREFIX = "#/components/schemas/"

INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
NULLABLE = {
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Duration",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
    "io.k8s.apimachinery.pkg.api.resource.Quantity",
}

# Keys a schema node keeps; anything else (description, example, title, externalDocs,
# x-kubernetes-group-version-kind, x-kubernetes-unions, ...) is dropped.
KEEP = {
    "type",
    "format",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "enum",
    "default",
    "nullable",
    "oneOf",
    "anyOf",
    "allOf",
    "$ref",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-patch-strategy",
}


def builtin_group(group):
    """The groups kubectl-validate's AllowEmptyByteFormat applies to."""
    return group in ("", "core", "apps", "autoscaling", "batch", "policy") or group.endswith(
        ".k8s.io"
    )


def strip(node, byte_patch):
    """The node with only the kept keys, references shortened and patches 1 and 4 applied."""
    if isinstance(node, list):
        return [strip(n, byte_patch) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key not in KEEP:
            continue
        if key == "properties":
            out[key] = {name: strip(p, byte_patch) for name, p in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = strip(value, byte_patch)
        elif key in ("oneOf", "anyOf", "allOf"):
            out[key] = [strip(n, byte_patch) for n in value]
        elif key == "$ref":
            assert value.startswith(REF_PREFIX), value
            out[key] = value[len(REF_PREFIX):]
        else:
            out[key] = copy.deepcopy(value)
    # allOf: [{$ref}] is OpenAPI 3's way to put keys beside a $ref: fold it back.
    all_of = out.get("allOf")
    if all_of and len(all_of) == 1 and set(all_of[0]) == {"$ref"} and "$ref" not in out:
        del out["allOf"]
        out["$ref"] = all_of[0]["$ref"]
    # Patch 4: `{}` is no value of a custom-marshalled scalar.
    if out.get("$ref") in NULLABLE | {INT_OR_STRING} and out.get("default") == {}:
        del out["default"]
    # Patch 1.
    if byte_patch and out.get("type") == "string" and out.get("format") == "byte":
        del out["format"]
        out["allOf"] = [{"anyOf": [{"format": "byte"}, {"maxLength": 0}]}]
    return out


def patch_definition(name, body):
    """Patches 2 and 3, which replace or annotate whole definitions."""
    if name == INT_OR_STRING:
        return {"x-kubernetes-int-or-string": True}
    if name in NULLABLE:
        body = dict(body)
        body["nullable"] = True
    return body


def document_paths(root):
    """(group, version, path) of every document of one Kubernetes version, sorted."""
    out = [("", "v1", os.path.join(root, "api", "v1.json"))]
    apis = os.path.join(root, "apis")
    for group in sorted(os.listdir(apis)):
        for file in sorted(os.listdir(os.path.join(apis, group))):
            if file.endswith(".json"):
                out.append((group, file[: -len(".json")], os.path.join(apis, group, file)))
    return out


def kinds_of(doc, group, version):
    """{kind: namespaced} for the resources the document's group-version serves."""
    kinds = {}
    for path, item in doc.get("paths", {}).items():
        for method, op in item.items():
            if not isinstance(op, dict):
                continue
            gvk = op.get("x-kubernetes-group-version-kind")
            if not gvk or op.get("x-kubernetes-action") == "connect":
                continue
            # A subresource of another group (deployments/scale is autoscaling/v1 Scale,
            # pods/eviction policy/v1 Eviction) is not a resource of that group.
            if gvk["group"] != group or gvk["version"] != version:
                continue
            namespaced = "{namespace}" in path
            kinds[gvk["kind"]] = kinds.get(gvk["kind"], False) or namespaced
    return kinds


def definition_of_kind(schemas, group, version, kind):
    for name in sorted(schemas):
        for gvk in schemas[name].get("x-kubernetes-group-version-kind", []):
            if (gvk["group"], gvk["version"], gvk["kind"]) == (group, version, kind):
                return name
    return None


def load_version(root):
    """({definition name: stripped body}, [[group, version, kind, definition, namespaced]])."""
    definitions = {}
    kinds = []
    for group, version, path in document_paths(root):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        schemas = doc["components"]["schemas"]
        byte_patch = builtin_group(group)
        for name in sorted(schemas):
            body = patch_definition(name, strip(schemas[name], byte_patch))
            previous = definitions.get(name)
            if previous is not None and previous != body:
                sys.exit(f"{path}: {name} differs from an earlier document's")
            definitions[name] = body
        for kind, namespaced in sorted(kinds_of(doc, group, version).items()):
            name = definition_of_kind(schemas, group, version, kind)
            if name is None:
                sys.exit(f"{path}: no definition for {group}/{version} {kind}")
            kinds.append([group, version, kind, name, namespaced])
    return definitions, sorted(kinds)


def generate(input_dir):
    unique = {}  # (name, canonical body) -> index, in first-seen order
    entries = []
    versions = {}
    for ver in VERSIONS:
        definitions, kinds = load_version(os.path.join(input_dir, ver))
        indexes = []
        for name in sorted(definitions):
            key = (name, json.dumps(definitions[name], sort_keys=True))
            if key not in unique:
                unique[key] = len(entries)
                entries.append([name, definitions[name]])
            indexes.append(unique[key])
        versions[ver.split(".")[1]] = {"definitions": indexes, "kinds": kinds}
    return {
        "generator": "scripts/gen-builtin-schemas.py (deterministic; do not edit by hand)",
        "definitions": entries,
        "versions": versions,
    }


def compact(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def render(data):
    """The JSON text: the header, one definition per line, one version per line."""
    lines = ["{", f'"generator":{compact(data["generator"])},', '"definitions":[']
    definitions = data["definitions"]
    for i, entry in enumerate(definitions):
        lines.append(compact(entry) + ("," if i + 1 < len(definitions) else ""))
    lines.append('],"versions":{')
    versions = sorted(data["versions"].items())
    for i, (minor, index) in enumerate(versions):
        comma = "," if i + 1 < len(versions) else ""
        lines.append(f"{compact(minor)}:{compact(index)}{comma}")
    lines.append("}}")
    return ("\n".join(lines) + "\n").encode()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", default="/work/shared/kubernetes-openapi")
    parser.add_argument(
        "--output",
        default=os.path.join(here, "..", "crates", "schema", "builtin", "schemas.json"),
    )
    args = parser.parse_args()
    data = generate(args.input)
    text = render(data)
    assert json.loads(text) == data
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "wb") as f:
        f.write(text)
    print(
        f"{len(data['definitions'])} unique definitions, {len(text)} bytes "
        f"-> {os.path.normpath(args.output)}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
