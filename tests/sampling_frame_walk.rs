//! The frame-pointer walk over synthetic stacks: well-formed chains, every corruption it must
//! survive, and random memory.
use pmprobe::sampling::{
    MAX_STACK_DEPTH, Sample, SliceMemory, StackBounds, StackMemory, WalkEnd, walk_frames,
};

const BASE: u64 = 0x4020_0000;
const WORDS: usize = 512;

/// A stack image built the way AAPCS64 code lays out frame records: each call pushes a 16-byte
/// record (caller's fp, return address) below the caller's.
struct Stack {
    words: Vec<u64>,
}

impl Stack {
    fn new() -> Self {
        Self {
            words: vec![0; WORDS],
        }
    }
    fn set(&mut self, address: u64, value: u64) {
        self.words[((address - BASE) / 8) as usize] = value;
    }
    /// Frame records for `return_addresses` (outermost last), each `gap` bytes below the last;
    /// returns the innermost fp.
    fn chain(&mut self, return_addresses: &[u64], gap: u64) -> u64 {
        let mut fp = 0;
        let mut record = BASE + 8 * WORDS as u64 - 16;
        for &ra in return_addresses.iter().rev() {
            self.set(record, fp);
            self.set(record + 8, ra);
            fp = record;
            record -= gap;
        }
        fp
    }
    fn memory(&self) -> SliceMemory<'_> {
        SliceMemory {
            base: BASE,
            words: &self.words,
        }
    }
    fn bounds(&self) -> StackBounds {
        StackBounds {
            low: BASE,
            high: BASE + 8 * WORDS as u64,
        }
    }
}

fn walk(stack: &Stack, fp: u64, depth: usize) -> Sample {
    let mut sample = Sample::new(0x4008_0000, 0);
    walk_frames(&mut sample, fp, stack.bounds(), &stack.memory(), depth);
    sample
}

#[test]
fn a_well_formed_chain_yields_every_return_address_innermost_first() {
    let mut stack = Stack::new();
    let calls = [0x4008_1234, 0x4008_2000, 0x4008_3004, 0x4008_4008];
    let fp = stack.chain(&calls, 48);
    let sample = walk(&stack, fp, MAX_STACK_DEPTH);
    assert_eq!(sample.frames(), &calls);
    assert_eq!(sample.walk_end, WalkEnd::Complete);
}

#[test]
fn the_depth_limit_keeps_the_innermost_frames() {
    let mut stack = Stack::new();
    let calls: Vec<u64> = (0..40).map(|i| 0x4008_0000 + 4 * i).collect();
    let fp = stack.chain(&calls, 16);
    let sample = walk(&stack, fp, MAX_STACK_DEPTH);
    assert_eq!(sample.frames(), &calls[..MAX_STACK_DEPTH]);
    assert_eq!(sample.walk_end, WalkEnd::DepthLimit);
    let sample = walk(&stack, fp, 3);
    assert_eq!(sample.frames(), &calls[..3]);
    assert_eq!(walk(&stack, fp, 0).frames(), &[] as &[u64]);
    assert_eq!(walk(&stack, fp, 0).walk_end, WalkEnd::DepthLimit);
}

#[test]
fn corrupt_chains_stop_without_reading_outside_the_stack() {
    let mut stack = Stack::new();
    let fp = stack.chain(&[0x10, 0x20, 0x30], 32);
    let second = fp + 32;
    // Misaligned caller fp (above the record, as a caller's must be).
    let mut bad = Stack {
        words: stack.words.clone(),
    };
    bad.set(second, second + 0x41);
    let sample = walk(&bad, fp, 32);
    assert_eq!(
        (sample.frames(), sample.walk_end),
        (&[0x10, 0x20][..], WalkEnd::Misaligned)
    );
    // Caller fp above the stack, and a record straddling its top.
    for outside in [BASE + 8 * WORDS as u64, BASE + 8 * WORDS as u64 - 8] {
        let mut bad = Stack {
            words: stack.words.clone(),
        };
        bad.set(second, outside);
        let sample = walk(&bad, fp, 32);
        assert_eq!(sample.walk_end, WalkEnd::OutOfBounds, "{outside:#x}");
        assert_eq!(sample.frames(), &[0x10, 0x20]);
    }
    // A loop: the caller fp points back at the record itself, or below it (even below the
    // stack).
    for looped in [second, fp, BASE - 0x100] {
        let mut bad = Stack {
            words: stack.words.clone(),
        };
        bad.set(second, looped);
        let sample = walk(&bad, fp, 32);
        assert_eq!(
            (sample.frames(), sample.walk_end),
            (&[0x10, 0x20][..], WalkEnd::NotAscending)
        );
    }
    // A null return address ends the chain like a null fp.
    stack.set(second + 8, 0);
    let sample = walk(&stack, fp, 32);
    assert_eq!(
        (sample.frames(), sample.walk_end),
        (&[0x10][..], WalkEnd::Complete)
    );
    // The starting fp itself may be garbage (code without frame pointers).
    assert_eq!(walk(&stack, 0x7, 32).walk_end, WalkEnd::Misaligned);
    assert_eq!(walk(&stack, 0x10, 32).walk_end, WalkEnd::OutOfBounds);
    assert_eq!(walk(&stack, 0, 32).walk_end, WalkEnd::Complete);
}

/// A reader that refuses some addresses and records every address it was asked for.
struct Fussy<'m> {
    inner: SliceMemory<'m>,
    refuse_from: u64,
    asked: std::cell::RefCell<Vec<u64>>,
}

impl StackMemory for Fussy<'_> {
    fn read_u64(&self, address: u64) -> Option<u64> {
        self.asked.borrow_mut().push(address);
        if address >= self.refuse_from {
            None
        } else {
            self.inner.read_u64(address)
        }
    }
}

#[test]
fn random_stacks_never_panic_and_reads_stay_in_bounds() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..2000 {
        let mut stack = Stack::new();
        for word in stack.words.iter_mut() {
            // Mostly plausible stack addresses, some garbage.
            let r = next();
            *word = if r % 4 == 0 {
                r
            } else {
                BASE + (r % (8 * WORDS as u64))
            };
        }
        let fussy = Fussy {
            inner: stack.memory(),
            refuse_from: BASE + (next() % (8 * WORDS as u64)),
            asked: Default::default(),
        };
        let mut sample = Sample::new(0, 0);
        let fp = BASE + (next() % (8 * WORDS as u64));
        walk_frames(&mut sample, fp, stack.bounds(), &fussy, MAX_STACK_DEPTH);
        assert!(sample.frames().len() <= MAX_STACK_DEPTH);
        for &address in fussy.asked.borrow().iter() {
            assert!(address >= BASE && address + 8 <= BASE + 8 * WORDS as u64);
            assert_eq!(address % 8, 0);
        }
    }
}

#[test]
fn slice_memory_reads_only_its_aligned_words() {
    let words = [1, 2, 3];
    let memory = SliceMemory {
        base: 0x100,
        words: &words,
    };
    assert_eq!(memory.read_u64(0x108), Some(2));
    assert_eq!(memory.read_u64(0x10c), None);
    assert_eq!(memory.read_u64(0x118), None);
    assert_eq!(memory.read_u64(0xf8), None);
}
