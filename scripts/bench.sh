#!/usr/bin/env bash
# Throughput benchmark of the kadmit binary: the figures of issue 20's "Targets", each a
# ratio against a baseline measured in the same run, side by side (docs/performance.md,
# "Throughput targets: scripts/bench.sh").
#
#   scripts/bench.sh                 # about 5 minutes on 2 cores
#   QUICK=1 scripts/bench.sh         # about 1 minute: 1k/10k corpora, 10 MB dense inputs
#
# Figures (every kadmit run is `kadmit transform --no-builtins`, but figure 3's):
#   1. pass-through of each corpus of SIZES (scripts/gen-corpus.py, seed 1): MB/s with
#      `--jobs 1` against a serde_yaml parse-and-emit of the same file
#      (scripts/serde-yaml-baseline, a package of its own), and `--jobs 2` against `--jobs 1`. LINEAR_GB=1 adds
#      a ~1 GB corpus against the largest of SIZES (linearity).
#   2. the RULES_SIZE corpus plus Widgets of a CRD, with 50 ModRules, 50 Gatekeeper mutators
#      (`--config`) and that CRD (`--crd`; scripts/gen-bench-config.py) against its
#      pass-through, both `--jobs 1`; and `--jobs 2` against `--jobs 1`.
#   3. a ~4 MB CRD set (`--crd DIR`; scripts/gen-crd-set.py when there is one, else
#      scripts/gen-bench-crds.py) on a small stream (SMALL_SIZE resources, built-in kinds
#      admitted as by default) holding none of its kinds, and one holding each kind once:
#      milliseconds over the bare run, medians of CRD_RUNS runs; and what each kind present
#      adds over the run with none of them (the compile cost of one kind).
#   4. peak RSS on the corpora and on two dense inputs of DENSE_MB (the "tiny" and
#      "intlist.yaml" shapes of scripts/memory-bound.sh), less the RSS of a run on empty
#      input (the issue's "small constant"), over the input size.
#   5. `kubectl kustomize` against kadmit on the KUBECTL_COUNT corpus (skipped without
#      kubectl). kustomize's time grows as about n^2.2 (10,000 resources take ~12 minutes
#      here), so the default measures 3,000 and says whether that already meets the target
#      (the ratio only grows with n); KUBECTL_COUNT=10000 measures the target itself.
# Without `--jobs` in `kadmit transform --help`, the `--jobs` figures read "n/a (no --jobs)"
# and the other runs use kadmit's default.
#
# Prints a table of every measurement (median wall and CPU time, max RSS), then the figures:
# measured, baseline, ratio, target, met. Numbers only: a slow result fails nothing; the
# exit code is 0 unless something could not run (2: a tool is missing; 1: a run failed).
#
# Environment:
#   QUICK=1            smaller defaults: SIZES="1000 10000", RULES_SIZE=1000, DENSE_MB=10,
#                      KUBECTL_COUNT=1000, CRD_RUNS=7
#   SIZES="10000 100000"   figure 1's corpora (resource counts; the first two are the
#                      issue's 10k and 100k)
#   REPS=3             runs per measurement of figures 1, 2 and 5 (alternating; medians)
#   RULES_SIZE=10000   figure 2's corpus; it gets RULES_SIZE/10 Widgets more
#   SMALL_SIZE=100     figure 3's small stream
#   CRD_RUNS=11        runs per variant of figure 3
#   DENSE_MB=100       size of each dense input (figure 4; 0: none)
#   LINEAR_GB=1        also a ~LINEAR_MB corpus (default 1000), one run at `--jobs 1`
#   KUBECTL_COUNT=3000 figure 5's corpus
#   KUBECTL_MAX=10000  largest count kubectl kustomize is run on (0: never)
#   KUBECTL_REPS=1     runs per kubectl measurement
#   WORK=DIR           keep inputs and raw measurements in DIR, and reuse its inputs
#                      (default: a temp dir, removed at exit)
#   CARGO_TARGET_DIR   honoured as usual; the binary is $CARGO_TARGET_DIR/release/kadmit
set -euo pipefail
export LC_ALL=C # EPOCHREALTIME and printf with a decimal point

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
if [[ "${QUICK:-0}" = 1 ]]; then
    SIZES="${SIZES:-1000 10000}"
    RULES_SIZE="${RULES_SIZE:-1000}"
    DENSE_MB="${DENSE_MB:-10}"
    KUBECTL_COUNT="${KUBECTL_COUNT:-1000}"
    CRD_RUNS="${CRD_RUNS:-7}"
