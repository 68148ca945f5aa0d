//! The PMU driver, probe points and listeners.
#![no_std]
#![no_main]

use pmprobe_embed_size::{pmu, probes};

pmprobe_embed_size::firmware!(pmu() ^ probes());
