//! The pipeline configuration object: the simulator's `cell` object as a value.
//!
//! Like the simulator's `define dup cell myconf` / `myconf configure <key> <value>`, a
//! [`Config`] is a `Copy` value: take a preset ([`Config::cell`], [`Config::celledp`]), change it
//! with string keys ([`Config::configure`]) or typed setters, and build a pipeline from it.
//!
//! Keys (exactly the simulator's names):
//! - `spu/feature/sp-dual`, `spu/feature/dp-dual`, `spu/feature/ls-line-contend-load-only`:
//!   `TRUE`/`FALSE`/`true`/`false`/`1`/`0`.
//! - `spu/pipe/<ICLASS>/depth`: cycles from entering execution stage `jj` until the target
//!   register is released to dependent instructions, [`MIN_DEPTH`]..=[`MAX_DEPTH`].
//! - `spu/pipe/<ICLASS>/stall`: cycles during which nothing issues after an instruction of the
//!   class issued, 0..=[`MAX_STALL`].
//!
//! `<ICLASS>` is one of FX2 SHUF FX3 LS BR SPR LNOP NOP FXB FP6 FP7 FPD. The defaults and
//! their sources are in `docs/spu-timing-model.md` (Instruction classes; Decisions where the
//! sources are silent): the article's own tables of parameters were not recovered.

use core::fmt;

use crate::spu::isa::IClass;

/// Smallest accepted depth.
pub const MIN_DEPTH: u8 = 1;
/// Largest accepted depth (the execution pipes keep this many rows of dependency state).
pub const MAX_DEPTH: u8 = 32;
/// Largest accepted issue stall.
pub const MAX_STALL: u8 = 32;

/// Position of `class` in [`IClass::ALL`] (the simulator's report order).
pub(crate) const fn class_index(class: IClass) -> usize {
    match class {
        IClass::Fx2 => 0,
        IClass::Shuf => 1,
        IClass::Fx3 => 2,
        IClass::Ls => 3,
        IClass::Br => 4,
        IClass::Spr => 5,
        IClass::Lnop => 6,
        IClass::Nop => 7,
        IClass::Fxb => 8,
        IClass::Fp6 => 9,
        IClass::Fp7 => 10,
        IClass::Fpd => 11,
    }
}

/// Depth and issue stall of one instruction class (the article's Table 2 row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClassTiming {
    /// Cycles from entering `jj` until the target is released from dependency checks.
    pub depth: u8,
    /// Cycles after issue during which no further instruction issues.
    pub stall: u8,
}

/// Why a configuration change was refused. Carries the caller's key and value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError<'k> {
    /// No parameter has this name.
    UnknownKey(&'k str),
    /// The key names a feature and the value is not TRUE/FALSE/true/false/1/0.
    InvalidBool {
        /// The key.
        key: &'k str,
        /// The rejected value.
        value: &'k str,
    },
    /// The value is not an integer in the parameter's range.
    InvalidNumber {
        /// The key.
        key: &'k str,
        /// The rejected value.
        value: &'k str,
        /// Smallest accepted value.
        min: u8,
        /// Largest accepted value.
        max: u8,
    },
    /// A typed setter got a number outside the parameter's range.
    OutOfRange {
        /// What was set (`"depth"` or `"stall"`).
        parameter: &'static str,
        /// The class.
        class: &'static str,
        /// The rejected value.
        value: u32,
        /// Smallest accepted value.
        min: u8,
        /// Largest accepted value.
        max: u8,
    },
    /// `--config` text without `=` between key and value.
    MissingEquals(&'k str),
}

impl fmt::Display for ConfigError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownKey(key) => write!(f, "unknown configuration key \"{key}\""),
            Self::InvalidBool { key, value } => write!(
                f,
                "invalid value \"{value}\" for \"{key}\": expected TRUE, FALSE, true, false, 1 or 0"
            ),
            Self::InvalidNumber {
                key,
                value,
                min,
                max,
            } => write!(
                f,
                "invalid value \"{value}\" for \"{key}\": expected an integer {min}..={max}"
            ),
            Self::OutOfRange {
                parameter,
                class,
                value,
                min,
                max,
            } => write!(
                f,
                "spu/pipe/{class}/{parameter} = {value} is out of range {min}..={max}"
            ),
            Self::MissingEquals(text) => {
                write!(f, "configuration \"{text}\" is not of the form key=value")
            }
        }
    }
}

impl core::error::Error for ConfigError<'_> {}

/// The SPU pipeline configuration (the simulator's `cell` configuration object).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config {
    sp_dual: bool,
    dp_dual: bool,
    ls_line_contend_load_only: bool,
    classes: [ClassTiming; 12],
}

