# A global _start after the only instruction: at 4, inside the text segment spu-ld rounds
# up to 16 bytes.
        .global _start
        stop    0x2000
_start:
