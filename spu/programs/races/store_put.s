# Rule: a store to local-store bytes that a pending put reads races with the put (main memory
# may get the old bytes or the new). Loading them is no race: both only read.
#
# $3 (start argument 1, low word) picks the variant:
#   0  waits for the put, then stores: no race
#   1  stores first (`racy_store`): a race with the put issued at `put_block`+0x30
#   2  loads first: no race
        .include "dma.inc"
        .text
_start:
        rotqbyi $3,$3,4
put_block:
        dma     0x20,0x5000,0x20000,256,4       # put LS 0x5000..0x5100 to EA 0x20000, tag 4
        ceqi    $4,$3,1
        brnz    $4,racy_store
        ceqi    $4,$3,2
        brnz    $4,load_first
        wait    16
        stqa    $10,0x5080
        stop    0x2000
racy_store:
        stqa    $10,0x5080              # LS 0x5080..0x5090: the put may read it before or after
        wait    16
        stop    0x2000
load_first:
        lqa     $10,0x5080
        wait    16
        stop    0x2000
