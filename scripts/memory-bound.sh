#!/usr/bin/env bash
# Peak memory of `kadmit transform` against the size of its input, on realistic and on dense
# input (finding 11 of the trust-boundary campaign; docs/security.md states the bound).
#
#   scripts/memory-bound.sh [MB]
#
# Builds the release binary, writes inputs of about MB megabytes each (default 100) and runs
# `kadmit transform < INPUT > /dev/null` under GNU time, printing exit code, wall time, peak
# RSS and RSS / input. Shapes:
#   realistic     scripts/gen-corpus.py Deployments, Services, ConfigMaps (~1.2 KB each)
#   tiny          minimal resources of ~60 bytes, one per document (a custom kind: what is
#                 measured is holding documents, not admitting them)
#   bigmap        one ConfigMap with millions of short keys
#   intlist.yaml  one flow list of millions of `1`
#   intlist.json  the same as a JSON document
#   emptymaps     one block list of millions of `{}`
# The dense single-document shapes pass the --max-document-nodes limit (2,000,000) and are
# refused (exit 2) once their tree reaches it; the line says what that cost.
# Numbers only: nothing here fails on a large result.
#
# Environment:
#   WORK=DIR          keep the inputs in DIR (default: a temp dir, removed at exit)
#   CARGO_TARGET_DIR  honoured as usual; the binary is $CARGO_TARGET_DIR/release/kadmit
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
mb="${1:-100}"
[[ "$mb" =~ ^[0-9]+$ && "$mb" -gt 0 ]] || { echo "memory-bound.sh: MB must be a positive integer" >&2; exit 2; }
command -v python3 >/dev/null || { echo "memory-bound.sh: python3 is needed" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "memory-bound.sh: GNU time (/usr/bin/time) is needed" >&2; exit 2; }

(cd "$root" && cargo build --release --quiet)
bin="${CARGO_TARGET_DIR:-$root/target}/release/kadmit"

if [[ -n "${WORK:-}" ]]; then mkdir -p "$WORK"; work="$WORK"; else
    work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT; fi

bytes=$((mb * 1000 * 1000))
python3 - "$work" "$bytes" <<'EOF'
import sys
work, size = sys.argv[1], int(sys.argv[2])
def fill(name, head, unit, tail=""):
    with open(f"{work}/{name}", "w") as f:
        f.write(head)
        n, written = 0, len(head)
        while written < size:
            s = unit(n); f.write(s); written += len(s); n += 1
        f.write(tail)
fill("tiny", "", lambda n: "---\napiVersion: example.com/v1\nkind: C\nmetadata: {name: a%d}\n" % n)
fill("bigmap", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n",
     lambda n: "  k%d: v\n" % n)
count = size // 2
with open(f"{work}/intlist.yaml", "w") as f:
    f.write("apiVersion: example.com/v1\nkind: C\nmetadata: {name: big}\nspec: {l: [" + "1," * count + "1]}\n")
with open(f"{work}/intlist.json", "w") as f:
    f.write('{"apiVersion": "example.com/v1", "kind": "C", "metadata": {"name": "big"}, "spec": {"l": ['
            + "1," * count + "1]}}\n")
fill("emptymaps", "apiVersion: example.com/v1\nkind: C\nmetadata: {name: big}\nspec:\n  l:\n",
     lambda n: "  - {}\n")
EOF
python3 "$here/gen-corpus.py" --count $((mb * 1000 * 1000 / 1230)) --seed 1 > "$work/realistic"

printf '%-14s %10s %5s %8s %10s %8s\n' input "MB" exit "wall s" "RSS MB" "RSS/in"
for shape in realistic tiny bigmap intlist.yaml intlist.json emptymaps; do
    input="$work/$shape"
    size=$(stat -c %s "$input")
    set +e
    /usr/bin/time -f '%x %e %M' -o "$work/time" "$bin" transform < "$input" > /dev/null 2> "$work/stderr"
    set -e
    read -r code wall rss_kb < <(tail -1 "$work/time")
    python3 -c "import sys; s,r=int(sys.argv[2]),int(sys.argv[3])*1024; print('%-14s %10.1f %5s %8s %10.1f %7.2fx' % (sys.argv[1], s/1e6, sys.argv[4], sys.argv[5], r/1e6, r/s))" \
        "$shape" "$size" "$rss_kb" "$code" "$wall"
done
echo "(kadmit $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?'); MB = 10^6 bytes; RSS: GNU time's maximum resident set size)"
