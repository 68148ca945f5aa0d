# Calls for the per-function profile (`spusim --profile`): `_start` calls `outer` twice and
# `leaf` once; `outer` calls `leaf` once each time; `leaf` runs a loop of 10 iterations.
# Instructions per function (counted from the text below):
#   _start: 6 (il, brsl, brsl, brsl, il, stop)        called 1 time (the root)
#   outer:  6 per call (ai, stqd, brsl, lqd, ai, bi) x 2 = 12     called 2 times
#   leaf:   2 + 3 x 10 + 1 = 33 per call x 3 = 99      called 3 times (twice from outer)
# Inclusive: leaf 99, outer 12 + 66 = 78, _start 6 + 78 + 33 = 117: every instruction.
# The folded stacks (instructions): _start 6, _start;outer 12, _start;outer;leaf 66,
# _start;leaf 33.
# The loop's label is local (`.L`, as compilers write them): a plain label would be a symbol
# of its own in the ELF file, which perf (`--profile-perf-data`) reports as a function.
        .text
_start:
        il      $10,0
        brsl    $lr,outer
        brsl    $lr,outer
        brsl    $lr,leaf
        il      $11,1
        stop    0x2000

outer:
        ai      $1,$1,-16               # keep the return address on the stack
        stqd    $lr,0($1)
        brsl    $lr,leaf
        lqd     $lr,0($1)
        ai      $1,$1,16
        bi      $lr

leaf:
        il      $4,10
        il      $5,0
.Lloop:
        a       $5,$5,$4
        ai      $4,$4,-1
        brnz    $4,.Lloop
        bi      $lr
