#!/bin/sh
# Builds GNU objdump 2.40 for the SPU (Debian's objdump has no SPU target) from Debian's
# binutils-source package, with as and ld (build-spu-binutils.sh), then regenerates
# tests/data/spu_objdump_sweep.txt with it.
#
# Usage (as root, for apt-get): tools/oracles/build-spu-objdump.sh [BUILD_DIR]
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-/tmp/spu-binutils}
tools=$("$repo/tools/oracles/build-spu-binutils.sh" "$build")
python3 "$repo/tools/oracles/spu_objdump_sweep.py" "$tools/binutils/objdump" \
    "$build/binutils-2.40/include/opcode/spu-insns.h" "$repo/tests/data/spu_objdump_sweep.txt"
