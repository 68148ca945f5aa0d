//! The MFC demo's three kernels as data and as Rust: their sources, where their data sits in
//! main memory, what the host gives them, and the results they must produce, computed here
//! the same way and compared with what they left in main memory.
//!
//! A leaf that imports nothing of the demo: `tests/spu_mfc_kernels.rs` includes this file too,
//! so the host test checks the kernels with the same code as the firmware.

use core::fmt;

use pmprobe::spu::main_memory::{EaRangeError, Requester, SHARING_SPUS, SharedMemory};

/// Streaming: one or two local-store buffers over 1 MiB in 16 KiB blocks.
pub const STREAM_SOURCE: &str = include_str!("../../../spu/programs/demo_stream.s");
/// The work queue on a getllar/putllc counter.
pub const WORK_QUEUE_SOURCE: &str = include_str!("../../../spu/programs/demo_workqueue.s");
/// The sndsig handshake between two SPUs.
pub const HANDSHAKE_SOURCE: &str = include_str!("../../../spu/programs/demo_handshake.s");

/// Bytes the stream reads (and writes): 1 MiB.
pub const STREAM_BYTES: u64 = 1 << 20;
/// Bytes of one block: the largest single DMA transfer.
pub const BLOCK_BYTES: u64 = 16 * 1024;
/// Blocks of the stream.
pub const STREAM_BLOCKS: u32 = (STREAM_BYTES / BLOCK_BYTES) as u32;
/// Single-precision elements of the stream.
pub const STREAM_ELEMENTS: u32 = (STREAM_BYTES / 4) as u32;
/// EA of the stream's input, and of its output right after it.
pub const STREAM_INPUT: u64 = 0;
pub const STREAM_OUTPUT: u64 = STREAM_INPUT + STREAM_BYTES;
/// EA of the work queue's counter: the first word of a 128-byte lock line.
pub const QUEUE_COUNTER: u64 = STREAM_OUTPUT + STREAM_BYTES;
/// EA of the queue's results: 16 bytes per item, then 16 bytes per SPU (its summary).
pub const QUEUE_RESULTS: u64 = QUEUE_COUNTER + 128;
/// Items in the queue.
pub const QUEUE_ITEMS: u32 = 512;
/// SPUs sharing the queue: all of them.
pub const QUEUE_SPUS: usize = SHARING_SPUS;
/// Bytes of an item's entry (and of a summary).
pub const ENTRY_BYTES: u64 = 16;
/// Rounds of the handshake each SPU plays.
pub const HANDSHAKE_ROUNDS: u32 = 64;
/// Bytes of main memory: the stream's 2 MiB, then 64 KiB for the queue.
pub const MEMORY_BYTES: usize = 0x21_0000;

const QUEUE_END: u64 = QUEUE_RESULTS + (QUEUE_ITEMS as u64 + QUEUE_SPUS as u64) * ENTRY_BYTES;
const _: () = assert!(QUEUE_END <= MEMORY_BYTES as u64);

/// What went wrong with a kernel's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// Main memory could not be read or written there.
    Memory(EaRangeError),
    /// Output element `index` holds the bits `got`; Rust computes `expected`.
    Output { index: u32, got: u32, expected: u32 },
    /// The queue's counter ended at `got`, not at the number of items.
    Counter { got: u32 },
    /// Item `item`'s entry is missing or wrong: `{item, result, SPU, ordinal}` expected, with
    /// `result` Rust's.
    Entry {
        item: u32,
        entry: [u32; 4],
        result: u32,
    },
    /// SPU `spu`'s summary is not `{spu, taken, failures, 0}`.
    Summary { spu: usize, summary: [u32; 4] },
    /// SPU `spu` said it took `taken` items but `found` of its ordinals 0..taken are in the
    /// entries: some item was taken twice, and one entry overwrote the other.
    Ordinals { spu: usize, taken: u32, found: u32 },
    /// The SPUs' counts sum to `sum`, not to the number of items.
    Total { sum: u32 },
}