fi
SIZES="${SIZES:-10000 100000}"
REPS="${REPS:-3}"
RULES_SIZE="${RULES_SIZE:-10000}"
SMALL_SIZE="${SMALL_SIZE:-100}"
CRD_RUNS="${CRD_RUNS:-11}"
DENSE_MB="${DENSE_MB:-100}"
LINEAR_GB="${LINEAR_GB:-0}"
LINEAR_MB="${LINEAR_MB:-1000}"
KUBECTL_COUNT="${KUBECTL_COUNT:-3000}"
KUBECTL_MAX="${KUBECTL_MAX:-10000}"
KUBECTL_REPS="${KUBECTL_REPS:-1}"

die() {
    echo "bench.sh: $1" >&2
    exit "${2:-2}"
}
for n in REPS RULES_SIZE SMALL_SIZE CRD_RUNS DENSE_MB LINEAR_MB KUBECTL_COUNT KUBECTL_MAX KUBECTL_REPS; do
    [[ "${!n}" =~ ^[0-9]+$ ]] || die "$n must be a whole number, not '${!n}'"
done
for n in $SIZES; do
    [[ "$n" =~ ^[0-9]+$ && "$n" -gt 0 ]] || die "SIZES must be positive whole numbers, not '$n'"
done
((REPS > 0 && CRD_RUNS > 0 && KUBECTL_REPS > 0)) || die "REPS, CRD_RUNS and KUBECTL_REPS must be positive"
[[ -x /usr/bin/time ]] || die "GNU time (/usr/bin/time) is needed for CPU time and peak RSS (apt-get install time)"
command -v python3 >/dev/null || die "python3 is needed for the generators in scripts/"

if [[ -n "${WORK:-}" ]]; then
    mkdir -p "$WORK"
    work="$(cd "$WORK" && pwd)"
else
    work="$(mktemp -d "${TMPDIR:-/tmp}/kadmit-bench.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
fi
rm -rf "$work/times" "$work/stderr"
mkdir -p "$work/times" "$work/stderr"

