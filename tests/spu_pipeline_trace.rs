//! Trace frames: every region parses back to the model state it shows, and the LS pipe's
//! every-other-cycle entry rule is visible in consecutive frames.

mod spu_pipeline_support;

use pmprobe::spu::pipeline::Config;
use pmprobe::spu::pipeline::FetchKind;
use pmprobe::spu::pipeline::write_frame;
use pmprobe::spu::probes::NoProbes;
use pmprobe::spu::unit::{Discard, Mode, SpuUnit};
use spu_pipeline_support::load;

fn real_unit(source: &str) -> Box<SpuUnit> {
    let mut unit = Box::new(SpuUnit::new(0));
    load(&mut unit, source);
    unit.set_config(Config::cell());
    unit.set_mode(Mode::Pipeline);
    unit.set_fetch(FetchKind::Real).unwrap();
    unit
}

fn frame(unit: &SpuUnit) -> String {
    let mut text = String::new();
    write_frame(unit.pipeline(), unit.arch(), &mut text).unwrap();
    text
}

fn parse_hex(text: &str) -> u32 {
    u32::from_str_radix(text.trim().trim_start_matches("0x"), 16).unwrap()
}

const LOOP: &str =
    "il $3,30\nlnop\nloop: lqd $5,0($1)\na $6,$6,$5\nai $3,$3,-1\nbrnz $3,loop\nstop";

#[test]
fn frame_regions_parse_back() {
    let mut unit = real_unit(LOOP);
    for cycle in 1..=80u64 {
        unit.run(1, &NoProbes, &mut Discard).unwrap();
        let text = frame(&unit);
        let lines: Vec<&str> = text.lines().collect();
        // Cycle and instruction count.
        let mut words = lines[0].split_whitespace();
        assert_eq!(words.next(), Some("cycle"));
        assert_eq!(words.next().unwrap().parse::<u64>().unwrap(), cycle);
        assert_eq!(words.next(), Some("instructions"));
        assert_eq!(
            words.next().unwrap().parse::<u64>().unwrap(),
            unit.stats().instructions
        );
        // Mispredict state and next PC.
        let pipeline = unit.pipeline();
        let (state, pc) = lines[1]
            .strip_prefix("mispredict ")
            .unwrap()
            .split_once(" -> ")
            .unwrap();
        assert_eq!(
            Some(state.parse::<u8>().unwrap()),
            pipeline.fetch_mispredict_state()
        );
        assert_eq!(parse_hex(pc), unit.arch().pc());
        assert!(lines[2].starts_with("hint "));
        // Queue, oldest on the right.
        let queue: Vec<u32> = lines[3]
            .strip_prefix("pre-fetch")
            .unwrap()
            .split_whitespace()
            .map(|r| parse_hex(r.split_once('-').unwrap().1))
            .collect();
        let mut expected: Vec<u32> = pipeline.fetch_queued_lines().collect();
        expected.reverse();
        assert_eq!(queue, expected);
        // LS pipe: six stages.
        let stages: Vec<&str> = lines[4]
            .strip_prefix("pre-fetch ls ")
            .unwrap()
            .split(']')
            .filter(|s| !s.trim().is_empty())
            .collect();
        assert_eq!(stages.len(), 6, "{}", lines[4]);
        for (shown, actual) in stages.iter().zip(pipeline.fetch_ls_pipe_lines().unwrap()) {
            let shown = shown.trim().trim_start_matches('[').trim();
            match actual {
                Some(line) => assert_eq!(parse_hex(shown.split_once('-').unwrap().1), line),
                None => assert!(shown.is_empty()),
            }
        }
        assert!(lines[5].starts_with("ilbh1 "));
        assert!(lines[6].starts_with("ilb11 "));
        assert!(lines[7].starts_with("ppb "));
        // Issue stages g..j: the addresses shown are the model's.
        for (i, name) in ["g", "h", "i", "j"].iter().enumerate() {
            let line = lines[8 + i];
            assert!(line.starts_with(name), "{line}");
            let group = pipeline.issue_stage(i);
            for slot in group.iter().flatten() {
                assert!(line.contains(&format!("= {:#07x} ", slot.pc)), "{line}");
            }
        }
        // Execution stages with the P0/P1 columns.
        assert!(lines[12].starts_with("jj*"), "{}", lines[12]);
        for (stage, line) in lines[12..].iter().enumerate() {
            let model = pipeline.dependency_columns(stage as u64).unwrap();
            let (_, columns) = line.split_once("P0 ").unwrap();
            let (p0, p1) = columns.split_once(" P1 ").unwrap();
            assert_eq!(p0.trim().parse::<i16>().unwrap(), model[0], "{line}");
            assert_eq!(p1.trim().parse::<i16>().unwrap(), model[1], "{line}");
        }
    }
}

