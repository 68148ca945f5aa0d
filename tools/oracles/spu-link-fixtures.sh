#!/bin/sh
# Regenerates the link fixtures of tests/data/spu_link/ with the real GNU tools: for each
# line `NAME: SOURCES [--defsym ...]` of cases.txt, every source is assembled with spu-as
# 2.40 into STEM.o, the objects are linked with spu-ld 2.40 (default script) into NAME, and
# the results are written as NAME.elf (the executable) and NAME.objdump (`spu-objdump -d
# NAME`). The tests link the same sources with pmprobe and compare.
#
# Usage (as root, for apt-get): tools/oracles/spu-link-fixtures.sh [BUILD_DIR]
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
tools=$("$repo/tools/oracles/build-spu-binutils.sh" "${1:-/tmp/spu-binutils}")
data="$repo/tests/data/spu_link"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep -v '^#' "$data/cases.txt" | while IFS=: read -r name rest; do
    [ -n "$name" ] || continue
    objects=""
    options=""
    taking_options=0
    for word in $rest; do
        case "$word" in
            --*) taking_options=1; options="$options $word" ;;
            *)
                if [ "$taking_options" = 1 ]; then
                    options="$options $word"
                else
                    stem=${word%.*}
                    "$tools/gas/as-new" -o "$work/$stem.o" "$data/$word"
                    objects="$objects $stem.o"
                fi
                ;;
        esac
    done
    # ld records the names as given: run it where the objects are, with plain names.
    # shellcheck disable=SC2086 # the lists are words
    (cd "$work" && "$tools/ld/ld-new" -o "$name" $objects $options)
    cp "$work/$name" "$data/$name.elf"
    (cd "$work" && "$tools/binutils/objdump" -d "$name") > "$data/$name.objdump"
    rm -f "$work"/*.o "$work/$name"
done
