#!/bin/sh
# Builds GNU objdump, as and ld 2.40 for the SPU (Debian's binutils have no SPU target) from
# Debian's binutils-source package, into BUILD_DIR (default /tmp/spu-binutils):
#   BUILD_DIR/build/binutils/objdump, BUILD_DIR/build/gas/as-new, BUILD_DIR/build/ld/ld-new
# Installs the package and ld's build tools (flex, bison, texinfo) with apt-get when missing.
# Prints BUILD_DIR/build on success. The oracle scripts next to this one call it.
#
# Usage (as root, for apt-get): tools/oracles/build-spu-binutils.sh [BUILD_DIR]
set -eu
build=${1:-/tmp/spu-binutils}
if [ ! -x "$build/build/binutils/objdump" ] || [ ! -x "$build/build/gas/as-new" ] \
    || [ ! -x "$build/build/ld/ld-new" ]; then
    [ -f /usr/src/binutils/binutils-2.40.tar.xz ] || apt-get install -y binutils-source >&2
    # ld's script lexer and parser are generated at build time.
    for tool in flex bison makeinfo; do
        command -v "$tool" >/dev/null 2>&1 || apt-get install -y flex bison texinfo >&2
    done
    mkdir -p "$build/build"
    [ -d "$build/binutils-2.40" ] || tar -C "$build" -xf /usr/src/binutils/binutils-2.40.tar.xz
    cd "$build/build"
    # A tree configured for objdump alone (without ld) is configured again.
    if [ ! -f Makefile ] || grep -q -- '--disable-ld' config.status; then
        ../binutils-2.40/configure --target=spu-elf --disable-nls --disable-werror \
            --disable-gdb --disable-gdbserver --disable-sim --disable-gprof --disable-gprofng \
            --disable-gold --disable-libctf --without-zstd >&2
    fi
    # `all-binutils` would also build ar, whose lexer needs flex; objdump alone does not.
    make all-bfd all-opcodes all-libiberty all-libsframe configure-binutils >&2
    make -C binutils objdump >&2
    make all-gas all-ld >&2
fi
echo "$build/build"