#[test]
fn ls_pipe_admits_a_line_request_at_most_every_other_cycle() {
    // Straight-line code without loads or stores: requests flow, never in adjacent stages.
    let mut source = String::new();
    for _ in 0..300 {
        source.push_str("a $10,$11,$12\nrotqby $20,$21,$22\n");
    }
    source.push_str("stop\n");
    let mut unit = real_unit(&source);
    let mut entries = Vec::new();
    for cycle in 1..=200u64 {
        unit.run(1, &NoProbes, &mut Discard).unwrap();
        let text = frame(&unit);
        let ls = text.lines().nth(4).unwrap().to_string();
        let occupied: Vec<bool> = ls
            .strip_prefix("pre-fetch ls ")
            .unwrap()
            .split(']')
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.contains('-'))
            .collect();
        assert!(
            !occupied.windows(2).any(|w| w[0] && w[1]),
            "adjacent requests in cycle {cycle}: {ls}"
        );
        if occupied[0] {
            entries.push(cycle);
        }
    }
    assert!(entries.len() > 5, "line fetches happened: {entries:?}");
    assert!(entries.windows(2).all(|w| w[1] - w[0] >= 2));
}

/// A forward branch hinted far ahead to an aligned target, after `fillers` instructions;
/// the last `loaded` pairs of them are `a` + `lqd` (a load in stage n every cycle, so line
/// requests cannot enter the LS pipe). Returns the source, the target and the branch address.
fn hinted_forward_branch(fillers: usize, loaded: usize) -> (String, u32, u32) {
    let mut text = String::from("il $3,1\nhbrr jump,target\n");
    for _ in 0..fillers - 2 * loaded {
        text.push_str("a $10,$11,$12\n");
    }
    for _ in 0..loaded {
        text.push_str("a $10,$11,$12\nlqd $20,0($1)\n");
    }
    text.push_str("jump: br target\n");
    for _ in 0..60 {
        text.push_str("nop\n");
    }
    text.push_str(".align 7\ntarget: il $4,7\n");
    for _ in 0..40 {
        text.push_str("nop\n");
    }
    text.push_str("stop\n");
    let mut image = vec![0u8; 8192];
    let (target, jump) = {
        let program = pmprobe::spu::isa::asm::assemble::<8>(&text, &mut image).unwrap();
        (
            program.symbol("target").unwrap(),
            program.symbol("jump").unwrap(),
        )
    };
    (text, target, jump)
}

fn frames_until_stop(unit: &mut SpuUnit, limit: u64) -> Vec<String> {
    let mut frames = Vec::new();
    for _ in 0..limit {
        let outcome = unit.run(1, &NoProbes, &mut Discard).unwrap();
        frames.push(frame(unit));
        if matches!(outcome.end, pmprobe::spu::pipeline::RunEnd::Stopped(_)) {
            break;
        }
    }
    frames
}

fn line_of<'a>(frame: &'a str, prefix: &str) -> &'a str {
    frame.lines().find(|l| l.starts_with(prefix)).unwrap()
}

