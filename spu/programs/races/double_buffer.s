# Double buffering: four 1 KiB blocks from EA 0x10000 through two LS buffers (0x10000 and
# 0x10400; block k uses buffer and tag group k & 1), each block incremented word by word and
# put to EA 0x20000 + k*1K. The get of block k+1 (at `prefetch`+0x14) goes into the buffer
# the put of block k-1 (at `put_block`+0x14) is still reading.
#
# $3 (start argument 1, low word) picks the variant:
#   0  the prefetch is a `getf` (0x42): fenced behind the put of its group, no race
#   1  it is a plain `get` (0x40): it races with that put, twice (blocks 2 and 3 against the
#      puts of blocks 0 and 1), each a get writing LS the pending put reads
#
# At the end register $40 holds the sum of every word written: 4 blocks x 256 words, each
# the input word plus 1 (the input is zero unless --ea-load gives one): 1024.
        BLOCKS = 4
        .include "dma.inc"
        .text
_start:
        rotqbyi $3,$3,4
        il      $30,0x42                # getf
        brz     $3,fenced
        il      $30,0x40                # get
fenced:
        il      $2,0
        wrch    $MFC_EAH,$2
        ila     $11,0x10000             # buffer 0
        ila     $12,0x10000             # EA of the input
        ila     $13,0x20000             # EA of the output
        il      $40,0
        il      $8,0                    # k
        il      $9,0x40
        dmar    $9,$11,$12,1024,$8      # get block 0 into buffer 0, tag 0
block:
        andi    $14,$8,1                # buffer and tag of block k
        shli    $15,$14,10
        a       $15,$15,$11             # its LS address
        ai      $16,$8,1                # k + 1
        cgti    $17,$16,BLOCKS-1        # all ones when block k + 1 does not exist
        brnz    $17,wait_block
        andi    $19,$16,1               # buffer and tag of block k + 1
        shli    $20,$19,10
        a       $20,$20,$11
        shli    $21,$16,10
        a       $21,$21,$12             # EA of block k + 1
prefetch:
        dmar    $30,$20,$21,1024,$19
wait_block:
        il      $2,1
        shl     $23,$2,$14
        waitr   $23
        ori     $24,$15,0
        il      $25,64                  # quadwords in a block
        il      $26,1
compute:
        lqd     $27,0($24)
        a       $27,$27,$26
        stqd    $27,0($24)
        a       $40,$40,$27
        ai      $24,$24,16
        ai      $25,$25,-1
        brnz    $25,compute
        shli    $21,$8,10
        a       $21,$21,$13             # EA of output block k
        il      $9,0x20
put_block:
        dmar    $9,$15,$21,1024,$14     # put block k, its buffer's tag
        ori     $8,$16,0
        brz     $17,block
        il      $2,3
        waitr   $2
        rotqbyi $41,$40,8               # fold the four lanes
        a       $40,$40,$41
        rotqbyi $41,$40,4
        a       $40,$40,$41
        stop    0x2000
