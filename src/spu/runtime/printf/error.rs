//! Why a format could not be printed.

/// The largest width or precision written in a format that is taken as it is; larger ones are
/// refused (the C library would print gigabytes of padding).
pub const MAX_AMOUNT: u32 = 1 << 20;

/// Why a format could not be printed (what came before the refusal was printed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PrintfError {
    /// The format ends inside a conversion (`"%"`, `"%-5"`).
    UnfinishedConversion {
        /// Offset of the `%` in the format.
        offset: usize,
    },
    /// A conversion this printf does not have (`%n`, `%a`, a typo).
    UnsupportedConversion {
        /// Offset of the `%` in the format.
        offset: usize,
        /// The conversion character.
        conversion: u8,
    },
    /// A width or precision above [`MAX_AMOUNT`].
    AmountTooLarge {
        /// Offset of the `%` in the format.
        offset: usize,
    },
}

impl core::fmt::Display for PrintfError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            PrintfError::UnfinishedConversion { offset } => {
                write!(
                    f,
                    "the format ends inside the conversion at offset {offset}"
                )
            }
            PrintfError::UnsupportedConversion { offset, conversion } => write!(
                f,
                "unsupported conversion `%{}` at offset {offset}",
                conversion.escape_ascii()
            ),
            PrintfError::AmountTooLarge { offset } => write!(
                f,
                "a width or precision above {MAX_AMOUNT} at offset {offset}"
            ),
        }
    }
}

impl core::error::Error for PrintfError {}
