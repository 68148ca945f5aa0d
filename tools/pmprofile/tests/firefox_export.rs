//! The Firefox Profiler export read back as the profiler reads it: every sample's stack rebuilt
//! from the processed format's tables (samples -> stack table -> frame table -> func table ->
//! string table, preprocessedProfileVersion 55 as fxprof-processed-profile 0.8 writes it) must
//! give the same stacks with the same counts as the folded output.
mod common;

use std::collections::{BTreeMap, HashMap};
use std::process::Command;
use std::time::{Duration, UNIX_EPOCH};

use common::Table;
use pmprobe::sampling::{ProfileHeader, Sample, SampleSource, WalkEnd};
use pmprofile::{Profile, UNKNOWN, core_frame, firefox};
use serde_json::Value;

/// Stacks, root first, with their sample counts.
type Stacks = BTreeMap<Vec<String>, u64>;

/// The stacks of the folded output (`root;...;leaf count` lines).
fn folded_stacks(lines: &[String]) -> Stacks {
    let mut stacks = Stacks::new();
    for line in lines {
        let (stack, count) = line.rsplit_once(' ').expect("`stack count`");
        let frames = stack.split(';').map(str::to_string).collect();
        *stacks.entry(frames).or_default() += count.parse::<u64>().expect("a count");
    }
    stacks
}

/// Column `name` of `table`.
fn column<'v>(table: &'v Value, name: &str) -> &'v [Value] {
    table[name]
        .as_array()
        .unwrap_or_else(|| panic!("no column `{name}`"))
}

fn index(value: &Value) -> usize {
    value.as_u64().expect("an index") as usize
}

/// The function names of a thread's stack `stack`, root first: the stack table's prefix
/// chain runs from the leaf toward the root.
fn stack_names(thread: &Value, mut stack: Option<usize>) -> Vec<String> {
    let (stacks, frames, funcs) = (
        &thread["stackTable"],
        &thread["frameTable"],
        &thread["funcTable"],
    );
    let strings = column(thread, "stringArray");
    let mut leaf_first = Vec::new();
    while let Some(s) = stack {
        let frame = index(&column(stacks, "frame")[s]);
        let func = index(&column(frames, "func")[frame]);
        let name = &strings[index(&column(funcs, "name")[func])];
        leaf_first.push(name.as_str().expect("a string").to_string());
        stack = column(stacks, "prefix")[s].as_u64().map(|p| p as usize);
    }
    leaf_first.reverse();
    leaf_first
}

