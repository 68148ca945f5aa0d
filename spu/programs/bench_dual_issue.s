# Benchmark workload: a dual-issue stream. 30 independent even/odd pairs per iteration (an
# even-pipe FX2 `a` or `ai` at each even address, an odd-pipe SHUF `rotqby` at the odd one
# after it) and the loop branch paired with one more `a`: 31 cycles per iteration, two
# instructions in nearly every cycle. The loop branch is hinted (hbrr), so under real fetch a
# steady iteration has no branch penalty. 1,000,000 iterations (31 M cycles, 62 M
# instructions); the host benchmarks set the count in the ilhu/iohl pair.
        .text
_start:
        ilhu    $5,0xf                  # iterations: 0xf4240 = 1,000,000
        iohl    $5,0x4240
        hbrr    back,loop
        lnop                            # keeps the loop head at an even address
loop:   ai      $5,$5,-1
        rotqby  $60,$41,$42
        a       $11,$3,$4
        rotqby  $61,$41,$42
        a       $12,$3,$4
        rotqby  $62,$41,$42
        a       $13,$3,$4
        rotqby  $63,$41,$42
        a       $14,$3,$4
        rotqby  $64,$41,$42
        a       $15,$3,$4
        rotqby  $65,$41,$42
        a       $16,$3,$4
        rotqby  $66,$41,$42
        a       $17,$3,$4
        rotqby  $67,$41,$42
        a       $18,$3,$4
        rotqby  $68,$41,$42
        a       $19,$3,$4
        rotqby  $69,$41,$42
        a       $20,$3,$4
        rotqby  $70,$41,$42
        a       $21,$3,$4
        rotqby  $71,$41,$42
        a       $22,$3,$4
        rotqby  $72,$41,$42
        a       $23,$3,$4
        rotqby  $73,$41,$42
        a       $24,$3,$4
        rotqby  $74,$41,$42
        a       $25,$3,$4
        rotqby  $75,$41,$42
        a       $26,$3,$4
        rotqby  $76,$41,$42
        a       $27,$3,$4
        rotqby  $77,$41,$42
        a       $28,$3,$4
        rotqby  $78,$41,$42
        a       $29,$3,$4
        rotqby  $79,$41,$42
        a       $10,$3,$4
        rotqby  $60,$41,$42
        a       $11,$3,$4
        rotqby  $61,$41,$42
        a       $12,$3,$4
        rotqby  $62,$41,$42
        a       $13,$3,$4
        rotqby  $63,$41,$42
        a       $14,$3,$4
        rotqby  $64,$41,$42
        a       $15,$3,$4
        rotqby  $65,$41,$42
        a       $16,$3,$4
        rotqby  $66,$41,$42
        a       $17,$3,$4
        rotqby  $67,$41,$42
        a       $18,$3,$4
        rotqby  $68,$41,$42
        a       $19,$3,$4
        rotqby  $69,$41,$42
        a       $9,$3,$4
back:   brnz    $5,loop
        stop    0x2000
