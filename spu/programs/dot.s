# Dot product of two 16-element single-precision vectors with fma.
# vec_a = vec_b = 1.0 .. 16.0, so the result is 1^2 + ... + 16^2 = 1496.0 (0x44bb0000),
# left in the preferred slot of $3.
        .text
_start:
        and     $0,$0,$0        # prof_cp0
        and     $30,$30,$30     # prof_cp30
        ila     $10,vec_a
        ila     $11,vec_b
        il      $12,4           # quadwords per vector
        il      $20,0           # four partial sums of 0.0
dot:
        lqd     $13,0($10)
        lqd     $14,0($11)
        ai      $10,$10,16
        ai      $11,$11,16
        ai      $12,$12,-1
        fma     $20,$13,$14,$20
        brnz    $12,dot
        # Sum the four lanes.
        rotqbyi $21,$20,8
        fa      $20,$20,$21
        rotqbyi $21,$20,4
        fa      $3,$20,$21
        and     $31,$31,$31     # prof_cp31
        stop    0x2000

        .data
        .align  4
vec_a:
        .word   0x3f800000, 0x40000000, 0x40400000, 0x40800000   # 1 2 3 4
        .word   0x40a00000, 0x40c00000, 0x40e00000, 0x41000000   # 5 6 7 8
        .word   0x41100000, 0x41200000, 0x41300000, 0x41400000   # 9 10 11 12
        .word   0x41500000, 0x41600000, 0x41700000, 0x41800000   # 13 14 15 16
vec_b:
        .word   0x3f800000, 0x40000000, 0x40400000, 0x40800000
        .word   0x40a00000, 0x40c00000, 0x40e00000, 0x41000000
        .word   0x41100000, 0x41200000, 0x41300000, 0x41400000
        .word   0x41500000, 0x41600000, 0x41700000, 0x41800000
