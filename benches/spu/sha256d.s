# Benchmark workload: SHA-256d over a Bitcoin block header, four nonces at a time (one per
# word lane), straight-line: every pass computes three SHA-256 compressions fully unrolled
# (the header's first 64 bytes, its last 16 bytes with the four nonces and the padding, then
# the 32-byte digest with its padding), about 7,000 instructions without a taken branch, as a
# mining kernel does. The midstate of the first chunk is computed again on every pass on
# purpose: it makes the pass as long as a real kernel's (the SHA-256d kernels of the PS3
# mining era ran 6,000 to 7,000 instructions a pass).
#
# The header is the Bitcoin genesis block's (version 1, previous block 0, merkle root
# 4a5e1e4b..., time 1231006505, bits 0x1d00ffff, nonce 2083236893). The passes try the nonces
# before the real one, which lane 0 of the last pass holds; a lane whose digest's word 7 is
# zero (the displayed hash starts with eight zero digits) ends the run. At the end the program
# compares lane 0's digest with the genesis block's hash,
# 000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f (bytes reversed: the
# digest words 6fe28c0a b6f1b372 ... 68d61900 00000000), and stops with 0x2000 when the
# winner is lane 0 of the last pass and its digest is that hash, 0x2001 otherwise. The SHA-256
# constants and rules are FIPS 180-4's.
#
# Passes: the ilhu/iohl pair at _start (4,000 here: about 28 M instructions). Registers at
# the end: $11..$18 the digest of every lane, $70 the nonces of the last pass, $62 the
# passes left.
#
# Registers: $3..$10 the working variables a..h (the rounds rename them rather than move
# them), $11..$18 the chaining value, $19..$31 temporaries, $32 a chaining-value table, $33
# the block being compressed, $60 the K table, $61 the message
# schedule ring (16 quadwords), $62 the pass counter, $63 the byte-swap pattern, $70 the
# nonces, $71 the nonce step.

# ---- the compression ---------------------------------------------------------------------

# The chaining value from a table of eight quadwords.
        .macro  load_h table
        ila     $32, \table
        lqd     $11, 0($32)
        lqd     $12, 16($32)
        lqd     $13, 32($32)
        lqd     $14, 48($32)
        lqd     $15, 64($32)
        lqd     $16, 80($32)
        lqd     $17, 96($32)
        lqd     $18, 112($32)
        .endm

# One round for t < 16: W[t] is in the ring. T1 = h + Σ1(e) + Ch(e,f,g) + K[t] + W[t];
# T2 = Σ0(a) + Maj(a,b,c); d += T1; h = T1 + T2 (the next round calls this h its a).
        .macro  round a, b, c, d, e, f, g, h, t
        lqd     $19, ((\t)&15)*16($61)
        round_w \a, \b, \c, \d, \e, \f, \g, \h, \t
        .endm

# The rest of a round, W[t] in $19. Rotations right by n are rotations left by 32 - n.
        .macro  round_w a, b, c, d, e, f, g, h, t
        lqd     $20, (\t)*16($60)
        roti    $21, \e, 26
        roti    $22, \e, 21
        roti    $23, \e, 7
        xor     $21, $21, $22
        xor     $21, $21, $23
        selb    $24, \g, \f, \e
        a       $19, $19, $20
        a       \h, \h, $21
        a       $19, $19, $24
        a       \h, \h, $19
        roti    $25, \a, 30
        roti    $26, \a, 19
        roti    $27, \a, 10
        xor     $25, $25, $26
        xor     $25, $25, $27
        xor     $28, \a, \c
        selb    $28, \c, \b, $28
        a       \d, \d, \h
        a       $25, $25, $28
        a       \h, \h, $25
        .endm

# One round for t >= 16: W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], into the ring.
        .macro  round_s a, b, c, d, e, f, g, h, t
        lqd     $20, ((\t-2)&15)*16($61)
        lqd     $23, ((\t-15)&15)*16($61)
        lqd     $30, ((\t-7)&15)*16($61)
        lqd     $31, ((\t)&15)*16($61)
        roti    $21, $20, 15
        roti    $22, $20, 13
        rotmi   $20, $20, -10
        xor     $21, $21, $22
        xor     $21, $21, $20
        roti    $24, $23, 25
        roti    $25, $23, 14
        rotmi   $23, $23, -3
        xor     $24, $24, $25
        xor     $24, $24, $23
        a       $19, $21, $30
        a       $19, $19, $24
        a       $19, $19, $31
        stqd    $19, ((\t)&15)*16($61)
        round_w \a, \b, \c, \d, \e, \f, \g, \h, \t
        .endm

# Eight rounds from t: the working variables' names rotate by one each round.
        .macro  eight kind, t
        \kind   $3, $4, $5, $6, $7, $8, $9, $10, (\t)
        \kind   $10, $3, $4, $5, $6, $7, $8, $9, (\t+1)
        \kind   $9, $10, $3, $4, $5, $6, $7, $8, (\t+2)
        \kind   $8, $9, $10, $3, $4, $5, $6, $7, (\t+3)
        \kind   $7, $8, $9, $10, $3, $4, $5, $6, (\t+4)
        \kind   $6, $7, $8, $9, $10, $3, $4, $5, (\t+5)
        \kind   $5, $6, $7, $8, $9, $10, $3, $4, (\t+6)
        \kind   $4, $5, $6, $7, $8, $9, $10, $3, (\t+7)
        .endm

