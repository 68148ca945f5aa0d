//! Host tests of the PC event queue (gem5's PCEventQueue semantics, without its re-sort).

use std::cell::Cell;

use pmprobe::probe::{
    BreakPcEvent, PanicPcEvent, PcEvent, PcEventAction, PcEventError, PcEventQueue,
};

/// What the executing component hands to events in these tests.
#[derive(Default)]
struct Cpu {
    trace: Vec<&'static str>,
    breakpoints: u32,
}

/// A user-defined event that appends its tag to the context's trace.
struct Mark {
    pc: u64,
    tag: &'static str,
    runs: Cell<u32>,
}

impl Mark {
    fn new(pc: u64, tag: &'static str) -> Self {
        Self {
            pc,
            tag,
            runs: Cell::new(0),
        }
    }
}

impl PcEvent<Cpu> for Mark {
    fn pc(&self) -> u64 {
        self.pc
    }
    fn description(&self) -> &str {
        self.tag
    }
    fn process(&self, cpu: &mut Cpu) -> PcEventAction {
        self.runs.set(self.runs.get() + 1);
        cpu.trace.push(self.tag);
        PcEventAction::Keep
    }
}

fn on_break(cpu: &mut Cpu, event: &BreakPcEvent<'_, Cpu>) {
    cpu.breakpoints += 1;
    cpu.trace.push(if event.description() == "once" {
        "break-once"
    } else {
        "break"
    });
}

fn tags(queue: &PcEventQueue<'_, Cpu, 16>) -> Vec<(u64, String)> {
    queue
        .entries()
        .iter()
        .map(|entry| (entry.pc(), entry.event().description().to_string()))
        .collect()
}

#[test]
fn an_empty_queue_services_nothing() {
    let mut queue: PcEventQueue<'_, Cpu, 4> = PcEventQueue::new();
    let mut cpu = Cpu::default();
    assert!(queue.is_empty());
    assert!(!queue.service(0x1000, &mut cpu));
    assert!(cpu.trace.is_empty());
}

#[test]
fn entries_stay_sorted_by_pc_and_keep_scheduling_order_within_a_pc() {
    let a = Mark::new(0x300, "a");
    let b = Mark::new(0x100, "b");
    let c = Mark::new(0x200, "c");
    let d = Mark::new(0x100, "d");
    let mut queue: PcEventQueue<'_, Cpu, 16> = PcEventQueue::new();
    for event in [&a, &b, &c, &d] {
        queue.schedule(event).unwrap();
    }
    assert_eq!(
        tags(&queue),
        [
            (0x100, "b".to_string()),
            (0x100, "d".to_string()),
            (0x200, "c".to_string()),
            (0x300, "a".to_string())
        ]
    );
    let range: Vec<_> = queue
        .equal_range(0x100)
        .iter()
        .map(|entry| entry.event().description())
        .collect();
    assert_eq!(range, ["b", "d"]);
    assert!(queue.equal_range(0x150).is_empty());
    assert!(queue.equal_range(0x400).is_empty());
}

#[test]
fn service_runs_every_event_at_the_pc_and_only_those() {
    let a = Mark::new(0x100, "a");
    let b = Mark::new(0x100, "b");
    let c = Mark::new(0x104, "c");
    let mut queue: PcEventQueue<'_, Cpu, 16> = PcEventQueue::new();
    queue.schedule(&a).unwrap();
    queue.schedule(&c).unwrap();
    queue.schedule(&b).unwrap();
    let mut cpu = Cpu::default();
    assert!(queue.service(0x100, &mut cpu));
    assert_eq!(cpu.trace, ["a", "b"]);
    assert!(!queue.service(0x108, &mut cpu));
    assert!(queue.service(0x104, &mut cpu));
    assert_eq!(cpu.trace, ["a", "b", "c"]);
    assert_eq!((a.runs.get(), b.runs.get(), c.runs.get()), (1, 1, 1));
}

#[test]
fn remove_takes_out_every_entry_of_the_event() {
    let a = Mark::new(0x100, "a");
    let b = Mark::new(0x100, "b");
    let mut queue: PcEventQueue<'_, Cpu, 16> = PcEventQueue::new();
    queue.schedule(&a).unwrap();
    queue.schedule(&b).unwrap();
    queue.schedule(&a).unwrap();
    assert_eq!(queue.len(), 3);
    queue.remove(&a).unwrap();
    assert_eq!(tags(&queue), [(0x100, "b".to_string())]);
    assert_eq!(queue.remove(&a), Err(PcEventError::NotScheduled));
    let mut cpu = Cpu::default();
    queue.service(0x100, &mut cpu);
    assert_eq!(cpu.trace, ["b"]);
}

