//! Main memory as the SPUs' memory flow controllers (MFC) see it: effective addresses (EA)
//! shared by every SPU and by the host, which plays the PPE's part.
//!
//! [`MainMemory`] holds the bytes (a fixed array, or any storage the host program gives it),
//! the lock-line reservations of the eight SPUs and their signal-notification registers,
//! behind one [`IrqSpinMutex`], so SPUs run by different cores share it. SPUs reach it through
//! the object-safe [`SharedMemory`] trait, so one SPU type works with memories of any size.
//!
//! Effective addresses:
//!
//! | EA | what |
//! |---|---|
//! | `0 .. size` | the memory's bytes, big-endian as the SPU sees them |
//! | `PROBLEM_STATE_BASE + n·PROBLEM_STATE_STRIDE + SIGNAL_NOTIFY_1_OFFSET` | SPU *n*'s signal-notification register 1 (4 bytes, `sndsig` only) |
//! | `... + SIGNAL_NOTIFY_2_OFFSET` | register 2 |
//!
//! The problem-state layout is the one the PlayStation 3's system software gives SPU threads
//! (an SPU's 256 KiB local store alias, then its problem-state area, whose register offsets are
//! the Cell Broadband Engine Architecture's: signal notification 1 at 0x1400C, 2 at 0x1C00C).
//! Anything else is outside main memory and a DMA there stops the SPU with a typed error.
//!
//! Reservations follow the CBEA's lock-line rules (128-byte lines): `getllar` reserves a line;
//! any write to a reserved line by another SPU, by the host, or by the owning SPU's own
//! ordinary `put`, cancels the reservation and marks it *lost* (the SPU's `Lr` event), while
//! the owner's own atomic stores cancel it without an event. `docs/spu-mfc.md` gives the
//! sources.
//!
//! ```
//! use pmprobe::spu::main_memory::{MainMemory, Requester, SharedMemory};
//! static MEMORY: MainMemory<[u8; 4096]> = MainMemory::new([0; 4096]);
//! MEMORY.write(Requester::Host, 0x100, &[1, 2, 3, 4])?;
//! let mut word = [0u8; 4];
//! MEMORY.read(0x100, &mut word)?;
//! assert_eq!(u32::from_be_bytes(word), 0x0102_0304);
//! assert_eq!(MEMORY.size(), 4096);
//! # Ok::<(), pmprobe::spu::main_memory::EaRangeError>(())
//! ```

use core::fmt;

use crate::sync::IrqSpinMutex;

/// SPUs that share one main memory (a Cell BE has eight).
pub const SHARING_SPUS: usize = 8;
/// The lock-line (reservation) granule and the DMA line size, in bytes.
pub const LINE_BYTES: u64 = 128;
/// EA of SPU 0's problem-state window (its local store alias first).
pub const PROBLEM_STATE_BASE: u64 = 0xF000_0000;
/// EA distance between two SPUs' windows.
pub const PROBLEM_STATE_STRIDE: u64 = 0x10_0000;
/// Offset of signal-notification register 1 in an SPU's window: 0x40000 (past the local
/// store alias) + 0x1400C (the CBEA's problem-state offset).
pub const SIGNAL_NOTIFY_1_OFFSET: u64 = 0x5_400C;
/// Offset of signal-notification register 2: 0x40000 + 0x1C00C.
pub const SIGNAL_NOTIFY_2_OFFSET: u64 = 0x5_C00C;

/// Who writes main memory: reservations are cancelled by every writer, but the `Lr` event is
/// not raised for an SPU's own atomic stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Requester {
    /// The host program (the PPE's part).
    Host,
    /// An SPU's ordinary DMA (`put` and its forms).
    Spu(u8),
    /// An SPU's atomic store (`putllc`, `putlluc`, `putqlluc`): its own reservation ends
    /// without an event.
    SpuAtomic(u8),
}

/// An access outside main memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EaRangeError {
    /// First EA of the access.
    pub ea: u64,
    /// Its length in bytes.
    pub len: u64,
    /// The memory's size: valid EAs are `0 .. size`.
    pub size: u64,
}

