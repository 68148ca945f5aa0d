# Channel pair, consumer: reads 256 words from its inbound mailbox (SPU_RdInMbox, 4 entries),
# one `rdch` each, and folds them into a sum ($9) and a rotate-xor checksum ($10) that the
# firmware compares with the same fold of the producer's sequence in Rust. A read of an empty
# mailbox blocks, and each cycle it waits is a channel stall.
        .text
_start:
        il      $9,0                    # sum
        il      $10,0                   # checksum: rotl(c, 5) ^ word
        il      $4,256                  # words to receive
receive:
        rdch    $3,SPU_RdInMbox
        a       $9,$9,$3
        roti    $10,$10,5
        xor     $10,$10,$3
        ai      $4,$4,-1
        brnz    $4,receive
        stop    0x2000
