# A PS3 raw SPU: two words through the interrupt mailbox (the PPE's interrupt thread reads
# them), a print request, then `stop 0x102`. Expected: stdout "raw 9\n"; two interrupt
# mailbox notices (0x00000000, 0x000000ab); the status register after the stop 0x01020002.
        .include "lv2.inc"
        .data
text:   .asciz  "raw %d\n"
        .text
main:
        stqd    $0,16($1)
        stqd    $1,-48($1)
        ai      $1,$1,-48
        il      $2,0
        wrch    $ch30,$2
        il      $2,0xab
        wrch    $ch30,$2
        ila     $3,text
        il      $4,9
        brsl    $0,spu_printf
        il      $3,0
        br      sys_spu_thread_exit