impl fmt::Display for EaRangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "EA {:#x}..{:#x} is outside main memory (0..{:#x})",
            self.ea,
            self.ea.saturating_add(self.len),
            self.size
        )
    }
}

impl core::error::Error for EaRangeError {}

/// One of an SPU's two signal-notification registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SignalRegister {
    /// `SPU_RdSigNotify1` (channel 3).
    One,
    /// `SPU_RdSigNotify2` (channel 4).
    Two,
}

impl SignalRegister {
    fn index(self) -> usize {
        match self {
            SignalRegister::One => 0,
            SignalRegister::Two => 1,
        }
    }

    /// The register an EA names, with the SPU it belongs to.
    pub fn at(ea: u64) -> Option<(u8, SignalRegister)> {
        let offset = ea.checked_sub(PROBLEM_STATE_BASE)?;
        let spu = offset / PROBLEM_STATE_STRIDE;
        if spu >= SHARING_SPUS as u64 {
            return None;
        }
        let register = match offset % PROBLEM_STATE_STRIDE {
            SIGNAL_NOTIFY_1_OFFSET => SignalRegister::One,
            SIGNAL_NOTIFY_2_OFFSET => SignalRegister::Two,
            _ => return None,
        };
        Some((spu as u8, register))
    }

    /// The EA of this register of SPU `spu` (what `sndsig` targets).
    pub fn ea(self, spu: u8) -> u64 {
        let offset = match self {
            SignalRegister::One => SIGNAL_NOTIFY_1_OFFSET,
            SignalRegister::Two => SIGNAL_NOTIFY_2_OFFSET,
        };
        PROBLEM_STATE_BASE + u64::from(spu) * PROBLEM_STATE_STRIDE + offset
    }
}

/// How a signal-notification register takes a write (the privileged SPU_Cfg bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SignalMode {
    /// The write replaces the value (the reset mode).
    #[default]
    Overwrite,
    /// The written bits are ORed into the value (many senders, one reader).
    Or,
}

/// A signal-notification register: its value, whether it was written since the SPU last read
/// it (the channel count, which saturates at 1), and its mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Signal {
    value: u32,
    pending: bool,
    or_mode: bool,
}

/// What the memory keeps beside its bytes: reservations, lost-reservation marks and signal
/// registers. All-zero bits is the reset state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedState {
    /// The line each SPU has reserved (`getllar`), by line number (EA / 128).
    reservations: [Option<u64>; SHARING_SPUS],
    /// Bit `n`: SPU `n`'s reservation was cancelled by a write it did not make atomically,
    /// and the SPU has not yet taken the news (its `Lr` event).
    lost: u8,
    signals: [[Signal; 2]; SHARING_SPUS],
}

/// Main memory and its reservations and signal registers, as one SPU-side operation sees them
/// under the memory's lock.
pub struct MemoryView<'a> {
    bytes: &'a mut [u8],
    shared: &'a mut SharedState,
}

