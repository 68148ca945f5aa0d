//! The options of linking and of the object file: the further source files linked with the
//! program (`spusim a.s b.S c.s`), `--defsym NAME=VALUE` (as ld's), and `--objdump` (print
//! what `spu-objdump -d` prints for the program's ELF file instead of running it).

use std::path::PathBuf;

use pmprobe::spu::isa::asm::MAX_DEFINITIONS;

/// Linking and object-file options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkOptions {
    /// The source files after the first, linked with it in this order.
    pub more_sources: Vec<PathBuf>,
    /// `--defsym NAME=VALUE`, in order.
    pub definitions: Vec<String>,
    /// `--objdump`: print `spu-objdump -d`'s text of the program's ELF file, do not run.
    pub objdump: bool,
}

impl LinkOptions {
    /// Takes the option `name` with its `value` (a text), `false` if it is not one of these.
    /// (`--objdump` is a flag: see [`LinkOptions::take_flag`].)
    pub fn take(
        &mut self,
        name: &str,
        value: impl FnOnce() -> Result<String, String>,
    ) -> Result<bool, String> {
        if name != "--defsym" {
            return Ok(false);
        }
        let text = value()?;
        let well_formed = text
            .split_once('=')
            .is_some_and(|(symbol, value)| is_symbol(symbol.trim()) && !value.trim().is_empty());
        if !well_formed {
            return Err(format!(
                "--defsym expects NAME=VALUE (a symbol, `=`, a number or an expression of \
                 global symbols), found `{text}`"
            ));
        }
        if self.definitions.len() == MAX_DEFINITIONS {
            return Err(format!("--defsym: at most {MAX_DEFINITIONS} definitions"));
        }
        self.definitions.push(text);
        Ok(true)
    }

    /// Takes the flag `name`, `false` if it is not one of these.
    pub fn take_flag(&mut self, name: &str) -> bool {
        if name == "--objdump" {
            self.objdump = true;
        }
        name == "--objdump"
    }
}

/// A symbol name as ld reads one in `--defsym`: letters, digits, `_`, `.`, `$`, not starting
/// with a digit.
fn is_symbol(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || "_.$".contains(c))
        && chars.all(|c| c.is_ascii_alphanumeric() || "_.$".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defsym_takes_name_equals_value() {
        let mut options = LinkOptions::default();
        let value = |text: &str| {
            let text = text.to_string();
            move || Ok(text)
        };
        assert_eq!(options.take("--defsym", value("main=0x100")), Ok(true));
        assert_eq!(
            options.take("--defsym", value("alias = main + 4")),
            Ok(true)
        );
        assert_eq!(options.definitions, ["main=0x100", "alias = main + 4"]);
        for bad in ["main", "=4", "1x=4", "main=", "a b=1"] {
            let error = options.take("--defsym", value(bad)).unwrap_err();
            assert!(error.contains("NAME=VALUE"), "{bad}: {error}");
        }
        assert_eq!(options.take("--elf", value("x")), Ok(false));
        assert!(options.take_flag("--objdump") && options.objdump);
        assert!(!options.take_flag("--stats"));
    }
}