impl From<EaRangeError> for Mismatch {
    fn from(error: EaRangeError) -> Self {
        Mismatch::Memory(error)
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Memory(error) => write!(f, "{error}"),
            Mismatch::Output {
                index,
                got,
                expected,
            } => write!(f, "y[{index}] = {got:#010x}, Rust: {expected:#010x}"),
            Mismatch::Counter { got } => {
                write!(f, "counter {got}, not {QUEUE_ITEMS}")
            }
            Mismatch::Entry {
                item,
                entry,
                result,
            } => {
                let [a, b, c, d] = entry;
                write!(
                    f,
                    "item {item}: {{{a:#x}, {b:#x}, {c:#x}, {d:#x}}}, Rust: {{{item:#x}, {result:#x}, SPU, ordinal}}"
                )
            }
            Mismatch::Summary { spu, summary } => {
                let [a, b, c, d] = summary;
                write!(
                    f,
                    "SPU{spu}'s summary is {{{a:#x}, {b:#x}, {c:#x}, {d:#x}}}"
                )
            }
            Mismatch::Ordinals { spu, taken, found } => write!(
                f,
                "SPU{spu} took {taken} items, {found} entries survive: one was taken twice"
            ),
            Mismatch::Total { sum } => {
                write!(f, "{sum} items taken, not {QUEUE_ITEMS}")
            }
        }
    }
}

/// Bytes the host reads or writes main memory in, through a buffer on its stack.
const CHUNK: usize = 4096;

/// Writes `bytes` zero bytes at `ea`, as the host.
pub fn clear(memory: &dyn SharedMemory, ea: u64, bytes: u64) -> Result<(), EaRangeError> {
    let zeros = [0u8; CHUNK];
    let mut offset = 0;
    while offset < bytes {
        let len = (bytes - offset).min(CHUNK as u64) as usize;
        memory.write(
            Requester::Host,
            ea + offset,
            zeros.get(..len).unwrap_or(&[]),
        )?;
        offset += len as u64;
    }
    Ok(())
}

/// The four big-endian words at `ea`.
fn words(memory: &dyn SharedMemory, ea: u64) -> Result<[u32; 4], EaRangeError> {
    let mut bytes = [0u8; 16];
    memory.read(ea, &mut bytes)?;
    let mut out = [0u32; 4];
    for (word, bytes) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        *word = be_word(bytes);
    }
    Ok(out)
}

/// The big-endian word of 4 bytes.
fn be_word(bytes: &[u8]) -> u32 {
    u32::from_be_bytes(bytes.try_into().unwrap_or([0; 4]))
}

/// Input element `i`: 12 bits of a multiplicative hash of `i`, in quarters around 0 (-512 to
/// 511.75). Such values and 1.5 x + 3 are exact in single precision, so the SPU's fused,
/// truncating `fma` and Rust's rounded multiply and add agree bit for bit.
pub fn stream_input(i: u32) -> f32 {
    (i.wrapping_mul(0x9e37_79b1) >> 20) as f32 * 0.25 - 512.0
}

/// What the kernel computes from an input element.
pub fn stream_output(x: f32) -> f32 {
    1.5 * x + 3.0
}

/// The inbound mailbox of `demo_stream.s`: buffers, input EA, output EA, blocks.
pub fn stream_mailbox(buffers: u32) -> [u32; 4] {
    [
        buffers,
        STREAM_INPUT as u32,
        STREAM_OUTPUT as u32,
        STREAM_BLOCKS,
    ]
}

/// Writes the stream's input to main memory, as the host.
pub fn write_stream_input(memory: &dyn SharedMemory) -> Result<(), EaRangeError> {
    let mut chunk = [0u8; CHUNK];
    let mut index = 0u32;
    for offset in (0..STREAM_BYTES).step_by(CHUNK) {
        for word in chunk.chunks_exact_mut(4) {
            word.copy_from_slice(&stream_input(index).to_bits().to_be_bytes());
            index += 1;
        }
        memory.write(Requester::Host, STREAM_INPUT + offset, &chunk)?;
    }
    Ok(())
}

/// Compares every output element in main memory with Rust's; when all are equal, returns the
/// checksum the kernel reports (the sum of the output words' bit patterns, mod 2^32).
pub fn check_stream_output(memory: &dyn SharedMemory) -> Result<u32, Mismatch> {
    let mut chunk = [0u8; CHUNK];
    let mut index = 0u32;
    let mut checksum = 0u32;
    for offset in (0..STREAM_BYTES).step_by(CHUNK) {
        memory.read(STREAM_OUTPUT + offset, &mut chunk)?;
        for word in chunk.chunks_exact(4) {
            let got = be_word(word);
            let expected = stream_output(stream_input(index)).to_bits();
            if got != expected {
                return Err(Mismatch::Output {
                    index,
                    got,
                    expected,
                });
            }
            checksum = checksum.wrapping_add(expected);
            index += 1;
        }
    }
    Ok(checksum)
}

/// The seed an item's work starts from (`item ^ QUEUE_SEED`) and its rounds of xorshift32.
const QUEUE_SEED: u32 = 0x2545_f491;
const QUEUE_ROUNDS: u32 = 16;

