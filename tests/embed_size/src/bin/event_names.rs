//! The PMU driver, probe points and listeners, and the event catalogue's names.
#![no_std]
#![no_main]

use pmprobe_embed_size::{event_names, pmu, probes};

pmprobe_embed_size::firmware!(pmu() ^ probes() ^ event_names());