#[test]
fn a_full_queue_refuses_with_an_error() {
    let a = Mark::new(0x100, "a");
    let b = Mark::new(0x200, "b");
    let mut queue: PcEventQueue<'_, Cpu, 1> = PcEventQueue::new();
    queue.schedule(&a).unwrap();
    assert_eq!(
        queue.schedule(&b),
        Err(PcEventError::CapacityExceeded { capacity: 1 })
    );
    assert_eq!(queue.len(), 1);
}

#[test]
fn dump_writes_tick_pc_and_description_per_entry() {
    let a = Mark::new(0x80000, "start of main");
    let b = Mark::new(0x1f, "tiny");
    let mut queue: PcEventQueue<'_, Cpu, 16> = PcEventQueue::new();
    queue.schedule(&a).unwrap();
    queue.schedule(&b).unwrap();
    let mut out = String::new();
    queue.dump(1234, &mut out).unwrap();
    assert_eq!(
        out,
        "1234: event at 0x1f: tiny\n1234: event at 0x80000: start of main\n"
    );
}

#[test]
fn a_break_event_that_deletes_itself_fires_once_while_its_neighbours_keep_running() {
    let before = Mark::new(0x100, "before");
    let once = BreakPcEvent::new(0x100, "once", on_break, true);
    let after = Mark::new(0x100, "after");
    let mut queue: PcEventQueue<'_, Cpu, 16> = PcEventQueue::new();
    queue.schedule(&before).unwrap();
    queue.schedule(&once).unwrap();
    queue.schedule(&after).unwrap();
    let mut cpu = Cpu::default();
    assert!(queue.service(0x100, &mut cpu));
    assert!(queue.service(0x100, &mut cpu));
    assert_eq!(
        cpu.trace,
        ["before", "break-once", "after", "before", "after"]
    );
    assert_eq!(once.hits(), 1);
    assert_eq!(cpu.breakpoints, 1);
    assert_eq!(queue.len(), 2);
    assert_eq!(queue.remove(&once), Err(PcEventError::NotScheduled));
}

#[test]
fn a_break_event_that_stays_fires_every_time() {
    let stays = BreakPcEvent::new(0x40, "stays", on_break, false);
    let mut queue: PcEventQueue<'_, Cpu, 4> = PcEventQueue::new();
    queue.schedule(&stays).unwrap();
    let mut cpu = Cpu::default();
    for _ in 0..3 {
        assert!(queue.service(0x40, &mut cpu));
    }
    assert_eq!(stays.hits(), 3);
    assert_eq!(cpu.breakpoints, 3);
    assert_eq!(queue.len(), 1);
}

#[test]
#[should_panic(expected = "reached the unreachable handler")]
fn a_panic_event_panics_with_its_description() {
    let guard = PanicPcEvent::new(0xdead, "reached the unreachable handler");
    let mut queue: PcEventQueue<'_, Cpu, 4> = PcEventQueue::new();
    queue.schedule(&guard).unwrap();
    let mut cpu = Cpu::default();
    assert!(!queue.service(0xdea0, &mut cpu));
    queue.service(0xdead, &mut cpu);
}

/// xorshift64: deterministic pseudo-random numbers for the randomized test.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn random_schedules_and_removals_match_a_sorted_model() {
    let events: Vec<Mark> = (0..64)
        .map(|i| {
            let tag: &'static str = Box::leak(format!("e{i}").into_boxed_str());
            Mark::new((i as u64 * 7919) % 13 * 4, tag)
        })
        .collect();
    let mut queue: PcEventQueue<'_, Cpu, 64> = PcEventQueue::new();
    let mut model: Vec<(u64, usize)> = Vec::new();
    let mut rng = 0x1234_5678_9abc_def1u64;
    for _ in 0..2000 {
        let index = (xorshift(&mut rng) % 64) as usize;
        let event = &events[index];
        if xorshift(&mut rng).is_multiple_of(3) {
            let expected_present = model.iter().any(|&(_, i)| i == index);
            assert_eq!(queue.remove(event).is_ok(), expected_present);
            model.retain(|&(_, i)| i != index);
        } else if model.len() < 64 {
            queue.schedule(event).unwrap();
            // Stable insert: after every entry with the same pc.
            let at = model.partition_point(|&(pc, _)| pc <= event.pc);
            model.insert(at, (event.pc, index));
        }
        let got: Vec<(u64, &str)> = queue
            .entries()
            .iter()
            .map(|e| (e.pc(), e.event().description()))
            .collect();
        let want: Vec<(u64, &str)> = model.iter().map(|&(pc, i)| (pc, events[i].tag)).collect();
        assert_eq!(got, want);
    }
}
