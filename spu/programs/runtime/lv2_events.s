# lv2's event calls from a thread. Run with `--event-queue 5 --event-queue 7=1,2,3
# --event-port 2`. Expected (lv2's answers, docs/spu-runtimes.md):
#   try 5: 8001000a      (queue 5 is bound and empty: EBUSY)
#   receive 7: 0 1 2 3   (CELL_OK and the event's data)
#   receive 9: 80010002  (no queue bound to 9: EINVAL)
#   send 2: 0            (port 2 is connected to the host: CELL_OK)
#   send 3: 80010016     (port 3 is connected to nothing: ENOTCONN)
# then a thrown event on port 2 (no answer), a yield, and the group exits with status 3.
        .include "lv2.inc"
        .data
try_line:       .asciz  "try 5: %x\n"
receive_line:   .asciz  "receive 7: %x %x %x %x\n"
unbound_line:   .asciz  "receive 9: %x\n"
send_line:      .asciz  "send %d: %x\n"
        .text
main:
        stqd    $0,16($1)
        stqd    $1,-48($1)
        ai      $1,$1,-48
        il      $3,5
        brsl    $0,try_receive_event
        ori     $4,$3,0
        ila     $3,try_line
        brsl    $0,spu_printf
        il      $3,7
        brsl    $0,receive_event
        ori     $7,$6,0
        ori     $6,$5,0
        ori     $5,$4,0
        ori     $4,$3,0
        ila     $3,receive_line
        brsl    $0,spu_printf
        il      $3,9
        brsl    $0,receive_event
        ori     $4,$3,0
        ila     $3,unbound_line
        brsl    $0,spu_printf
        il      $3,2
        il      $4,0x12
        il      $5,0x34
        brsl    $0,send_event
        ori     $5,$3,0
        il      $4,2
        ila     $3,send_line
        brsl    $0,spu_printf
        il      $3,3
        il      $4,0
        il      $5,0
        brsl    $0,send_event
        ori     $5,$3,0
        il      $4,3
        ila     $3,send_line
        brsl    $0,spu_printf
        il      $3,2
        il      $4,0x56
        il      $5,0x78
        brsl    $0,throw_event
        brsl    $0,sys_spu_thread_group_yield
        il      $3,3
        br      sys_spu_thread_group_exit
