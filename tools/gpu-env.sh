# Source this on the GPU machine, from the root of the repository:  . tools/gpu-env.sh
# Unpacks the .deb files that tools/fetch-gpu-debs put into .devdeps/ under /opt/deps (never
# into /), points pkg-config and the loader there, and stops OpenBLAS from falling back to its
# slowest kernels on a CPU it does not recognise.
hyt_deps=/opt/deps
if ! ls .devdeps/*.deb >/dev/null 2>&1; then
    echo "gpu-env.sh: no .devdeps/*.deb here (run it from the repository's root after" \
        "tools/fetch-gpu-debs on a machine with network)" >&2
    return 1 2>/dev/null || exit 1
fi
mkdir -p "$hyt_deps"
for f in .devdeps/*.deb; do dpkg -x "$f" "$hyt_deps"; done
# the .pc files name /usr: make them name the unpacked tree
find "$hyt_deps" -name '*.pc' -exec sed -i \
    "s#=/usr#=$hyt_deps/usr#g; s#-L/usr#-L$hyt_deps/usr#g; s#-I/usr#-I$hyt_deps/usr#g" {} +
hyt_lib=$hyt_deps/usr/lib/x86_64-linux-gnu
hyt_pc="$hyt_lib/pkgconfig:$hyt_lib/openblas-pthread/pkgconfig"
export PKG_CONFIG_PATH="$hyt_pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$hyt_lib:$hyt_lib/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# OpenBLAS 0.3.21 does not know some recent Xeons and picks its SSE3 ("Prescott") kernels;
# AVX-512 is there.  An OPENBLAS_CORETYPE already set is kept.
if grep -q avx512f /proc/cpuinfo; then
    export OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-SkylakeX}"
fi
unset hyt_deps hyt_lib hyt_pc
