# Benchmark workload: a single-precision loop. Multiplies, adds and fused multiply-adds on
# four lanes of values kept between about 0.5 and 2 (each step pulls them back towards
# 1), 30 an iteration, then the counter and the branch: 32 instructions an iteration,
# 2,000,000 iterations (64 M instructions). No loads or stores.
        .text
_start:
        ilhu    $5, 0x1e                # iterations: 0x1e8480 = 2,000,000
        iohl    $5, 0x8480
        ilhu    $10, 0x3f80             # 1.0
        ilhu    $11, 0x3fc0             # 1.5
        ilhu    $12, 0x3f40             # 0.75
        ilhu    $13, 0x3e80             # 0.25
        ilhu    $14, 0x3f00             # 0.5
        ilhu    $15, 0x3f90             # 1.125
        ilhu    $16, 0x3f70             # 0.9375
        ilhu    $17, 0x3f88             # 1.0625
loop:
        fm      $18, $11, $12
        fa      $11, $18, $13
        fma     $12, $12, $14, $13
        fs      $19, $15, $16
        fma     $15, $19, $14, $10
        fm      $16, $16, $17
        fnms    $16, $16, $13, $16
        fa      $16, $16, $13
        fms     $18, $17, $14, $14
        fa      $17, $18, $14
        fm      $19, $11, $14
        fa      $11, $19, $14
        fma     $18, $12, $13, $14
        fm      $12, $18, $10
        fs      $19, $10, $15
        fm      $19, $19, $13
        fa      $15, $15, $19
        fma     $18, $16, $14, $13
        fm      $16, $18, $10
        fms     $19, $17, $10, $14
        fa      $17, $19, $14
        fm      $18, $11, $12
        fa      $18, $18, $13
        fm      $19, $18, $14
        fa      $11, $19, $14
        fma     $12, $12, $14, $13
        fs      $19, $15, $13
        fa      $15, $19, $13
        fm      $18, $17, $10
        fa      $17, $18, $18
        ai      $5, $5, -1
        brnz    $5, loop
        stop    0x2000
