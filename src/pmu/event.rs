//! PMU events: the 64 architected common events 0x00..0x3F as constants, every architecture-
//! defined event by its Arm ARM name (from the catalogue), raw numbers for the
//! IMPLEMENTATION DEFINED ones; [`EventSet`] of the events a PMU implements.
#![forbid(unsafe_code)]

use core::fmt;
use core::str::FromStr;

use super::catalogue::{common_event, common_event_named};
use super::regs::PMCEID0_EL0;

/// A PMU event number (PMEVTYPER.evtCount).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Event(u16);

macro_rules! common_events {
    ($($name:ident = $num:expr),* $(,)?) => {
        impl Event {
            $(
                #[doc = concat!("Common event ", stringify!($num), " ", stringify!($name), ".")]
                pub const $name: Event = Event($num);
            )*
        }
    };
}

common_events! {
    SW_INCR = 0x00, L1I_CACHE_REFILL = 0x01, L1I_TLB_REFILL = 0x02, L1D_CACHE_REFILL = 0x03,
    L1D_CACHE = 0x04, L1D_TLB_REFILL = 0x05, LD_RETIRED = 0x06, ST_RETIRED = 0x07,
    INST_RETIRED = 0x08, EXC_TAKEN = 0x09, EXC_RETURN = 0x0A, CID_WRITE_RETIRED = 0x0B,
    PC_WRITE_RETIRED = 0x0C, BR_IMMED_RETIRED = 0x0D, BR_RETURN_RETIRED = 0x0E,
    UNALIGNED_LDST_RETIRED = 0x0F, BR_MIS_PRED = 0x10, CPU_CYCLES = 0x11, BR_PRED = 0x12,
    MEM_ACCESS = 0x13, L1I_CACHE = 0x14, L1D_CACHE_WB = 0x15, L2D_CACHE = 0x16,
    L2D_CACHE_REFILL = 0x17, L2D_CACHE_WB = 0x18, BUS_ACCESS = 0x19, MEMORY_ERROR = 0x1A,
    INST_SPEC = 0x1B, TTBR_WRITE_RETIRED = 0x1C, BUS_CYCLES = 0x1D, CHAIN = 0x1E,
    L1D_CACHE_ALLOCATE = 0x1F, L2D_CACHE_ALLOCATE = 0x20, BR_RETIRED = 0x21,
    BR_MIS_PRED_RETIRED = 0x22, STALL_FRONTEND = 0x23, STALL_BACKEND = 0x24, L1D_TLB = 0x25,
    L1I_TLB = 0x26, L2I_CACHE = 0x27, L2I_CACHE_REFILL = 0x28, L3D_CACHE_ALLOCATE = 0x29,
    L3D_CACHE_REFILL = 0x2A, L3D_CACHE = 0x2B, L3D_CACHE_WB = 0x2C, L2D_TLB_REFILL = 0x2D,
    L2I_TLB_REFILL = 0x2E, L2D_TLB = 0x2F, L2I_TLB = 0x30, REMOTE_ACCESS = 0x31,
    LL_CACHE = 0x32, LL_CACHE_MISS = 0x33, DTLB_WALK = 0x34, ITLB_WALK = 0x35,
    LL_CACHE_RD = 0x36, LL_CACHE_MISS_RD = 0x37, REMOTE_ACCESS_RD = 0x38,
    L1D_CACHE_LMISS_RD = 0x39, OP_RETIRED = 0x3A, OP_SPEC = 0x3B, STALL = 0x3C,
    STALL_SLOT_BACKEND = 0x3D, STALL_SLOT_FRONTEND = 0x3E, STALL_SLOT = 0x3F,
}

impl Event {
    /// Any event number, including IMPLEMENTATION DEFINED ones.
    pub const fn raw(number: u16) -> Self {
        Self(number)
    }
    /// The event number.
    pub const fn number(self) -> u16 {
        self.0
    }
    /// The Arm ARM name of an architecture-defined event (common, recommended or extended:
    /// the catalogue's architecture table); `None` for IMPLEMENTATION DEFINED numbers, whose
    /// names depend on the core (see [`catalogue::for_midr`](super::catalogue::for_midr)).
    pub fn name(self) -> Option<&'static str> {
        common_event(self.0).map(|e| e.name())
    }
    /// Whether PMCEID0/1 describe this event (common events 0x00..=0x3F and 0x4000..=0x403F).
    pub const fn is_common(self) -> bool {
        self.0 < 0x40 || (self.0 >= 0x4000 && self.0 < 0x4040)
    }
    /// All 64 common events 0x00..=0x3F in number order.
    pub fn common() -> impl Iterator<Item = Event> {
        (0u16..0x40).map(Event)
    }
}

