//! The `mfc` fuzz target's reference: what the operations must do with immediate timing,
//! written from the CBEA's rules as docs/spu-mfc.md states them, independently of
//! `pmprobe::spu::mfc`. Every command runs, whole, as soon as the ordering rules let it; a
//! list runs up to an element with stall-and-notify (not its last) and waits for its
//! acknowledgement.

use pmprobe::spu::mfc::DmaErrorKind;

use super::{LS, MEMORY, Op};

/// What the operations must show.
pub struct Expected {
    pub refused: Vec<Option<DmaErrorKind>>,
    pub reads: Vec<Option<u32>>,
    pub transfers: Vec<(u16, u32, u64, u32)>,
    pub ls: Vec<u8>,
    pub memory: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Get,
    Put,
    GetList,
    PutList,
    Sndsig,
    Getllar,
    Putllc,
    Putlluc,
    Putqlluc,
    Barrier,
    TagBarrier,
}

/// The opcodes an SPU may issue (spu_mfcio.h), with their kind and whether they are fenced
/// (f) or barriered (b).
fn decode(opcode: u32) -> Option<(Kind, bool, bool)> {
    let (barrier, fence) = (opcode & 1 == 1, opcode & 2 == 2);
    let ordered = |kind| Some((kind, fence, barrier));
    match opcode {
        0x20..=0x22 | 0x30..=0x32 => ordered(Kind::Put),
        0x24..=0x26 | 0x34..=0x36 => ordered(Kind::PutList),
        0x40..=0x42 => ordered(Kind::Get),
        0x44..=0x46 => ordered(Kind::GetList),
        0xA0..=0xA2 => ordered(Kind::Sndsig),
        0xB0 => Some((Kind::Putlluc, false, false)),
        0xB4 => Some((Kind::Putllc, false, false)),
        0xB8 => Some((Kind::Putqlluc, false, false)),
        0xC0 => Some((Kind::Barrier, false, false)),
        0xC8 | 0xCC => Some((Kind::TagBarrier, false, false)),
        0xD0 => Some((Kind::Getllar, false, false)),
        _ => None,
    }
}

fn transfer_rules(lsa: u32, ea: u64, size: u32) -> Result<(), DmaErrorKind> {
    let small = matches!(size, 1 | 2 | 4 | 8);
    if !small && (!size.is_multiple_of(16) || size > 16384) {
        return Err(DmaErrorKind::Size);
    }
    let align = if small { u64::from(size) } else { 16 };
    if u64::from(lsa % 16) != ea % 16 || !ea.is_multiple_of(align) {
        return Err(DmaErrorKind::Alignment);
    }
    if lsa as usize + size as usize > LS {
        return Err(DmaErrorKind::LocalStoreRange);
    }
    if ea + u64::from(size) > MEMORY as u64 {
        return Err(DmaErrorKind::EaOutOfRange);
    }
    Ok(())
}

fn is_signal_register(ea: u64) -> bool {
    let Some(offset) = ea.checked_sub(0xF000_0000) else {
        return false;
    };
    offset / 0x10_0000 < 8 && matches!(offset % 0x10_0000, 0x5_400C | 0x5_C00C)
}

struct Command {
    opcode: u32,
    kind: Kind,
    fence: bool,
    barrier: bool,
    tag: u32,
    lsa: u32,
    ea: u64,
    size: u32,
    next_element: u32,
    cursor: u32,
    started: bool,
    stalled: bool,
}

struct Reference {
    ls: Vec<u8>,
    memory: Vec<u8>,
    queue: Vec<Command>,
    mask: u32,
    request: Option<u32>,
    tag_status: Option<u32>,
    list_stall: Option<u32>,
    atomic_status: Option<u32>,
    reserved_line: Option<u64>,
    transfers: Vec<(u16, u32, u64, u32)>,
}

impl Reference {
    fn copy_in(&mut self, lsa: u32, ea: u64, size: u32) {
        for i in 0..size as usize {
            self.ls[(lsa as usize + i) % LS] = self.memory[ea as usize + i];
        }
    }

    fn copy_out(&mut self, lsa: u32, ea: u64, size: u32) {
        for i in 0..size as usize {
            self.memory[ea as usize + i] = self.ls[(lsa as usize + i) % LS];
        }
        if size > 0 {
            let (first, last) = (ea / 128, (ea + u64::from(size) - 1) / 128);
            if self
                .reserved_line
                .is_some_and(|line| (first..=last).contains(&line))
            {
                self.reserved_line = None;
            }
        }
    }

    fn word(&self, lsa: u32) -> u32 {
        let at = |i: u32| self.ls[((lsa + i) as usize) % LS];
        u32::from_be_bytes([at(0), at(1), at(2), at(3)])
    }

