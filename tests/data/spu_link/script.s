# The symbols spu-ld's default script PROVIDEs to a source that uses them: the text and
# data ends, the start of the text segment, and the init/fini array bounds it makes local
# (PROVIDE_HIDDEN) although the arrays are empty.
        .global _start
_start: ila     $3, __executable_start
        ila     $4, etext
        ila     $5, _etext
        ila     $6, __etext
        ila     $7, edata
        ila     $8, end
        ila     $9, __init_array_start
        ila     $10, __fini_array_end
        stop    0x2000
        .data
        .long   1
