//! Hardware watchpoints through the runtime's debug exception handler: a write watchpoint on a
//! variable reports every write to it, once, with the PC of the store and the size it wrote
//! (decoded from the instruction), and the store still happens (the handler steps past it);
//! loads and writes next to the variable are not reported; with every comparator in use the
//! next install is the typed error, with the count read from ID_AA64DFR0_EL1.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU64, Ordering};

use aarch64_cpu::registers::{ID_AA64DFR0_EL1, Readable};
use pmprobe::hwdebug::{HwDebugError, WatchKind};
use pmprobe::probe::Listener;
use pmprobe::probe::listeners::{AccessKind, MemAccess};
use pmprobe::rt::debug_exceptions;

pmprobe::entry!(main);

/// The watched variable (8 bytes) and its neighbour, in one 16-byte-aligned block.
#[repr(C, align(16))]
struct Block {
    watched: AtomicU64,
    neighbour: AtomicU64,
}

static BLOCK: Block = Block {
    watched: AtomicU64::new(0),
    neighbour: AtomicU64::new(0),
};

/// The accesses reported, in order (pc, address, size, write).
struct Recorder {
    count: AtomicU64,
    pcs: [AtomicU64; 8],
    addresses: [AtomicU64; 8],
    sizes: [AtomicU64; 8],
    writes: [AtomicU64; 8],
}

impl Listener<MemAccess> for Recorder {
    fn notify(&self, access: &MemAccess) {
        let i = self.count.fetch_add(1, Ordering::Relaxed) as usize;
        if let (Some(pc), Some(address), Some(size), Some(write)) = (
            self.pcs.get(i),
            self.addresses.get(i),
            self.sizes.get(i),
            self.writes.get(i),
        ) {
            pc.store(access.pc, Ordering::Relaxed);
            address.store(access.address, Ordering::Relaxed);
            size.store(u64::from(access.size), Ordering::Relaxed);
            write.store(
                u64::from(access.kind == AccessKind::Write),
                Ordering::Relaxed,
            );
        }
    }
}

static RECORDER: Recorder = Recorder {
    count: AtomicU64::new(0),
    pcs: [const { AtomicU64::new(0) }; 8],
    addresses: [const { AtomicU64::new(0) }; 8],
    sizes: [const { AtomicU64::new(0) }; 8],
    writes: [const { AtomicU64::new(0) }; 8],
};

/// Stores `value` at `address` with the store instruction `$insn` (register form `$reg`) and
/// returns the store's address, which the watchpoint must report as the PC.
macro_rules! store {
    ($insn:literal, $reg:literal, $address:expr, $value:expr) => {{
        let pc: u64;
        // SAFETY: a store into BLOCK, whose fields are atomics (interior mutability); the
        // address and size stay inside the 16-byte block.
        unsafe {
            core::arch::asm!(
                "adr {pc}, 2f",
                concat!("2: ", $insn, " {value:", $reg, "}, [{address}]"),
                pc = out(reg) pc,
                value = in(reg) $value,
                address = in(reg) $address,
                options(nostack, preserves_flags),
            );
        }
        pc
    }};
}

fn main() -> i32 {
    let mut t = pmprobe_guest::Checks::new("watchpoint_writes");
    if let Err(e) = debug_exceptions::enable() {
        t.check_with("enable", false, format_args!("{e}"));
        return t.finish();
    }
    let base = BLOCK.watched.as_ptr() as u64;
    let installed = debug_exceptions::with_monitor(|m| {
        m.watchpoint_point().add_object(&RECORDER).ok()?;
        m.install_watchpoint(base, 8, WatchKind::Write).ok()
    });
    let Ok(Some(watchpoint)) = installed else {
        t.check("install", false);
        return t.finish();
    };

    // Four writes of each size into the variable; a load of it and a write to the neighbour
    // that must not be reported.
    let expected = [
        (store!("str", "x", base, 0x1122_3344_5566_7788u64), base, 8),
        (store!("str", "w", base + 4, 0xAABB_CCDDu64), base + 4, 4),
        (store!("strh", "w", base + 2, 0xEEFFu64), base + 2, 2),
        (store!("strb", "w", base + 7, 0x99u64), base + 7, 1),
    ];
    let read = BLOCK.watched.load(Ordering::Relaxed);
    BLOCK.neighbour.store(1, Ordering::Relaxed);
    t.check_eq("every_store_happened", read, 0x99BB_CCDD_EEFF_7788);
    let reported = RECORDER.count.load(Ordering::Relaxed);
    t.check_eq("every_write_reported_once", reported, expected.len() as u64);
    for (i, &(pc, address, size)) in expected.iter().enumerate() {
        let got = (
            RECORDER.pcs[i].load(Ordering::Relaxed),
            RECORDER.sizes[i].load(Ordering::Relaxed),
            RECORDER.writes[i].load(Ordering::Relaxed),
        );
        let far = RECORDER.addresses[i].load(Ordering::Relaxed);
        pmprobe::println!(
            "write {i}: pc {:#x} size {} far {far:#x} (stored at {address:#x})",
            got.0,
            got.1
        );
        t.check_eq("write_pc_size_and_kind", got, (pc, size, 1));
        // FAR may be any address of the access inside the watched doubleword.
        t.check_with(
            "write_address_inside_the_access",
            far >= base && far < base + 8,
            format_args!("FAR {far:#x}, variable at {base:#x}"),
        );
    }
    let hits = debug_exceptions::with_monitor(|m| m.watchpoint_hits(watchpoint));
    t.check_eq("hit_count", hits, Ok(expected.len() as u64));
    let removed = debug_exceptions::with_monitor(|m| m.remove_watchpoint(watchpoint));
    t.check_eq("remove", removed, Ok(Ok(())));
    BLOCK.watched.store(5, Ordering::Relaxed);
    t.check_eq(
        "no_report_after_removal",
        RECORDER.count.load(Ordering::Relaxed),
        expected.len() as u64,
    );

    // Every comparator in use: the next install is the typed error with the real count.
    let implemented = (ID_AA64DFR0_EL1.read(ID_AA64DFR0_EL1::WRPs) + 1) as u8;
    pmprobe::println!("watchpoint comparators (ID_AA64DFR0_EL1.WRPs + 1): {implemented}");
    let exhausted = debug_exceptions::with_monitor(|m| {
        let mut installed = 0u8;
        let mut handles = [None; 16];
        for (i, handle) in handles
            .iter_mut()
            .enumerate()
            .take(usize::from(implemented))
        {
            *handle = m
                .install_watchpoint(0x4100_0000 + 64 * i as u64, 8, WatchKind::ReadWrite)
                .ok();
            installed += u8::from(handle.is_some());
        }
        let next = m.install_watchpoint(0x4100_1000, 8, WatchKind::Write);
        for watchpoint in handles.into_iter().flatten() {
            let _ = m.remove_watchpoint(watchpoint);
        }
        (m.debug().counts().watchpoints, installed, next)
    });
    t.check_eq(
        "all_watchpoints_in_use_is_a_typed_error",
        exhausted,
        Ok((
            implemented,
            implemented,
            Err(HwDebugError::NoFreeWatchpoint { implemented }),
        )),
    );
    t.finish()
}
