# A function call with brsl and a return with bi $lr.
# Expected at the stop: $3 = 49 (7 squared), $5 = 50, $lr = 8 (the address after brsl).
        .text
_start:
        il      $3,7
        brsl    $lr,square
        ai      $5,$3,1
        stop    0x2000

# square: $3 = $3 * $3 (16-bit signed multiply), returns through $lr.
square:
        mpy     $3,$3,$3
        bi      $lr
