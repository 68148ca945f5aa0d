# Sections ld places by name: .interrupt first, .init/.fini around .text, .text.hot before
# .text, an orphan code section after it, .toe at ALIGN(128) in a segment of its own.
        .section .interrupt, "ax"
        heq     $0, $0
        .section .init, "ax"
        .global _init
_init:  bi      $lr
        .section .fini, "ax"
        .global _fini
_fini:  bi      $lr
        .section .text.hot, "ax"
hot:    nop
        lnop
        .text
        .global _start
_start: brsl    $lr, _init
        brsl    $lr, ovl_fn
        stop    0x2000
        .section .ovly, "ax"
ovl_fn: bi      $lr
        .section .toe
        .space  16
        .data
        .long   1
