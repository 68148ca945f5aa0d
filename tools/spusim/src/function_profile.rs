//! The exact per-function profile of one SPU (`--profile`): an observer that follows the
//! program's calls and returns and charges every instruction and cycle to its call path.
//!
//! **Functions and calls.** A function is a call's target: `brsl`, `brasl`, `bisl` and
//! `bisled` that branch call it (the link register gets the return address, the next word);
//! an indirect branch (`bi`, its conditional forms, `iret`) whose target is a return address
//! on the call stack returns to that frame. The first instruction starts the root frame; an
//! instruction that follows none of the previous one's paths (an interrupt handler entered)
//! opens a frame of its own, left by the branch back. A jump into another function (`br`, a
//! tail call) stays in the frame it jumped from. Names come from the symbols at the entry
//! addresses.
//!
//! **Cycles** (pipeline mode). A cycle belongs to the instruction that issues in it (the
//! first, when two issue together), or, when none does, to the next one that issues: its
//! stall class (`IssueStall`) says why nothing issued. Issue and completion are both in
//! program order, so each completed instruction takes over what its issue was charged (an
//! instruction issued and then squashed passes its charge on to the next one that completes).
//! Cycles after the last issue go to the last instruction. So the functions' cycles add up to
//! the run's cycles exactly, and so do their stall cycles by class. Instruction mode counts
//! instructions only.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

use pmprobe::spu::exec::Executed;
use pmprobe::spu::isa::{Instruction, Mnemonic};
use pmprobe::spu::probes::{IssueEvent, SpuObserver, StallReason};

/// The stall classes the table shows, in its column order.
pub const STALL_CLASSES: [&str; 7] = ["dep", "fp", "branch", "sync", "ch wait", "LS port", "init"];

/// The column of a stall reason.
fn stall_column(reason: StallReason) -> usize {
    match reason {
        StallReason::Dependency(_) => 0,
        StallReason::FpResource | StallReason::DpPipeline => 1,
        StallReason::BranchMiss | StallReason::PrefetchMiss | StallReason::HintTarget => 2,
        StallReason::Channel => 3,
        StallReason::ChannelWait => 4,
        StallReason::DmaLocalStore => 5,
        StallReason::Initialisation => 6,
    }
}

/// Deepest call stack followed; deeper calls are charged to the deepest frame (counted).
pub const MAX_DEPTH: usize = 512;
/// Call-path changes the timeline keeps; later time is charged to each path at the end.
pub const MAX_SEGMENTS: usize = 1 << 20;

/// What one call path (or function) was charged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Metrics {
    pub instructions: u64,
    /// Pipeline mode: cycles (issue cycles plus the stalls before each issue).
    pub cycles: u64,
    /// Instructions issued (a squashed one too: it took its issue slot).
    pub issued: u64,
    /// Of those, issued together with another.
    pub dual: u64,
    /// Stall cycles by [`STALL_CLASSES`] column.
    pub stalls: [u64; STALL_CLASSES.len()],
}

impl Metrics {
    fn add(&mut self, other: &Metrics) {
        self.instructions += other.instructions;
        self.cycles += other.cycles;
        self.issued += other.issued;
        self.dual += other.dual;
        for (mine, theirs) in self.stalls.iter_mut().zip(other.stalls) {
            *mine += theirs;
        }
    }
}

/// A call path: a function called from its parent's path.
#[derive(Clone, Debug)]
pub struct Node {
    /// The function's entry address (`None` for the tree's root, above the first frame).
    pub function: Option<u32>,
    pub parent: usize,
    children: Vec<(u32, usize)>,
    /// What this path itself was charged (not its callees).
    pub own: Metrics,
    /// Times it was entered.
    pub calls: u64,
    /// The address of the call that entered it first (the instruction before the return
    /// address; `None` for the first frame).
    pub call_site: Option<u32>,
}

/// A stretch of the run on one call path (the timeline of the Firefox profile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Cycles (instruction mode: instructions) charged before it.
    pub start: u64,
    pub node: usize,
    pub weight: u64,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    node: usize,
    return_to: Option<u32>,
}

/// An instruction issued and not yet completed, with its charge.
#[derive(Clone, Copy, Debug)]
struct Issued {
    pc: u32,
    charge: Metrics,
}

