#!/bin/sh
# The installed interface, as a user gets it:
#   1. `meson install` of the build into a temporary DESTDIR;
#   2. a program that includes every installed header and solves a small system, and the
#      examples/, built with nothing but pkg-config (PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR
#      at the temporary tree), then run against the installed libhytile.so;
#   3. the dynamic symbols libhytile.so defines, against tests/exported-symbols.txt: the test
#      fails when a symbol appears or disappears (update the list with the public headers).
#
#   tests/install_check.sh BUILDDIR SOURCEDIR
set -eu
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "install_check: $*" >&2
    exit 1
}

# ---- 1. install -------------------------------------------------------------------------------
meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/root" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; fail "meson install failed"; }
pc=$(find "$tmp/root" -name hytile.pc | head -n 1)
[ -n "$pc" ] || fail "no hytile.pc installed"
export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_SYSROOT_DIR="$tmp/root"
libdir=$(pkg-config --variable=libdir hytile) # with the sysroot in front
lib="$libdir/libhytile.so"
[ -f "$lib" ] || fail "no $lib"
incdir=$(dirname "$(find "$tmp/root" -name hytile.h | head -n 1)")
headers=$(cd "$incdir" && ls *.h)
echo "installed headers: $(echo $headers)"
# the installed library, not the build's (meson test puts the build directory in the path)
LD_LIBRARY_PATH=$(printf '%s' "${LD_LIBRARY_PATH:-}" | tr ':' '\n' | grep -v "^$build/*\$" |
    tr '\n' ':')
export LD_LIBRARY_PATH="$libdir:$LD_LIBRARY_PATH"

# ---- 2. a user's programs -------------------------------------------------------------------
# Each header on its own first (each must compile alone), then all of them in one program.
for h in $headers; do
    printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >"$tmp/alone.c"
    # shellcheck disable=SC2046
    "$CC" -std=c11 -Wall -Werror -c "$tmp/alone.c" -o "$tmp/alone.o" \
        $(pkg-config --cflags hytile) ||
        fail "$h does not compile on its own with pkg-config --cflags hytile"
done
{
    for h in $headers; do printf '#include <%s>\n' "$h"; done
    cat <<'PROG'
#include <stdio.h>

/* A 3 x 3 system whose solution is (1, 2, 3), through the LAPACK-layout API. */
int main(void)
{
    double a[9] = {2, 1, 0, 1, 3, 1, 0, 1, 4}, b[3] = {4, 10, 14};
    int ipiv[3];
    hyt_context_t *ctx;
    if (hyt_context_create(NULL, &ctx)) {
        fprintf(stderr, "%s\n", hyt_last_error());
        return 1;
    }
    int info = hyt_dgesv(ctx, 3, 1, a, 3, ipiv, b, 3);
    hyt_context_destroy(ctx);
    for (int i = 0; i < 3; i++)
        if (info || b[i] < i + 1 - 1e-12 || b[i] > i + 1 + 1e-12) {
            fprintf(stderr, "info %d, x = %g %g %g\n", info, b[0], b[1], b[2]);
            return 1;
        }
    printf("user program: x = %g %g %g\n", b[0], b[1], b[2]);
    return 0;
}
PROG
} >"$tmp/user.c"
# shellcheck disable=SC2046
"$CC" -std=c11 -Wall -Werror -o "$tmp/user" "$tmp/user.c" $(pkg-config --cflags --libs hytile) ||
    fail "the user program does not build with pkg-config --cflags --libs hytile"
ldd "$tmp/user" | grep -q "$libdir/libhytile.so" || fail "the user program does not load $lib"
"$tmp/user" || fail "the user program failed"
for ex in "$src"/examples/*.c; do
    name=$(basename "$ex" .c)
    # shellcheck disable=SC2046
    "$CC" -std=c11 -Wall -Werror -O2 -o "$tmp/$name" "$ex" \
        $(pkg-config --cflags --libs hytile openblas) -lm || fail "examples/$name.c does not build"
    "$tmp/$name" ||
        fail "examples/$name failed"
done

# ---- 3. exported symbols ----------------------------------------------------------------------
nm -D --defined-only "$lib" | awk '{print $NF}' | sort >"$tmp/exported"
grep -v '^#' "$src/tests/exported-symbols.txt" | grep . | sort >"$tmp/expected"
if ! diff -u "$tmp/expected" "$tmp/exported" >"$tmp/diff"; then
    cat "$tmp/diff" >&2
    fail "libhytile.so's exported symbols differ from tests/exported-symbols.txt" \
        "(+ exported, not listed; - listed, not exported)"
fi
echo "exported symbols: $(wc -l <"$tmp/exported"), as listed"
