#!/bin/sh
# Builds GNU objdump 2.40 for the SPU (Debian's objdump has no SPU target) from Debian's
# binutils-source package, then regenerates tests/data/spu_objdump_sweep.txt with it.
#
# Usage (as root, for apt-get): tools/oracles/build-spu-objdump.sh [BUILD_DIR]
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-/tmp/spu-binutils}
if [ ! -x "$build/build/binutils/objdump" ]; then
    [ -f /usr/src/binutils/binutils-2.40.tar.xz ] || apt-get install -y binutils-source
    mkdir -p "$build/build"
    tar -C "$build" -xf /usr/src/binutils/binutils-2.40.tar.xz
    cd "$build/build"
    ../binutils-2.40/configure --target=spu-elf --disable-nls --disable-werror \
        --disable-gdb --disable-gdbserver --disable-sim --disable-gprof --disable-gprofng \
        --disable-ld --disable-gold --disable-libctf --without-zstd
    # `all-binutils` would also build ar, whose lexer needs flex; objdump does not.
    make all-bfd all-opcodes all-libiberty all-libsframe configure-binutils
    make -C binutils objdump
fi
python3 "$repo/tools/oracles/spu_objdump_sweep.py" "$build/build/binutils/objdump" \
    "$build/binutils-2.40/include/opcode/spu-insns.h" "$repo/tests/data/spu_objdump_sweep.txt"