    /// Whether queue entry `j` may run: nothing before it that it must wait for.
    fn may_run(&self, j: usize) -> bool {
        let this = &self.queue[j];
        if this.started {
            return true;
        }
        let waits =
            this.fence || this.barrier || matches!(this.kind, Kind::TagBarrier | Kind::Putqlluc);
        self.queue[..j].iter().all(|earlier| {
            let holds = earlier.barrier || earlier.kind == Kind::TagBarrier;
            !(earlier.kind == Kind::Barrier
                || this.kind == Kind::Barrier
                || earlier.tag == this.tag && (waits || holds))
        })
    }

    /// Runs entry `j`; `Err` for a list element the rules refuse.
    fn execute(&mut self, j: usize) -> Result<(), DmaErrorKind> {
        let opcode = self.queue[j].opcode as u16;
        let (kind, lsa, ea, size) = {
            let c = &self.queue[j];
            (c.kind, c.lsa, c.ea, c.size)
        };
        match kind {
            Kind::Get | Kind::Put if size > 0 => {
                if kind == Kind::Get {
                    self.copy_in(lsa, ea, size);
                } else {
                    self.copy_out(lsa, ea, size);
                }
                self.transfers.push((opcode, lsa, ea, size));
            }
            Kind::Sndsig => self.transfers.push((opcode, lsa, ea, 4)),
            Kind::Putqlluc => {
                self.copy_out(lsa & !127, ea & !127, 128);
                self.transfers.push((opcode, lsa & !127, ea & !127, 128));
            }
            Kind::GetList | Kind::PutList => return self.run_list(j),
            _ => {}
        }
        self.queue.remove(j);
        Ok(())
    }

    /// Runs a list up to an element with stall-and-notify (not its last) or its end. The
    /// elements of that stretch are all checked before any moves: a bad one refuses the
    /// stretch whole (docs/spu-mfc.md: nothing moves for a refused command).
    fn run_list(&mut self, j: usize) -> Result<(), DmaErrorKind> {
        let (opcode, list, elements, tag) = {
            let c = &self.queue[j];
            (c.opcode as u16, c.ea as u32, c.size / 8, c.tag)
        };
        self.queue[j].started = true;
        let mut stretch = Vec::new();
        let mut cursor = self.queue[j].cursor;
        let mut stalls = false;
        for index in self.queue[j].next_element..elements {
            let first = self.word(list + 8 * index);
            let eal = self.word(list + 8 * index + 4);
            let (stall, size) = (first & 0x8000_0000 != 0, first & 0x7fff);
            // CBEA 7.4: an element under 16 bytes takes its EA's low 4 bits.
            let lsa = if size < 16 {
                (cursor & !15) | (eal & 15)
            } else {
                cursor
            };
            let ea = u64::from(eal);
            transfer_rules(lsa, ea, size).map_err(|kind| match kind {
                DmaErrorKind::LocalStoreRange => DmaErrorKind::ListOutsideLocalStore,
                other => other,
            })?;
            stretch.push((lsa, ea, size));
            if size > 0 {
                cursor = (lsa + size).next_multiple_of(16);
            }
            if stall && index + 1 < elements {
                stalls = true;
                break;
            }
        }
        for &(lsa, ea, size) in &stretch {
            if size == 0 {
                continue;
            }
            if self.queue[j].kind == Kind::GetList {
                self.copy_in(lsa, ea, size);
            } else {
                self.copy_out(lsa, ea, size);
            }
            self.transfers.push((opcode, lsa, ea, size));
        }
        self.queue[j].cursor = cursor;
        self.queue[j].next_element += stretch.len() as u32;
        if stalls {
            self.queue[j].stalled = true;
            let stalled = self.list_stall.unwrap_or(0) | 1 << tag;
            self.list_stall = Some(stalled);
            return Ok(());
        }
        self.queue.remove(j);
        Ok(())
    }

    fn drain(&mut self) -> Result<(), DmaErrorKind> {
        while let Some(j) =
            (0..self.queue.len()).find(|&j| !self.queue[j].stalled && self.may_run(j))
        {
            self.execute(j)?;
        }
        if let Some(condition) = self.request {
            let busy = self.queue.iter().fold(0u32, |b, c| b | 1 << c.tag);
            let complete = self.mask & !busy;
            let holds = match condition {
                0 => true,
                1 => complete != 0,
                _ => complete == self.mask,
            };
            if holds {
                self.tag_status = Some(complete);
                self.request = None;
            }
        }
        Ok(())
    }

    fn atomic(&mut self, kind: Kind, lsa: u32, ea: u64) {
        let (lsa, line) = (lsa & !127, ea & !127);
        let opcode = match kind {
            Kind::Getllar => 0xD0,
            Kind::Putllc => 0xB4,
            _ => 0xB0,
        };
        self.atomic_status = Some(match kind {
            Kind::Getllar => {
                self.copy_in(lsa, line, 128);
                self.reserved_line = Some(line / 128);
                4
            }
            Kind::Putllc if self.reserved_line == Some(line / 128) => {
                self.copy_out(lsa, line, 128);
                0
            }
            Kind::Putllc => {
                self.reserved_line = None;
                1
            }
            _ => {
                self.copy_out(lsa, line, 128);
                2
            }
        });
        self.transfers.push((opcode, lsa, line, 128));
    }
}

