# Rule: an SPU load or store of local-store bytes that a pending get writes races with the get
# (the data may or may not have arrived). The get is pending from its `wrch $MFC_Cmd` until a
# tag-status read shows its group complete.
#
# $3 (start argument 1, low word) picks the variant:
#   0  waits for the get, then loads: no race
#   1  loads first (`racy_load`): a race with the get issued at `get_block`+0x30
#   2  stores first (`racy_store`): a race with the same get
#
#   cargo spusim -- --check-dma --spu-arg 1=1 spu/programs/races/load_get.s
        .include "dma.inc"
        .text
_start:
        rotqbyi $3,$3,4                 # the argument's low word
get_block:
        dma     0x40,0x4000,0x10000,256,3       # get 256 bytes into LS 0x4000, tag 3
        ceqi    $4,$3,1
        brnz    $4,racy_load
        ceqi    $4,$3,2
        brnz    $4,racy_store
        wait    8
        lqa     $10,0x4010
        stop    0x2000
racy_load:
        lqa     $10,0x4010              # LS 0x4010..0x4020: the get may not have written it
        wait    8
        stop    0x2000
racy_store:
        stqa    $10,0x40f0              # LS 0x40f0..0x4100: the get may overwrite it after
        wait    8
        stop    0x2000
