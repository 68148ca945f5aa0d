//! Expression values as GNU `as` keeps them: a number or an address in a section (what gas
//! calls a relocatable value), whether the value is known yet, and whether it was known
//! where it was read (gas folds such an absolute value to a constant, `O_constant`, while
//! it reads the statement; anything else it leaves to a fixup).
//!
//! The difference matters to pc-relative operands (a constant is the offset itself, an
//! address or a later-defined symbol the target), to `nop N` (a constant is a byte count)
//! and to register operands (only a constant names a register).

use super::error::AsmErrorKind;

/// The section of a value that is an address another source (or the link) defines: gas
/// leaves such a symbol to a relocation, so it is in none of this source's sections and
/// combines with nothing but a number added or subtracted.
pub(super) const EXTERNAL_SECTION: u8 = 0xfe;

/// A value of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Value {
    /// The number: an address in the second pass, an offset in its section in the first.
    pub value: i64,
    /// The final value is known: always in the second pass; in the first pass for numbers
    /// and symbols already defined, never for addresses (sections are placed after it).
    pub resolved: bool,
    /// The section the value is an address in (`None`: an absolute number).
    pub section: Option<u8>,
    /// Every symbol in it was defined before the statement that reads it (`.` included).
    pub early: bool,
}

impl Value {
    /// A number written in the source.
    pub const fn known(value: i64) -> Value {
        Value {
            value,
            resolved: true,
            section: None,
            early: true,
        }
    }

    /// A symbol not defined yet in this pass.
    pub const UNKNOWN: Value = Value {
        value: 0,
        resolved: false,
        section: None,
        early: false,
    };

    /// The value in 10 bytes: the number, and the section (0xff: none) with the two flags.
    pub fn pack(self) -> (i64, u16) {
        let section = u16::from(self.section.unwrap_or(0xff));
        let flags = u16::from(self.resolved) << 8 | u16::from(self.early) << 9;
        (self.value, section | flags)
    }

    /// The value [`Value::pack`] packed.
    pub fn unpack(value: i64, packed: u16) -> Value {
        let section = (packed & 0xff) as u8;
        Value {
            value,
            resolved: packed & 1 << 8 != 0,
            section: (section != 0xff).then_some(section),
            early: packed & 1 << 9 != 0,
        }
    }

    /// What gas reads as a constant: absolute and known where it is read.
    pub fn is_constant(&self) -> bool {
        self.section.is_none() && self.early
    }

    /// Whether its section is certain: in the first pass a symbol not defined yet may turn
    /// out to be an address, so no operand error is raised for it before the second pass.
    fn placed(&self) -> bool {
        self.resolved || self.early
    }
}

/// A binary operator of gas's expression syntax.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Op {
    LogicalOr,
    LogicalAnd,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Or,
    OrNot,
    Xor,
    And,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
}

impl Op {
    /// gas's `op_rank`: higher binds stronger.
    pub fn rank(self) -> u8 {
        use Op::*;
        match self {
            LogicalOr => 2,
            LogicalAnd => 3,
            Eq | Ne | Lt | Le | Gt | Ge => 4,
            Add | Sub => 5,
            Or | OrNot | Xor | And => 7,
            Mul | Div | Mod | Shl | Shr => 8,
        }
    }

    /// The operator as written, for error messages.
    pub fn text(self) -> &'static str {
        use Op::*;
        match self {
            LogicalOr => "||",
            LogicalAnd => "&&",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Add => "+",
            Sub => "-",
            Or => "|",
            OrNot => "!",
            Xor => "^",
            And => "&",
            Mul => "*",
            Div => "/",
            Mod => "%",
            Shl => "<<",
            Shr => ">>",
        }
    }

    /// The number part: 64-bit wrapping, -1 for true comparisons, unsigned shifts (0 from
    /// 64 on), division and remainder by 0 as by 1 (gas warns and does the same).
    fn apply(self, a: i64, b: i64) -> i64 {
        use Op::*;
        let truth = |t: bool| if t { -1 } else { 0 };
        let divisor = if b == 0 { 1 } else { b };
        match self {
            LogicalOr => i64::from(a != 0 || b != 0),
            LogicalAnd => i64::from(a != 0 && b != 0),
            Eq => truth(a == b),
            Ne => truth(a != b),
            Lt => truth(a < b),
            Le => truth(a <= b),
            Gt => truth(a > b),
            Ge => truth(a >= b),
            Add => a.wrapping_add(b),
            Sub => a.wrapping_sub(b),
            Or => a | b,
            OrNot => a | !b,
            Xor => a ^ b,
            And => a & b,
            Mul => a.wrapping_mul(b),
            Div => a.wrapping_div(divisor),
            Mod => a.wrapping_rem(divisor),
            Shl | Shr if b as u64 >= 64 => 0,
            Shl => ((a as u64) << b) as i64,
            Shr => ((a as u64) >> b) as i64,
        }
    }

    /// `a op b` with gas's section rules (`expr.c`): numbers combine freely; an address
    /// takes a number added or subtracted; two addresses in one section subtract (or
    /// compare) to a number; anything else with an address is an error.
    pub fn combine(self, a: Value, b: Value) -> Result<Value, AsmErrorKind> {
        use Op::*;
        let value = self.apply(a.value, b.value);
        let early = a.early && b.early;
        let both = a.resolved && b.resolved;
        let section = match (self, a.section, b.section) {
            (_, None, None) => None,
            (Add, Some(s), None) | (Add, None, Some(s)) | (Sub, Some(s), None) => Some(s),
            (Sub | Eq | Ne | Lt | Le | Gt | Ge, Some(s), Some(t))
                if s == t && s != EXTERNAL_SECTION =>
            {
                // Offsets in one section differ as the addresses do, in either pass.
                return Ok(Value {
                    value,
                    resolved: both || early,
                    section: None,
                    early,
                });
            }
            _ if a.placed() && b.placed() => {
                return Err(AsmErrorKind::InvalidOperands {
                    operator: self.text(),
                });
            }
            // A symbol not defined yet: the second pass decides.
            _ => return Ok(Value::UNKNOWN),
        };
        Ok(Value {
            value,
            resolved: both,
            section,
            early,
        })
    }
}

/// A prefix operator (`-`, `~`, `!`, `+`) applied to `v`: gas takes only a number, except
/// for `+`.
pub(super) fn prefix(op: u8, v: Value) -> Result<Value, AsmErrorKind> {
    let value = match op {
        b'-' => v.value.wrapping_neg(),
        b'~' => !v.value,
        b'!' => i64::from(v.value == 0),
        _ => return Ok(v),
    };
    match v.section {
        None => Ok(Value { value, ..v }),
        Some(_) => Err(AsmErrorKind::InvalidOperands {
            operator: match op {
                b'-' => "-",
                b'~' => "~",
                _ => "!",
            },
        }),
    }
}