/// The calling-context tree of a run and the state that builds it.
#[derive(Clone, Debug)]
pub struct Tree {
    pub nodes: Vec<Node>,
    stack: Vec<Frame>,
    expected_next: Option<u32>,
    issued: VecDeque<Issued>,
    /// Stalls since the last issue, for the next one.
    stalls: Metrics,
    last_issue_cycle: Option<u64>,
    /// Charges of issued instructions that never completed, for the next that does.
    carried: Metrics,
    pub segments: Vec<Segment>,
    /// Charges past [`MAX_SEGMENTS`], per path.
    pub late: Vec<(usize, u64)>,
    /// Cycles (or instructions) charged so far.
    pub charged: u64,
    /// Calls not followed past [`MAX_DEPTH`].
    pub too_deep: u64,
    /// Cycles (instruction mode: instructions) by path and by the PC they were charged at.
    pub by_pc: BTreeMap<(usize, u32), u64>,
    last_node: usize,
    last_pc: u32,
}

impl Tree {
    fn new() -> Self {
        Tree {
            nodes: vec![Node {
                function: None,
                parent: 0,
                children: Vec::new(),
                own: Metrics::default(),
                calls: 0,
                call_site: None,
            }],
            stack: Vec::new(),
            expected_next: None,
            issued: VecDeque::new(),
            stalls: Metrics::default(),
            last_issue_cycle: None,
            carried: Metrics::default(),
            segments: Vec::new(),
            late: Vec::new(),
            charged: 0,
            too_deep: 0,
            by_pc: BTreeMap::new(),
            last_node: 0,
            last_pc: 0,
        }
    }

    /// The node of `function` called from `parent` (by the call at `call_site`), made on
    /// first use.
    fn child(&mut self, parent: usize, function: u32, call_site: Option<u32>) -> usize {
        if let Some(&(_, node)) = self
            .nodes
            .get(parent)
            .and_then(|p| p.children.iter().find(|(f, _)| *f == function))
        {
            return node;
        }
        let node = self.nodes.len();
        self.nodes.push(Node {
            function: Some(function),
            parent,
            children: Vec::new(),
            own: Metrics::default(),
            calls: 0,
            call_site,
        });
        if let Some(p) = self.nodes.get_mut(parent) {
            p.children.push((function, node));
        }
        node
    }

    /// Enters `function`, to return to `return_to`.
    fn call(&mut self, function: u32, return_to: Option<u32>) {
        if self.stack.len() >= MAX_DEPTH {
            self.too_deep += 1;
            return;
        }
        let parent = self.stack.last().map_or(0, |frame| frame.node);
        let call_site = return_to.map(|address| address.wrapping_sub(4));
        let node = self.child(parent, function, call_site);
        if let Some(n) = self.nodes.get_mut(node) {
            n.calls += 1;
        }
        self.stack.push(Frame { node, return_to });
    }

    /// Charges `charge` to the current path at `pc`, `weight` of it to the timeline.
    fn charge(&mut self, charge: &Metrics, weight: u64, pc: u32) {
        let node = self.stack.last().map_or(0, |frame| frame.node);
        if let Some(n) = self.nodes.get_mut(node) {
            n.own.add(charge);
        }
        self.last_pc = pc;
        if weight == 0 {
            return;
        }
        *self.by_pc.entry((node, pc)).or_insert(0) += weight;
        let full = self.segments.len() >= MAX_SEGMENTS;
        match self.segments.last_mut() {
            Some(last) if last.node == node => last.weight += weight,
            _ if !full => self.segments.push(Segment {
                start: self.charged,
                node,
                weight,
            }),
            _ => match self.late.iter_mut().find(|(n, _)| *n == node) {
                Some((_, late)) => *late += weight,
                None => self.late.push((node, weight)),
            },
        }
        self.charged += weight;
        self.last_node = node;
    }

    fn retired(&mut self, instruction: &Instruction, executed: &Executed, timed: bool) {
        if !executed.retired {
            return;
        }
        let pc = executed.pc;
        if self.stack.is_empty() {
            self.call(pc, None);
        } else if self.expected_next != Some(pc) {
            // Not where the last instruction went: an interrupt handler, left by the branch
            // back to where it was entered.
            self.call(pc, self.expected_next);
        }
        let mut charge = Metrics {
            instructions: 1,
            ..Metrics::default()
        };
        if timed {
            while let Some(issued) = self.issued.pop_front() {
                self.carried.add(&issued.charge);
                if issued.pc == pc {
                    break;
                }
            }
            charge.add(&std::mem::take(&mut self.carried));
        }
        let weight = if timed { charge.cycles } else { 1 };
        self.charge(&charge, weight, pc);
        if executed.branch_taken {
            let target = executed.next_pc;
            match instruction.mnemonic {
                Mnemonic::Brsl | Mnemonic::Brasl | Mnemonic::Bisl | Mnemonic::Bisled => {
                    self.call(target, Some(pc.wrapping_add(4)));
                }
                Mnemonic::Bi
                | Mnemonic::Biz
                | Mnemonic::Binz
                | Mnemonic::Bihz
                | Mnemonic::Bihnz
                | Mnemonic::Iret => {
                    if let Some(depth) = self
                        .stack
                        .iter()
                        .rposition(|frame| frame.return_to == Some(target))
                    {
                        self.stack.truncate(depth);
                    }
                }
                _ => {}
            }
        }
        self.expected_next = Some(executed.next_pc);
    }

