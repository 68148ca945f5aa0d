#!/usr/bin/env python3
"""Writes crates/spu-isa/tests/data/spu_objdump_sweep.txt: the exact text GNU objdump prints for a sweep of
SPU instruction words. The disassembler tests compare pmprobe's text with it word by word.

The words, in this order, one per 4-byte address from 0:
  1. every 11-bit opcode prefix (word >> 21 = 0..2047) with each low-21-bit pattern of
     PATTERNS (prefix-major);
  2. one word per entry of binutils' include/opcode/spu-insns.h (APUOP and APUOPFB lines, in
     file order): the entry's opcode, its feature bits (APUOPFB) and pseudo-random fields.

They are written big-endian to a raw binary and disassembled with
    objdump -D -b binary -m spu -EB words.bin
(no symbols, so objdump prints addresses as 0x-prefixed hex). Each fixture line is
    <address, 5 hex digits> <word, 8 hex digits> <objdump's text, tabs kept>
and lines starting with '#' are comments.

Debian's objdump (binutils-multiarch 2.40) has no SPU target; tools/oracles/build-spu-objdump.sh
builds objdump 2.40 for --target=spu-elf from Debian's binutils-source package.

Usage: spu_objdump_sweep.py OBJDUMP SPU_INSNS_H OUTPUT
"""
import re
import struct
import subprocess
import sys
import tempfile

# Low 21 bits (RB/I7/I10/I16 parts, RA, RT) of the sweep: zeros, ones, the two alternating
# patterns, RB (the feature bits of the branch-indirect forms) all ones, and three mixed
# values with small register numbers and a mix of signs.
PATTERNS = [0x000000, 0x1FFFFF, 0x0AAAAA, 0x155555, 0x1FC000, 0x0C4183, 0x081A05, 0x003FFF]


def table_entries(header):
    """(opcode, feature bits) of every APUOP/APUOPFB line, in file order."""
    entries = []
    for line in open(header, encoding="utf-8"):
        m = re.match(r"\s*APUOP\(\s*\w+\s*,\s*\w+\s*,\s*(0x[0-9a-fA-F]+)", line)
        if m:
            entries.append((int(m.group(1), 16), 0))
            continue
        m = re.match(
            r"\s*APUOPFB\(\s*\w+\s*,\s*\w+\s*,\s*(0x[0-9a-fA-F]+)\s*,\s*(0x[0-9a-fA-F]+)", line
        )
        if m:
            entries.append((int(m.group(1), 16), int(m.group(2), 16)))
    return entries


def words(header):
    out = [prefix << 21 | pattern for prefix in range(2048) for pattern in PATTERNS]
    state = 0x2545F491  # xorshift32 seed: fixed, so the fixture is reproducible
    for opcode, feature in table_entries(header):
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        if feature:
            fields = feature << 14 | (state & 0x3FFF)
        else:
            fields = state & 0x1FFFFF
        out.append(opcode << 21 | fields)
    return out


def main():
    objdump, header, output = sys.argv[1:4]
    sweep = words(header)
    with tempfile.NamedTemporaryFile(suffix=".bin") as binary:
        binary.write(b"".join(struct.pack(">I", w) for w in sweep))
        binary.flush()
        text = subprocess.run(
            [objdump, "-D", "-b", "binary", "-m", "spu", "-EB", binary.name],
            check=True, capture_output=True, text=True,
        ).stdout
        version = subprocess.run(
            [objdump, "--version"], check=True, capture_output=True, text=True
        ).stdout.splitlines()[0]
    printed = {}
    for line in text.splitlines():
        # "  1c:\t1c 19 01 83 \tai\t$3,$3,100\t# 64"
        m = re.match(r"\s*([0-9a-f]+):\t((?:[0-9a-f]{2} ){4})\t(.*)$", line)
        if m:
            printed[int(m.group(1), 16)] = m.group(3)
    with open(output, "w", encoding="utf-8") as out:
        out.write(f"# {version}: objdump -D -b binary -m spu -EB, made by\n")
        out.write("# tools/oracles/spu_objdump_sweep.py (2048 prefixes x "
                  f"{len(PATTERNS)} patterns, then one word per spu-insns.h entry)\n")
        for index, word in enumerate(sweep):
            address = index * 4
            if address not in printed:
                sys.exit(f"objdump printed no line for address {address:#x}")
            out.write(f"{address:05x} {word:08x} {printed[address]}\n")


if __name__ == "__main__":
    main()