impl MemoryView<'_> {
    /// Bytes of main memory.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn range(&self, ea: u64, len: usize) -> Result<core::ops::Range<usize>, EaRangeError> {
        let error = EaRangeError {
            ea,
            len: len as u64,
            size: self.size(),
        };
        let start = usize::try_from(ea).map_err(|_| error)?;
        let end = start.checked_add(len).ok_or(error)?;
        if end > self.bytes.len() {
            return Err(error);
        }
        Ok(start..end)
    }

    /// Copies `out.len()` bytes from `ea`.
    pub fn read(&self, ea: u64, out: &mut [u8]) -> Result<(), EaRangeError> {
        let range = self.range(ea, out.len())?;
        out.copy_from_slice(self.bytes.get(range).unwrap_or_default());
        Ok(())
    }

    /// Writes `data` at `ea`, cancelling the reservations of every line it touches.
    pub fn write(&mut self, by: Requester, ea: u64, data: &[u8]) -> Result<(), EaRangeError> {
        let range = self.range(ea, data.len())?;
        if let Some(place) = self.bytes.get_mut(range) {
            place.copy_from_slice(data);
        }
        if !data.is_empty() {
            self.cancel_reservations(
                by,
                ea / LINE_BYTES,
                (ea + data.len() as u64 - 1) / LINE_BYTES,
            );
        }
        Ok(())
    }

    fn cancel_reservations(&mut self, by: Requester, first_line: u64, last_line: u64) {
        for (spu, reservation) in self.shared.reservations.iter_mut().enumerate() {
            let Some(line) = *reservation else { continue };
            if line < first_line || line > last_line {
                continue;
            }
            *reservation = None;
            if by != Requester::SpuAtomic(spu as u8) {
                self.shared.lost |= 1 << spu;
            }
        }
    }

    /// `getllar`: the 128-byte line containing `ea`, and SPU `spu`'s reservation on it (which
    /// replaces any it had, without an event).
    pub fn load_and_reserve(
        &mut self,
        spu: u8,
        ea: u64,
        out: &mut [u8; LINE_BYTES as usize],
    ) -> Result<(), EaRangeError> {
        let line = ea / LINE_BYTES;
        self.read(line * LINE_BYTES, out)?;
        if let Some(reservation) = self.shared.reservations.get_mut(usize::from(spu)) {
            *reservation = Some(line);
        }
        Ok(())
    }

    /// `putllc`: stores the line containing `ea` if SPU `spu` still holds its reservation on
    /// it; `Ok(false)` (nothing stored) otherwise. The reservation ends either way.
    pub fn store_conditional(
        &mut self,
        spu: u8,
        ea: u64,
        data: &[u8; LINE_BYTES as usize],
    ) -> Result<bool, EaRangeError> {
        let line = ea / LINE_BYTES;
        self.range(line * LINE_BYTES, data.len())?;
        let held = self
            .shared
            .reservations
            .get_mut(usize::from(spu))
            .map(core::mem::take)
            .is_some_and(|reserved| reserved == Some(line));
        if held {
            self.write(Requester::SpuAtomic(spu), line * LINE_BYTES, data)?;
        }
        Ok(held)
    }

    /// Whether SPU `spu` lost its reservation since it last asked; asking clears the mark.
    pub fn take_reservation_lost(&mut self, spu: u8) -> bool {
        let bit = 1u8.checked_shl(u32::from(spu)).unwrap_or(0);
        let lost = self.shared.lost & bit != 0;
        self.shared.lost &= !bit;
        lost
    }

    /// The line SPU `spu` has reserved, if any.
    pub fn reservation(&self, spu: u8) -> Option<u64> {
        self.shared
            .reservations
            .get(usize::from(spu))
            .copied()
            .flatten()
            .map(|line| line * LINE_BYTES)
    }

    fn signal_mut(&mut self, spu: u8, register: SignalRegister) -> Option<&mut Signal> {
        self.shared
            .signals
            .get_mut(usize::from(spu))
            .and_then(|pair| pair.get_mut(register.index()))
    }

    /// A write to SPU `spu`'s signal register (by `sndsig` or the host): the value replaces
    /// or is ORed into the register, by its mode, and the channel count becomes 1.
    pub fn write_signal(&mut self, spu: u8, register: SignalRegister, value: u32) {
        if let Some(signal) = self.signal_mut(spu, register) {
            signal.value = if signal.or_mode {
                signal.value | value
            } else {
                value
            };
            signal.pending = true;
        }
    }

    /// SPU `spu` reads its signal register: the value, which resets to 0, or `None` when it
    /// was not written since the last read (the read would block).
    pub fn take_signal(&mut self, spu: u8, register: SignalRegister) -> Option<u32> {
        let signal = self.signal_mut(spu, register)?;
        if !signal.pending {
            return None;
        }
        signal.pending = false;
        Some(core::mem::take(&mut signal.value))
    }

    /// Whether the register was written since SPU `spu` last read it (its channel count).
    pub fn signal_pending(&mut self, spu: u8, register: SignalRegister) -> bool {
        self.signal_mut(spu, register).is_some_and(|s| s.pending)
    }

    /// Sets the register's mode (the CBEA's SPU_Cfg bits; libspe2's `signal1_type`).
    pub fn set_signal_mode(&mut self, spu: u8, register: SignalRegister, mode: SignalMode) {
        if let Some(signal) = self.signal_mut(spu, register) {
            signal.or_mode = mode == SignalMode::Or;
        }
    }
}

