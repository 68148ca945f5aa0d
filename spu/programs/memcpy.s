# Copy 64 bytes (4 quadwords) from src to dst with lqd/stqd.
# Expected at the stop: the 64 bytes at dst equal those at src; $12 = 0.
        .text
_start:
        ila     $10,src
        ila     $11,dst
        il      $12,4
copy:
        lqd     $13,0($10)
        ai      $10,$10,16
        ai      $12,$12,-1
        stqd    $13,0($11)
        ai      $11,$11,16
        brnz    $12,copy
        stop    0x2000

        .data
        .align  4
src:
        .word   0x00010203, 0x04050607, 0x08090a0b, 0x0c0d0e0f
        .word   0x10111213, 0x14151617, 0x18191a1b, 0x1c1d1e1f
        .word   0xdeadbeef, 0xcafef00d, 0x01234567, 0x89abcdef
        .word   0xffffffff, 0x00000000, 0x80000000, 0x7fffffff
dst:
        .space  64
