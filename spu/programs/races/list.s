# Rules for lists: each element's local-store bytes are the list's as a get's (or a put's)
# are, and the MFC reads the element array as it goes, so a store to elements it has not yet
# read races with the list. After a stall-and-notify element it reads the next ones only after
# `MFC_WrListStallAck`: the program may rewrite them once it has seen the stall.
#
# The list (tag 2, data to LS 0x6000, issued at `issue`+0x28) has three elements: 128 bytes
# from EA 0x11000 (LS 0x6000), 128 from 0x12000 (LS 0x6080), 64 from 0x13000 (LS 0x6100).
# $3 (start argument 1, low word) picks the variant:
#   0  waits, then loads element 2's data: no race
#   1  loads element 2's data first (`racy_load`): a race with element 2
#   2  stores to the element array first (`racy_store`: elements 0 and 1): a race
#   3  element 0 has stall-and-notify: the program waits for the stall, rewrites elements 1
#      and 2 (to EA 0x14000 and 0x15000), acknowledges and waits: no race
#   4  as 3, but rewrites them before it has seen the stall (`racy_rewrite`): a race
#   5  as 3, seeing the stall through the list-stall event (Sn) instead of the status: no race
        .include "dma.inc"
        .data
        .balign 16
plain:  .long   128, 0x11000, 128, 0x12000, 64, 0x13000
        .balign 16
stalls: .long   0x80000080, 0x11000, 128, 0x12000, 64, 0x13000
        .balign 16
new01:  .long   0x80000080, 0x11000, 128, 0x14000       # elements 0 and 1, rewritten
new2:   .long   64, 0x15000, 0, 0                       # element 2, rewritten
        .text
_start:
        rotqbyi $3,$3,4
        ila     $5,plain
        cgti    $4,$3,2
        brz     $4,issue
        ila     $5,stalls
        il      $2,2                    # Sn: the list-stall event, for variant 5
        wrch    $SPU_WrEventMask,$2
issue:
        ila     $2,0x6000
        wrch    $MFC_LSA,$2
        il      $2,0
        wrch    $MFC_EAH,$2
        wrch    $MFC_EAL,$5             # the list's LS address
        il      $2,24                   # three elements
        wrch    $MFC_Size,$2
        il      $2,2
        wrch    $MFC_TagID,$2
        il      $2,0x44                 # getl
        wrch    $MFC_Cmd,$2
        lqa     $11,new01
        lqa     $12,new2
        ceqi    $4,$3,1
        brnz    $4,racy_load
        ceqi    $4,$3,2
        brnz    $4,racy_store
        ceqi    $4,$3,3
        brnz    $4,after_stall
        ceqi    $4,$3,4
        brnz    $4,racy_rewrite
        ceqi    $4,$3,5
        brnz    $4,stall_event
        wait    4
        lqa     $10,0x6100
        stop    0x2000
racy_load:
        lqa     $10,0x6100              # element 2's LS: 0x6100..0x6140
        wait    4
        stop    0x2000
racy_store:
        stqd    $10,0($5)               # elements 0 and 1 of the array
        wait    4
        stop    0x2000
after_stall:
        rdch    $6,$MFC_RdListStallStat # the stalled list's group: 4 (tag 2)
        stqd    $11,0($5)
        stqd    $12,16($5)
        il      $2,2
        wrch    $MFC_WrListStallAck,$2
        wait    4
        stop    0x2000
racy_rewrite:
        stqd    $11,0($5)
        stqd    $12,16($5)
        rdch    $6,$MFC_RdListStallStat
        il      $2,2
        wrch    $MFC_WrListStallAck,$2
        wait    4
        stop    0x2000
stall_event:
        rdch    $6,$SPU_RdEventStat     # waits for Sn
        wrch    $SPU_WrEventAck,$6
        stqd    $11,0($5)
        stqd    $12,16($5)
        il      $2,2
        wrch    $MFC_WrListStallAck,$2
        wait    4
        stop    0x2000
