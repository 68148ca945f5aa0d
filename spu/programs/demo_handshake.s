# MFC demo 3: a handshake between two SPUs through signal notification and events.
#
# The host gives two words through the inbound mailbox: the partner SPU's number and the
# rounds to play. Each round the SPU waits for the S1 event (its signal-notification
# register 1 was written: SPU_RdEventStat with the mask 0x200), acknowledges it
# (SPU_WrEventAck), reads the counter from SPU_RdSigNotify1, adds 1 and sends it with sndsig
# to the partner's register 1, whose EA is 0xF0000000 + partner * 0x100000 + 0x5400C (the
# problem-state window of the partner; sndsig moves the word at an LS address with the same
# low 4 bits, 0xC). Both SPUs run this program; the host starts the game by writing the first
# SPU's register. The last counter received goes to the outbound mailbox.
#
# Alone (the partner is itself), it plays against itself:
#   cargo spusim -- --stats --signal1 0 --in-mbox 0 --in-mbox 100 --regs \
#       spu/programs/demo_handshake.s
        SIGNAL_WORD = 0x800C            # LS of the word sndsig sends
        EVENT_S1 = 0x200

        .text
_start:
        rdch    $3,$SPU_RdInMbox        # partner
        rdch    $4,$SPU_RdInMbox        # rounds
        shli    $5,$3,20                # partner * 0x100000
        ilhu    $6,0xf005
        iohl    $6,0x400c
        a       $5,$5,$6                # EA of the partner's signal register 1
        il      $7,0                    # rounds played
        il      $8,EVENT_S1
        wrch    $SPU_WrEventMask,$8
        ila     $9,SIGNAL_WORD
        il      $10,0
        il      $11,4
round:
        rdch    $12,$SPU_RdEventStat    # waits for S1
        wrch    $SPU_WrEventAck,$12
        rdch    $13,$SPU_RdSigNotify1   # the counter
        ai      $14,$13,1
        cwd     $15,0($9)               # into word 3 of the quadword at 0x8000
        lqd     $16,0($9)
        shufb   $16,$14,$16,$15
        stqd    $16,0($9)
        wrch    $MFC_LSA,$9
        wrch    $MFC_EAH,$10
        wrch    $MFC_EAL,$5
        wrch    $MFC_Size,$11
        wrch    $MFC_TagID,$10
        il      $2,0xA0                 # sndsig
        wrch    $MFC_Cmd,$2
        il      $2,1                    # wait until it has left: the word is reused
        wrch    $MFC_WrTagMask,$2
        il      $2,2
        wrch    $MFC_WrTagUpdate,$2
        rdch    $2,$MFC_RdTagStat
        ai      $7,$7,1
        ceq     $2,$7,$4
        brz     $2,round
        wrch    $SPU_WrOutMbox,$13
        stop    0x2000
