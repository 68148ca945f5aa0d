# Benchmark workload: a shuffle loop. Byte shuffles, quadword rotates and shifts by bytes
# and by bits, insertion controls and a byte gather, 30 an iteration feeding one another,
# then the counter and the branch: 32 instructions an iteration, 2,000,000 iterations
# (64 M instructions). No loads or stores.
        .text
_start:
        ilhu    $5, 0x1e                # iterations: 0x1e8480 = 2,000,000
        iohl    $5, 0x8480
        il      $10, 0x1234
        ilhu    $11, 0x0102
        iohl    $11, 0x0304
        fsmbi   $12, 0x0f0f
        il      $13, 7
        ila     $14, 0x10203
        il      $15, 3
        ilhu    $16, 0x0e0c
        iohl    $16, 0x0a08
        il      $17, 0
loop:
        shufb   $10, $10, $11, $16
        rotqby  $11, $11, $13
        rotqbyi $12, $12, 3
        shlqbyi $17, $10, 2
        xor     $10, $10, $12
        cwd     $18, 4($15)
        shufb   $11, $11, $10, $18
        rotqbii $13, $11, 5
        a       $16, $16, $14
        cbd     $19, 1($15)
        shufb   $12, $12, $17, $19
        rotqmbyi $17, $17, -3
        or      $10, $10, $17
        shlqbii $14, $14, 1
        shlqbi  $11, $11, $15
        chd     $18, 2($15)
        shufb   $13, $13, $11, $18
        rotqmby $19, $12, $15
        xor     $14, $14, $19
        shlqby  $17, $13, $15
        gb      $18, $10
        a       $15, $15, $18
        andi    $15, $15, 15
        rotqbyi $16, $16, 1
        fsmbi   $19, 0x3c3c
        selb    $10, $10, $17, $19
        shufb   $12, $12, $14, $16
        rotqby  $13, $13, $10
        xor     $11, $11, $13
        cdd     $18, 8($15)
        ai      $5, $5, -1
        brnz    $5, loop
        stop    0x2000
