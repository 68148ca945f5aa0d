//! The analysis options: `--check-dma` (the DMA race checker) and `--profile`,
//! `--profile-folded FILE`, `--profile-firefox FILE`, `--profile-perf-data FILE` (the exact
//! per-function profile).

use std::path::PathBuf;

/// What to analyse besides running the program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnalysisOptions {
    /// `--check-dma`: report every DMA race on standard error; exit 4 when there is one.
    pub check_dma: bool,
    /// `--profile`: print the per-function table at the end.
    pub profile: bool,
    /// `--profile-folded FILE`: the profile as folded stacks.
    pub profile_folded: Option<PathBuf>,
    /// `--profile-firefox FILE`: the profile for the Firefox Profiler.
    pub profile_firefox: Option<PathBuf>,
    /// `--profile-perf-data FILE`: the profile as a perf.data file for `perf report`.
    pub profile_perf_data: Option<PathBuf>,
}

impl AnalysisOptions {
    /// Its flags (options without a value).
    pub const FLAGS: [&'static str; 2] = ["--check-dma", "--profile"];
    /// Its options with a file name.
    pub const FILES: [&'static str; 3] = [
        "--profile-folded",
        "--profile-firefox",
        "--profile-perf-data",
    ];

    /// Takes flag `name` (one of [`FLAGS`](Self::FLAGS)).
    pub fn take_flag(&mut self, name: &str) {
        match name {
            "--check-dma" => self.check_dma = true,
            _ => self.profile = true,
        }
    }

    /// Takes option `name` (one of [`FILES`](Self::FILES)) with its file.
    pub fn take_file(&mut self, name: &str, file: PathBuf) {
        match name {
            "--profile-folded" => self.profile_folded = Some(file),
            "--profile-firefox" => self.profile_firefox = Some(file),
            _ => self.profile_perf_data = Some(file),
        }
    }

    /// Whether the run is profiled (any of the profile's outputs was asked for).
    pub fn profiling(&self) -> bool {
        self.profile || self.outputs().iter().any(|(_, file)| file.is_some())
    }

    /// Whether anything is analysed.
    pub fn any(&self) -> bool {
        self.check_dma || self.profiling()
    }

    /// The output files, with their options.
    pub fn outputs(&self) -> [(&'static str, Option<&std::path::Path>); 3] {
        [
            ("--profile-folded", self.profile_folded.as_deref()),
            ("--profile-firefox", self.profile_firefox.as_deref()),
            ("--profile-perf-data", self.profile_perf_data.as_deref()),
        ]
    }
}