pub fn run(initial: &[u8], ops: &[Op]) -> Expected {
    let mut r = Reference {
        ls: vec![0; LS],
        memory: initial.to_vec(),
        queue: Vec::new(),
        mask: 0,
        request: None,
        tag_status: None,
        list_stall: None,
        atomic_status: None,
        reserved_line: None,
        transfers: Vec::new(),
    };
    let mut refused = Vec::new();
    let mut reads = Vec::new();
    for op in ops {
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
                    let at = *ea as usize + 8 * i;
                    let first = (u32::from(stall) << 31) | element_size;
                    r.ls[at..at + 4].copy_from_slice(&first.to_be_bytes());
                    r.ls[at + 4..at + 8].copy_from_slice(&eal.to_be_bytes());
                }
                let checked = decode(*opcode)
                    .ok_or(DmaErrorKind::UnknownCommand)
                    .and_then(|decoded| {
                        let (kind, ..) = decoded;
                        match kind {
                            Kind::Get | Kind::Put => transfer_rules(*lsa, *ea, *size)?,
                            Kind::GetList | Kind::PutList => {
                                let list = *ea as u32;
                                if size % 8 != 0 || *size > 16384 {
                                    return Err(DmaErrorKind::Size);
                                }
                                if !list.is_multiple_of(8) {
                                    return Err(DmaErrorKind::Alignment);
                                }
                                if list as usize + *size as usize > LS || *lsa as usize >= LS {
                                    return Err(DmaErrorKind::ListOutsideLocalStore);
                                }
                            }
                            Kind::Sndsig => {
                                if *size != 4 {
                                    return Err(DmaErrorKind::Size);
                                }
                                if u64::from(lsa % 16) != ea % 16 {
                                    return Err(DmaErrorKind::Alignment);
                                }
                                if *lsa as usize >= LS {
                                    return Err(DmaErrorKind::LocalStoreRange);
                                }
                                if !is_signal_register(*ea) {
                                    return Err(DmaErrorKind::EaOutOfRange);
                                }
                            }
                            Kind::Getllar | Kind::Putllc | Kind::Putlluc | Kind::Putqlluc => {
                                if (ea & !127) + 128 > MEMORY as u64 {
                                    return Err(DmaErrorKind::EaOutOfRange);
                                }
                                if *lsa as usize >= LS {
                                    return Err(DmaErrorKind::LocalStoreRange);
                                }
                            }
                            Kind::Barrier | Kind::TagBarrier => {}
                        }
                        Ok(decoded)
                    });
                let (kind, fence, barrier) = match checked {
                    Ok(decoded) => decoded,
                    Err(kind) => {
                        refused.push(Some(kind));
                        break;
                    }
                };
                refused.push(None);
                if matches!(kind, Kind::Getllar | Kind::Putllc | Kind::Putlluc) {
                    r.atomic(kind, *lsa, *ea);
                } else {
                    if r.queue.len() >= 16 {
                        // A full queue holds the write for good: nothing will complete.
                        break;
                    }
                    r.queue.push(Command {
                        opcode: *opcode,
                        kind,
                        fence,
                        barrier,
                        // CBEA: the tag is MFC_TagID's five low bits.
                        tag: *tag & 31,
                        lsa: *lsa,
                        ea: *ea,
                        size: *size,
                        next_element: 0,
                        cursor: *lsa,
                        started: false,
                        stalled: false,
                    });
                }
            }
            Op::TagMask(mask) => r.mask = *mask,
            Op::TagUpdate(value) if *value < 3 => r.request = Some(*value),
            Op::TagUpdate(_) => {}
            Op::ReadTagStatus => reads.push(r.tag_status.take()),
            Op::ReadListStall => reads.push(r.list_stall.take()),
            Op::ReadAtomicStatus => reads.push(r.atomic_status.take()),
            Op::AckListStall(tag) => {
                for command in r.queue.iter_mut().filter(|c| c.tag == *tag) {
                    command.stalled = false;
                }
            }
            Op::HostWrite(ea) => {
                r.memory[*ea as usize] = 0x5a;
                if r.reserved_line == Some(ea / 128) {
                    r.reserved_line = None;
                }
            }
            Op::Advance(_) => {}
        }
        if let Err(kind) = r.drain() {
            refused.push(Some(kind));
            break;
        }
    }
    let mut transfers = r.transfers;
    transfers.sort_unstable();
    Expected {
        refused,
        reads,
        transfers,
        ls: r.ls,
        memory: r.memory,
    }
}
