# libspe2's PPE-assisted stdio from an SPE program (libspe2's C99 and POSIX.1 opcodes).
# Expected (C's rules for each call):
#   stdout: "one 1 two 2 three 3|\n" (vprintf: two arguments in the va_list's register area,
#           then the caller's frame header skipped, then the third), "line\n" (puts), "!"
#           (putchar), "ok\n" (fwrite to stdout, 3 items of 1 byte)
#   stderr: "err\n" (fputs to stderr), "raw\n" (write(2, ..))
#   the program exits with status 5.
        .include "libspe.inc"
        .data
        .align  4
format:         .asciz  "%s %d %s %d %s %d|\n"
one:            .asciz  "one"
two:            .asciz  "two"
three:          .asciz  "three"
line:           .asciz  "line"
err_text:       .asciz  "err\n"
ok_text:        .asciz  "ok\n"
raw_text:       .asciz  "raw\n"
        .align  4
# vprintf's block: the format, then the va_list (the next argument, the caller's stack).
printf_block:   .long   format, 0, 0, 0
                .long   arguments, 0, 0, 0
                .long   caller_stack, 0, 0, 0
arguments:      .long   one, 0, 0, 0
                .long   1, 0, 0, 0
                .long   two, 0, 0, 0
                .long   2, 0, 0, 0
caller_stack:   .long   0x11111111, 0, 0, 0     # back chain: skipped
                .long   0x22222222, 0, 0, 0     # link save: skipped
                .long   three, 0, 0, 0
                .long   3, 0, 0, 0
puts_block:     .long   line, 0, 0, 0
putchar_block:  .long   33, 0, 0, 0
fputs_block:    .long   err_text, 0, 0, 0
                .long   3, 0, 0, 0              # stderr's FILE handle
fwrite_block:   .long   ok_text, 0, 0, 0
                .long   1, 0, 0, 0
                .long   3, 0, 0, 0
                .long   2, 0, 0, 0              # stdout's FILE handle
write_block:    .long   2, 0, 0, 0              # file descriptor 2
                .long   raw_text, 0, 0, 0
                .long   4, 0, 0, 0
        .text
main:
        stop    0x2100
        .long   (37 << 24) + printf_block       # VPRINTF
        stop    0x2100
        .long   (25 << 24) + puts_block         # PUTS
        stop    0x2100
        .long   (24 << 24) + putchar_block      # PUTCHAR
        stop    0x2100
        .long   (12 << 24) + fputs_block        # FPUTS
        stop    0x2100
        .long   (18 << 24) + fwrite_block       # FWRITE
        stop    0x2101
        .long   (27 << 24) + write_block        # POSIX.1 WRITE
        il      $3,5
        br      exit
