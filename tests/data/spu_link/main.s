# main: counts calls in .data, sums a table with helper() from util.s, keeps scratch in
# .lcomm and a common block shared with util.s.
        .text
        .global main
        .type   main, @function
main:
        stqd    $lr, 16($sp)
        ai      $sp, $sp, -32
        lqr     $4, calls
        ai      $4, $4, 1
        stqr    $4, calls
        ila     $3, table
        il      $4, 4
        brsl    $lr, helper
        stqr    $3, scratch
        ila     $5, shared
        ai      $sp, $sp, 32
        lqd     $lr, 16($sp)
        bi      $lr
        .size   main, . - main

        .section .rodata
        .align  4
table:  .long   1, 2, 3, 4

        .data
        .align  4
calls:  .long   0, 0, 0, 0

        .lcomm  scratch, 16
        .comm   shared, 32, 16
