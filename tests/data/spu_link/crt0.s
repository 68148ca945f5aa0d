# A C runtime start in the manner of newlib's SPU crt0: the stack below __stack, main
# called, its result stopped with. Linked with main.s and util.s (tests/data/spu_link).
        .file   "crt0.s"
        .comm   __ea_local_store, 16, 16
        .text
        .global _start
        .type   _start, @function
_start:
        stqr    $6, __ea_local_store
        ila     $sp, __stack            # the script's PROVIDE (__stack = 0x3fff0)
        il      $lr, 0
        stqd    $lr, 0($sp)
        stqd    $sp, -32($sp)
        ai      $sp, $sp, -32
        ila     $3, _end                # the script's end of .bss
        brsl    $lr, main
        stop    0x2000
        .size   _start, . - _start