/// Main memory shared by SPUs and the host, whatever its storage: what an SPU holds a
/// reference to. Every operation runs under the memory's lock.
pub trait SharedMemory: Sync {
    /// Runs `operation` on the memory with its lock held. Keep it short: other cores wait.
    fn with_view(&self, operation: &mut dyn FnMut(&mut MemoryView<'_>));

    /// Bytes of main memory (valid EAs are `0 .. size`).
    fn size(&self) -> u64 {
        let mut size = 0;
        self.with_view(&mut |view| size = view.size());
        size
    }

    /// Copies `out.len()` bytes from `ea` (the host's read, or an SPU's `get`).
    fn read(&self, ea: u64, out: &mut [u8]) -> Result<(), EaRangeError> {
        let mut result = Ok(());
        self.with_view(&mut |view| result = view.read(ea, out));
        result
    }

    /// Writes `data` at `ea`, cancelling the reservations on the lines it touches.
    fn write(&self, by: Requester, ea: u64, data: &[u8]) -> Result<(), EaRangeError> {
        let mut result = Ok(());
        self.with_view(&mut |view| result = view.write(by, ea, data));
        result
    }

    /// Writes SPU `spu`'s signal-notification register, as `sndsig` or the host does.
    fn write_signal(&self, spu: u8, register: SignalRegister, value: u32) {
        self.with_view(&mut |view| view.write_signal(spu, register, value));
    }

    /// Sets the mode of SPU `spu`'s signal-notification register.
    fn set_signal_mode(&self, spu: u8, register: SignalRegister, mode: SignalMode) {
        self.with_view(&mut |view| view.set_signal_mode(spu, register, mode));
    }
}

/// Main memory over a storage of bytes `B` (a fixed array in a `static` for a firmware, a
/// vector for a host tool), with the reservations and signal registers of eight SPUs.
///
/// An array-backed memory built with the `const fn` [`new`](Self::new) from zeros is all-zero
/// bits, so a `static` one lands in `.bss` and costs nothing in a firmware image.
pub struct MainMemory<B> {
    inner: IrqSpinMutex<(B, SharedState)>,
}

impl<B> MainMemory<B> {
    /// A memory over `storage`, with no reservation and all signal registers clear.
    pub const fn new(storage: B) -> Self {
        MainMemory {
            inner: IrqSpinMutex::new((
                storage,
                SharedState {
                    reservations: [None; SHARING_SPUS],
                    lost: 0,
                    signals: [[Signal {
                        value: 0,
                        pending: false,
                        or_mode: false,
                    }; 2]; SHARING_SPUS],
                },
            )),
        }
    }
}

impl<B: AsMut<[u8]>> MainMemory<B> {
    /// Zeroes the bytes and drops every reservation, lost-reservation mark and signal (the
    /// signal registers' modes too): the state of a new memory, for a host that reuses one.
    pub fn clear(&self) {
        self.inner.lock(|(storage, shared)| {
            storage.as_mut().fill(0);
            *shared = SharedState::default();
        });
    }
}

impl<B: AsMut<[u8]> + Send> SharedMemory for MainMemory<B> {
    fn with_view(&self, operation: &mut dyn FnMut(&mut MemoryView<'_>)) {
        self.inner.lock(|(storage, shared)| {
            let mut view = MemoryView {
                bytes: storage.as_mut(),
                shared,
            };
            operation(&mut view);
        });
    }
}

impl<B> fmt::Debug for MainMemory<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MainMemory").finish_non_exhaustive()
    }
}

/// A memory of size 0: every DMA is outside it. What an SPU without main memory reaches.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMemory;

impl SharedMemory for NoMemory {
    fn with_view(&self, operation: &mut dyn FnMut(&mut MemoryView<'_>)) {
        let mut shared = SharedState::default();
        let mut view = MemoryView {
            bytes: &mut [],
            shared: &mut shared,
        };
        operation(&mut view);
    }
}
