//! The SPU programs the host benchmarks run (shared by `spu_pipeline` and `spu_exec`): each a
//! long-running loop, so fetch redirects happen once per iteration.
#![allow(dead_code)]

/// A dependency chain: 32 dependent `a` (FX2 links, 2 cycles each) per iteration.
pub fn chain() -> String {
    let mut text = String::from("il $5,30000\nloop:\n");
    for _ in 0..32 {
        text.push_str("a $3,$3,$4\n");
    }
    text.push_str("ai $5,$5,-1\nbrnz $5,loop\nbr loop\n");
    text
}

/// A dual-issue stream: 32 independent even/odd pairs (`a`, `rotqby`) per iteration.
pub fn dual_stream() -> String {
    // The lnop keeps the loop head at an even address, so every pair is even/odd.
    let mut text = String::from("il $5,30000\nlnop\nloop:\n");
    for _ in 0..32 {
        text.push_str("a $10,$11,$12\nrotqby $20,$21,$22\n");
    }
    text.push_str("ai $5,$5,-1\nbrnz $5,loop\nbr loop\n");
    text
}

/// A loop with a load, a store, a call and a return.
pub const LOOP: &str = "ila $4,data
outer: il $3,100
loop: lqd $6,0($4)
a $7,$7,$6
stqd $7,16($4)
brsl $0,leaf
ai $3,$3,-1
brnz $3,loop
br outer
leaf: ai $8,$8,1
bi $0
.data
.align 4
data: .word 1,2,3,4
.space 16";
