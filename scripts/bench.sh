#!/usr/bin/env bash
# Pass-through benchmark of the kadmit binary against `kubectl kustomize` on the same data.
#
#   scripts/bench.sh
#
# Builds the release binary, generates corpora with scripts/gen-corpus.py (seed 1), and
# measures `kadmit transform --no-builtins < corpus.yaml > /dev/null` (pass-through: built-in kinds left alone) and `kubectl kustomize DIR > /dev/null`
# with GNU time (/usr/bin/time -v): wall time, CPU time and peak RSS. Prints a table.
# Numbers only: nothing here fails on a slow result (see docs/performance.md).
#
# Environment:
#   SIZES="10000 100000"   resource counts to generate and measure
#   REPS=3                 runs per kadmit measurement (median wall time, max RSS)
#   KUBECTL_MAX=10000      largest count kubectl kustomize is run on (0: never); kustomize
#                          is superlinear in the resource count (10k takes minutes)
#   KUBECTL_REPS=1         runs per kubectl measurement
#   WORK=DIR               keep corpora and raw time output in DIR (default: a temp dir,
#                          removed at exit)
#   CARGO_TARGET_DIR       honoured as usual; the binary is $CARGO_TARGET_DIR/release/kadmit
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
SIZES="${SIZES:-10000 100000}"
REPS="${REPS:-3}"
KUBECTL_MAX="${KUBECTL_MAX:-10000}"
KUBECTL_REPS="${KUBECTL_REPS:-1}"

if [[ ! -x /usr/bin/time ]]; then
    echo "bench.sh: GNU time (/usr/bin/time) is needed for peak RSS (apt-get install time)" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "bench.sh: python3 is needed for gen-corpus.py" >&2; exit 2; }

if [[ -n "${WORK:-}" ]]; then
    mkdir -p "$WORK"
    work="$WORK"
else
    work="$(mktemp -d "${TMPDIR:-/tmp}/kadmit-bench.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
fi

echo "== build (cargo build --release)" >&2
(cd "$root" && cargo build --release --quiet)
target="${CARGO_TARGET_DIR:-$root/target}"
[[ "$target" = /* ]] || target="$root/$target"
kadmit="$target/release/kadmit"
[[ -x "$kadmit" ]] || { echo "bench.sh: no binary at $kadmit" >&2; exit 2; }

have_kubectl=0
if command -v kubectl >/dev/null; then
    have_kubectl=1
else
    echo "bench.sh: kubectl not found; skipping the kubectl kustomize rows" >&2
fi
if command -v hyperfine >/dev/null; then
    have_hyperfine=1
else
    have_hyperfine=0
fi

# Runs "$@" under GNU time, appending "wall cpu rss_kb" to $work/$label.times.
timed() {
    local label="$1" input="$2"
    shift 2
    local out="$work/$label.time.txt"
    if ! /usr/bin/time -v -o "$out" "$@" <"$input" >/dev/null 2>"$work/$label.stderr"; then
        echo "bench.sh: $label failed:" >&2
        tail -5 "$work/$label.stderr" >&2
        exit 1
    fi
    awk -F': ' '
        /Elapsed \(wall clock\)/ {
            n = split($2, p, ":"); wall = 0
            for (i = 1; i <= n; i++) wall = wall * 60 + p[i]
        }
        /User time \(seconds\)/ { cpu += $2 }
        /System time \(seconds\)/ { cpu += $2 }
        /Maximum resident set size/ { rss = $2 }
        END { printf "%s %s %s\n", wall, cpu, rss }
    ' "$out" >>"$work/$label.times"
}

# Prints one table row from the samples in $work/$label.times: median wall time, median
# CPU time (user + system; steadier than wall time on a shared machine), max RSS.
row() {
    local tool="$1" count="$2" bytes="$3" label="$4"
    local wall cpu
    wall=$(awk '{print $1}' "$work/$label.times" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
    cpu=$(awk '{print $2}' "$work/$label.times" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
    awk -v tool="$tool" -v count="$count" -v bytes="$bytes" -v wall="$wall" -v cpu="$cpu" '
        { if ($3 > rss) rss = $3 }
        END {
            mb = bytes / 1e6; rssmb = rss * 1024 / 1e6
            printf "%-18s %8d %9.1f %9.2f %9.2f %9.2f %9.2f %10.1f %8.2fx %5d\n",
                tool, count, mb, wall, cpu, mb / wall, mb / cpu, rssmb, rssmb / mb, NR
        }' "$work/$label.times"
}

# The RSS of a run with no input: what the process costs before any data.
: >"$work/empty.yaml"
rm -f "$work/kadmit-empty.times"
timed "kadmit-empty" "$work/empty.yaml" "$kadmit" transform --no-builtins
empty_rss_kb=$(awk '{print $3}' "$work/kadmit-empty.times")

rows=()
for count in $SIZES; do
    dir="$work/corpus-$count"
    if [[ ! -f "$dir/corpus.yaml" ]]; then
        echo "== generate $count resources" >&2
        python3 "$here/gen-corpus.py" --count "$count" --seed 1 --kustomization "$dir"
    fi
    corpus="$dir/corpus.yaml"
    bytes=$(wc -c <"$corpus")

    echo "== kadmit transform, $count resources ($REPS runs)" >&2
    rm -f "$work/kadmit-$count.times"
    for _ in $(seq "$REPS"); do
        timed "kadmit-$count" "$corpus" "$kadmit" transform --no-builtins
    done
    rows+=("$(row "kadmit" "$count" "$bytes" "kadmit-$count")")
    if [[ $have_hyperfine = 1 ]]; then
        hyperfine --warmup 1 --runs "$REPS" --input "$corpus" --output null \
            "$kadmit transform" >&2 || true
    fi

    if [[ $have_kubectl = 1 ]]; then
        if ((count <= KUBECTL_MAX)); then
            echo "== kubectl kustomize, $count resources ($KUBECTL_REPS runs; slow)" >&2
            rm -f "$work/kubectl-$count.times"
            for _ in $(seq "$KUBECTL_REPS"); do
                timed "kubectl-$count" /dev/null kubectl kustomize "$dir"
            done
            rows+=("$(row "kubectl kustomize" "$count" "$bytes" "kubectl-$count")")
        else
            echo "== kubectl kustomize, $count resources: skipped (above KUBECTL_MAX=$KUBECTL_MAX)" >&2
        fi
    fi
done

echo
echo "kadmit $("$kadmit" version 2>/dev/null | awk '{print $2}') at $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?'); nproc $(nproc); $(uname -m)"
printf "%-18s %8s %9s %9s %9s %9s %9s %10s %9s %5s\n" \
    tool resources "input MB" "wall s" "cpu s" "MB/s" "MB/s cpu" "RSS MB" "RSS/in" runs
for r in "${rows[@]}"; do
    echo "$r"
done
echo "(kadmit RSS with empty input: $(awk -v k="$empty_rss_kb" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }') MB; MB = 10^6 bytes; wall, cpu: medians; RSS: max)"
