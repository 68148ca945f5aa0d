# Benchmark workload: a double-buffered DMA stream. 1 MiB of main memory from EA 0 comes in
# 16 KiB blocks (tags 0 and 1, LS buffers 0x10000 and 0x14000): the get of block k+1 goes out
# before block k is summed, so the transfer overlaps the sum. The stream runs PASSES times
# (16 MiB moved in all); the word sums of the four lanes end in $20, and their first word goes
# to the outbound mailbox. The sum loop's branch is hinted, as compilers hint loops.
#
#   cargo spusim -- --ea-load data.bin@0 spu/programs/bench_dma_stream.s
        .set    BLOCK, 16384
        .set    BLOCKS, 64
        .set    PASSES, 16
        .text
_start:
        il      $20,0                   # the sums
        il      $9,PASSES
pass:
        il      $10,0                   # block being summed
        ila     $2,0x10000              # block 0 into buffer 0, tag 0
        wrch    $MFC_LSA,$2
        il      $2,0
        wrch    $MFC_EAH,$2
        wrch    $MFC_EAL,$2
        ila     $2,BLOCK
        wrch    $MFC_Size,$2
        il      $2,0
        wrch    $MFC_TagID,$2
        il      $2,0x40                 # get
        wrch    $MFC_Cmd,$2
next:
        ai      $11,$10,1               # the block to fetch now, if there is one
        cgti    $12,$11,BLOCKS-1
        brnz    $12,wait
        andi    $13,$11,1               # its buffer and tag
        shli    $14,$13,14
        ila     $15,0x10000
        a       $15,$15,$14
        wrch    $MFC_LSA,$15
        shli    $16,$11,14              # EA = block * 16 KiB (MFC_EAH and MFC_Size stay)
        wrch    $MFC_EAL,$16
        wrch    $MFC_TagID,$13
        il      $2,0x40
        wrch    $MFC_Cmd,$2
wait:
        andi    $17,$10,1               # wait for the block to sum
        il      $2,1
        shl     $2,$2,$17
        wrch    $MFC_WrTagMask,$2
        il      $2,2                    # all
        wrch    $MFC_WrTagUpdate,$2
        rdch    $2,$MFC_RdTagStat
        shli    $18,$17,14
        ila     $19,0x10000
        a       $19,$19,$18
        ila     $21,BLOCK/64            # 64 bytes an iteration
        hbrr    sum_branch,sum
sum:
        lqd     $22,0($19)
        lqd     $23,16($19)
        lqd     $24,32($19)
        lqd     $25,48($19)
        a       $20,$20,$22
        a       $20,$20,$23
        a       $20,$20,$24
        a       $20,$20,$25
        ai      $19,$19,64
        ai      $21,$21,-1
sum_branch:
        brnz    $21,sum
        ai      $10,$10,1
        cgti    $12,$10,BLOCKS-1
        brz     $12,next
        ai      $9,$9,-1
        brnz    $9,pass
        wrch    $SPU_WrOutMbox,$20
        stop
