//! The PMU driver only.
#![no_std]
#![no_main]

use pmprobe_embed_size::pmu;

pmprobe_embed_size::firmware!(pmu());
