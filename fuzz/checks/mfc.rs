//! The checks of the `mfc` fuzz target: a sequence of MFC operations (commands with their
//! parameters, tag masks and update requests, status reads, list-stall acknowledgements, a host
//! write to a reserved line, time passing) runs on the MFC twice, with immediate timing
//! (instruction mode) and with the pipeline's timing, and against a reference model written
//! here from the CBEA's rules (docs/spu-mfc.md):
//! - immediate timing: every refusal, every status read and the final local store and main
//!   memory equal the reference's, which runs each command when the ordering rules let it,
//!   sequentially;
//! - timed: the same transfers complete (lists and their data kept apart, so no transfer can
//!   change what another reads), none earlier than the documented start-up and latency allow,
//!   a fenced command no earlier than the commands of its group before it; time only moves on
//!   and the queue never holds more than 16.
//!
//! No panic, no hang: at most 48 operations, transfers of at most 16 KiB.

use std::cell::RefCell;

use pmprobe::spu::main_memory::{MainMemory, Requester, SharedMemory};
use pmprobe::spu::mfc::{
    CommandKind, CommandWrite, DmaErrorKind, DmaEvent, DmaTiming, LocalStoreBytes, MemoryPort, Mfc,
};

#[path = "byte_stream.rs"]
mod byte_stream;
use byte_stream::ByteStream;

const LS: usize = 256 * 1024;
const MEMORY: usize = 64 * 1024;
/// Lists live above this LS address, data below it: no transfer rewrites a list.
const LIST_AREA: u32 = 0x3_0000;

thread_local! {
    static SHARED: &'static MainMemory<Vec<u8>> =
        Box::leak(Box::new(MainMemory::new(vec![0u8; MEMORY])));
}

/// A local store for the MFC alone.
struct Ls(Vec<u8>);

