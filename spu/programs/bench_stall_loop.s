# Benchmark workload: a stall-heavy loop. 18 instructions per iteration, about 46 cycles
# (pipeline mode, either fetch model): an FP chain fed by two loads (LS 6, FP6 6, FP7 7
# cycles) leaves issue waiting on a dependency most of the time. The loop branch is hinted
# (hbrr), so under real fetch a steady iteration has no branch penalty. 1,500,000
# iterations (about 69 M cycles); the host benchmarks set the count in the ilhu/iohl pair.
#
# y[i] = f(0.5 * x[i] + y[i]) over a 1 KiB buffer (64 quadwords, the offset wraps), with a
# few independent integer instructions beside the chain.
        .text
_start:
        ila     $10,x
        ila     $15,y
        il      $11,0                   # byte offset into both buffers
        ilhu    $12,0x16                # iterations: 0x16e360 = 1,500,000
        iohl    $12,0xe360
        ilhu    $20,0x3f00              # 0.5
        ilhu    $21,0x3f80              # 1.0
        il      $22,0x3f0               # offset mask: 64 quadwords
        hbrr    back,loop
loop:
        lqx     $13,$10,$11             # x
        lqx     $14,$15,$11             # y
        fma     $16,$13,$20,$14         # t = 0.5x + y        (waits for the loads)
        xor     $27,$27,$13
        rotqbyi $29,$14,4
        fm      $17,$16,$16             # t*t                 (waits for fma)
        fa      $18,$17,$21             # t*t + 1             (waits for fm)
        csflt   $24,$11,0
        fm      $23,$16,$18             # t * (t*t + 1)       (waits for fa)
        fa      $23,$23,$24             #   + float(offset)   (waits for fm)
        stqx    $23,$15,$11
        ai      $28,$28,3
        ai      $11,$11,16
        and     $11,$11,$22
        a       $26,$26,$29
        ai      $12,$12,-1
        shlqbyi $30,$27,1
back:   brnz    $12,loop
        stop    0x2000

        .data
        .align  4
x:      .space  1024
y:      .space  1024
