//! perf's event modifiers (`:u :k :h :G :H`) as PMEVTYPER's exception-level filter bits.
//!
//! Two steps, each the one Linux takes:
//!
//! 1. [`Exclude::with_modifiers`]: the modifier letters to `perf_event_attr`'s `exclude_*`
//!    bits, as perf's `get_event_modifier` (`tools/perf/util/parse-events.c`) sets them: the
//!    first of `u`, `k`, `h` excludes all three and each letter then takes its own back;
//!    likewise `G` and `H` for guest and host; `u` also excludes the guest. An event without
//!    modifiers gets perf's defaults on a host: only the guest excluded ([`Exclude::PERF_DEFAULT`]).
//! 2. [`Exclude::filter`]: the `exclude_*` bits to the filter bits, as the arm_pmuv3 driver's
//!    `armv8pmu_set_event_filter` writes them (`drivers/perf/arm_pmuv3.c`): `exclude_kernel`
//!    sets P (do not count EL1), `exclude_user` sets U (EL0), and EL2 is counted (NSH) unless
//!    `exclude_hv` or `exclude_host`; code running at EL2 is the hypervisor, so there EL2 is
//!    counted unless `exclude_kernel` or `exclude_host`, `exclude_guest` sets P and
//!    `exclude_host` sets U.
//!
//! What bare metal adds, from the Arm ARM's description of PMEVTYPER&lt;n&gt;_EL0: NSK, NSU and M
//! stay 0, so that Non-secure EL1 and EL0 are filtered by P and U as the Secure ones are
//! (NSK/NSU count their Non-secure level when equal to P/U) and EL3 follows EL1 (M counts EL3
//! when equal to P); MT and SH stay 0 (this PE's events only; Secure EL2 follows NSH). NSH is
//! RES0 on a core without EL2, so it is set only where ID_AA64PFR0_EL1 reports EL2. A request
//! that cannot count anything here is an error rather than a counter stuck at zero: `G` (guest
//! only: bare metal runs no virtual machine), `I` (Linux refuses `exclude_idle` on this PMU),
//! and modifiers that exclude every exception level the core implements (`h` on a core without
//! EL2).
#![forbid(unsafe_code)]

use core::fmt;

use super::backend::ExceptionLevel;

/// The exception-level filter bits of PMEVTYPER&lt;n&gt;_EL0 (the same in PMCCFILTR_EL0): bits
/// \[31:24\].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventFilter(u32);

impl EventFilter {
    /// Count everywhere the other bits allow.
    pub const NONE: Self = Self(0);
    /// P, bit 31: do not count at EL1.
    pub const P: Self = Self(1 << 31);
    /// U, bit 30: do not count at EL0.
    pub const U: Self = Self(1 << 30);
    /// NSK, bit 29: Non-secure EL1 is counted when NSK equals P.
    pub const NSK: Self = Self(1 << 29);
    /// NSU, bit 28: Non-secure EL0 is counted when NSU equals U.
    pub const NSU: Self = Self(1 << 28);
    /// NSH, bit 27: count at (Non-secure) EL2.
    pub const NSH: Self = Self(1 << 27);
    /// M, bit 26: EL3 is counted when M equals P.
    pub const M: Self = Self(1 << 26);
    /// MT, bit 25: count the events of every PE of a multithreaded core (FEAT_MTPMU).
    pub const MT: Self = Self(1 << 25);
    /// SH, bit 24: Secure EL2 is counted when SH differs from NSH (FEAT_SEL2).
    pub const SH: Self = Self(1 << 24);
    /// Every filter bit.
    const MASK: u32 = 0xFF00_0000;

