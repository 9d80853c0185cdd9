#!/usr/bin/env bash
# Runs the cargo-fuzz targets under fuzz/ for a fixed time each (see docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 30); TARGETs default to all of them. Prints, per target, the
# executions, executions per second and whether it found a crash (with the reproducer's
# path under fuzz/artifacts/<target>/). Exits 1 when any target crashed.
#
# The toolchain is stable. Without a sanitizer (the default here) cargo-fuzz passes only
# stable flags (the sancov passes, --cfg fuzzing), so nothing special is needed; with
# FUZZ_SANITIZER=address it passes -Zsanitizer=address, which stable rustc accepts with
# RUSTC_BOOTSTRAP=1 (set here for that case only). cargo-fuzz is installed with
# `cargo install --locked cargo-fuzz` when missing. If it cannot be installed or the
# targets cannot be built, the run is skipped with a banner, or fails under CI=true.
#
# The committed seeds (fuzz/corpus/<target>/) are read, never written: what the fuzzer
# finds goes to a temporary corpus removed at exit (FUZZ_KEEP_CORPUS=DIR keeps it in
# DIR/<target>/ instead).
#
# Environment:
#   FUZZ_SANITIZER=none|address   default none: ASan finds nothing safe Rust can do and
#                                 costs 7-10x the executions here (docs/fuzzing.md)
#   FUZZ_TIMEOUT=10               seconds one input may take before it counts as a hang
#   FUZZ_RSS_LIMIT_MB=2048        memory one run may use before it counts as a crash
#   FUZZ_KEEP_CORPUS=DIR          keep the inputs the fuzzer adds
#   CARGO_TARGET_DIR              honoured as usual
#   CI=true                       missing tooling is a failure, not a skip
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

ALL_TARGETS=(yaml_roundtrip kubemod_select gatekeeper_location gotmpl cel transform)
seconds="${1:-30}"
if [[ $# -gt 0 ]]; then shift; fi
if [[ $# -gt 0 ]]; then targets=("$@"); else targets=("${ALL_TARGETS[@]}"); fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [[ "$seconds" -eq 0 ]]; then
    echo "fuzz.sh: SECONDS must be a positive integer, not '$seconds'" >&2
    exit 2
fi
for t in "${targets[@]}"; do
    [[ -f "fuzz/fuzz_targets/$t.rs" ]] || { echo "fuzz.sh: no fuzz target '$t' (fuzz/fuzz_targets/$t.rs)" >&2; exit 2; }
done

in_ci() { [[ "${CI:-}" == "true" || "${CI:-}" == "1" ]]; }

# Cannot fuzz here: a failure under CI, a loud skip elsewhere.
cannot_fuzz() {
    local why="$1"
    if in_ci; then
        echo "fuzz.sh: FAILED: $why (CI=true: the fuzz smoke may not be skipped)" >&2
        exit 1
    fi
    cat >&2 <<EOF
################################################################################
##  FUZZING SKIPPED: $why
##  Nothing was fuzzed. See docs/fuzzing.md for what the fuzzer needs.
################################################################################
EOF
    exit 0
}

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: cargo-fuzz not found; installing it (cargo install --locked cargo-fuzz)" >&2
    cargo install --locked cargo-fuzz >&2 || cannot_fuzz "cargo-fuzz could not be installed"
    cargo fuzz --version >/dev/null 2>&1 || cannot_fuzz "cargo-fuzz was installed but does not run"
fi

FUZZ_SANITIZER="${FUZZ_SANITIZER:-none}"
case "$FUZZ_SANITIZER" in
    none) ;;
    address)
        # -Zsanitizer=address is nightly-only: stable rustc takes it with RUSTC_BOOTSTRAP=1.
        export RUSTC_BOOTSTRAP=1
        # The stable toolchain ships the ASan runtime (librustc-stable_rt.asan.a); without it
        # -Zsanitizer=address cannot link.
        sysroot_lib="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/lib"
        ls "$sysroot_lib" 2>/dev/null | grep -q '_rt\.asan\.a$' ||
            cannot_fuzz "FUZZ_SANITIZER=address, but the toolchain has no ASan runtime in $sysroot_lib"
        ;;
    *) echo "fuzz.sh: FUZZ_SANITIZER must be none or address, not '$FUZZ_SANITIZER'" >&2; exit 2 ;;
esac
timeout_s="${FUZZ_TIMEOUT:-10}"
rss_mb="${FUZZ_RSS_LIMIT_MB:-2048}"

fuzz=(cargo fuzz)
build_flags=(--sanitizer "$FUZZ_SANITIZER")

echo "fuzz.sh: $(cargo fuzz --version), $(rustc --version), sanitizer: $FUZZ_SANITIZER, ${seconds}s per target" >&2
build_started=$SECONDS
# One target, or all of them in one cargo invocation (cargo fuzz build takes one or all).
build_target=()
if [[ ${#targets[@]} -eq 1 ]]; then build_target=("${targets[0]}"); fi
if ! "${fuzz[@]}" build "${build_flags[@]}" "${build_target[@]}" >&2; then
    cannot_fuzz "the fuzz targets could not be built (cargo fuzz build --sanitizer $FUZZ_SANITIZER)"
fi
echo "fuzz.sh: built in $((SECONDS - build_started))s" >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/kadmit-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

crashed=0
summary=()
for t in "${targets[@]}"; do
    if [[ -n "${FUZZ_KEEP_CORPUS:-}" ]]; then
        new="$FUZZ_KEEP_CORPUS/$t"
    else
        new="$work/corpus-$t"
    fi
    mkdir -p "$new" "fuzz/artifacts/$t"
    log="$work/$t.log"
    echo "fuzz.sh: $t for ${seconds}s ..." >&2
    status=0
    # New inputs go to the first corpus directory ($new); the committed seeds are read only.
    "${fuzz[@]}" run "${build_flags[@]}" "$t" "$new" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
        -max_len=65536 -print_final_stats=1 >"$log" 2>&1 || status=$?
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    per_second="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
    artifact="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)"
    if [[ $status -eq 0 ]]; then
        result="ok"
    else
        crashed=1
        reason="$(grep -m1 -o -E 'ERROR: libFuzzer: [a-z-]+|panicked at [^ ]+|ERROR: [A-Za-z]+Sanitizer: [a-z-]+' "$log" || true)"
        result="CRASH (exit $status) ${reason:-see log}; reproducer: ${artifact:-none written}"
        first="$(grep -n -m1 -E 'panicked at|==[0-9]+==ERROR|ERROR: libFuzzer|SUMMARY: ' "$log" | cut -d: -f1 || true)"
        echo "----- $t: the fuzzer's report -----" >&2
        if [[ -n "$first" ]]; then sed -n "${first},$((first + 30))p" "$log" >&2; else tail -40 "$log" >&2; fi
        echo "----- reproduce: ${RUSTC_BOOTSTRAP:+RUSTC_BOOTSTRAP=1 }cargo fuzz run --sanitizer $FUZZ_SANITIZER $t ${artifact:-<artifact>}" >&2
    fi
    summary+=("$(printf '%-20s %12s execs %8s/s  %s' "$t" "${execs:-?}" "${per_second:-?}" "$result")")
done

echo
echo "fuzz.sh: ${seconds}s per target, sanitizer $FUZZ_SANITIZER"
printf '%s\n' "${summary[@]}"
if [[ $crashed -ne 0 ]]; then
    echo "fuzz.sh: CRASHES FOUND (reproducers under fuzz/artifacts/)" >&2
    exit 1
fi
