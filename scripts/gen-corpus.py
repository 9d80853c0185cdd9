#!/usr/bin/env python3
"""Generate a deterministic corpus of Kubernetes resources for kadmit benchmarks.

Writes a multi-document YAML stream of N resources (Deployments, Services, ConfigMaps,
StatefulSets; roughly 0.5-2 KB each) spread over many namespaces. The same --seed always
produces the same bytes.

    python3 scripts/gen-corpus.py --count 10000 --seed 1 > corpus.yaml
    python3 scripts/gen-corpus.py --count 10000 --seed 1 --kustomization DIR

With --kustomization, the stream is written to DIR/corpus.yaml next to a
DIR/kustomization.yaml that lists it, so `kubectl kustomize DIR` reads the same data.

Python 3 standard library only.
"""

import argparse
import os
import random
import re
import sys

# Scalars a YAML 1.1 or 1.2 reader would not read as a plain string.
_SPECIAL = {
    "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
    "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
    "y", "Y", "n", "N", "<<", "=",
}
_PLAIN = re.compile(r"^[A-Za-z_/][A-Za-z0-9_./-]*$")

TEAMS = ["payments", "search", "identity", "billing", "catalog", "checkout", "platform",
         "data", "ml", "edge", "notify", "media", "growth", "infra", "support", "risk"]
ENVS = ["dev", "staging", "prod", "qa"]
COMPONENTS = ["api", "worker", "web", "gateway", "cache", "indexer", "scheduler",
              "consumer", "exporter", "sync", "auth", "proxy", "frontend", "backend"]
IMAGES = ["nginx", "redis", "postgres", "envoyproxy/envoy", "busybox", "python",
          "golang", "node", "openjdk", "memcached", "rabbitmq", "grafana/grafana"]
REGISTRIES = ["registry.example.com", "ghcr.io/example", "docker.io/library",
              "eu.gcr.io/example-prod", "123456789012.dkr.ecr.eu-west-1.amazonaws.com"]
ENV_NAMES = ["LOG_LEVEL", "PORT", "DATABASE_URL", "REDIS_HOST", "FEATURE_FLAGS",
             "OTEL_EXPORTER_OTLP_ENDPOINT", "JAVA_OPTS", "GOMAXPROCS", "TZ", "REGION",
             "CACHE_TTL_SECONDS", "MAX_CONNECTIONS", "ENABLE_METRICS", "SERVICE_NAME",
             "WORKER_CONCURRENCY", "HTTP_TIMEOUT"]
STORAGE_CLASSES = ["standard", "fast-ssd", "gp3", "premium-rwo"]


def quote(s):
    if s in _SPECIAL or not _PLAIN.match(s) or re.match(r"^[0-9.+-]", s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return s


def scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return quote(v)


def emit(out, value, indent=0):
    """Block-style YAML with kustomize's layout (sequences not indented under keys)."""
    pad = "  " * indent
    if isinstance(value, dict):
        for k, v in value.items():
            key = quote(k)
            if isinstance(v, dict) and v:
                out.append(f"{pad}{key}:\n")
                emit(out, v, indent + 1)
            elif isinstance(v, list) and v:
                out.append(f"{pad}{key}:\n")
                emit(out, v, indent)
            elif isinstance(v, dict):
                out.append(f"{pad}{key}: {{}}\n")
            elif isinstance(v, list):
                out.append(f"{pad}{key}: []\n")
            elif isinstance(v, str) and "\n" in v:
                out.append(f"{pad}{key}: |\n")
                for line in v.rstrip("\n").split("\n"):
                    out.append(f"{pad}  {line}\n" if line else "\n")
            else:
                out.append(f"{pad}{key}: {scalar(v)}\n")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)) and item:
                sub = []
                emit(sub, item, indent + 1)
                first = sub[0]
                sub[0] = pad + "- " + first[len(pad) + 2:]
                out.extend(sub)
            else:
                out.append(f"{pad}- {scalar(item)}\n")


