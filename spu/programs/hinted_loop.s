# A counted loop whose backward branch is hinted with hbrr: with `--fetch real` the hinted
# branch is predicted taken, so a steady-state iteration has no branch penalty.
# Result: $4 = 3 * 100 = 300.
        .text
_start:
        il      $3, 100             # iterations
        il      $4, 0
        hbrr    back, loop          # the branch at `back` goes to `loop`
        nop
        nop
        nop
        nop
        nop
        nop
        nop
loop:
        ai      $4, $4, 3
        lnop
        nop
        lnop
        nop
        lnop
        ai      $3, $3, -1
        lnop
        nop
        lnop
        nop
        lnop
        nop
back:   brnz    $3, loop
        stop    0x2000
