# What spu-objdump -d shows besides instructions: data (an STT_OBJECT) inside .text dumped
# as bytes, runs of zeros as `...`, a word no instruction is (`.long`), an absolute symbol
# naming a branch target, several names for one address (a function before a label, a
# global before a local), and an address below the first symbol.
        .text
        .global _start
        .type   _start, @function
_start:
start_label:
        bra     ABS_TARGET
        brsl    $lr, func
        br      data_in_text
        ila     $3, _start
        .long   0x00800000
        stop    0x2000
        .size   _start, . - _start
        .type   data_in_text, @object
data_in_text:
        .long   0x48656c6c, 0x6f2c2053, 0x50550000, 0x41424344, 5
        .size   data_in_text, 20
zeros:  .space  32
        .type   func, @function
func:   bi      $lr
        .size   func, 4
        .set    ABS_TARGET, 0x40
        .global ABS_TARGET