echo "== build (cargo build --release, and scripts/serde-yaml-baseline)" >&2
(cd "$root" && cargo build --release --quiet)
target="${CARGO_TARGET_DIR:-$root/target}"
[[ "$target" = /* ]] || target="$root/$target"
kadmit="$target/release/kadmit"
[[ -x "$kadmit" ]] || die "no binary at $kadmit"
# The baseline is a package of its own, built from a copy beside the workspace's Cargo.lock
# (the serde_yaml kadmit's benches use; Cargo drops the entries it does not need), in a
# target directory of its own, so that its build of dependencies kadmit shares (serde) never
# touches kadmit's artifacts.
mkdir -p "$work/serde-yaml-baseline"
cp -R "$here/serde-yaml-baseline/Cargo.toml" "$here/serde-yaml-baseline/src" "$work/serde-yaml-baseline/"
cp "$root/Cargo.lock" "$work/serde-yaml-baseline/Cargo.lock"
cargo build --release --quiet --manifest-path "$work/serde-yaml-baseline/Cargo.toml" \
    --target-dir "$target/serde-yaml-baseline"
baseline="$target/serde-yaml-baseline/release/serde-yaml-baseline"
[[ -x "$baseline" ]] || die "no serde_yaml baseline at $baseline"

if "$kadmit" transform --help | grep -q -- '--jobs'; then
    have_jobs=1
    jobs1=(--jobs 1)
    jobs2=(--jobs 2)
else
    have_jobs=0
    jobs1=()
    jobs2=()
    echo "bench.sh: kadmit transform has no --jobs; its figures read n/a (no --jobs)" >&2
fi
have_kubectl=0
if command -v kubectl >/dev/null; then
    have_kubectl=1
else
    echo "bench.sh: kubectl not found; figure 5 (kubectl kustomize) is skipped" >&2
fi

# ---- measuring -----------------------------------------------------------------------

# Runs "$@" once with stdin from $input and stdout discarded, and appends "wall cpu rss_kb
# exit" to $work/times/$label: wall time from bash's microsecond clock, CPU time (user +
# system) and peak RSS from GNU time. An exit code outside $ok (like "0" or "0 2") stops
# the script: a benchmark of a failing run would measure the failure.
measure() {
    local label="$1" input="$2" ok="$3"
    shift 3
    local start end code
    # Read once, untimed, so the page cache holds the input and the program: this
    # machine's kernel pages out page-cache pages it deems cold (DAMON `pageout`), and a
    # run that read its input from the disk measured the disk (10 ms of a 70 ms run).
    cat "$input" >/dev/null
    if [[ -f "$1" ]]; then cat "$1" >/dev/null; fi
    start=$EPOCHREALTIME
    set +e
    /usr/bin/time -f '%U %S %M %x' -o "$work/time.out" "$@" <"$input" >/dev/null 2>"$work/stderr/$label"
    code=$?
    set -e
    end=$EPOCHREALTIME
    if [[ " $ok " != *" $code "* ]]; then
        echo "bench.sh: $label: exit $code (expected $ok): $*" >&2
        tail -5 "$work/stderr/$label" >&2
        exit 1
    fi
    tail -1 "$work/time.out" | awk -v s="$start" -v e="$end" '{ printf "%.6f %.2f %d %d\n", e - s, $1 + $2, $3, $4 }' \
        >>"$work/times/$label"
}

# The median of column $2 (1 wall, 2 cpu) of a label's runs.
median() {
    awk -v c="$2" '{ print $c }' "$work/times/$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# The largest peak RSS of a label's runs, in bytes (GNU time says KiB).
max_rss() {
    awk '{ if ($3 > m) m = $3 } END { print m * 1024 }' "$work/times/$1"
}
# The exit code of a label's last run.
last_exit() {
    tail -1 "$work/times/$1" | awk '{ print $4 }'
}
# Arithmetic: calc FORMAT EXPRESSION (awk's).
calc() {
    awk "BEGIN { printf \"$1\", $2 }"
}
bytes_of() {
    stat -c %s "$1"
}

# Every measurement, for the table of runs: label and input size.
measured=()
note() {
    measured+=("$1 $2")
}

# The figures table: figure, measured, baseline, ratio, target, met.
figures=()
figure() {
    figures+=("$(printf '%s|%s|%s|%s|%s|%s' "$@")")
}
# "met" when awk finds $1 true, else "not met".
met_if() {
    if awk "BEGIN { exit !($1) }"; then echo met; else echo "not met"; fi
}

corpus() {
    local count="$1" dir="$work/corpus-$1"
    if [[ ! -f "$dir/corpus.yaml" ]]; then
        echo "== generate $count resources (scripts/gen-corpus.py --seed 1)" >&2
        python3 "$here/gen-corpus.py" --count "$count" --seed 1 --kustomization "$dir"
    fi
    echo "$dir"
}

load() {
    awk '{ print $1 }' /proc/loadavg 2>/dev/null || echo '?'
}
load_start="$(load)"

# What a run costs before any data: figure 4's constant.
: >"$work/empty.yaml"
for _ in $(seq "$REPS"); do
    measure "empty" "$work/empty.yaml" 0 "$kadmit" transform --no-builtins --allow-empty
done
note "empty" 0
empty_rss=$(max_rss empty)
empty_mb=$(calc %.1f "$empty_rss / 1e6")

# ---- figure 1: pass-through against serde_yaml, and --jobs 2 against --jobs 1 ----------

largest=""
for count in $SIZES; do
    file="$(corpus "$count")/corpus.yaml"
    bytes=$(bytes_of "$file")
    echo "== figure 1: pass-through, $count resources ($REPS runs each, alternating)" >&2
    for _ in $(seq "$REPS"); do
        measure "serde_yaml-$count" /dev/null 0 "$baseline" "$file"
        measure "pass-j1-$count" "$file" 0 "$kadmit" transform --no-builtins "${jobs1[@]}"
        if [[ $have_jobs = 1 ]]; then
            measure "pass-j2-$count" "$file" 0 "$kadmit" transform --no-builtins "${jobs2[@]}"
        fi
    done
    note "serde_yaml-$count" "$bytes"
    note "pass-j1-$count" "$bytes"
    serde_mbs=$(calc %.2f "$bytes / 1e6 / $(median "serde_yaml-$count" 1)")
    j1_mbs=$(calc %.2f "$bytes / 1e6 / $(median "pass-j1-$count" 1)")
    ratio=$(calc %.2f "$j1_mbs / $serde_mbs")
    j1_name="--jobs 1"
    [[ $have_jobs = 1 ]] || j1_name="no --jobs"
    figure "1 pass-through $count, $j1_name" "$j1_mbs MB/s" "serde_yaml $serde_mbs MB/s" "${ratio}x" \
        ">= 3x serde (~40 MB/s)" "$(met_if "$ratio >= 3")"
    if [[ $have_jobs = 1 ]]; then
        note "pass-j2-$count" "$bytes"
        j2_mbs=$(calc %.2f "$bytes / 1e6 / $(median "pass-j2-$count" 1)")
        ratio=$(calc %.2f "$j2_mbs / $j1_mbs")
        figure "1 pass-through $count, --jobs 2" "$j2_mbs MB/s" "--jobs 1 $j1_mbs MB/s" "${ratio}x" \
            ">= 1.8x --jobs 1" "$(met_if "$ratio >= 1.8")"
    else
        figure "1 pass-through $count, --jobs 2" "n/a (no --jobs)" "" "" ">= 1.8x --jobs 1" "n/a"
    fi
    largest="$count"
done

if [[ "$LINEAR_GB" = 1 ]]; then
    # About 1,236 bytes a resource (docs/performance.md, "How to reproduce").
    count=$((LINEAR_MB * 1000 * 1000 / 1236))
    file="$(corpus "$count")/corpus.yaml"
    bytes=$(bytes_of "$file")
    echo "== figure 1: linearity, $count resources (one run)" >&2
    measure "pass-j1-$count" "$file" 0 "$kadmit" transform --no-builtins "${jobs1[@]}"
    note "pass-j1-$count" "$bytes"
    big_mbs=$(calc %.2f "$bytes / 1e6 / $(median "pass-j1-$count" 1)")
    j1_mbs=$(calc %.2f "$(bytes_of "$work/corpus-$largest/corpus.yaml") / 1e6 / $(median "pass-j1-$largest" 1)")
    ratio=$(calc %.2f "$big_mbs / $j1_mbs")
    figure "1 linearity: $(calc %.0f "$bytes / 1e6") MB, ${jobs1[*]:-no --jobs}" "$big_mbs MB/s" \
        "$largest res $j1_mbs MB/s" "${ratio}x" ">= 0.9x (linear)" "$(met_if "$ratio >= 0.9")"
fi

# ---- figure 2: 50 ModRules + 50 Gatekeeper mutators + CRD validation -------------------

config="$work/config-$RULES_SIZE"
stream="$config/stream.yaml"
if [[ ! -f "$stream" ]]; then
    python3 "$here/gen-bench-config.py" --out "$config" --widgets $((RULES_SIZE / 10))
    { cat "$config/widgets.yaml"; echo "---"; cat "$(corpus "$RULES_SIZE")/corpus.yaml"; } >"$stream"
fi
bytes=$(bytes_of "$stream")
rules=(--config "$config/config.yaml" --crd "$config/crd.yaml")
# Once, untimed: the configuration must do its work (mutators everywhere, CRD defaults),
# or the figure would time a configuration that matches nothing.
"$kadmit" transform --no-builtins "${rules[@]}" <"$stream" >"$work/rules.out" 2>"$work/stderr/rules-check" ||
    die "figure 2's configuration is refused: $(tail -3 "$work/stderr/rules-check")" 1
grep -q 'kadmit.dev/mutated-by: gatekeeper' "$work/rules.out" || die "figure 2: no Gatekeeper mutation in the output" 1
grep -q 'replicas-over-0' "$work/rules.out" || die "figure 2: no ModRule patch in the output" 1
grep -q 'protocol: TCP' "$work/rules.out" || die "figure 2: no CRD default in the output" 1
rm -f "$work/rules.out"
echo "== figure 2: $RULES_SIZE resources + $((RULES_SIZE / 10)) Widgets, rules ($REPS runs each, alternating)" >&2
for _ in $(seq "$REPS"); do
    measure "rules-pass-j1" "$stream" 0 "$kadmit" transform --no-builtins "${jobs1[@]}"
    measure "rules-j1" "$stream" 0 "$kadmit" transform --no-builtins "${rules[@]}" "${jobs1[@]}"
    if [[ $have_jobs = 1 ]]; then
        measure "rules-j2" "$stream" 0 "$kadmit" transform --no-builtins "${rules[@]}" "${jobs2[@]}"
    fi
done
note "rules-pass-j1" "$bytes"
note "rules-j1" "$bytes"
pass_s=$(median "rules-pass-j1" 1)
rules_s=$(median "rules-j1" 1)
ratio=$(calc %.2f "$rules_s / $pass_s")
figure "2 rules+mutators+CRD $RULES_SIZE, ${jobs1[*]:-no --jobs}" "$(calc %.3f "$rules_s") s" \
    "pass-through $(calc %.3f "$pass_s") s" "${ratio}x" "<= 1.5x pass-through" "$(met_if "$ratio <= 1.5")"
if [[ $have_jobs = 1 ]]; then
    note "rules-j2" "$bytes"
    j2_s=$(median "rules-j2" 1)
    ratio=$(calc %.2f "$rules_s / $j2_s")
    figure "2 rules+mutators+CRD $RULES_SIZE, --jobs 2" "$(calc %.3f "$j2_s") s" \
        "--jobs 1 $(calc %.3f "$rules_s") s" "${ratio}x" ">= 1.8x --jobs 1" "$(met_if "$ratio >= 1.8")"
else
    figure "2 rules+mutators+CRD $RULES_SIZE, --jobs 2" "n/a (no --jobs)" "" "" ">= 1.8x --jobs 1" "n/a"
fi

# ---- figure 3: a ~4 MB CRD set on a small stream ---------------------------------------

crds="$work/crd-set"
if [[ ! -f "$work/crd-set.kinds.yaml" ]]; then
    rm -rf "$crds"
    generator="$here/gen-bench-crds.py"
    [[ -f "$here/gen-crd-set.py" ]] && generator="$here/gen-crd-set.py"
    python3 "$generator" --out "$crds" --examples >"$work/crd-set.kinds.yaml.tmp"
    mv "$work/crd-set.kinds.yaml.tmp" "$work/crd-set.kinds.yaml"
fi
crd_bytes=$(cat "$crds"/* | wc -c)
crd_count=$(grep -c '^kind: *"\{0,1\}CustomResourceDefinition' "$crds"/* | awk -F: '{ n += $2 } END { print n }')
small="$(corpus "$SMALL_SIZE")/corpus.yaml"
with_kinds="$work/small-with-kinds.yaml"
{ cat "$small"; echo "---"; cat "$work/crd-set.kinds.yaml"; } >"$with_kinds"
echo "== figure 3: $crd_count CRDs, $(calc %.1f "$crd_bytes / 1e6") MB, $SMALL_SIZE resources ($CRD_RUNS runs each, alternating)" >&2
for _ in $(seq "$CRD_RUNS"); do
    measure "crd-bare" "$with_kinds" 0 "$kadmit" transform
    measure "crd-unused" "$small" 0 "$kadmit" transform --crd "$crds"
    measure "crd-used" "$with_kinds" 0 "$kadmit" transform --crd "$crds"
done
note "crd-bare" "$(bytes_of "$with_kinds")"
note "crd-unused" "$(bytes_of "$small")"
note "crd-used" "$(bytes_of "$with_kinds")"
bare_ms=$(calc %.1f "$(median crd-bare 1) * 1000")
unused_ms=$(calc %.1f "$(median crd-unused 1) * 1000")
used_ms=$(calc %.1f "$(median crd-used 1) * 1000")
over=$(calc %.1f "$unused_ms - $bare_ms")
figure "3 $(calc %.1f "$crd_bytes / 1e6") MB CRD set, none of its kinds" "+$over ms" "bare $bare_ms ms" \
    "$(calc %.2f "$unused_ms / $bare_ms")x" "<= +50 ms" "$(met_if "$over <= 50")"
# What each kind present adds over the run with none: its compile cost, once per kind.
kinds=$(grep -c '^kind:' "$work/crd-set.kinds.yaml")
over=$(calc %.1f "$used_ms - $bare_ms")
figure "3 $(calc %.1f "$crd_bytes / 1e6") MB CRD set, its $kinds kinds" \
    "+$over ms; $(calc %+.1f "($used_ms - $unused_ms) / $kinds") ms/kind" "bare $bare_ms ms" \
    "$(calc %.2f "$used_ms / $bare_ms")x" "per kind present (info)" "-"

# ---- figure 4: peak RSS / input --------------------------------------------------------

for count in $SIZES; do
    bytes=$(bytes_of "$work/corpus-$count/corpus.yaml")
    rss=$(max_rss "pass-j1-$count")
    if [[ $have_jobs = 1 ]]; then
        rss=$(printf '%s\n%s\n' "$rss" "$(max_rss "pass-j2-$count")" | sort -g | tail -1)
    fi
    ratio=$(calc %.2f "($rss - $empty_rss) / $bytes")
    figure "4 RSS, corpus $count" "$(calc %.1f "$rss / 1e6") MB" "input $(calc %.1f "$bytes / 1e6") MB + $empty_mb MB" \
        "${ratio}x" "<= 4x input + constant" "$(met_if "$ratio <= 4")"
done
if ((DENSE_MB > 0)); then
    # The same bytes as scripts/memory-bound.sh's "tiny" and "intlist.yaml" shapes.
    if [[ ! -f "$work/dense-$DENSE_MB.intlist.yaml" ]]; then
        echo "== generate the dense inputs, $DENSE_MB MB each" >&2
        python3 - "$work" "$DENSE_MB" <<'EOF'
import sys
work, mb = sys.argv[1], int(sys.argv[2])
size = mb * 1000 * 1000
with open(f"{work}/dense-{mb}.tiny", "w") as f:
    n, written = 0, 0
    while written < size:
        s = "---\napiVersion: example.com/v1\nkind: C\nmetadata: {name: a%d}\n" % n
        f.write(s)
        written += len(s)
        n += 1
with open(f"{work}/dense-{mb}.intlist.yaml", "w") as f:
    f.write("apiVersion: example.com/v1\nkind: C\nmetadata: {name: big}\nspec: {l: [" + "1," * (size // 2) + "1]}\n")
EOF
    fi
    for shape in tiny intlist.yaml; do
        file="$work/dense-$DENSE_MB.$shape"
        bytes=$(bytes_of "$file")
        echo "== figure 4: dense input $shape, $DENSE_MB MB (one run)" >&2
        # A long flow list is one document: past --max-document-nodes it is refused (exit
        # 2), and what is measured is the memory spent up to the refusal.
        measure "dense-$shape" "$file" "0 2" "$kadmit" transform --no-builtins
        note "dense-$shape" "$bytes"
        rss=$(max_rss "dense-$shape")
        ratio=$(calc %.2f "($rss - $empty_rss) / $bytes")
        code=$(last_exit "dense-$shape")
        what="$(calc %.1f "$rss / 1e6") MB"
        [[ $code = 0 ]] || what="$what (exit $code: node limit)"
        figure "4 RSS, $shape $DENSE_MB MB" "$what" "input $(calc %.1f "$bytes / 1e6") MB + $empty_mb MB" "${ratio}x" \
            "<= 4x input + constant" "$(met_if "$ratio <= 4")"
    done
fi

# ---- figure 5: kubectl kustomize -------------------------------------------------------

if [[ $have_kubectl = 0 ]]; then
    figure "5 kubectl kustomize $KUBECTL_COUNT" "skipped: no kubectl" "" "" ">= 1000x kubectl" "n/a"
elif ((KUBECTL_COUNT == 0 || KUBECTL_COUNT > KUBECTL_MAX)); then
    figure "5 kubectl kustomize $KUBECTL_COUNT" "skipped: KUBECTL_COUNT/_MAX" "" "" ">= 1000x kubectl" "n/a"
else
    dir="$(corpus "$KUBECTL_COUNT")"
    bytes=$(bytes_of "$dir/corpus.yaml")
    echo "== figure 5: kubectl kustomize, $KUBECTL_COUNT resources ($KUBECTL_REPS runs; slow)" >&2
    for _ in $(seq "$KUBECTL_REPS"); do
        measure "kubectl-$KUBECTL_COUNT" /dev/null 0 kubectl kustomize "$dir"
    done
    for _ in $(seq "$REPS"); do
        measure "kadmit-$KUBECTL_COUNT" "$dir/corpus.yaml" 0 "$kadmit" transform --no-builtins
    done
    note "kubectl-$KUBECTL_COUNT" "$bytes"
    note "kadmit-$KUBECTL_COUNT" "$bytes"
    kubectl_s=$(median "kubectl-$KUBECTL_COUNT" 1)
    kadmit_s=$(median "kadmit-$KUBECTL_COUNT" 1)
    ratio=$(calc %.0f "$kubectl_s / $kadmit_s")
    if ((KUBECTL_COUNT >= 10000)); then
        met=$(met_if "$ratio >= 1000")
    elif awk "BEGIN { exit !($ratio >= 1000) }"; then
        met="met (at $KUBECTL_COUNT: a lower bound)"
    else
        met="n/a (at $KUBECTL_COUNT, not 10000)"
    fi
    figure "5 kubectl kustomize $KUBECTL_COUNT" "kadmit $(calc %.3f "$kadmit_s") s" \
        "kubectl $(calc %.1f "$kubectl_s") s" "${ratio}x" ">= 1000x at 10000" "$met"
fi

# ---- report ----------------------------------------------------------------------------

echo
echo "$("$kadmit" version 2>/dev/null || echo 'kadmit ?'); script at $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?');" \
    "nproc $(nproc); $(uname -m); load $load_start at the start, $(load) at the end; --jobs: $([[ $have_jobs = 1 ]] && echo yes || echo no)"
echo
printf '%-22s %9s %5s %9s %9s %9s %9s %8s\n' run "input MB" runs "wall s" "cpu s" "MB/s" "RSS MB" RSS/in
for m in "${measured[@]}"; do
    read -r label bytes <<<"$m"
    awk -v label="$label" -v bytes="$bytes" -v wall="$(median "$label" 1)" -v cpu="$(median "$label" 2)" '
        { if ($3 > rss) rss = $3 }
        END {
            mb = bytes / 1e6; rssmb = rss * 1024 / 1e6
            if (mb == 0) {
                printf "%-22s %9.2f %5d %9.3f %9.2f %9s %9.1f %8s\n", label, mb, NR, wall, cpu, "-", rssmb, "-"
                exit
            }
            printf "%-22s %9.2f %5d %9.3f %9.2f %9.2f %9.1f %7.2fx\n",
                label, mb, NR, wall, cpu, mb / wall, rssmb, rssmb / mb
        }' "$work/times/$label"
done
echo "(MB = 10^6 bytes; wall, cpu: medians; RSS: max; j1/j2: --jobs 1/2; serde_yaml: its parse-and-emit)"
echo
printf '%-40s %-30s %-30s %8s  %-24s %s\n' figure measured baseline ratio target met
for f in "${figures[@]}"; do
    IFS='|' read -r name value base ratio goal met <<<"$f"
    printf '%-40s %-30s %-30s %8s  %-24s %s\n' "$name" "$value" "$base" "$ratio" "$goal" "$met"
done
