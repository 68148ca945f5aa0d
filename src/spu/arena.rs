//! A static arena of up to eight SPUs (SPU0..SPU7), no heap.
//!
//! [`Arena::new`] is a `const fn`, so an arena lives in a `static` behind the program's own
//! lock (it holds no interior mutability, so it needs no `unsafe` here): a
//! `std::sync::Mutex<Arena>` on a host, an interrupt-masking mutex on bare metal. Access is
//! index-checked ([`Arena::get_mut`]) or to all SPUs at once ([`Arena::units_mut`]).
//!
//! ```
//! use pmprobe::spu::arena::Arena;
//! use pmprobe::spu::unit::Mode;
//! static ARENA: std::sync::Mutex<Arena> = std::sync::Mutex::new(Arena::new());
//! let mut arena = ARENA.lock().unwrap();
//! arena.get_mut(3).unwrap().set_mode(Mode::Instruction);
//! assert_eq!(arena.get(3).unwrap().id(), 3);
//! assert!(arena.get_mut(8).is_err());
//! ```

use core::fmt;

use super::main_memory::SharedMemory;
use super::unit::SpuUnit;

/// Number of SPUs in an arena (a Cell BE has eight).
pub const SPU_COUNT: usize = 8;

/// No SPU with this number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NoSuchSpu {
    /// The requested number.
    pub index: usize,
}

impl fmt::Display for NoSuchSpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no SPU{} (the arena holds SPU0..SPU{})",
            self.index,
            SPU_COUNT - 1
        )
    }
}

impl core::error::Error for NoSuchSpu {}

/// Eight SPUs, SPU0..SPU7.
///
/// A new arena is all-zero bits (about 5.3 MB of them; see `docs/spu-footprint.md`), so a
/// `static` one lands in `.bss` and costs nothing in a firmware image. Each SPU is in its reset
/// state; the arena gives it its number when it hands it out.
pub struct Arena {
    units: [SpuUnit; SPU_COUNT],
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl Arena {
    /// Eight reset SPUs, SPU0..SPU7, in pipeline mode.
    pub const fn new() -> Self {
        // Every unit is built as number 0, which keeps the arena all-zero bits; the
        // accessors give each its number.
        Arena {
            units: [const { SpuUnit::new(0) }; SPU_COUNT],
        }
    }

    /// SPU `index`.
    pub fn get(&self, index: usize) -> Result<&SpuUnit, NoSuchSpu> {
        let unit = self.units.get(index).ok_or(NoSuchSpu { index })?;
        unit.assign_id(spu_number(index));
        Ok(unit)
    }

    /// SPU `index`, mutable.
    pub fn get_mut(&mut self, index: usize) -> Result<&mut SpuUnit, NoSuchSpu> {
        let unit = self.units.get_mut(index).ok_or(NoSuchSpu { index })?;
        unit.assign_id(spu_number(index));
        Ok(unit)
    }

    /// All SPUs, SPU0 first (to run them side by side).
    pub fn units_mut(&mut self) -> &mut [SpuUnit; SPU_COUNT] {
        self.number_units();
        &mut self.units
    }

    /// Attaches every SPU to `memory`: their DMA reaches it, and they share its lock-line
    /// reservations and signal-notification registers (`docs/spu-mfc.md`).
    pub fn attach_main_memory(&mut self, memory: &'static dyn SharedMemory) {
        for unit in self.units_mut() {
            unit.attach_main_memory(memory);
        }
    }

    /// All SPUs.
    pub fn units(&self) -> &[SpuUnit; SPU_COUNT] {
        self.number_units();
        &self.units
    }

    fn number_units(&self) {
        for (index, unit) in self.units.iter().enumerate() {
            unit.assign_id(spu_number(index));
        }
    }
}

/// The number of the SPU at `index` (below [`SPU_COUNT`], so it fits).
fn spu_number(index: usize) -> u8 {
    u8::try_from(index).unwrap_or(u8::MAX)
}