/// The result `demo_workqueue.s` computes for `item`.
pub fn item_result(item: u32) -> u32 {
    let mut x = item ^ QUEUE_SEED;
    for _ in 0..QUEUE_ROUNDS {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    x
}

/// The inbound mailbox of `demo_workqueue.s` on SPU `spu`: its number, the items, the EAs of
/// the counter and of the results.
pub fn queue_mailbox(spu: usize) -> [u32; 4] {
    [
        spu as u32,
        QUEUE_ITEMS,
        QUEUE_COUNTER as u32,
        QUEUE_RESULTS as u32,
    ]
}

/// Sets the counter to 0 and clears the results, as the host.
pub fn reset_queue(memory: &dyn SharedMemory) -> Result<(), EaRangeError> {
    clear(memory, QUEUE_COUNTER, QUEUE_END - QUEUE_COUNTER)
}

/// The counter's value now.
pub fn queue_counter(memory: &dyn SharedMemory) -> Result<u32, EaRangeError> {
    Ok(words(memory, QUEUE_COUNTER)?[0])
}

/// What each SPU says it did (its summary in main memory).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueTally {
    /// Items it took.
    pub taken: [u32; QUEUE_SPUS],
    /// Its `putllc`s that failed (the reservation was lost), counted by the kernel itself.
    pub failures: [u32; QUEUE_SPUS],
}

/// Checks the queue after the run: the counter reached the item count; every item's entry
/// holds the item, Rust's result, a valid SPU and an ordinal below that SPU's count; and each
/// SPU's ordinals 0..taken all appear, with the counts summing to the items. Since there is
/// one entry per item, the last two mean that no item was processed twice: a second take
/// would have used an ordinal whose entry was overwritten.
pub fn check_queue(memory: &dyn SharedMemory) -> Result<QueueTally, Mismatch> {
    let counter = queue_counter(memory)?;
    if counter != QUEUE_ITEMS {
        return Err(Mismatch::Counter { got: counter });
    }
    let mut tally = QueueTally::default();
    for spu in 0..QUEUE_SPUS {
        let ea = QUEUE_RESULTS + (u64::from(QUEUE_ITEMS) + spu as u64) * ENTRY_BYTES;
        let summary = words(memory, ea)?;
        let [who, taken, failures, zero] = summary;
        if who != spu as u32 || zero != 0 || taken > QUEUE_ITEMS {
            return Err(Mismatch::Summary { spu, summary });
        }
        tally.taken[spu] = taken;
        tally.failures[spu] = failures;
    }
    // Bit `ordinal` of `seen[spu]`: SPU `spu`'s entry with that ordinal was found.
    let mut seen = [[0u64; QUEUE_ITEMS.div_ceil(64) as usize]; QUEUE_SPUS];
    for item in 0..QUEUE_ITEMS {
        let entry = words(memory, QUEUE_RESULTS + u64::from(item) * ENTRY_BYTES)?;
        let [number, result, spu, ordinal] = entry;
        let expected = item_result(item);
        let bits = seen.get_mut(spu as usize);
        let taken = tally.taken.get(spu as usize).copied().unwrap_or(0);
        let fresh = match bits.and_then(|bits| bits.get_mut(ordinal as usize / 64)) {
            Some(word) if ordinal < taken && *word & (1u64 << (ordinal % 64)) == 0 => {
                *word |= 1u64 << (ordinal % 64);
                true
            }
            _ => false,
        };
        if number != item || result != expected || !fresh {
            return Err(Mismatch::Entry {
                item,
                entry,
                result: expected,
            });
        }
    }
    for (spu, (bits, &taken)) in seen.iter().zip(&tally.taken).enumerate() {
        let found: u32 = bits.iter().map(|word| word.count_ones()).sum();
        if found != taken {
            return Err(Mismatch::Ordinals { spu, taken, found });
        }
    }
    let sum = tally.taken.iter().sum();
    if sum != QUEUE_ITEMS {
        return Err(Mismatch::Total { sum });
    }
    Ok(tally)
}

/// The inbound mailbox of `demo_handshake.s`: the partner SPU, the rounds.
pub fn handshake_mailbox(partner: usize) -> [u32; 2] {
    [partner as u32, HANDSHAKE_ROUNDS]
}

/// How the handshake ends, when the host starts it by writing 0 to the first SPU's signal
/// register 1: the last counter the first SPU received (it gets the even ones), the last the
/// second received (the odd ones), and the one left in the first SPU's register (the second's
/// last send, after the first had played its rounds).
pub fn handshake_expected() -> [u32; 3] {
    let sent = 2 * HANDSHAKE_ROUNDS;
    [sent - 2, sent - 1, sent]
}
