#!/usr/bin/env python3
"""Wall and CPU time of a CRD set's cost over a bare run, before against after
(docs/performance.md, "CRD set cost, second pass").

    crd-cost.py DIR RUNS NAME...

DIR holds kadmit-NAME binaries, `crdset/` (scripts/gen-crd-set.py), `small.yaml` (a
stream without the set's kinds) and `with-kinds.yaml` (one with each kind). For RUNS
rounds, each variant (bare: with-kinds.yaml without --crd; unused: small.yaml with
--crd; used: with-kinds.yaml with --crd) runs once per binary, alternating; prints the
medians of wall time (perf_counter) and CPU (user + system, getrusage of children).
"""
import os
import resource
import statistics
import subprocess
import sys
import time

VARIANTS = {
    "bare": ("with-kinds.yaml", ["transform"]),
    "unused": ("small.yaml", ["transform", "--crd", "crdset"]),
    "used": ("with-kinds.yaml", ["transform", "--crd", "crdset"]),
}


def once(binary, stdin, args):
    with open(stdin, "rb") as given, open(os.devnull, "wb") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([binary] + args, stdin=given, stdout=out, stderr=subprocess.DEVNULL, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    directory, runs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    os.chdir(directory)
    times = {}
    for _ in range(runs):
        for variant, (stdin, args) in VARIANTS.items():
            for name in names:
                times.setdefault((name, variant), []).append(once("./kadmit-" + name, stdin, args))
    for name in names:
        bare_wall = statistics.median(w for w, _ in times[(name, "bare")])
        bare_cpu = statistics.median(c for _, c in times[(name, "bare")])
        for variant in VARIANTS:
            wall = statistics.median(w for w, _ in times[(name, variant)])
            cpu = statistics.median(c for _, c in times[(name, variant)])
            print(
                f"{name:8} {variant:7} wall {wall * 1000:7.1f} ms (+{(wall - bare_wall) * 1000:6.1f})"
                f"  cpu {cpu * 1000:6.1f} ms (+{(cpu - bare_cpu) * 1000:6.1f})"
            )


if __name__ == "__main__":
    main()
