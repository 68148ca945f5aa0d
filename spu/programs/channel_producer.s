# Channel pair, producer: sends 256 words of a xorshift32 sequence (seed 0x2545f), one `wrch`
# to its outbound mailbox (SPU_WrOutMbox, capacity 1) each. The firmware carries every word to
# the consumer SPU's inbound mailbox through a queue shared by the two cores; a write to a full
# mailbox blocks, and each cycle it waits is a channel stall.
        .text
_start:
        ila     $3,0x2545f              # generator state
        il      $4,256                  # words to send
send:
        shli    $5,$3,13
        xor     $3,$3,$5
        rotmi   $5,$3,-17               # logical shift right by 17
        xor     $3,$3,$5
        shli    $5,$3,5
        xor     $3,$3,$5
        wrch    SPU_WrOutMbox,$3
        ai      $4,$4,-1
        brnz    $4,send
        stop    0x2000
