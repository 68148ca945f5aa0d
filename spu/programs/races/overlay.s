# Rule: fetching an instruction from local-store bytes that a pending get writes races with
# the get. An overlay loader gets code into LS 0x8000 and jumps to it; without waiting for
# the get, what runs is whatever the local store held then.
#
# The program first puts its own `overlay` code to main memory, waits, then gets it back to
# LS 0x8000 (at `load_overlay`+0x30). $3 (start argument 1, low word) picks the variant:
#   0  waits for the get, then jumps: no race; the overlay stops with 0x1234
#   1  jumps first: a race at PC 0x8000 with the get. In instruction mode the get completes
#      at once and the overlay stops with 0x1234; in pipeline mode it is still in flight and
#      LS 0x8000 holds 0: `stop 0`. Same race in both: the checker does not depend on timing.
        .include "dma.inc"
        .text
_start:
        rotqbyi $3,$3,4
        dma     0x20,overlay,0x30000,16,1       # the overlay's code to EA 0x30000
        wait    2
load_overlay:
        dma     0x40,0x8000,0x30000,16,5        # and back, to LS 0x8000, tag 5
        brnz    $3,jump
        wait    0x20
jump:
        ila     $4,0x8000
        bi      $4
        .balign 16
overlay:
        stop    0x1234
        nop
        nop
        nop
