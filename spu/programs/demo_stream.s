# MFC demo 1: streaming over main memory in 16 KiB blocks, y = 1.5*x + 3 on single-precision
# floats, each block put back to main memory, with one local-store buffer or two.
#
# The host gives four words through the inbound mailbox: the buffer count (1 or 2), the EA of
# the input, the EA of the output and the number of blocks. Block k uses buffer and tag group
# k & (buffers - 1), so one source runs both ways:
#   one buffer:  get k, wait, compute, put k, getf k+1 (fenced: after the put read the buffer)
#   two buffers: getf k+1 into the other buffer first, then wait for k, compute, put k
# With two buffers the transfer of block k+1 (and the put of k-1) runs while block k is
# computed, which is what double buffering is for; with one, every transfer is waited out.
# The sum of the output words' bit patterns (mod 2^32) goes to the outbound mailbox at the end.
#
#   cargo spusim -- --stats --ea-load x.bin@0 --in-mbox 2 --in-mbox 0 --in-mbox 0x100000 \
#       --in-mbox 64 spu/programs/demo_stream.s
        BLOCK = 16384                   # bytes per block: the largest single transfer
        BUFFERS = 0x10000               # LS of buffer 0, buffer 1 follows (outside the image)

# Issues MFC command `cmd` for one block: LS address, EA and tag group in registers.
.macro block_dma cmd, lsa, ea, tag
        wrch    $MFC_LSA,\lsa
        wrch    $MFC_EAH,$9             # EAs are below 4 GiB
        wrch    $MFC_EAL,\ea
        wrch    $MFC_Size,$10
        wrch    $MFC_TagID,\tag
        il      $2,\cmd
        wrch    $MFC_Cmd,$2
.endm

# Waits until every command of the tag groups in `mask` (a register) completed.
.macro wait_tags mask
        wrch    $MFC_WrTagMask,\mask
        il      $2,2                    # MFC_TAG_UPDATE_ALL
        wrch    $MFC_WrTagUpdate,$2
        rdch    $2,$MFC_RdTagStat
.endm

        .text
_start:
        rdch    $3,$SPU_RdInMbox        # buffers: 1 or 2
        rdch    $4,$SPU_RdInMbox        # EA of the input
        rdch    $5,$SPU_RdInMbox        # EA of the output
        rdch    $6,$SPU_RdInMbox        # blocks
        ai      $7,$3,-1                # buffer mask: 0 or 1
        ceqi    $22,$7,0                # all ones with one buffer
        il      $9,0
        ila     $10,BLOCK
        ila     $11,BUFFERS
        ilhu    $12,0x3fc0              # a = 1.5 in every word
        ilhu    $13,0x4040              # b = 3.0 in every word
        il      $40,0                   # checksum, one lane per word
        il      $41,0
        il      $42,0
        il      $43,0
        il      $8,0                    # k: the block to compute
        block_dma 0x40,$11,$4,$9        # get block 0 into buffer 0, tag 0
block:
        and     $14,$8,$7               # buffer and tag of block k
        shli    $15,$14,14
        a       $15,$15,$11             # its LS address
        ai      $16,$8,1                # k + 1
        cgt     $17,$6,$16              # all ones if block k + 1 exists
        and     $18,$17,$7              # ... and there are two buffers
        brz     $18,wait
        and     $19,$16,$7              # buffer and tag of block k + 1
        shli    $20,$19,14
        a       $20,$20,$11
        shli    $21,$16,14
        a       $21,$21,$4              # EA of block k + 1
        block_dma 0x42,$20,$21,$19      # getf: after that buffer's last put
wait:
        il      $2,1
        shl     $23,$2,$14              # tag mask of block k
        wait_tags $23
        ori     $24,$15,0               # compute y = a*x + b in place, 64 bytes a turn
        il      $25,BLOCK/64
        hbrr    compute_branch,compute
compute:
        lqd     $30,0($24)
        lqd     $31,16($24)
        lqd     $32,32($24)
        lqd     $33,48($24)
        fma     $30,$30,$12,$13
        fma     $31,$31,$12,$13
        fma     $32,$32,$12,$13
        fma     $33,$33,$12,$13
        ai      $25,$25,-1
        a       $40,$40,$30
        a       $41,$41,$31
        a       $42,$42,$32
        a       $43,$43,$33
        stqd    $30,0($24)
        stqd    $31,16($24)
        stqd    $32,32($24)
        stqd    $33,48($24)
        ai      $24,$24,64
compute_branch:
        brnz    $25,compute
        shli    $21,$8,14
        a       $21,$21,$5              # EA of output block k
        block_dma 0x20,$15,$21,$14      # put block k
        and     $18,$17,$22             # one buffer and block k + 1 exists
        brz     $18,next
        shli    $21,$16,14
        a       $21,$21,$4
        block_dma 0x42,$11,$21,$9       # getf block k + 1: after the put above read it
next:
        ori     $8,$16,0
        brnz    $17,block
        il      $2,3
        wait_tags $2                    # the last puts
        a       $40,$40,$41             # fold the lanes, then the words
        a       $42,$42,$43
        a       $40,$40,$42
        rotqbyi $41,$40,8
        a       $40,$40,$41
        rotqbyi $41,$40,4
        a       $40,$40,$41
        wrch    $SPU_WrOutMbox,$40
        stop    0x2000
