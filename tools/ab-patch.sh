#!/bin/bash
# An A/B measurement in one call of the GPU machine: the tree as it is (A, built in build-gpu)
# against a copy of it with a patch applied (B, in /tmp/ab-src/build-gpu), the command run on A,
# then B, ROUNDS times over, so that the difference shows against the drift between runs, on
# one machine.  Run from the repository root after sourcing tools/gpu-env.sh:
#   tools/ab-patch.sh PATCH ROUNDS COMMAND [ARG...]
# The command runs with H set to the side's hytile and BUILD to its build directory, its
# output prefixed with the side and round ("a1 ", "b1 ", ...), e.g.
#   git diff main exp/row-before-key > ab.patch       (here: untracked files travel along)
#   tools/ab-patch.sh ab.patch 2 sh -c '$H bench-gpu --panel -n 32768 --nb 512 --panel-sms 64'
# MESON_OPTS: the builds' options (default -Dcuda=enabled -Dgpu_arch=90).
set -u
if [ $# -lt 3 ] || [ ! -f "$1" ]; then
    echo "usage: tools/ab-patch.sh PATCH ROUNDS COMMAND [ARG...]" >&2
    exit 2
fi
patch=$(realpath "$1")
rounds=$2
shift 2
opts=${MESON_OPTS:-"-Dcuda=enabled -Dgpu_arch=90"}
top=$PWD
srcb=/tmp/ab-src
rm -rf "$srcb" && mkdir -p "$srcb" || exit 1
tar --exclude='./build*' --exclude=./.devdeps --exclude=./.git -cf - . | tar -xf - -C "$srcb"
if ! (cd "$srcb" && patch -p1 -s <"$patch"); then
    echo "ab-patch: $patch does not apply to this tree" >&2
    exit 1
fi
for src in "$top" "$srcb"; do
    # shellcheck disable=SC2086 # the options are words
    if ! { [ -d "$src/build-gpu" ] || meson setup "$src/build-gpu" "$src" $opts >/dev/null; } ||
        ! ninja -C "$src/build-gpu" >/dev/null; then
        echo "ab-patch: the build in $src failed" >&2
        exit 1
    fi
done
for r in $(seq "$rounds"); do
    for side in a b; do
        src=$top
        [ $side = b ] && src=$srcb
        BUILD=$src/build-gpu H=$src/build-gpu/hytile "$@" 2>&1 | sed "s/^/$side$r /"
    done
done