impl fmt::Display for Event {
    /// The Arm ARM name, or `0x<number>` for events without one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.pad(name),
            None => {
                let mut buf = [0u8; 6];
                let text = hex_text(self.0, &mut buf);
                f.pad(text)
            }
        }
    }
}

fn hex_text(n: u16, buf: &mut [u8; 6]) -> &str {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    buf[0] = b'0';
    buf[1] = b'x';
    for (k, slot) in buf[2..].iter_mut().enumerate() {
        let shift = 12 - 4 * k;
        *slot = DIGITS[usize::from((n >> shift) & 0xF)];
    }
    // Only ASCII was written.
    core::str::from_utf8(buf).unwrap_or("0x????")
}

/// Text that is neither a common event name nor a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct UnknownEvent;

impl fmt::Display for UnknownEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "unknown PMU event (expected an Arm ARM common event name or a number such as 0x4005)",
        )
    }
}

impl core::error::Error for UnknownEvent {}

impl FromStr for Event {
    type Err = UnknownEvent;
    /// An architecture-defined event name (case-insensitive, e.g. `INST_RETIRED`), or a raw number in hex
    /// (`0x11`, `r11` as in perf) or decimal.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if let Some(entry) = common_event_named(s) {
            return Ok(Event(entry.number()));
        }
        let hex = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .or_else(|| s.strip_prefix('r'));
        let parsed = match hex {
            Some(digits) => u16::from_str_radix(digits, 16),
            None => s.parse::<u16>(),
        };
        parsed.map(Event).map_err(|_| UnknownEvent)
    }
}

/// The set of common events a PMU implements, as PMCEID0_EL0/PMCEID1_EL0 describe it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventSet {
    ceid0: u64,
    ceid1: u64,
}

impl EventSet {
    /// From the PMCEID0_EL0 and PMCEID1_EL0 values.
    pub const fn from_pmceid(ceid0: u64, ceid1: u64) -> Self {
        Self { ceid0, ceid1 }
    }
    /// The PMCEID0_EL0 value.
    pub const fn pmceid0(&self) -> u64 {
        self.ceid0
    }
    /// The PMCEID1_EL0 value.
    pub const fn pmceid1(&self) -> u64 {
        self.ceid1
    }
    /// Whether `event` is an implemented common event (always `false` for events outside
    /// 0x00..=0x3F and 0x4000..=0x403F: PMCEID says nothing about them).
    pub const fn contains(&self, event: Event) -> bool {
        let n = event.0;
        let (word, bit) = if n < 0x40 {
            (if n < 0x20 { self.ceid0 } else { self.ceid1 }, n % 0x20)
        } else if n >= 0x4000 && n < 0x4040 {
            let e = n - 0x4000;
            // The upper half of PMCEID<n> (its IDhi field) describes 0x4000 + the same bits.
            (
                if e < 0x20 { self.ceid0 } else { self.ceid1 },
                PMCEID0_EL0::IDhi.shift as u16 + e % 0x20,
            )
        } else {
            return false;
        };
        word & (1u64 << bit) != 0
    }
    /// Number of implemented common events.
    pub const fn len(&self) -> u32 {
        self.ceid0.count_ones() + self.ceid1.count_ones()
    }
    /// Whether no common event is implemented.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The implemented common events in number order (0x00..=0x3F, then 0x4000..=0x403F).
    pub fn iter(&self) -> impl Iterator<Item = Event> + '_ {
        (0u16..0x40)
            .chain(0x4000u16..0x4040)
            .map(Event)
            .filter(move |e| self.contains(*e))
    }
}

impl fmt::Display for EventSet {
    /// `{SW_INCR, INST_RETIRED, CPU_CYCLES}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, e) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{e}")?;
        }
        f.write_str("}")
    }
}
