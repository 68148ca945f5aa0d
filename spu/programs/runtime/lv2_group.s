# Two threads of one lv2 group (`--threads 2`) sharing a 128-byte line of main memory through
# the MFC's atomic commands. `--spu-arg 1=EA` gives both the line's address; thread 1 gets
# `--spu-arg 1:2=1`. Thread 1 adds 1 to the line's first word with getllar/putllc (again until
# the conditional store succeeds) and exits with status 1; thread 0 reads the line until the
# word is no longer 0, prints it and exits with status 0 (after 10 000 reads without a change
# it gives up with status 2: alone, nothing changes the line).
# Expected: stdout "seen 1\n"; thread 0 exits with 0, thread 1 with 1.
        .include "lv2.inc"
        .data
        .balign 128
line:   .space  128
seen:   .asciz  "seen %d\n"
        .text
# getllar / putllc of `line` at EA $3: $3 = MFC_RdAtomicStat.
getllar:
        ila     $2,line
        wrch    $MFC_LSA,$2
        il      $2,0
        wrch    $MFC_EAH,$2
        wrch    $MFC_EAL,$3
        il      $2,0xd0
        wrch    $MFC_Cmd,$2
        rdch    $3,$MFC_RdAtomicStat
        bi      $0
putllc:
        ila     $2,line
        wrch    $MFC_LSA,$2
        il      $2,0
        wrch    $MFC_EAH,$2
        wrch    $MFC_EAL,$3
        il      $2,0xb4
        wrch    $MFC_Cmd,$2
        rdch    $3,$MFC_RdAtomicStat
        bi      $0
main:
        stqd    $0,16($1)
        stqd    $1,-48($1)
        ai      $1,$1,-48
        rotqbyi $80,$3,4                # the line's EA: the argument's low word
        rotqbyi $81,$4,4                # the thread number
        brnz    $81,adder
        ila     $82,10000
watcher:
        ori     $3,$80,0
        brsl    $0,getllar
        lqa     $4,line
        brnz    $4,changed
        ai      $82,$82,-1
        brnz    $82,watcher
        il      $3,2
        br      done
changed:
        ila     $3,seen
        brsl    $0,spu_printf
        il      $3,0
        br      done
adder:
        ori     $3,$80,0
        brsl    $0,getllar
        lqa     $4,line
        ai      $4,$4,1
        stqa    $4,line
        ori     $3,$80,0
        brsl    $0,putllc
        brnz    $3,adder                # 1: the reservation was lost, try again
        il      $3,1
done:
        ai      $1,$1,48
        lqd     $0,16($1)
        bi      $0
