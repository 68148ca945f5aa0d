//! The configuration a pipeline is timed by: the one it was given, or the Cell BE's.

use super::config::Config;

/// The Cell BE configuration, which a pipeline uses until it is given another.
const CELL: Config = Config::cell();

/// The configuration a pipeline uses: the one it was given, or [`CELL`] before. A new
/// pipeline holds no configuration of its own, so that it is all-zero bits; a run stores the
/// one in use first ([`materialize`](Self::materialize)), so the cycle reads it directly.
#[derive(Clone)]
pub(in crate::spu::pipeline) struct ConfigChoice {
    given: bool,
    config: Config,
}

impl ConfigChoice {
    pub(in crate::spu::pipeline) const fn cell() -> Self {
        ConfigChoice {
            given: false,
            config: Config::UNSET,
        }
    }

    #[inline(always)]
    pub(in crate::spu::pipeline) fn get(&self) -> &Config {
        if self.given { &self.config } else { &CELL }
    }

    pub(in crate::spu::pipeline) fn set(&mut self, config: Config) {
        self.given = true;
        self.config = config;
    }

    /// Stores the configuration in use, if it is still the default.
    pub(in crate::spu::pipeline) fn materialize(&mut self) {
        if !self.given {
            self.set(CELL);
        }
    }

    /// The configuration in use, once [`materialize`](Self::materialize)d.
    #[inline(always)]
    pub(in crate::spu::pipeline) fn stored(&self) -> &Config {
        &self.config
    }
}
