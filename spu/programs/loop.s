# Count down from 100 with brnz; $4 counts the iterations.
# Expected at the stop: $3 = 0, $4 = 100.
        .text
        .global _start
_start:
        and     $0,$0,$0        # prof_cp0: clear the counters
        and     $30,$30,$30     # prof_cp30: start
        il      $3,100
        il      $4,0
loop:
        ai      $4,$4,1
        ai      $3,$3,-1
        brnz    $3,loop
        and     $31,$31,$31     # prof_cp31: stop
        stop    0x2000
