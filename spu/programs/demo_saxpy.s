# Demo kernel 1: SAXPY, y = a*x + y, over 512 single-precision floats, repeated PASSES times,
# with fma and a hinted inner loop (hbrr before the loop: the loop branch is predicted taken).
#
# x[i] = i and y[i] = 1.0 are built first (csflt), a = 0.5, so after PASSES passes
# y[i] = 1 + PASSES * i / 2: every value is an integer or a half below 2^24, exact in single
# precision whatever the rounding, and the firmware checks all 512 against Rust f32 arithmetic.
        .text
_start:
        and     $0,$0,$0                # prof_cp0: clear the counters
        ila     $10,x
        ila     $11,y
        il      $12,128                 # quadwords per vector
        lqa     $16,iota                # {0, 1, 2, 3}
        il      $17,4
        ilhu    $19,0x3f80              # 1.0 in every word
        ilhu    $20,0x3f00              # a = 0.5 in every word
init:
        csflt   $18,$16,0               # x = float(i)
        a       $16,$16,$17
        stqd    $18,0($10)
        stqd    $19,0($11)
        ai      $10,$10,16
        ai      $11,$11,16
        ai      $12,$12,-1
        brnz    $12,init
        and     $30,$30,$30             # prof_cp30: start
        il      $21,32                  # PASSES
pass:
        ila     $10,x
        ila     $11,y
        il      $12,128
        hbrr    saxpy_branch,saxpy
saxpy:
        lqd     $13,0($10)
        lqd     $14,0($11)
        ai      $10,$10,16
        ai      $11,$11,16
        ai      $12,$12,-1
        fma     $14,$20,$13,$14         # y = a*x + y
        stqd    $14,-16($11)
saxpy_branch:
        brnz    $12,saxpy
        ai      $21,$21,-1
        brnz    $21,pass
        and     $31,$31,$31             # prof_cp31: stop
        stop    0x2000

        .data
        .align  4
iota:   .word   0, 1, 2, 3
x:      .space  2048
y:      .space  2048
