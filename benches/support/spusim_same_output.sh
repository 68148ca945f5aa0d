#!/usr/bin/env bash
# Checks that two spusim binaries (before and after a change to the SPU model) print the
# same results for the benchmark workloads (with the straight-line SHA-256d kernel of
# benches/spu/) and the demo kernels, in every mode: the
# checkpoint lines, the statistics (--stats), the registers (--regs), the final line with the
# stop reason, instructions and cycles, and the exit status. Lines in parentheses are notes
# on how the model got its results (what it fast-forwarded or skipped) and are left out.
#
#   benches/support/spusim_same_output.sh BEFORE/spusim AFTER/spusim
#
# Build each with `cargo build --release --target host-tuple -p spusim` in its checkout.
# Exits 1 if any output differs.
set -uo pipefail
before=${1:?the spusim binary from before}
after=${2:?the spusim binary from after}
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for path in spu/programs/bench_stall_loop spu/programs/bench_dual_issue spu/programs/demo_saxpy \
  spu/programs/demo_chain spu/programs/demo_dp benches/spu/sha256d; do
  program=$(basename "$path")
  for mode in "--fetch real" "--fetch real --no-fast-forward" "--fetch ideal --no-fast-forward" "--fetch ideal" "--mode instruction"; do
    extra="--stats --regs"
    if [ "$mode" = "--mode instruction" ]; then extra="--regs"; fi
    # shellcheck disable=SC2086 # the mode and the flags are several words on purpose
    "$before" $mode $extra "$root/$path.s" 2>&1 | grep -v '^(' >"$scratch/before"
    before_status=${PIPESTATUS[0]}
    # shellcheck disable=SC2086
    "$after" $mode $extra "$root/$path.s" 2>&1 | grep -v '^(' >"$scratch/after"
    after_status=${PIPESTATUS[0]}
    if [ "$before_status" = "$after_status" ] && cmp -s "$scratch/before" "$scratch/after"; then
      echo "same    $program $mode: $(tail -n 1 "$scratch/after")"
    else
      echo "DIFFERS $program $mode (exit $before_status / $after_status)"
      diff "$scratch/before" "$scratch/after" | head -n 10
      status=1
    fi
  done
done
exit $status
