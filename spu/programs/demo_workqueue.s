# MFC demo 2: a work queue shared by every SPU through one atomic counter in main memory.
#
# The host gives four words through the inbound mailbox: this SPU's number, the number of
# items, the EA of the counter's 128-byte line (the counter is its first word) and the EA of
# the results (16 bytes per item, then 16 bytes per SPU for the summaries).
#
# Taking an item is the lock-line pattern of spu_mfcio.h: getllar loads the line and reserves
# it, the SPU adds 1 to the counter in its copy, putllc stores the line only if nobody wrote it
# since; MFC_RdAtomicStat bit 0 set means the reservation was lost (another SPU's putllc came
# first) and the SPU takes the line again. So every item number is handed out exactly once,
# however the SPUs interleave.
#
# Each item's result is 16 rounds of xorshift32 from item ^ 0x2545f491; its entry
# {item, result, SPU, ordinal} (ordinal: the how-manieth item of this SPU, from 0) is put to
# results + 16 * item from a ring of 8 local-store slots, one tag group each, so a slot is
# reused only after its earlier put has read it. At the end the SPU puts its summary
# {SPU, items taken, putllc failures, 0} to results + 16 * (items + SPU).
#
#   cargo spusim -- --stats --in-mbox 0 --in-mbox 64 --in-mbox 0 --in-mbox 0x1000 \
#       --ea-dump 0x1000:32 spu/programs/demo_workqueue.s
        LINE = 0x8000                   # LS of the counter line (128-byte aligned)
        SLOTS = 0x8080                  # LS of the 8 result slots
        ROUNDS = 16                     # xorshift32 rounds per item

# Writes the parameters of a command on the counter line (LSA, EAH, EAL) and issues `cmd`,
# then waits for its atomic status into $2.
.macro atomic cmd
        wrch    $MFC_LSA,$9
        wrch    $MFC_EAH,$10
        wrch    $MFC_EAL,$5
        il      $2,\cmd
        wrch    $MFC_Cmd,$2
        rdch    $2,$MFC_RdAtomicStat
.endm

        .text
_start:
        rdch    $3,$SPU_RdInMbox        # this SPU's number
        rdch    $4,$SPU_RdInMbox        # items
        rdch    $5,$SPU_RdInMbox        # EA of the counter line
        rdch    $6,$SPU_RdInMbox        # EA of the results
        il      $7,0                    # items taken
        il      $8,0                    # putllc failures
        ila     $9,LINE
        il      $10,0                   # EAs are below 4 GiB
        il      $26,16                  # every put here moves one entry
        ilhu    $27,0x2545
        iohl    $27,0xf491              # the item's seed
take:
        atomic  0xD0                    # getllar: the line, reserved
        lqd     $11,0($9)
        clgt    $12,$4,$11              # items > counter: work left
        brz     $12,finished
        ai      $13,$11,1
        cwd     $14,0($9)               # the counter + 1 into word 0 of the line
        shufb   $15,$13,$11,$14
        stqd    $15,0($9)
        atomic  0xB4                    # putllc
        andi    $2,$2,1                 # MFC_PUTLLC_STATUS: the reservation was lost
        brz     $2,claimed
        ai      $8,$8,1
        br      take
claimed:
        xor     $16,$11,$27             # the item's work: xorshift32 rounds
        il      $17,ROUNDS
work:
        shli    $18,$16,13
        xor     $16,$16,$18
        rotmi   $18,$16,-17             # logical shift right by 17
        xor     $16,$16,$18
        shli    $18,$16,5
        xor     $16,$16,$18
        ai      $17,$17,-1
        brnz    $17,work
        andi    $19,$7,7                # slot and tag group of this entry
        il      $2,1
        shl     $2,$2,$19
        wrch    $MFC_WrTagMask,$2       # wait for the slot's earlier put
        il      $2,2
        wrch    $MFC_WrTagUpdate,$2
        rdch    $2,$MFC_RdTagStat
        shli    $20,$19,4
        ila     $21,SLOTS
        a       $20,$20,$21             # LS of the slot
        cwd     $22,0($20)              # entry {item, result, SPU, ordinal}
        shufb   $23,$11,$23,$22
        cwd     $22,4($20)
        shufb   $23,$16,$23,$22
        cwd     $22,8($20)
        shufb   $23,$3,$23,$22
        cwd     $22,12($20)
        shufb   $23,$7,$23,$22
        stqd    $23,0($20)
        shli    $24,$11,4
        a       $24,$24,$6              # EA of the item's entry
        wrch    $MFC_LSA,$20
        wrch    $MFC_EAH,$10
        wrch    $MFC_EAL,$24
        wrch    $MFC_Size,$26
        wrch    $MFC_TagID,$19
        il      $2,0x20                 # put
        wrch    $MFC_Cmd,$2
        ai      $7,$7,1
        br      take
finished:
        il      $2,0xff                 # every entry's put done
        wrch    $MFC_WrTagMask,$2
        il      $2,2
        wrch    $MFC_WrTagUpdate,$2
        rdch    $2,$MFC_RdTagStat
        ila     $20,SLOTS
        cwd     $22,0($20)              # summary {SPU, items taken, putllc failures, 0}
        shufb   $23,$3,$23,$22
        cwd     $22,4($20)
        shufb   $23,$7,$23,$22
        cwd     $22,8($20)
        shufb   $23,$8,$23,$22
        cwd     $22,12($20)
        shufb   $23,$10,$23,$22
        stqd    $23,0($20)
        a       $24,$4,$3               # EA of the summary: results + 16 * (items + SPU)
        shli    $24,$24,4
        a       $24,$24,$6
        wrch    $MFC_LSA,$20
        wrch    $MFC_EAH,$10
        wrch    $MFC_EAL,$24
        wrch    $MFC_Size,$26
        il      $2,0
        wrch    $MFC_TagID,$2
        il      $2,0x20
        wrch    $MFC_Cmd,$2
        il      $2,1
        wrch    $MFC_WrTagMask,$2
        il      $2,2
        wrch    $MFC_WrTagUpdate,$2
        rdch    $2,$MFC_RdTagStat
        stop    0x2000
