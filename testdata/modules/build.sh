#!/usr/bin/env bash
# Builds the test modules of testdata/modules/ into wasm/<name>.wasm.
#
#   build.sh           build every module into wasm/ and record what they
#                      were built from in wasm/BUILT-FROM
#   build.sh --check   check that the committed wasm/*.wasm are current:
#                      1. the sources of each module still hash to what
#                         wasm/BUILT-FROM records (needs no toolchain);
#                      2. when the toolchain recorded there is present, build
#                         into a temp dir and compare the bytes.
#                      Exit 1 naming the stale files.
#   build.sh --out DIR build into DIR only (wasm/ and BUILT-FROM untouched)
#
# MODULES_RUST_TOOLCHAIN=debian picks Debian's rustc even where
# wasm32-wasip1 is installed (to try the fallback, with --out).
#
# Rust modules (src/*.rs, one crate each, no external crates, no Cargo):
#   1. rustc with the wasm32-wasip1 target, if that target's std is installed
#      (`rustup target add wasm32-wasip1`);
#   2. else Debian's /usr/bin/rustc (package rustc, 1.63) with the
#      wasm32-wasi std (libstd-rust-dev-wasm32, wasi-libc) linked by
#      wasm-ld-14 (package lld-14): apt-get install rustc
#      libstd-rust-dev-wasm32 wasi-libc lld-14;
#   3. else the Rust modules are not built (the committed ones are used).
# WAT modules (wat/*.wat): wat2wasm of the PyPI package wasmtime
#   (pip install wasmtime); without it they are not built.
set -euo pipefail
cd "$(dirname "$0")"
export LC_ALL=C

# name:source-file:crate-type
RUST_MODULES="
magic-validator:magic_validator:cdylib
magic-mutator:magic_mutator:cdylib
magic-authenticator:magic_authenticator:cdylib
magic-authorizer:magic_authorizer:cdylib
settings-validator:settings_validator:cdylib
jsonpatch-mutator:jsonpatch_mutator:cdylib
kubewarden-policy:kubewarden_policy:bin
kubewarden-wapc-policy:kubewarden_wapc_policy:cdylib
"
RUST_FLAGS="--edition 2021 -C opt-level=z -C lto -C codegen-units=1 -C strip=symbols -C panic=abort"

# Sets RUSTC, TARGET, LINK_FLAGS and RUST_TOOLCHAIN (a description), or
# leaves RUST_TOOLCHAIN empty when no wasm toolchain is found.
find_rust_toolchain() {
    RUST_TOOLCHAIN=""
    local rustc sysroot
    rustc=$(command -v rustc || true)
    if [ "${MODULES_RUST_TOOLCHAIN:-}" != debian ] && [ -n "$rustc" ] && "$rustc" --print target-list 2>/dev/null | grep -qx wasm32-wasip1; then
        sysroot=$("$rustc" --print sysroot)
        if [ -d "$sysroot/lib/rustlib/wasm32-wasip1/lib" ]; then
            RUSTC=$rustc TARGET=wasm32-wasip1 LINK_FLAGS=""
            RUST_TOOLCHAIN="$("$rustc" --version | cut -d' ' -f1-2) --target wasm32-wasip1"
            return
        fi
    fi
    if [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/wasm32-wasi/lib ] && [ -x /usr/bin/wasm-ld-14 ]; then
        RUSTC=/usr/bin/rustc TARGET=wasm32-wasi
        LINK_FLAGS="-C linker=/usr/bin/wasm-ld-14 -C linker-flavor=wasm-ld"
        RUST_TOOLCHAIN="$(/usr/bin/rustc --version | cut -d' ' -f1-2) --target wasm32-wasi (wasm-ld-14)"
    fi
}

# Sets WAT_TOOLCHAIN (a description), empty when wasmtime is not importable.
find_wat_toolchain() {
    WAT_TOOLCHAIN=""
    local version
    if version=$(python3 -c 'import importlib.metadata as m, wasmtime; print(m.version("wasmtime"))' 2>/dev/null); then
        WAT_TOOLCHAIN="python wasmtime $version wat2wasm"
    fi
}

