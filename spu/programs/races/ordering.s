# Rule: two pending commands of one SPU on overlapping local store or main memory, one of them
# writing it, race unless a fence, a barrier or a tag wait orders them (the CBEA's ordering
# rules: docs/dma-races.md). Every variant issues two commands, the second at its `second_*`
# label + 0x30.
#
# $3 (start argument 1, low word) picks the variant:
#   0  get, get (tag 1, both to LS 0x6000): race on the local store (both write it)
#   1  get tag 1, `barrier`, get tag 2: no race
#   2  getb tag 1, get tag 1: no race (the barrier form holds later commands of its group)
#   3  get tag 1, mfcsync tag 1, get tag 1: no race
#   4  get tag 1, getf tag 1: no race
#   5  get tag 1, getf tag 2: race (a fence orders its own group only)
#   6  get tag 1, tag wait, get tag 1: no race
#   7  get tag 1, mfceieio tag 2, get tag 1: race (eieio orders its own group only)
#   8  put, put (tag 1, both to EA 0x40000, from LS 0x6000 and 0x7000): race on main memory
#   9  put tag 1, putf tag 1: no race
#  10  get EA 0x40000 to LS 0x6000, put LS 0x7000 to EA 0x40000: race on main memory
        .include "dma.inc"
        .text
_start:
        rotqbyi $3,$3,4
        ila     $5,table
        shli    $4,$3,2
        lqx     $6,$5,$4                # the variant's entry in `table`
        rotqby  $6,$6,$4
        bi      $6
v0:     dma     0x40,0x6000,0x40000,256,1
        br      second_get_1
v1:     dma     0x40,0x6000,0x40000,256,1
        dma     0xc0,0,0,0,0            # barrier
        br      second_get_2
v2:     dma     0x41,0x6000,0x40000,256,1       # getb
        br      second_get_1
v3:     dma     0x40,0x6000,0x40000,256,1
        dma     0xcc,0,0,0,1            # mfcsync, tag 1
        br      second_get_1
v4:     dma     0x40,0x6000,0x40000,256,1
        br      second_getf_1
v5:     dma     0x40,0x6000,0x40000,256,1
        br      second_getf_2
v6:     dma     0x40,0x6000,0x40000,256,1
        wait    2
        br      second_get_1
v7:     dma     0x40,0x6000,0x40000,256,1
        dma     0xc8,0,0,0,2            # mfceieio, tag 2
        br      second_get_1
v8:     dma     0x20,0x6000,0x40000,256,1
        br      second_put
v9:     dma     0x20,0x6000,0x40000,256,1
        br      second_putf
v10:    dma     0x40,0x6000,0x40000,256,1
        br      second_put_other_tag
second_get_1:
        dma     0x40,0x6000,0x40100,256,1
        br      done
second_get_2:
        dma     0x40,0x6000,0x40100,256,2
        br      done
second_getf_1:
        dma     0x42,0x6000,0x40100,256,1
        br      done
second_getf_2:
        dma     0x42,0x6000,0x40100,256,2
        br      done
second_put:
        dma     0x20,0x7000,0x40000,256,1
        br      done
second_putf:
        dma     0x22,0x7000,0x40000,256,1
        br      done
second_put_other_tag:
        dma     0x20,0x7000,0x40000,256,2
done:
        wait    6
        stop    0x2000
        .balign 16
table:  .long   v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10
