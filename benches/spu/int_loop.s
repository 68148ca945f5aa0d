# Benchmark workload: an integer loop. 30 fixed-point instructions per iteration (adds,
# logic, compares, selects, shifts and rotates by immediates and by registers) feeding one
# another through eight registers, then the counter and the branch: 32 instructions an
# iteration, 3,437,500 iterations (110 M instructions). No loads or stores, no hint.
# The instructions are among those every SPU interpreter implements (the comparison
# with other interpreters runs this file too).
        .text
_start:
        ilhu    $5, 0x34                # iterations: 0x3473bc = 3,437,500
        iohl    $5, 0x73bc
        il      $10, 1
        ilhu    $11, 0x1234
        iohl    $11, 0x5678
        il      $12, -7
        il      $13, 3
        il      $14, 0x155
        il      $15, 12345
        il      $16, -1
        il      $17, 5
loop:
        a       $10, $10, $11
        xor     $12, $12, $10
        and     $13, $12, $11
        or      $14, $14, $13
        ai      $11, $11, 77
        sf      $15, $14, $12
        shli    $16, $15, 3
        rotmi   $17, $16, -2
        ceq     $18, $17, $10
        selb    $19, $10, $11, $18
        roti    $10, $10, 5
        xori    $12, $12, 0x2a
        andc    $13, $13, $19
        orc     $14, $14, $12
        cgt     $18, $15, $16
        a       $15, $15, $18
        clgt    $19, $16, $17
        sf      $16, $19, $16
        rotma   $17, $17, $13
        shl     $19, $14, $17
        ahi     $10, $10, 3
        andi    $12, $12, 0x1ff
        ori     $13, $13, 0x111
        ceqi    $18, $14, 0
        nor     $19, $19, $18
        xor     $11, $11, $19
        cgti    $18, $12, 100
        selb    $14, $14, $15, $18
        rotm    $16, $16, $17
        a       $17, $17, $13
        ai      $5, $5, -1
        brnz    $5, loop
        stop    0x2000
