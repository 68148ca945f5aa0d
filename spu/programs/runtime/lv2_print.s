# spu_printf from an lv2 thread: C conversions of ints, a string, a char, a double, and the
# count printf returns; main's value is the exit status.
# Expected (C's printf rules): stdout "hello SPU: -42 beef A  2.50|\n" then "count 29\n";
# the thread exits with status 7.
        .include "lv2.inc"
        .data
first:  .asciz  "hello %s: %d %x %c %5.2f|\n"
second: .asciz  "count %d\n"
name:   .asciz  "SPU"
        .text
main:
        stqd    $0,16($1)
        stqd    $1,-48($1)
        ai      $1,$1,-48
        ila     $3,first
        ila     $4,name
        il      $5,-42
        ila     $6,0xbeef
        il      $7,65
        ilhu    $8,0x4004               # 2.5 = 0x4004000000000000 in the preferred doubleword
        fsmbi   $9,0xf000
        and     $8,$8,$9
        brsl    $0,spu_printf
        ori     $4,$3,0
        ila     $3,second
        brsl    $0,spu_printf
        il      $3,7
        ai      $1,$1,48
        lqd     $0,16($1)
        bi      $0