rust_sources() { echo "src/$1.rs"; ls src/common/*.rs; }

# The hash of everything a module is built from: its sources and flags.
sources_hash() {
    local name=$1 kind=$2 source=$3 crate_type=$4
    {
        if [ "$kind" = rust ]; then
            echo "$RUST_FLAGS --crate-type $crate_type"
            rust_sources "$source" | xargs cat
        else
            cat "wat/$name.wat"
        fi
    } | sha256sum | cut -d' ' -f1
}

build_rust() { # name source crate-type out-dir
    # shellcheck disable=SC2086
    "$RUSTC" $RUST_FLAGS --crate-type "$3" --target "$TARGET" $LINK_FLAGS \
        "src/$2.rs" -o "$4/$1.wasm"
}

build_wat() { # name out-dir
    python3 -c 'import sys, wasmtime
with open(sys.argv[1]) as src, open(sys.argv[2], "wb") as out:
    out.write(wasmtime.wat2wasm(src.read()))' "wat/$1.wat" "$2/$1.wasm"
}

wat_names() { for f in wat/*.wat; do basename "$f" .wat; done; }

# Every module as "name kind source crate-type" lines.
all_modules() {
    local entry
    for entry in $RUST_MODULES; do
        IFS=: read -r name source crate_type <<<"$entry"
        echo "$name rust $source $crate_type"
    done
    for name in $(wat_names); do echo "$name wat - -"; done
}

build_all() { # out-dir: builds what the toolchains present allow
    local out=$1 name kind source crate_type
    while read -r name kind source crate_type; do
        if [ "$kind" = rust ] && [ -n "$RUST_TOOLCHAIN" ]; then
            build_rust "$name" "$source" "$crate_type" "$out"
        elif [ "$kind" = wat ] && [ -n "$WAT_TOOLCHAIN" ]; then
            build_wat "$name" "$out"
        fi
    done < <(all_modules)
}

write_built_from() { # keeps the old lines of what was not rebuilt
    local name kind source crate_type old_rust old_wat
    old_rust=$(recorded rust-toolchain 2>/dev/null || true)
    old_wat=$(recorded wat-toolchain 2>/dev/null || true)
    {
        echo "# Written by build.sh: the toolchains, and per module the hash of its sources and of the .wasm."
        echo "rust-toolchain ${RUST_TOOLCHAIN:-$old_rust}"
        echo "wat-toolchain ${WAT_TOOLCHAIN:-$old_wat}"
        while read -r name kind source crate_type; do
            if { [ "$kind" = rust ] && [ -z "$RUST_TOOLCHAIN" ]; } || { [ "$kind" = wat ] && [ -z "$WAT_TOOLCHAIN" ]; }; then
                grep "^$name.wasm " wasm/BUILT-FROM 2>/dev/null || true
            else
                echo "$name.wasm $(sources_hash "$name" "$kind" "$source" "$crate_type") $(sha256sum "wasm/$name.wasm" | cut -d' ' -f1)"
            fi
        done < <(all_modules)
    } > wasm/BUILT-FROM.new
    mv wasm/BUILT-FROM.new wasm/BUILT-FROM
}

recorded() { # key -> rest of its line in wasm/BUILT-FROM
    sed -n "s/^$1 //p" wasm/BUILT-FROM 2>/dev/null
}

check() {
    local stale=() name kind source crate_type line
    [ -f wasm/BUILT-FROM ] || { echo "wasm/BUILT-FROM is missing: run build.sh" >&2; exit 1; }
    while read -r name kind source crate_type; do
        line=$(recorded "$name.wasm")
        if [ ! -f "wasm/$name.wasm" ] || [ -z "$line" ] \
            || [ "${line%% *}" != "$(sources_hash "$name" "$kind" "$source" "$crate_type")" ] \
            || [ "${line##* }" != "$(sha256sum "wasm/$name.wasm" | cut -d' ' -f1)" ]; then
            stale+=("wasm/$name.wasm")
        fi
    done < <(all_modules)

    CHECK_TMP=$(mktemp -d); trap 'rm -rf "$CHECK_TMP"' EXIT
    local compare_rust=no compare_wat=no
    if [ -z "$RUST_TOOLCHAIN" ]; then
        echo "note: no wasm toolchain for the Rust modules: their bytes are not compared"
    elif [ "$RUST_TOOLCHAIN" != "$(recorded rust-toolchain)" ]; then
        echo "note: Rust modules were built with '$(recorded rust-toolchain)', here is '$RUST_TOOLCHAIN': their bytes are not compared"
    else
        compare_rust=yes
    fi
    if [ -z "$WAT_TOOLCHAIN" ]; then
        echo "note: python wasmtime is missing: the WAT modules' bytes are not compared"
    elif [ "$WAT_TOOLCHAIN" != "$(recorded wat-toolchain)" ]; then
        echo "note: WAT modules were built with '$(recorded wat-toolchain)', here is '$WAT_TOOLCHAIN': their bytes are not compared"
    else
        compare_wat=yes
    fi
    [ $compare_rust = yes ] || RUST_TOOLCHAIN=""
    [ $compare_wat = yes ] || WAT_TOOLCHAIN=""
    build_all "$CHECK_TMP"
    for built in "$CHECK_TMP"/*.wasm; do
        [ -e "$built" ] || continue
        name=$(basename "$built")
        cmp -s "$built" "wasm/$name" || stale+=("wasm/$name")
    done

    if [ ${#stale[@]} -gt 0 ]; then
        printf '%s\n' "${stale[@]}" | sort -u | sed 's/^/stale: /' >&2
        echo "run testdata/modules/build.sh and commit testdata/modules/wasm/" >&2
        exit 1
    fi
    echo "testdata/modules/wasm is current"
}

find_rust_toolchain
find_wat_toolchain
case "${1:-}" in
    --check) check ;;
    --out)
        [ -n "${2:-}" ] || { echo "usage: $0 --out DIR" >&2; exit 2; }
        mkdir -p "$2"
        out=$(cd "$2" && pwd)
        echo "rust: ${RUST_TOOLCHAIN:-none}; wat: ${WAT_TOOLCHAIN:-none}"
        build_all "$out"
        ls -l "$out"/*.wasm | awk '{print $5, $9}'
        ;;
    "")
        if [ -z "$RUST_TOOLCHAIN" ] && [ -z "$WAT_TOOLCHAIN" ]; then
            echo "no wasm toolchain (rustc with wasm32-wasip1, or Debian's rustc + wasm32-wasi + wasm-ld-14) and no python wasmtime: nothing built; the committed wasm/*.wasm are used"
            exit 0
        fi
        [ -n "$RUST_TOOLCHAIN" ] || echo "no wasm toolchain for Rust: the Rust modules are not rebuilt"
        [ -n "$WAT_TOOLCHAIN" ] || echo "python wasmtime is missing (pip install wasmtime): the WAT modules are not rebuilt"
        mkdir -p wasm
        build_all wasm
        write_built_from
        ls -l wasm/*.wasm | awk '{print $5, $9}'
        ;;
    *) echo "usage: $0 [--check | --out DIR]" >&2; exit 2 ;;
esac
