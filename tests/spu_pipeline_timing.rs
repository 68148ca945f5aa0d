//! The static timing listing against IBM's own spu_timing output.
//!
//! The Cell SDK 3.0 programming tutorial ("Static analysis of SPE threads",
//! `cbet_3staticthr.html`) prints spu_timing's listing of the Euler particle-system inner
//! loop. Its per-line facts — pipe, dual-issue mark, number of stall cycles (`-`), issue cycle
//! and cycles in flight — are the expectations here; the code below is that loop (the closing
//! branch, cut off in the tutorial, is a `brnz` on the loop counter).

use pmprobe::spu::isa::asm::assemble;
use pmprobe::spu::pipeline::Config;
use pmprobe::spu::pipeline::{RULER, listing};

const EULER_LOOP: &str = ".L19:
a $49,$8,$10
lqx $51,$6,$9
ila $47,66051
lqx $52,$6,$11
ai $7,$7,-1
fma $50,$51,$12,$52
stqx $50,$6,$11
lqx $48,$8,$10
ai $8,$8,4
lqa $44,ctx+16
lqx $43,$6,$9
rotqby $46,$48,$49
shufb $45,$46,$46,$47
fm $42,$12,$45
fma $41,$42,$44,$43
stqx $41,$6,$9
ai $6,$6,16
brnz $7,.L19
.data
.align 4
ctx: .space 64";

/// (pipe, mark, stall cycles, issue cycle from the first issue, cycles shown in flight), read
/// off the tutorial's listing (its ruler started at cycle 7 of a decade).
const SDK_LISTING: [(char, char, usize, usize, usize); 17] = [
    ('0', 'D', 0, 0, 2),  // a       $49,$8,$10
    ('1', 'D', 0, 0, 6),  // lqx     $51,$6,$9
    ('0', 'D', 0, 1, 2),  // ila     $47,66051
    ('1', 'D', 0, 1, 6),  // lqx     $52,$6,$11
    ('0', ' ', 0, 2, 2),  // ai      $7,$7,-1
    ('0', ' ', 4, 7, 6),  // fma     $50,$51,$12,$52
    ('1', ' ', 5, 13, 6), // stqx    $50,$6,$11
    ('1', ' ', 0, 14, 6), // lqx     $48,$8,$10
    ('0', 'D', 0, 15, 2), // ai      $8,$8,4
    ('1', 'D', 0, 15, 6), // lqa     $44,ctx+16
    ('1', ' ', 0, 16, 6), // lqx     $43,$6,$9
    ('1', ' ', 3, 20, 4), // rotqby  $46,$48,$49
    ('1', ' ', 3, 24, 4), // shufb   $45,$46,$46,$47
    ('0', ' ', 3, 28, 6), // fm      $42,$12,$45
    ('0', 'd', 5, 34, 6), // fma     $41,$42,$44,$43
    ('1', 'd', 6, 40, 6), // stqx    $41,$6,$9
    ('0', 'D', 0, 41, 2), // ai      $6,$6,16
];

fn parse(line: &str) -> (char, char, usize, usize, usize) {
    let chars: Vec<char> = line.chars().collect();
    let ruler = &chars[3..3 + RULER as usize];
    let dashes = ruler.iter().filter(|&&c| c == '-').count();
    let first_digit = ruler.iter().position(|c| c.is_ascii_digit()).unwrap();
    let digits = ruler.iter().filter(|c| c.is_ascii_digit()).count();
    (chars[0], chars[1], dashes, first_digit, digits)
}

#[test]
fn listing_matches_the_sdk_spu_timing_example() {
    let mut image = vec![0u8; 4096];
    let program = assemble::<8>(EULER_LOOP, &mut image).unwrap();
    let words: Vec<u32> = image[..program.text_len]
        .chunks(4)
        .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut text = String::new();
    let summary = listing(&words, 0, &Config::cell(), &mut text).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for (i, expected) in SDK_LISTING.iter().enumerate() {
        assert_eq!(parse(lines[i]), *expected, "line {i}: {}\n{text}", lines[i]);
    }
    assert!(lines[5].ends_with("fma $50,$51,$12,$52"), "{}", lines[5]);
    // The branch pairs with the last ai.
    assert_eq!(parse(lines[17]).0, '1');
    assert_eq!(parse(lines[17]).1, 'D');
    assert_eq!(summary.instructions, 18);
    assert_eq!(summary.cycles, 42);
    assert_eq!(summary.dual_cycles, 4);
}

#[test]
fn listing_shows_dp_issue_stall() {
    // dfa, dfa: the second waits 6 cycles (FPD stall) and shows them as '-'.
    let words = [0x5982_c505u32, 0x5982_c505];
    let mut text = String::new();
    let summary = listing(&words, 0, &Config::cell(), &mut text).unwrap();
    let second = text.lines().nth(1).unwrap();
    assert_eq!(parse(second), ('0', ' ', 6, 7, 13));
    assert_eq!(summary.cycles, 8);
}

#[test]
fn channel_instructions_that_can_wait_are_marked() {
    // The CBEA's blocking channels: reading MFC_RdTagStat waits for a status, writing
    // MFC_Cmd for a queue entry; SPU_RdDec never waits. The listing cannot time a wait.
    let mut image = vec![0u8; 64];
    let program = assemble::<4>(
        "wrch $MFC_Cmd, $2\n rdch $3, $MFC_RdTagStat\n rdch $4, $SPU_RdDec\n",
        &mut image,
    )
    .unwrap();
    let words: Vec<u32> = image[..program.text_len]
        .chunks(4)
        .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut text = String::new();
    let summary = listing(&words, 0, &Config::cell(), &mut text).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with("# may wait: MFC_Cmd"), "{text}");
    assert!(lines[1].ends_with("# may wait: MFC_RdTagStat"), "{text}");
    assert!(!lines[2].contains("may wait"), "{text}");
    assert_eq!(summary.channel_waits, 2);
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("; 2 channel instructions may wait")
    );
}