const fn timing(depth: u8, stall: u8) -> ClassTiming {
    ClassTiming { depth, stall }
}

impl Default for Config {
    fn default() -> Self {
        Self::cell()
    }
}

impl Config {
    /// Placeholder storage with every field zero, for a pipeline that has not been given a
    /// configuration (it uses [`cell`](Self::cell) then). Not a valid configuration: every
    /// depth is 0.
    pub(crate) const UNSET: Config = Config {
        sp_dual: false,
        dp_dual: false,
        ls_line_contend_load_only: false,
        classes: [timing(0, 0); 12],
    };

    /// The Cell BE configuration (`docs/spu-timing-model.md`): depth FX2 2, SHUF 4, FX3 4,
    /// LS 6, BR 4, SPR 6, LNOP 1, NOP 1, FXB 4, FP6 6, FP7 7, FPD 13; stall 0 except FPD 6;
    /// sp-dual on, dp-dual off, ls-line-contend-load-only off.
    pub const fn cell() -> Self {
        Config {
            sp_dual: true,
            dp_dual: false,
            ls_line_contend_load_only: false,
            // Order of IClass::ALL: FX2 SHUF FX3 LS BR SPR LNOP NOP FXB FP6 FP7 FPD.
            classes: [
                timing(2, 0),
                timing(4, 0),
                timing(4, 0),
                timing(6, 0),
                timing(4, 0),
                timing(6, 0),
                timing(1, 0),
                timing(1, 0),
                timing(4, 0),
                timing(6, 0),
                timing(7, 0),
                timing(13, 6),
            ],
        }
    }

    /// PowerXCell 8i (`celledp`): like [`cell`](Self::cell) with FPD depth 9, stall 0 and
    /// dp-dual on (fully pipelined double precision).
    pub const fn celledp() -> Self {
        let mut config = Self::cell();
        config.dp_dual = true;
        config.classes[class_index(IClass::Fpd)] = timing(9, 0);
        config
    }

    /// A preset by name: `"cell"` or `"celledp"`.
    pub fn preset(name: &str) -> Option<Self> {
        match name {
            "cell" => Some(Self::cell()),
            "celledp" => Some(Self::celledp()),
            _ => None,
        }
    }

    /// `spu/feature/sp-dual`: another instruction may issue together with an SP (FP6) one.
    pub const fn sp_dual(&self) -> bool {
        self.sp_dual
    }

    /// `spu/feature/dp-dual`: another instruction may issue together with a DP (FPD) one.
    pub const fn dp_dual(&self) -> bool {
        self.dp_dual
    }

    /// `spu/feature/ls-line-contend-load-only`: only loads (not stores) block line fetches.
    pub const fn ls_line_contend_load_only(&self) -> bool {
        self.ls_line_contend_load_only
    }

    /// Depth and stall of `class`.
    pub const fn timing(&self, class: IClass) -> ClassTiming {
        self.classes[class_index(class)]
    }

    /// Depth of `class`.
    pub const fn depth(&self, class: IClass) -> u8 {
        self.timing(class).depth
    }

    /// Issue stall of `class`.
    pub const fn stall(&self, class: IClass) -> u8 {
        self.timing(class).stall
    }

    /// Sets `spu/feature/sp-dual`.
    pub fn set_sp_dual(&mut self, on: bool) -> &mut Self {
        self.sp_dual = on;
        self
    }

    /// Sets `spu/feature/dp-dual`.
    pub fn set_dp_dual(&mut self, on: bool) -> &mut Self {
        self.dp_dual = on;
        self
    }

    /// Sets `spu/feature/ls-line-contend-load-only`.
    pub fn set_ls_line_contend_load_only(&mut self, on: bool) -> &mut Self {
        self.ls_line_contend_load_only = on;
        self
    }

