# A PPE-assisted call libspe2 has (C99 FOPEN, opcode 10) that this runtime does not perform:
# the program stops with an error naming the class and the opcode.
        .include "libspe.inc"
        .text
main:
        stop    0x2100
        .long   (10 << 24) + 0x100
        il      $3,0
        br      exit
