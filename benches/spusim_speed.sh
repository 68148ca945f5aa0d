#!/usr/bin/env bash
# SPU model speed on the host: spusim against main at 09ca063 (the commit before the
# decoded-code work), and against another SPU interpreter when one is given, in one run, on
# the same SPU programs: the workloads in benches/spu/ (an integer, a shuffle and a
# single-precision loop, and a straight-line SHA-256d kernel of about 7,000 instructions a
# pass), in instruction mode and in pipeline mode (real fetch).
#
#   benches/spusim_speed.sh [WORKLOAD...]
#
# Environment:
#   SPUSIM     spusim under test (default: target/release/spusim, built here first).
#   BASELINE   spusim of 09ca063 (default: built in target/speed-baseline, a git worktree of
#              this repository at 09ca063).
#   PEER       another SPU interpreter run as `PEER program.elf` (instruction mode only, in a
#              scratch folder); its run is timed, and when it prints a register dump (lines
#              `NNN: w0 w1 w2 w3`) the non-zero registers but $1 are compared with spusim's.
#   REPEAT     runs of each command (default 3); the figure is the median.
#   MODES      "instruction pipeline" (default), or one of them.
#
# CPU time (user + system) of the whole process, less the median CPU time of the same
# command on a program that only stops (start-up: loading and the model's set-up). Every
# binary runs the workload's ELF file, which spusim assembles once beforehand: assembling
# `sha256d.s` (its macros expand to 7,000 instructions) takes longer than a third of its run.
# Each binary's result lines (--regs and the final line: stop, instructions, cycles) must be
# identical to the baseline's, and the script says so per run.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
repeat=${REPEAT:-3}
modes=${MODES:-instruction pipeline}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [ -z "${SPUSIM:-}" ]; then
  cargo build --release -q -p spusim || exit 2
  SPUSIM=$root/target/release/spusim
fi
if [ -z "${BASELINE:-}" ]; then
  base=$root/target/speed-baseline
  if [ ! -x "$base/target/release/spusim" ]; then
    [ -d "$base" ] || git worktree add --detach "$base" 09ca063 >/dev/null || exit 2
    (cd "$base" && cargo build --release -q -p spusim) || exit 2
  fi
  BASELINE=$base/target/release/spusim
fi

workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(int_loop shuffle_loop float_loop sha256d)
printf '\t.text\n_start:\tstop 0x2000\n' >"$scratch/stop.s"
"$SPUSIM" --mode instruction --elf "$scratch/stop.elf" "$scratch/stop.s" >/dev/null 2>&1

# CPU seconds of one run of "$@" (output to $scratch/out).
cpu_seconds() {
  local TIMEFORMAT='%3U %3S' t
  t=$({ time "$@" >"$scratch/out" 2>&1; } 2>&1 | tail -n 1)
  awk -v t="$t" 'BEGIN { split(t, p, " "); printf "%.3f", p[1] + p[2] }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Median CPU seconds of REPEAT runs of "$@".
timed() {
  local i
  for ((i = 0; i < repeat; i++)); do cpu_seconds "$@"; echo; done | median
}

# Registers of a spusim --regs output, non-zero, $1 left out, as "N w0 w1 w2 w3".
spusim_registers() {
  grep -E '^\$[0-9]+ ' "$1" | sed 's/^\$//' | awk '$1 != 1 { print $1, $2, $3, $4, $5 }'
}
peer_registers() {
  grep -E '^[0-9]{3}:' "$1" | awk '{ n = $1 + 0 } n != 1 && !($2 == "00000000" && $3 == "00000000" && $4 == "00000000" && $5 == "00000000") { print n, $2, $3, $4, $5 }'
}

printf '%-12s %-11s %12s %12s | %9s %9s %9s | %10s %10s | %7s %s\n' \
  workload mode instructions cycles "cpu s" "main s" "peer s" "M instr/s" "M cyc/s" "x main" "(x peer; results)"
for mode in $modes; do
  if [ "$mode" = instruction ]; then args=(--mode instruction); else args=(--fetch real); fi
  new_start=$(timed "$SPUSIM" "${args[@]}" "$scratch/stop.elf")
  base_start=$(timed "$BASELINE" "${args[@]}" "$scratch/stop.elf")
  for workload in "${workloads[@]}"; do
    source=$root/benches/spu/$workload.s
    "$SPUSIM" --mode instruction --max-cycles 4000000000 --elf "$scratch/$workload.elf" "$source" >/dev/null 2>&1
    elf=$scratch/$workload.elf
    new=$(timed "$SPUSIM" "${args[@]}" --max-cycles 4000000000 --regs "$elf")
    cp "$scratch/out" "$scratch/new.out"
    old=$(timed "$BASELINE" "${args[@]}" --max-cycles 4000000000 --regs "$elf")
    cp "$scratch/out" "$scratch/old.out"
    verdict="same as main"
    cmp -s "$scratch/new.out" "$scratch/old.out" || verdict="DIFFERS from main"
    last=$(grep -E 'instructions, [0-9]+ cycles' "$scratch/new.out" | tail -n 1)
    instructions=$(sed -E 's/.*: ([0-9]+) instructions.*/\1/' <<<"$last")
    cycles=$(sed -E 's/.*, ([0-9]+) cycles.*/\1/' <<<"$last")
    new_run=$(awk -v a="$new" -v b="$new_start" 'BEGIN { printf "%.3f", a - b }')
    old_run=$(awk -v a="$old" -v b="$base_start" 'BEGIN { printf "%.3f", a - b }')
    peer_run=-
    peer_note=
    if [ "$mode" = instruction ] && [ -n "${PEER:-}" ]; then
      # In the scratch folder: a peer may leave files where it runs.
      peer_start=$(timed sh -c 'cd "$0" && exec "$1" "$2"' "$scratch" "$PEER" "$scratch/stop.elf")
      peer=$(timed sh -c 'cd "$0" && exec "$1" "$2"' "$scratch" "$PEER" "$scratch/$workload.elf")
      peer_run=$(awk -v a="$peer" -v b="$peer_start" 'BEGIN { printf "%.3f", a - b }')
      if grep -qE '^[0-9]{3}:' "$scratch/out"; then
        if cmp -s <(spusim_registers "$scratch/new.out") <(peer_registers "$scratch/out"); then
          peer_note="; registers as the peer's"
        else
          peer_note="; registers DIFFER from the peer's"
        fi
      fi
      peer_note="$(awk -v a="$new_run" -v b="$peer_run" 'BEGIN { printf "%.2fx peer", b / a }')$peer_note"
    fi
    awk -v w="$workload" -v m="$mode" -v i="$instructions" -v c="$cycles" -v n="$new_run" \
      -v o="$old_run" -v p="$peer_run" -v note="$peer_note" -v v="$verdict" 'BEGIN {
        printf "%-12s %-11s %12d %12d | %9.3f %9.3f %9s | %10.1f %10.1f | %7.2f %s%s%s\n",
          w, m, i, c, n, o, p, i / n / 1e6, c / n / 1e6, o / n, note, (note == "" ? "" : "; "), v
      }'
  done
done