class Gen:
    def __init__(self, seed, namespaces):
        self.r = random.Random(seed)
        self.namespaces = [
            f"{TEAMS[i % len(TEAMS)]}-{ENVS[(i // len(TEAMS)) % len(ENVS)]}-{i // (len(TEAMS) * len(ENVS))}"
            for i in range(namespaces)
        ]

    def labels(self, app, team, env):
        labels = {
            "app.kubernetes.io/name": app,
            "app.kubernetes.io/instance": f"{app}-{env}",
            "app.kubernetes.io/part-of": team,
            "app.kubernetes.io/managed-by": "kustomize",
        }
        if self.r.random() < 0.6:
            labels["app.kubernetes.io/version"] = f"v{self.r.randint(1, 9)}.{self.r.randint(0, 30)}.{self.r.randint(0, 99)}"
        if self.r.random() < 0.5:
            labels["team"] = team
        if self.r.random() < 0.4:
            labels["tier"] = self.r.choice(["frontend", "backend", "data"])
        return labels

    def annotations(self, team):
        ann = {}
        if self.r.random() < 0.7:
            ann["owner"] = f"{team}@example.com"
        if self.r.random() < 0.4:
            ann["prometheus.io/scrape"] = "true"
            ann["prometheus.io/port"] = str(self.r.choice([8080, 9090, 9102]))
        if self.r.random() < 0.3:
            ann["deployment.kubernetes.io/revision"] = str(self.r.randint(1, 40))
        if self.r.random() < 0.25:
            ann["kubernetes.io/change-cause"] = f"rollout ticket {team.upper()}-{self.r.randint(100, 9999)}"
        return ann

    def metadata(self, name, ns, labels, ann):
        md = {"name": name, "namespace": ns, "labels": labels}
        if ann:
            md["annotations"] = ann
        return md

    def image(self):
        return f"{self.r.choice(REGISTRIES)}/{self.r.choice(IMAGES)}:{self.r.randint(1, 20)}.{self.r.randint(0, 12)}.{self.r.randint(0, 9)}"

    def container(self, name, port):
        r = self.r
        c = {"name": name, "image": self.image()}
        if r.random() < 0.5:
            c["imagePullPolicy"] = r.choice(["IfNotPresent", "Always"])
        if r.random() < 0.3:
            c["args"] = [f"--port={port}", f"--log-level={r.choice(['info', 'debug', 'warn'])}"]
        c["ports"] = [{"name": "http", "containerPort": port, "protocol": "TCP"}]
        if r.random() < 0.4:
            c["ports"].append({"name": "metrics", "containerPort": 9090, "protocol": "TCP"})
        env = []
        for env_name in r.sample(ENV_NAMES, r.randint(1, 6)):
            if env_name == "ENABLE_METRICS":
                val = r.choice(["true", "false", "yes"])
            elif env_name in ("PORT", "MAX_CONNECTIONS", "CACHE_TTL_SECONDS", "GOMAXPROCS", "WORKER_CONCURRENCY"):
                val = str(r.randint(1, 5000))
            elif env_name == "DATABASE_URL":
                val = f"postgres://app@db-{r.randint(1, 9)}.internal:5432/app"
            else:
                val = r.choice(["info", "eu-west-1", "UTC", "-Xmx512m -XX:+UseG1GC", "http://otel-collector:4317", "on", "30s"])
            env.append({"name": env_name, "value": val})
        if r.random() < 0.4:
            env.append({"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}})
        c["env"] = env
        # Requests never exceed limits: the API server refuses such a container (and
        # kadmit, which admits built-in kinds as the server does, would refuse the corpus).
        cpu_request = r.choice([50, 100, 250, 500])
        memory_request = r.choice([64, 128, 256, 512])
        cpu_limit = r.choice(["500m", "1", "2"])
        memory_limit = max(memory_request, r.choice([256, 512, 1024]))
        c["resources"] = {
            "requests": {"cpu": f"{cpu_request}m", "memory": f"{memory_request}Mi"},
            "limits": {"cpu": cpu_limit, "memory": f"{memory_limit}Mi"},
        }
        if r.random() < 0.7:
            c["readinessProbe"] = {
                "httpGet": {"path": "/healthz", "port": port},
                "initialDelaySeconds": r.randint(0, 10),
                "periodSeconds": 10,
            }
            c["livenessProbe"] = {
                "httpGet": {"path": "/livez", "port": port},
                "failureThreshold": 3,
                "timeoutSeconds": r.randint(1, 5),
            }
        if r.random() < 0.3:
            c["securityContext"] = {"runAsNonRoot": True, "readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False}
        return c

    def pod_template(self, app, labels, port):
        r = self.r
        sel = {"app.kubernetes.io/name": app, "app.kubernetes.io/instance": labels["app.kubernetes.io/instance"]}
        containers = [self.container(app, port)]
        if r.random() < 0.15:
            containers.append(self.container("sidecar", 15000 + r.randint(0, 99)))
        spec = {"containers": containers}
        if r.random() < 0.4:
            spec["serviceAccountName"] = app
        if r.random() < 0.3:
            spec["nodeSelector"] = {"kubernetes.io/os": "linux"}
        if r.random() < 0.2:
            spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]
        return sel, {"metadata": {"labels": dict(sel)}, "spec": spec}

    def deployment(self, i, ns, team, env):
        app = f"{self.r.choice(COMPONENTS)}-{i}"
        labels = self.labels(app, team, env)
        sel, tmpl = self.pod_template(app, labels, self.r.choice([8080, 8000, 3000, 9000]))
        spec = {"replicas": self.r.randint(1, 12), "selector": {"matchLabels": sel}}
        if self.r.random() < 0.4:
            spec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}}
        spec["template"] = tmpl
        return {"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": self.metadata(app, ns, labels, self.annotations(team)), "spec": spec}

    def statefulset(self, i, ns, team, env):
        app = f"{self.r.choice(['db', 'kafka', 'zookeeper', 'etcd', 'redis', 'elastic'])}-{i}"
        labels = self.labels(app, team, env)
        sel, tmpl = self.pod_template(app, labels, self.r.choice([5432, 9092, 2181, 2379, 6379]))
        tmpl["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/var/lib/data"}]
        spec = {
            "serviceName": app,
            "replicas": self.r.choice([1, 3, 5]),
            "selector": {"matchLabels": sel},
            "template": tmpl,
            "volumeClaimTemplates": [{
                "metadata": {"name": "data", "labels": {"app.kubernetes.io/name": app}},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": self.r.choice(STORAGE_CLASSES),
                    "resources": {"requests": {"storage": f"{self.r.choice([1, 5, 10, 50, 100])}Gi"}},
                },
            }],
        }
        return {"apiVersion": "apps/v1", "kind": "StatefulSet",
                "metadata": self.metadata(app, ns, labels, self.annotations(team)), "spec": spec}

    def service(self, i, ns, team, env):
        app = f"{self.r.choice(COMPONENTS)}-{i}"
        labels = self.labels(app, team, env)
        port = self.r.choice([80, 443, 8080])
        ports = [{"name": "http", "port": port, "targetPort": "http", "protocol": "TCP"}]
        if self.r.random() < 0.4:
            ports.append({"name": "metrics", "port": 9090, "targetPort": 9090, "protocol": "TCP"})
        spec = {"type": self.r.choice(["ClusterIP", "ClusterIP", "ClusterIP", "NodePort", "LoadBalancer"]),
                "selector": {"app.kubernetes.io/name": app, "app.kubernetes.io/instance": f"{app}-{env}"},
                "ports": ports}
        if self.r.random() < 0.2:
            spec["sessionAffinity"] = "ClientIP"
        return {"apiVersion": "v1", "kind": "Service",
                "metadata": self.metadata(app, ns, labels, self.annotations(team)), "spec": spec}

    def configmap(self, i, ns, team, env):
        r = self.r
        app = f"{r.choice(COMPONENTS)}-config-{i}"
        labels = self.labels(app, team, env)
        data = {}
        for k in r.sample(["LOG_LEVEL", "REGION", "TIMEOUT", "RETRIES", "ENABLED", "MODE", "VERSION"], r.randint(2, 6)):
            data[k] = r.choice(["info", "eu-west-1", "30s", "3", "true", "no", "1.10", "0755", "strict"])
        if r.random() < 0.6:
            lines = [f"server.port={r.randint(1000, 9999)}", f"cache.size={r.randint(1, 512)}MB",
                     f"feature.{r.choice(['alpha', 'beta', 'gamma'])}=enabled", f"db.pool.max={r.randint(5, 100)}"]
            lines += [f"tenant.{j}.quota={r.randint(1, 1000)}" for j in range(r.randint(0, 12))]
            data["application.properties"] = "\n".join(lines) + "\n"
        if r.random() < 0.3:
            data["nginx.conf"] = (
                "server {\n"
                f"  listen {r.choice([80, 8080])};\n"
                "  location / {\n"
                f"    proxy_pass http://{app}:8080;\n"
                "    proxy_set_header Host $host;\n"
                "  }\n"
                "}\n"
            )
        return {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": self.metadata(app, ns, labels, self.annotations(team)), "data": data}

    def resource(self, i):
        ns = self.r.choice(self.namespaces)
        team, env = ns.split("-")[0], ns.split("-")[1]
        kind = self.r.choices(
            [self.deployment, self.service, self.configmap, self.statefulset],
            weights=[35, 30, 25, 10],
        )[0]
        return kind(i, ns, team, env)


def write_stream(f, count, seed, namespaces):
    gen = Gen(seed, namespaces)
    for i in range(count):
        out = ["---\n"] if i else []
        emit(out, gen.resource(i))
        f.write("".join(out))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=10000, help="number of resources (default 10000)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--namespaces", type=int, default=400, help="how many namespaces to spread over (default 400)")
    p.add_argument("--kustomization", metavar="DIR",
                   help="write DIR/corpus.yaml and DIR/kustomization.yaml instead of stdout")
    a = p.parse_args()
    if a.count < 0 or a.namespaces < 1:
        p.error("--count must be >= 0 and --namespaces >= 1")
    if a.kustomization:
        os.makedirs(a.kustomization, exist_ok=True)
        with open(os.path.join(a.kustomization, "corpus.yaml"), "w", encoding="utf-8", newline="\n") as f:
            write_stream(f, a.count, a.seed, a.namespaces)
        with open(os.path.join(a.kustomization, "kustomization.yaml"), "w", encoding="utf-8", newline="\n") as f:
            f.write("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- corpus.yaml\n")
    else:
        out = sys.stdout
        write_stream(out, a.count, a.seed, a.namespaces)
        out.flush()


if __name__ == "__main__":
    main()
