# Demo kernel 2: a dependency chain. A xorshift32 generator (each step needs the previous one)
# picks a quadword of a 64-entry table, which is read, added to a running sum and written
# back: loads and stores land on data-dependent addresses (the stack distance calculator
# watches them).
#
# The table starts as table[k] = {k, k, k, k}; the seed is 0x2545f. All four word lanes hold
# the same value throughout, so the firmware replays it with scalar u32 arithmetic and checks
# the final generator state ($3), the sum ($9) and the whole table.
        .text
_start:
        and     $0,$0,$0                # prof_cp0
        ila     $8,table
        il      $10,0
        il      $11,64
        ori     $12,$8,0
fill:
        stqd    $10,0($12)
        ai      $10,$10,1
        ai      $12,$12,16
        ai      $11,$11,-1
        brnz    $11,fill
        and     $30,$30,$30             # prof_cp30
        ila     $3,0x2545f              # generator state
        il      $9,0                    # running sum
        il      $15,0x3f0               # quadword index mask (64 entries x 16 bytes)
        il      $4,2000                 # STEPS
chain:
        shli    $5,$3,13
        xor     $3,$3,$5
        rotmi   $5,$3,-17               # logical shift right by 17
        xor     $3,$3,$5
        shli    $5,$3,5
        xor     $3,$3,$5
        and     $6,$3,$15
        lqx     $7,$8,$6
        a       $9,$9,$7
        stqx    $9,$8,$6
        ai      $4,$4,-1
chain_branch:
        brnz    $4,chain
        and     $31,$31,$31             # prof_cp31
        stop    0x2000

        .data
        .align  4
table:  .space  1024