/// Every sample's stack, weighted, as the folded output would show it: a `core N` root frame
/// when there are several threads (cores), `;` in a name as `,`.
fn firefox_stacks(profile: &Value) -> Stacks {
    let threads = profile["threads"].as_array().expect("threads");
    let mut stacks = Stacks::new();
    for thread in threads {
        let name = thread["name"].as_str().expect("a thread name");
        let core: u8 = name
            .strip_prefix("core ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("thread `{name}` is not a core"));
        let samples = &thread["samples"];
        let weights = column(samples, "weight");
        for (i, stack) in column(samples, "stack").iter().enumerate() {
            let mut frames = stack_names(thread, stack.as_u64().map(|s| s as usize));
            frames.iter_mut().for_each(|f| *f = f.replace(';', ","));
            if threads.len() > 1 {
                frames.insert(0, core_frame(core));
            }
            let weight = weights[i].as_u64().unwrap_or(1);
            *stacks.entry(frames).or_default() += weight;
        }
    }
    stacks
}

/// The comparison has to tell a stack from its reverse, or a reversed export would pass.
fn assert_order_matters(stacks: &Stacks) {
    let reversed: Stacks = stacks
        .iter()
        .map(|(s, &n)| (s.iter().rev().cloned().collect(), n))
        .collect();
    assert_ne!(&reversed, stacks, "every stack reads the same both ways");
}

fn table() -> Table {
    Table(HashMap::from([
        (0x100, vec!["hot_loop"]),
        (0x104, vec!["inlined_helper", "hot_loop"]),
        (0x200, vec!["cold::<[u8; 4]>"]),
        // Return addresses are looked up one byte earlier.
        (0x2ff, vec!["main"]),
        (0x3ff, vec!["driver"]),
    ]))
}

const PERIOD: u64 = 6250;

fn header() -> ProfileHeader {
    ProfileHeader {
        source: SampleSource::GenericTimer,
        event: 0,
        period: PERIOD,
        dropped: 0,
    }
}

/// Core 0: 5 in hot_loop and 2 in its inlined helper, under driver <- main, then 1 in cold
/// under main; core 2: 3 in hot_loop and 1 at an address nothing covers, under main.
fn samples() -> Vec<Sample> {
    let on = |core: u8, pc: u64, frames: &[u64], n: usize| {
        vec![Sample::with_frames(pc, 0, frames, WalkEnd::Complete).on_core(core); n]
    };
    [
        on(0, 0x100, &[0x400, 0x300], 3),
        on(0, 0x104, &[0x400, 0x300], 2),
        on(0, 0x100, &[0x400, 0x300], 2),
        on(0, 0x200, &[0x300], 1),
        on(2, 0x100, &[0x300], 3),
        on(2, 0x9000, &[0x300], 1),
    ]
    .concat()
}

fn export(samples: &[Sample]) -> Value {
    let recorded = UNIX_EPOCH + Duration::from_millis(1_700_000_000_000);
    let firmware = firefox::Firmware::at(std::path::Path::new("/fw/pmprobe"));
    let profile = firefox::build(samples, &header(), &table(), &firmware, recorded);
    let mut json = Vec::new();
    firefox::write(&profile, &mut json).unwrap();
    serde_json::from_slice(&json).expect("valid JSON")
}

#[test]
fn every_sample_has_the_folded_stack_on_its_core_thread() {
    let samples = samples();
    let folded = folded_stacks(&Profile::build(&samples, &table()).folded());
    assert_order_matters(&folded);
    let json = export(&samples);
    assert_eq!(firefox_stacks(&json), folded);

    // One sample set of one core: no `core N` frame in the folded output, one thread.
    let core0: Vec<Sample> = samples.iter().filter(|s| s.core == 0).copied().collect();
    let folded = folded_stacks(&Profile::build(&core0, &table()).folded());
    assert!(folded.keys().all(|s| s[0] == "main"), "{folded:?}");
    assert_eq!(firefox_stacks(&export(&core0)), folded);
}

#[test]
fn meta_threads_times_and_library_follow_the_sample_file() {
    let json = export(&samples());
    let meta = &json["meta"];
    assert_eq!(meta["preprocessedProfileVersion"], 55);
    assert_eq!(meta["product"], "pmprobe");
    assert_eq!(meta["interval"].as_f64(), Some(PERIOD as f64 / 1e6));
    assert_eq!(meta["startTime"].as_f64(), Some(1.7e12));
    assert_eq!(meta["symbolicated"], true);
    assert_eq!(json["libs"][0]["name"], "pmprobe");
    assert_eq!(json["libs"][0]["path"], "/fw/pmprobe");

    let threads = json["threads"].as_array().unwrap();
    let names: Vec<&str> = threads
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["core 0", "core 2"]);
    for (thread, expected) in threads.iter().zip([8u64, 4]) {
        assert_eq!(thread["processName"], "pmprobe");
        let samples = &thread["samples"];
        assert_eq!(samples["length"], expected);
        assert_eq!(samples["weightType"], "samples");
        assert!(column(samples, "weight").iter().all(|w| w == 1));
        // The n-th sample of a core, n periods in: time deltas of one period each (ms).
        let mut time = 0.0;
        for (n, delta) in column(samples, "timeDeltas").iter().enumerate() {
            time += delta.as_f64().unwrap();
            let expected = firefox::sample_time_ns(n as u64 + 1, PERIOD) as f64 / 1e6;
            assert!((time - expected).abs() < 1e-9, "sample {n}: {time} ms");
        }
        // Symbolized functions belong to the firmware library; the unknown address to none.
        let (funcs, strings) = (&thread["funcTable"], column(thread, "stringArray"));
        let resources = &thread["resourceTable"];
        for (func, name) in column(funcs, "name").iter().enumerate() {
            let name = strings[index(name)].as_str().unwrap();
            let resource = column(funcs, "resource")[func].as_i64().unwrap();
            if name == UNKNOWN {
                assert_eq!(resource, -1);
            } else {
                let lib = index(&column(resources, "lib")[resource as usize]);
                assert_eq!(json["libs"][lib]["name"], "pmprobe", "{name}");
            }
        }
    }
}

#[test]
fn the_command_writes_the_stacks_of_its_folded_file() {
    let elf_path = common::firmware_elf();
    let elf = std::fs::read(&elf_path).unwrap();
    let functions = common::three_functions(&elf);
    let (hot, warm, caller) = (&functions[0], &functions[1], &functions[2]);
    // Core 0 in hot under caller, core 1 in warm under caller and in hot under warm under
    // caller: real return addresses, so the stacks are what DWARF says (inlined frames too).
    let frame = |pc: u64, frames: &[u64], core: u8| {
        Sample::with_frames(pc, 2, frames, WalkEnd::Complete).on_core(core)
    };
    let mut samples = vec![frame(hot.0, &[caller.0 + 8], 0); 6];
    samples.extend(vec![frame(warm.0, &[caller.0 + 8], 1); 3]);
    samples.extend(vec![frame(hot.0 + 4, &[warm.0 + 8, caller.0 + 8], 1); 2]);
    let dir = std::env::temp_dir().join(format!("pmprofile-firefox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let samples_path = dir.join("profile.pmps");
    std::fs::write(&samples_path, common::sample_file(&samples, 10_000)).unwrap();
    let (folded, firefox) = (dir.join("out.folded"), dir.join("out.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_pmprofile"))
        .arg("--folded")
        .arg(&folded)
        .arg("--firefox")
        .arg(&firefox)
        .arg(&elf_path)
        .arg(&samples_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(&format!("wrote {}", firefox.display())));

    let lines: Vec<String> = std::fs::read_to_string(&folded)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let folded = folded_stacks(&lines);
    assert_order_matters(&folded);
    assert_eq!(folded.values().sum::<u64>(), 11);
    let json: Value = serde_json::from_slice(&std::fs::read(&firefox).unwrap()).unwrap();
    let stacks = firefox_stacks(&json);
    println!("{} stacks, e.g. {:?}", stacks.len(), stacks.keys().next());
    assert_eq!(stacks, folded);
    assert!(stacks.keys().all(|s| s.contains(&caller.1)));
    assert_eq!(json["meta"]["product"], "pmprobe");
    assert_eq!(json["meta"]["interval"].as_f64(), Some(0.01));
    let lib = elf_path.file_name().unwrap().to_string_lossy();
    assert_eq!(json["libs"][0]["name"], lib.as_ref());
    std::fs::remove_dir_all(&dir).ok();
}