# One compression of the 16-quadword block at the address in \block into $11..$18.
        .macro  compress block
        .irp    n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
        lqd     $19, \n*16(\block)
        stqd    $19, \n*16($61)
        .endr
        ori     $3, $11, 0
        ori     $4, $12, 0
        ori     $5, $13, 0
        ori     $6, $14, 0
        ori     $7, $15, 0
        ori     $8, $16, 0
        ori     $9, $17, 0
        ori     $10, $18, 0
        eight   round, 0
        eight   round, 8
        eight   round_s, 16
        eight   round_s, 24
        eight   round_s, 32
        eight   round_s, 40
        eight   round_s, 48
        eight   round_s, 56
        a       $11, $11, $3
        a       $12, $12, $4
        a       $13, $13, $5
        a       $14, $14, $6
        a       $15, $15, $7
        a       $16, $16, $8
        a       $17, $17, $9
        a       $18, $18, $10
        .endm

# One word of lane 0's digest against the genesis hash, into $20.
        .macro  check_word n, reg
        lqd     $22, \n*16($33)
        ceq     $22, $22, \reg
        and     $20, $20, $22
        .endm

        .text
_start:
        ilhu    $62, 0                  # passes: 4,000 (0x00000fa0)
        iohl    $62, 0xfa0
        ila     $60, k256
        ila     $61, ring
        lqr     $63, byteswap
        # The first pass's nonces: the real nonce minus four per pass after the first, lane i + i.
        lqr     $70, nonce
        ai      $19, $62, -1
        shli    $19, $19, 2
        sf      $70, $19, $70
        lqr     $19, lanes
        a       $70, $70, $19
        il      $71, 4

pass:
        # Chunk 1: the header's first 64 bytes, from the initial hash value.
        ila     $33, chunk1
        load_h  iv
        compress $33
        # Chunk 2: header bytes 64..75, the nonce (little-endian in the header: its bytes
        # swapped as a message word), the padding and the length (640 bits).
        shufb   $19, $70, $70, $63
        ila     $33, chunk2
        stqd    $19, 48($33)
        compress $33
        # The second SHA-256: the 32-byte digest, padding, length 256 bits.
        ila     $33, chunk3
        stqd    $11, 0($33)
        stqd    $12, 16($33)
        stqd    $13, 32($33)
        stqd    $14, 48($33)
        stqd    $15, 64($33)
        stqd    $16, 80($33)
        stqd    $17, 96($33)
        stqd    $18, 112($33)
        load_h  iv
        compress $33
        # A lane whose digest word 7 is zero wins.
        ceqi    $19, $18, 0
        gb      $19, $19
        brnz    $19, found
        a       $70, $70, $71
        ai      $62, $62, -1
        brnz    $62, pass
        stop    0x2001                  # no lane won

found:
        # Lane 0 must have won (the real nonce), in the last pass, with the genesis hash.
        ceqi    $20, $19, 8             # gb puts lane 0 in bit 3
        ceqi    $21, $62, 1
        and     $20, $20, $21
        ila     $33, genesis
        check_word 0, $11
        check_word 1, $12
        check_word 2, $13
        check_word 3, $14
        check_word 4, $15
        check_word 5, $16
        check_word 6, $17
        check_word 7, $18
        brz     $20, wrong
        stop    0x2000
wrong:
        stop    0x2001

# ---- data: every word repeated in the four lanes -----------------------------------------

        .data
        .align  4
        .macro  splat values:vararg
        .irp    v, \values
        .int    \v, \v, \v, \v
        .endr
        .endm
iv:     splat   0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
k256:   splat   0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5
        splat   0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174
        splat   0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da
        splat   0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967
        splat   0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85
        splat   0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070
        splat   0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3
        splat   0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
# The genesis header, bytes 0..63 as big-endian words: version 1 (01000000), the previous
# block (zero), the merkle root 4a5e1e4b... in the header's byte order, the first 4 bytes of
# the time.
chunk1: splat   0x01000000, 0, 0, 0, 0, 0, 0, 0, 0
        splat   0x3ba3edfd, 0x7a7b12b2, 0x7ac72c3e, 0x67768f61, 0x7fc81bc3, 0x888a5132, 0x3a9fb8aa
# Bytes 64..79: the merkle root's last 4 bytes, the time 1231006505 (0x495fab29), the bits
# 0x1d00ffff, the nonce (written per pass), then the padding and the length, 640 bits.
chunk2: splat   0x4b1e5e4a, 0x29ab5f49, 0xffff001d, 0, 0x80000000, 0, 0, 0
        splat   0, 0, 0, 0, 0, 0, 0, 0x280
# The digest (written per pass), the padding and the length, 256 bits.
chunk3: splat   0, 0, 0, 0, 0, 0, 0, 0, 0x80000000, 0, 0, 0, 0, 0, 0, 0x100
# The genesis block's hash as the digest's words.
genesis: splat  0x6fe28c0a, 0xb6f1b372, 0xc1a6a246, 0xae63f74f, 0x931e8365, 0xe15a089c, 0x68d61900, 0
nonce:  splat   2083236893
lanes:  .int    0, 1, 2, 3
# shufb pattern: each word's bytes reversed.
byteswap: .int  0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c
ring:   .space  256