    /// From a register value: its filter bits (the event number and the rest are dropped).
    pub const fn from_bits(bits: u32) -> Self {
        Self(bits & Self::MASK)
    }
    /// The bits, to OR with the event number.
    pub const fn bits(self) -> u32 {
        self.0
    }
    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
    /// Both sets of bits.
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
    /// Whether the filter counts at `level` on a core described by `core`, by the Arm ARM's
    /// rules for each bit (Non-secure state for EL0 to EL2); `false` for a level the core does
    /// not implement.
    pub const fn counts_at(self, level: ExceptionLevel, core: FilterContext) -> bool {
        let p = self.contains(Self::P);
        match level {
            ExceptionLevel::El0 => self.contains(Self::U) == self.contains(Self::NSU),
            ExceptionLevel::El1 => p == self.contains(Self::NSK),
            ExceptionLevel::El2 => core.el2 && self.contains(Self::NSH),
            ExceptionLevel::El3 => core.el3 && p == self.contains(Self::M),
        }
    }
}

/// What the filter depends on besides the modifiers: where the code runs and which exception
/// levels the core implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FilterContext {
    /// The exception level the counting code runs at (EL2 is Linux's VHE case).
    pub el: ExceptionLevel,
    /// Whether EL2 is implemented (ID_AA64PFR0_EL1.EL2 not 0).
    pub el2: bool,
    /// Whether EL3 is implemented (ID_AA64PFR0_EL1.EL3 not 0).
    pub el3: bool,
}

impl FilterContext {
    /// From the running exception level and ID_AA64PFR0_EL1 (EL2 in bits \[11:8\], EL3 in
    /// \[15:12\]).
    pub const fn from_id_aa64pfr0(el: ExceptionLevel, id_aa64pfr0: u64) -> Self {
        Self {
            el,
            el2: (id_aa64pfr0 >> 8) & 0xF != 0,
            el3: (id_aa64pfr0 >> 12) & 0xF != 0,
        }
    }
}

/// `perf_event_attr`'s `exclude_*` bits, and whether `G` or `H` was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Exclude {
    /// `exclude_user`: not EL0.
    pub user: bool,
    /// `exclude_kernel`: not EL1.
    pub kernel: bool,
    /// `exclude_hv`: not EL2.
    pub hv: bool,
    /// `exclude_host`.
    pub host: bool,
    /// `exclude_guest`.
    pub guest: bool,
    /// `exclude_idle` (`I`).
    pub idle: bool,
    /// perf's `exclude_GH`: a `G` or `H` was seen (a group's modifiers then leave them).
    pub guest_host_given: bool,
}

/// Why modifiers cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ModifierError {
    /// A letter other than `u`, `k`, `h`, `G`, `H`, `I`; perf's others (`p`, `P`, `S`, `D`,
    /// `e`, `W`, `b`) ask for what this driver does not do.
    Unsupported(char),
}

impl fmt::Display for ModifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported(letter) => write!(
                f,
                "event modifier `{letter}` is not supported (u, k, h, G and H are)"
            ),
        }
    }
}

impl core::error::Error for ModifierError {}

/// Why the modifiers have no filter on this core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FilterError {
    /// `I` (`exclude_idle`): Linux's driver refuses it (`-EPERM`); a PMU counter cannot tell
    /// idle from busy.
    ExcludeIdle,
    /// `G`, or anything that excludes the host: only a guest would be counted, and bare-metal
    /// code runs no virtual machine.
    NoGuest,
    /// The filter leaves no exception level that the core implements to count at.
    CountsNothing(EventFilter),
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ExcludeIdle => f.write_str(
                "event modifier `I` (exclude idle) is refused by the Arm PMU driver: a counter cannot tell idle time",
            ),
            Self::NoGuest => f.write_str(
                "event modifier `G` counts only in a guest, and bare-metal code runs no virtual machine",
            ),
            Self::CountsNothing(filter) => write!(
                f,
                "the event modifiers exclude every exception level this core implements (filter bits {:#010x}; `h` needs EL2)",
                filter.bits()
            ),
        }
    }
}

impl core::error::Error for FilterError {}

impl Exclude {
    /// An event without modifiers, as perf sets it up on a host (`event_attr_init`: not a
    /// guest, so `exclude_guest`).
    pub const PERF_DEFAULT: Self = Self {
        user: false,
        kernel: false,
        hv: false,
        host: false,
        guest: true,
        idle: false,
        guest_host_given: false,
    };