    fn issued(&mut self, event: IssueEvent) {
        let mut charge = std::mem::take(&mut self.stalls);
        if self.last_issue_cycle != Some(event.cycle) {
            charge.cycles += 1;
        }
        charge.issued = 1;
        if event.dual {
            charge.dual = 1;
        }
        self.last_issue_cycle = Some(event.cycle);
        self.issued.push_back(Issued {
            pc: event.pc,
            charge,
        });
    }

    fn stalled(&mut self, reason: StallReason, cycles: u64) {
        self.stalls.cycles += cycles;
        if let Some(column) = self.stalls.stalls.get_mut(stall_column(reason)) {
            *column += cycles;
        }
    }

    /// The charges still waiting (cycles after the last issue, instructions issued and not
    /// completed) go to the last path charged.
    fn settle(&mut self) {
        let mut rest = std::mem::take(&mut self.stalls);
        rest.add(&std::mem::take(&mut self.carried));
        for issued in std::mem::take(&mut self.issued) {
            rest.add(&issued.charge);
        }
        if rest == Metrics::default() {
            return;
        }
        let top = self.stack.len();
        // Charge the path charged last, even if the stack has moved on since.
        let node = self.last_node;
        self.stack.push(Frame {
            node,
            return_to: None,
        });
        self.charge(&rest, rest.cycles, self.last_pc);
        self.stack.truncate(top);
    }
}

/// The profile of one SPU: an observer, and the tree it built.
pub struct FunctionProfile {
    tree: RefCell<Tree>,
    /// Pipeline mode: cycles are charged.
    timed: bool,
}

impl FunctionProfile {
    /// An empty profile; `timed` for pipeline mode.
    pub fn new(timed: bool) -> Self {
        FunctionProfile {
            tree: RefCell::new(Tree::new()),
            timed,
        }
    }

    /// Whether cycles were charged (pipeline mode).
    pub fn timed(&self) -> bool {
        self.timed
    }

    /// The tree, with what was still waiting charged.
    pub fn finish(&self) -> Tree {
        let mut tree = self.tree.borrow_mut();
        tree.settle();
        tree.clone()
    }
}

impl SpuObserver for FunctionProfile {
    fn retired(&self, instruction: &Instruction, executed: &Executed, _cycle: u64) {
        self.tree
            .borrow_mut()
            .retired(instruction, executed, self.timed);
    }

    fn issue(&self, event: IssueEvent) {
        if self.timed {
            self.tree.borrow_mut().issued(event);
        }
    }

    fn issue_stall(&self, reason: StallReason) {
        if self.timed {
            self.tree.borrow_mut().stalled(reason, 1);
        }
    }

    fn stalled_cycles(&self, reason: StallReason, n: u64) {
        if self.timed {
            self.tree.borrow_mut().stalled(reason, n);
        }
    }
}

/// Sums a tree's metrics per function: exclusive (the function's own paths) and inclusive
/// (every path through it, each once however often the function recurs on it), with its calls.
pub fn per_function(tree: &Tree) -> Vec<(u32, Metrics, Metrics, u64)> {
    let mut rows: BTreeMap<u32, (Metrics, Metrics, u64)> = BTreeMap::new();
    // Each path's own charge counts inclusively for every distinct function on its path.
    for (index, node) in tree.nodes.iter().enumerate() {
        let Some(function) = node.function else {
            continue;
        };
        let row = rows.entry(function).or_default();
        row.0.add(&node.own);
        row.2 += node.calls;
        let mut seen: Vec<u32> = Vec::new();
        let mut at = index;
        while let Some(ancestor) = tree.nodes.get(at).and_then(|n| n.function) {
            if !seen.contains(&ancestor) {
                seen.push(ancestor);
                rows.entry(ancestor).or_default().1.add(&node.own);
            }
            at = tree.nodes.get(at).map_or(0, |n| n.parent);
        }
    }
    rows.into_iter()
        .map(|(function, (exclusive, inclusive, calls))| (function, exclusive, inclusive, calls))
        .collect()
}

/// The functions on path `node`, root first.
pub fn path(tree: &Tree, node: usize) -> Vec<u32> {
    let mut functions = Vec::new();
    let mut at = node;
    while let Some(function) = tree.nodes.get(at).and_then(|n| n.function) {
        functions.push(function);
        at = tree.nodes.get(at).map_or(0, |n| n.parent);
    }
    functions.reverse();
    functions
}
