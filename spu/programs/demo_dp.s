# Demo kernel 3: double precision. Two lanes x = {1.0, 2.0} step by h = 0.1 and accumulate
# s += x * x with dfa/dfm (separately rounded, IEEE round to nearest), STEPS times.
# The firmware replays the same operations in Rust f64 and compares s and x bit for bit.
        .text
_start:
        and     $0,$0,$0                # prof_cp0
        lqa     $10,x0
        lqa     $11,step
        il      $12,0                   # s = {0.0, 0.0}
        il      $4,1000                 # STEPS
        and     $30,$30,$30             # prof_cp30
dp:
        dfa     $10,$10,$11             # x += h
        dfm     $13,$10,$10             # x * x
        dfa     $12,$12,$13             # s += x * x
        ai      $4,$4,-1
        brnz    $4,dp
        and     $31,$31,$31             # prof_cp31
        stop    0x2000

        .data
        .align  4
x0:     .word   0x3ff00000, 0x00000000, 0x40000000, 0x00000000     # 1.0, 2.0
step:   .word   0x3fb99999, 0x9999999a, 0x3fb99999, 0x9999999a     # 0.1, 0.1