    /// Applies the modifier letters `modifiers` (without the colon) as perf does. An event's
    /// own modifiers start from nothing excluded (`self` is ignored: perf starts from a zeroed
    /// set); a group's modifiers (`in_group`) start from the member's bits, which they
    /// complete.
    ///
    /// ```
    /// use pmprobe::pmu::Exclude;
    /// let user = Exclude::PERF_DEFAULT.with_modifiers("u", false)?;
    /// assert!(!user.user && user.kernel && user.hv && user.guest);
    /// let kernel = Exclude::PERF_DEFAULT.with_modifiers("k", false)?;
    /// assert!(kernel.user && !kernel.kernel && kernel.hv && !kernel.guest);
    /// # Ok::<(), pmprobe::pmu::ModifierError>(())
    /// ```
    pub fn with_modifiers(self, modifiers: &str, in_group: bool) -> Result<Self, ModifierError> {
        let start = if in_group { self } else { Self::default() };
        let (mut eu, mut ek, mut eh) = (start.user, start.kernel, start.hv);
        let (mut e_host, mut e_guest, mut idle) = (start.host, start.guest, start.idle);
        let mut exclude = eu || ek || eh;
        let mut exclude_gh = start.guest_host_given;
        for letter in modifiers.chars() {
            match letter {
                'u' | 'k' | 'h' => {
                    if !exclude {
                        (exclude, eu, ek, eh) = (true, true, true, true);
                    }
                    match letter {
                        'u' => {
                            // perf: `u` also excludes the guest, unless G/H was given (a host
                            // run, perf_guest false).
                            if !exclude_gh {
                                e_guest = true;
                            }
                            eu = false;
                        }
                        'k' => ek = false,
                        _ => eh = false,
                    }
                }
                'G' | 'H' => {
                    if !exclude_gh {
                        (exclude_gh, e_guest, e_host) = (true, true, true);
                    }
                    if letter == 'G' {
                        e_guest = false;
                    } else {
                        e_host = false;
                    }
                }
                'I' => idle = true,
                other => return Err(ModifierError::Unsupported(other)),
            }
        }
        Ok(Self {
            user: eu,
            kernel: ek,
            hv: eh,
            host: e_host,
            guest: e_guest,
            idle,
            guest_host_given: exclude_gh,
        })
    }

    /// The PMEVTYPER filter bits for these exclusions on the core `core` (see the module's
    /// documentation for the rules and their sources).
    ///
    /// ```
    /// use pmprobe::pmu::{EventFilter, Exclude, ExceptionLevel, FilterContext};
    /// let a57 = FilterContext { el: ExceptionLevel::El1, el2: false, el3: false };
    /// let user = Exclude::PERF_DEFAULT.with_modifiers("u", false)?;
    /// assert_eq!(user.filter(a57)?, EventFilter::P);
    /// let hv = Exclude::PERF_DEFAULT.with_modifiers("h", false)?;
    /// assert!(hv.filter(a57).is_err()); // only EL2, which this core lacks
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn filter(&self, core: FilterContext) -> Result<EventFilter, FilterError> {
        if self.idle {
            return Err(FilterError::ExcludeIdle);
        }
        if self.host {
            return Err(FilterError::NoGuest);
        }
        let mut filter = EventFilter::NONE;
        let include_el2 = if core.el == ExceptionLevel::El2 {
            if self.guest {
                filter = filter.union(EventFilter::P);
            }
            !self.kernel
        } else {
            !self.hv
        };
        if include_el2 && core.el2 {
            filter = filter.union(EventFilter::NSH);
        }
        if self.kernel {
            filter = filter.union(EventFilter::P);
        }
        if self.user {
            filter = filter.union(EventFilter::U);
        }
        let levels = [
            ExceptionLevel::El0,
            ExceptionLevel::El1,
            ExceptionLevel::El2,
            ExceptionLevel::El3,
        ];
        if levels.iter().any(|&level| filter.counts_at(level, core)) {
            Ok(filter)
        } else {
            Err(FilterError::CountsNothing(filter))
        }
    }
}