impl LocalStoreBytes for Ls {
    fn read_bytes(&self, lsa: u32, out: &mut [u8]) {
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = self.0[(lsa as usize + i) % LS];
        }
    }
    fn write_bytes(&mut self, lsa: u32, data: &[u8]) {
        for (i, &byte) in data.iter().enumerate() {
            self.0[(lsa as usize + i) % LS] = byte;
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// `MFC_LSA`..`MFC_TagID`, then `MFC_Cmd`; for a list, its elements written first.
    Command {
        opcode: u32,
        lsa: u32,
        ea: u64,
        size: u32,
        tag: u32,
        elements: Vec<(bool, u32, u32)>,
    },
    TagMask(u32),
    TagUpdate(u32),
    ReadTagStatus,
    ReadListStall,
    AckListStall(u32),
    ReadAtomicStatus,
    HostWrite(u64),
    Advance(u64),
}

const OPCODES: [u32; 20] = [
    0x40, 0x41, 0x42, 0x20, 0x21, 0x22, 0x44, 0x46, 0x24, 0x25, 0xD0, 0xB4, 0xB0, 0xB8, 0xA0, 0xC0,
    0xC8, 0xCC, 0x60, 0x28,
];
const SIZES: [u32; 14] = [0, 1, 2, 4, 8, 16, 32, 48, 128, 256, 4096, 16384, 24, 3];

/// A command; `slot` numbers the operation, so each list has an LS area of its own (a
/// program that rewrote a list still queued would race with the MFC).
fn command(input: &mut ByteStream, slot: usize) -> Op {
    let opcode = OPCODES[input.below(OPCODES.len())];
    let size = if input.below(8) == 0 {
        input.u32() & 0x7fff
    } else {
        SIZES[input.below(SIZES.len())]
    };
    let align = if size < 16 { size.max(1) } else { 16 };
    // Below the list area with room for the largest transfer.
    let mut lsa = (input.u32() % (LIST_AREA - 16384)) & !(align - 1);
    let mut ea = (u64::from(input.u32()) % (MEMORY as u64 + 4096)) & !u64::from(align - 1);
    if input.below(6) == 0 {
        // Misaligned, or low 4 bits that differ.
        lsa |= u32::from(input.byte()) & 15;
        ea |= u64::from(input.byte()) & 15;
    }
    if opcode == 0xA0 {
        // Half the signals go to a signal register of SPU 0..7.
        if input.below(2) == 0 {
            ea = 0xF000_0000 + u64::from(input.below(8) as u32) * 0x10_0000 + 0x5_400C;
            lsa = (lsa & !15) | 0xC;
        }
    }
    let tag = if input.below(16) == 0 {
        u32::from(input.byte())
    } else {
        input.below(32) as u32
    };
    let mut elements = Vec::new();
    let list = matches!(opcode, 0x44 | 0x46 | 0x24 | 0x25);
    let (lsa, ea, size) = if list {
        let count = 1 + input.below(6);
        for _ in 0..count {
            let element_size = [0, 8, 16, 32, 128, 24][input.below(6)];
            let element_align = if element_size < 16 {
                element_size.max(1)
            } else {
                16
            };
            let eal = (input.u32() % MEMORY as u32) & !(element_align - 1);
            elements.push((input.below(4) == 0, element_size, eal));
        }
        let at = LIST_AREA + 64 * slot as u32 + 8 * input.below(2) as u32;
        (lsa & !15, u64::from(at), 8 * count as u32)
    } else {
        (lsa, ea, size)
    };
    Op::Command {
        opcode,
        lsa,
        ea,
        size,
        tag,
        elements,
    }
}

fn program(data: &[u8]) -> (Vec<u8>, Vec<Op>) {
    let mut input = ByteStream::new(data);
    let seed = input.u32() | 1;
    let mut ops = Vec::new();
    while !input.is_done() && ops.len() < 48 {
        ops.push(match input.below(12) {
            0..=3 => command(&mut input, ops.len()),
            4 => Op::TagMask(input.u32()),
            5 => Op::TagUpdate(input.below(4) as u32),
            6 => Op::ReadTagStatus,
            7 => Op::ReadListStall,
            8 => Op::AckListStall(input.below(32) as u32),
            9 => Op::ReadAtomicStatus,
            10 => Op::HostWrite(u64::from(input.u32()) % MEMORY as u64),
            _ => Op::Advance(u64::from(input.u32() % 4096)),
        });
    }
    // The initial contents of main memory, from the input's seed.
    let mut state = seed;
    let bytes = (0..MEMORY)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect();
    (bytes, ops)
}

/// What one run saw: each refusal, each read, the transfers, the final stores.
#[derive(Debug, Default, PartialEq)]
struct Run {
    refused: Vec<Option<DmaErrorKind>>,
    reads: Vec<Option<u32>>,
    transfers: Vec<(u16, u32, u64, u32)>,
    ls: Vec<u8>,
    memory: Vec<u8>,
}

fn run_model(initial: &[u8], ops: &[Op], timed: bool) -> (Run, Vec<DmaEvent>) {
    let memory = SHARED.with(|m| *m);
    memory.clear();
    memory.write(Requester::Host, 0, initial).unwrap();
    let mut mfc = Box::new(Mfc::new());
    mfc.attach(MemoryPort::to(memory));
    mfc.set_timed(timed);
    let timing = DmaTiming::cell();
    let mut ls = Ls(vec![0u8; LS]);
    let mut run = Run::default();
    let events = RefCell::new(Vec::new());
    let mut now = 0u64;
    let service = |mfc: &mut Mfc, ls: &mut Ls, now: u64| {
        let _ = mfc.service(now, 0, ls, &mut |e| events.borrow_mut().push(*e));
    };
    for op in ops {
        assert!(mfc.queued() <= 16);
        match op {
            Op::Command {
                opcode,
                lsa,
                ea,
                size,
                tag,
                elements,
            } => {
                for (i, &(stall, element_size, eal)) in elements.iter().enumerate() {
                    let first = (u32::from(stall) << 31) | element_size;
                    let mut bytes = first.to_be_bytes().to_vec();
                    bytes.extend(eal.to_be_bytes());
                    ls.write_bytes(*ea as u32 + 8 * i as u32, &bytes);
                }
                mfc.write_lsa(*lsa);
                mfc.write_eah((ea >> 32) as u32);
                mfc.write_eal(*ea as u32);
                mfc.write_size(*size);
                mfc.write_tag(*tag);
                let written = mfc.write_command(*opcode, now);
                run.refused.push(match written {
                    CommandWrite::Refused(fault) => Some(fault.kind),
                    _ => None,
                });
                if let CommandWrite::Refused(_) = written {
                    break;
                }
                if written == CommandWrite::Blocked {
                    // A full queue: the write waits for the MFC, as the SPU would.
                    while mfc.queued() >= 16 {
                        let Some(at) = mfc.next_event() else { break };
                        assert!(at >= now);
                        now = at;
                        service(&mut mfc, &mut ls, now);
                    }
                    if mfc.queued() >= 16
                        || mfc.write_command(*opcode, now) != CommandWrite::Accepted
                    {
                        break;
                    }
                }
            }
            Op::TagMask(mask) => mfc.write_tag_mask(*mask),
            Op::TagUpdate(value) => mfc.write_tag_update(*value),
            Op::ReadTagStatus if !timed => run.reads.push(mfc.read_tag_status()),
            Op::ReadListStall if !timed => run.reads.push(mfc.read_list_stall()),
            Op::ReadAtomicStatus if !timed => run.reads.push(mfc.read_atomic_status()),
            Op::ReadTagStatus | Op::ReadListStall | Op::ReadAtomicStatus => {}
            Op::AckListStall(tag) => mfc.acknowledge_list_stall(*tag),
            Op::HostWrite(ea) => memory.write(Requester::Host, *ea, &[0x5a]).unwrap(),
            Op::Advance(cycles) => now += cycles,
        }
        service(&mut mfc, &mut ls, now);
        if let Some(fault) = mfc.fault() {
            // Found while the MFC ran (a list element): the command was accepted before.
            run.refused.push(Some(fault.kind));
            break;
        }
    }
    // Let every transfer in flight finish (a stalled list stays stalled).
    if timed && mfc.fault().is_none() {
        while let Some(at) = mfc.next_event() {
            assert!(at >= now, "time moved back: {at} < {now}");
            now = at;
            service(&mut mfc, &mut ls, now);
        }
    }
    let events = events.into_inner();
    for event in &events {
        if event.size > 0 && timed && event.command.kind != CommandKind::Sndsig {
            let least = u64::from(timing.issue_cycles + timing.latency_cycles);
            assert!(
                event.completed >= event.issued + least,
                "{event}: completed before the documented start-up and latency"
            );
        }
    }
    run.transfers = events
        .iter()
        .map(|e| (e.command.opcode, e.lsa, e.ea, e.size))
        .collect();
    run.transfers.sort_unstable();
    run.ls = ls.0;
    run.memory = vec![0u8; MEMORY];
    memory.read(0, &mut run.memory).unwrap();
    (run, events)
}

#[path = "mfc_reference.rs"]
mod reference;

pub fn check(data: &[u8]) {
    let (initial, ops) = program(data);
    let (immediate, _) = run_model(&initial, &ops, false);
    let expected = reference::run(&initial, &ops);
    assert_eq!(immediate.refused, expected.refused, "refusals, {ops:?}");
    assert_eq!(immediate.reads, expected.reads, "status reads, {ops:?}");
    assert_eq!(
        immediate.transfers, expected.transfers,
        "transfers, {ops:?}"
    );
    assert!(immediate.ls == expected.ls, "local store, {ops:?}");
    assert!(immediate.memory == expected.memory, "main memory, {ops:?}");
    // Timed: the same transfers, for the sequences whose transfers cannot depend on the
    // timing: no atomic command (its outcome depends on when the host's write lands), no list
    // that stalls (an acknowledgement may come before the stall), nothing refused. Lists and
    // data are kept apart, so no transfer changes what another reads.
    let (timed, _) = run_model(&initial, &ops, true);
    let timing_free = ops.iter().all(|op| match op {
        Op::Command {
            opcode, elements, ..
        } => !matches!(opcode, 0xB0 | 0xB4 | 0xB8 | 0xD0) && elements.iter().all(|e| !e.0),
        _ => true,
    });
    if timing_free && expected.refused.iter().all(Option::is_none) {
        assert_eq!(
            timed.transfers, expected.transfers,
            "timed transfers, {ops:?}"
        );
    }
}