    /// Sets `spu/pipe/<class>/depth` ([`MIN_DEPTH`]..=[`MAX_DEPTH`]).
    pub fn set_depth(
        &mut self,
        class: IClass,
        depth: u32,
    ) -> Result<&mut Self, ConfigError<'static>> {
        let value = checked(depth, MIN_DEPTH, MAX_DEPTH).ok_or(ConfigError::OutOfRange {
            parameter: "depth",
            class: class.name(),
            value: depth,
            min: MIN_DEPTH,
            max: MAX_DEPTH,
        })?;
        self.classes[class_index(class)].depth = value;
        Ok(self)
    }

    /// Sets `spu/pipe/<class>/stall` (0..=[`MAX_STALL`]).
    pub fn set_stall(
        &mut self,
        class: IClass,
        stall: u32,
    ) -> Result<&mut Self, ConfigError<'static>> {
        let value = checked(stall, 0, MAX_STALL).ok_or(ConfigError::OutOfRange {
            parameter: "stall",
            class: class.name(),
            value: stall,
            min: 0,
            max: MAX_STALL,
        })?;
        self.classes[class_index(class)].stall = value;
        Ok(self)
    }

    /// Sets one parameter by the simulator's key, e.g.
    /// `configure("spu/pipe/FPD/stall", "0")`.
    ///
    /// ```
    /// use pmprobe::spu::pipeline::Config;
    /// use pmprobe::spu::isa::IClass;
    /// let mut config = Config::cell();
    /// config.configure("spu/pipe/FPD/stall", "0").unwrap();
    /// config.configure("spu/feature/dp-dual", "TRUE").unwrap();
    /// assert_eq!(config.stall(IClass::Fpd), 0);
    /// assert!(config.dp_dual());
    /// assert!(config.configure("spu/pipe/FOO/depth", "3").is_err());
    /// ```
    pub fn configure<'k>(&mut self, key: &'k str, value: &'k str) -> Result<(), ConfigError<'k>> {
        if let Some(feature) = key.strip_prefix("spu/feature/") {
            let flag = match feature {
                "sp-dual" => &mut self.sp_dual,
                "dp-dual" => &mut self.dp_dual,
                "ls-line-contend-load-only" => &mut self.ls_line_contend_load_only,
                _ => return Err(ConfigError::UnknownKey(key)),
            };
            *flag = parse_bool(value).ok_or(ConfigError::InvalidBool { key, value })?;
            return Ok(());
        }
        let Some(rest) = key.strip_prefix("spu/pipe/") else {
            return Err(ConfigError::UnknownKey(key));
        };
        let Some((class_name, parameter)) = rest.split_once('/') else {
            return Err(ConfigError::UnknownKey(key));
        };
        let Some(class) = IClass::ALL.iter().copied().find(|c| c.name() == class_name) else {
            return Err(ConfigError::UnknownKey(key));
        };
        let (min, max) = match parameter {
            "depth" => (MIN_DEPTH, MAX_DEPTH),
            "stall" => (0, MAX_STALL),
            _ => return Err(ConfigError::UnknownKey(key)),
        };
        let number = value
            .parse::<u32>()
            .ok()
            .and_then(|n| checked(n, min, max))
            .ok_or(ConfigError::InvalidNumber {
                key,
                value,
                min,
                max,
            })?;
        let slot = &mut self.classes[class_index(class)];
        if parameter == "depth" {
            slot.depth = number;
        } else {
            slot.stall = number;
        }
        Ok(())
    }

    /// Applies `key=value` text (the form of spusim's `--config`).
    pub fn configure_assignment<'k>(&mut self, text: &'k str) -> Result<(), ConfigError<'k>> {
        let (key, value) = text
            .split_once('=')
            .ok_or(ConfigError::MissingEquals(text))?;
        self.configure(key.trim(), value.trim())
    }

    /// Writes every parameter as `key value` lines (the simulator's `configure` names).
    pub fn write_listing(&self, out: &mut impl fmt::Write) -> fmt::Result {
        writeln!(out, "spu/feature/sp-dual {}", bool_text(self.sp_dual))?;
        writeln!(out, "spu/feature/dp-dual {}", bool_text(self.dp_dual))?;
        writeln!(
            out,
            "spu/feature/ls-line-contend-load-only {}",
            bool_text(self.ls_line_contend_load_only)
        )?;
        for class in IClass::ALL {
            let t = self.timing(class);
            writeln!(out, "spu/pipe/{}/depth {}", class.name(), t.depth)?;
            writeln!(out, "spu/pipe/{}/stall {}", class.name(), t.stall)?;
        }
        Ok(())
    }

    /// The largest depth of any class (how long dependency state must be kept).
    pub fn max_depth(&self) -> u8 {
        self.classes
            .iter()
            .map(|t| t.depth)
            .max()
            .unwrap_or(MIN_DEPTH)
    }
}

fn bool_text(on: bool) -> &'static str {
    if on { "TRUE" } else { "FALSE" }
}

fn parse_bool(value: &str) -> Option<bool> {
    match value {
        "TRUE" | "true" | "1" => Some(true),
        "FALSE" | "false" | "0" => Some(false),
        _ => None,
    }
}

fn checked(value: u32, min: u8, max: u8) -> Option<u8> {
    u8::try_from(value).ok().filter(|v| (min..=max).contains(v))
}
