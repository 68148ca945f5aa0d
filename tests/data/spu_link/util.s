# helper(table, count): the sum of count words of table, a loop with a local label of the
# same name as others may have (`loop` is local to this file).
        .text
        .global helper
        .type   helper, @function
helper:
        il      $5, 0
loop:   lqd     $6, 0($3)
        a       $5, $5, $6
        ai      $3, $3, 4
        ai      $4, $4, -1
        brnz    $4, loop
        ori     $3, $5, 0
        bi      $lr
        .size   helper, . - helper
        .hidden helper_count
        .global helper_count
        .data
helper_count: .long 0
        .comm   shared, 16              # merged with main.s's: 32 bytes, 16-aligned
        .section .rodata.str1.1, "aMS", @progbits, 1
greeting: .asciz "hi"
