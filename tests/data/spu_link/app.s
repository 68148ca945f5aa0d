# Symbols the link defines: LIMIT and BUFFER by --defsym, `alias` by --defsym alias=main+4
# (the `ai`: the loop counts LIMIT down).
        .text
        .global _start
_start:
        il      $3, LIMIT
        ila     $4, BUFFER
        brsl    $lr, main
        stop    0x2000
        .global main
main:   lnop
        ai      $3, $3, -1
        brnz    $3, alias
        bi      $lr