#[test]
fn hint_trigger_marks_older_requests_stale_and_flushes_them_at_g() {
    // The branch is in the second half of line 0x80, so loading that half into the predicted
    // path buffer also requests the fall-through line 0x100 just before the hint triggers.
    // Loads keep the LS pipe busy, so the stale request waits in the queue.
    let (source, target, jump) = hinted_forward_branch(46, 10);
    assert_eq!(jump, 0xc0);
    let mut unit = real_unit(&source);
    let frames = frames_until_stop(&mut unit, 2_000);
    assert_eq!(unit.arch().register(4).preferred_word(), 7);
    assert_eq!(unit.stats().hint_hits, 1);
    let after_ilbh2 = format!("1-{:#07x}", (target & !127) + 128);
    let queue = |frame: &str| line_of(frame, "pre-fetch").to_string();
    let trigger = frames
        .iter()
        .position(|f| {
            queue(f).contains(&after_ilbh2) || line_of(f, "pre-fetch ls").contains(&after_ilbh2)
        })
        .expect("the hint triggered");
    // At triggering the older inline request (the fall-through line) is stale, shown `?`.
    assert!(
        queue(&frames[trigger]).contains("?-0x00100"),
        "{}",
        frames[trigger]
    );
    // It is still queued (the loads block the LS pipe) until the hinted branch reaches g;
    // from then on no stale request is queued.
    let branch_in_g = format!("= {jump:#07x} ");
    let at_g = frames
        .iter()
        .position(|f| line_of(f, "g ").contains(&branch_in_g))
        .expect("the branch reached g");
    assert!(at_g >= trigger);
    assert!(
        queue(&frames[at_g - 1]).contains("?-"),
        "{}",
        frames[at_g - 1]
    );
    for frame in &frames[at_g..] {
        assert!(!queue(frame).contains("?-"), "{frame}");
    }
}

#[test]
fn inline_buffers_are_invalidated_eight_cycles_after_the_trigger() {
    // The branch is in the first half of line 0x180 (held by ilb2; the line after ilbh2 is
    // requested into ilb1): when it is loaded into the predicted path buffer, the second half
    // 0x1c0 (the old, fall-through path) is still valid in ilb22.
    let (source, target, jump) = hinted_forward_branch(94, 0);
    assert_eq!(jump, 0x180);
    let mut unit = real_unit(&source);
    let frames = frames_until_stop(&mut unit, 2_000);
    let after_ilbh2 = (target & !127) + 128;
    let needle = format!("1-{after_ilbh2:#07x}");
    let trigger = frames
        .iter()
        .position(|f| {
            line_of(f, "pre-fetch").contains(&needle)
                || line_of(f, "pre-fetch ls").contains(&needle)
        })
        .unwrap();
    let half = |frame: &str, name: &str| -> (char, u32) {
        let line = line_of(frame, "ilb11");
        let part = line.split("   ").find(|p| p.starts_with(name)).unwrap();
        let mut words = part.split_whitespace().skip(1);
        let mark = words.next().unwrap().chars().next().unwrap();
        let address =
            u32::from_str_radix(words.next().unwrap().trim_start_matches("0x"), 16).unwrap();
        (mark, address)
    };
    let old: Vec<&str> = ["ilb11", "ilb12", "ilb21", "ilb22"]
        .into_iter()
        .filter(|name| half(&frames[trigger], name) == ('=', 0x1c0))
        .collect();
    assert_eq!(old, ["ilb22"], "{}", frames[trigger]);
    let name = old[0];
    assert_eq!(
        half(&frames[trigger + 7], name),
        ('=', 0x1c0),
        "{}",
        frames[trigger + 7]
    );
    assert_eq!(
        half(&frames[trigger + 8].clone(), name).0,
        'X',
        "{}",
        frames[trigger + 8]
    );
}
