# Rule across SPUs: a put and another SPU's get (or put) of overlapping main memory race
# unless something orders them: the putting SPU sees its put complete (a tag wait), then
# tells the other (a signal, a mailbox through the host, a lock line), and only then does the
# other issue its command. Run as a group of two: `--threads 2 --spu-arg 1:2=1`.
#
# Thread 0 puts 256 bytes from LS 0x3000 to EA 0x40000 (at `put_data`+0x30); thread 1 gets
# them back (at `get_data`+0x30). $3 (start argument 1, low word) picks the variant:
#   0  thread 0 waits for its put, then signals thread 1 (sndsig to its signal register 1);
#      thread 1 waits for the signal, then gets: no race
#   1  nothing orders them: thread 1's get races with thread 0's put
#   2  thread 0 signals without waiting for its put: a race (the signal may arrive first)
#   3  thread 0 signals with `sndsigf` in the put's group (fenced behind the put): no race
#   4  thread 0 waits for its put, then sets a flag line with getllar/putlluc; thread 1
#      polls the line with getllar until the flag is set, then gets: no race
# $4 (start argument 2, low word): the thread, 0 or 1.
        .include "dma.inc"
        SIGNAL1_OF_SPU1 = 0xf015400c    # SPU1's signal-notification register 1
        .data
        .balign 16
one:    .long   0, 0, 0, 1              # the word `sndsig` sends: LSA low bits 0xc, as the EA's
        .balign 128
flag:   .space  128                     # the flag line's local copy
        .text
_start:
        rotqbyi $3,$3,4
        rotqbyi $4,$4,4
        brnz    $4,thread1

put_data:
        dma     0x20,0x3000,0x40000,256,1       # put, tag 1
        ceqi    $5,$3,1
        brnz    $5,done0
        ceqi    $5,$3,2
        brnz    $5,signal
        ceqi    $5,$3,3
        brnz    $5,fenced_signal
        wait    2
        ceqi    $5,$3,4
        brnz    $5,set_flag
signal:
        dma     0xa0,one+12,SIGNAL1_OF_SPU1,4,1 # sndsig
        br      done0
fenced_signal:
        dma     0xa2,one+12,SIGNAL1_OF_SPU1,4,1 # sndsigf, tag 1: after the put
        br      done0
set_flag:
        dma     0xd0,flag,0x50000,128,0         # getllar the flag line
        rdch    $2,$MFC_RdAtomicStat
        il      $6,1
        stqa    $6,flag
        dma     0xb0,flag,0x50000,128,0         # putlluc: the flag is 1
        rdch    $2,$MFC_RdAtomicStat
done0:
        wait    2
        stop    0x2000
thread1:
        ceqi    $5,$3,1
        brnz    $5,get_data
        ceqi    $5,$3,4
        brnz    $5,poll
        rdch    $6,$SPU_RdSigNotify1    # waits for thread 0's signal
        br      get_data
poll:
        dma     0xd0,flag,0x50000,128,0
        rdch    $2,$MFC_RdAtomicStat
        lqa     $6,flag
        brz     $6,poll
get_data:
        dma     0x40,0x3000,0x40000,256,1       # get, tag 1
        wait    2
        stop    0x2000
