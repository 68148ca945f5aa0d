//! The file graph and its circles. A file depends on another when it declares it (`mod x;`:
//! a parent on its child) or when a path it writes names a module the other file holds (see
//! [`resolve`](super::resolve)). A circle is a strongly connected component of more than one
//! file: files that each reach every other by their dependencies.

use std::collections::BTreeMap;

use super::modules::Crate;
use super::resolve::{FileId, resolve_all};

/// The dependencies of every file, each with the reason: `mod x` or the first path naming it.
pub type Graph = BTreeMap<FileId, BTreeMap<FileId, String>>;

/// The file graph of `crates`.
pub fn file_graph(crates: &[Crate]) -> Graph {
    let mut graph = resolve_all(crates);
    for (c, krate) in crates.iter().enumerate() {
        for &(parent, child) in &krate.declarations {
            let name = krate.files[child]
                .module
                .last()
                .cloned()
                .unwrap_or_default();
            graph
                .entry((c, parent))
                .or_default()
                .insert((c, child), format!("mod {name}"));
        }
    }
    graph
}

/// The strongly connected components of `graph` with more than one file, each sorted, in the
/// order of their smallest file.
pub fn circles(graph: &Graph) -> Vec<Vec<FileId>> {
    let mut tarjan = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeMap::new(),
        next: 0,
        found: Vec::new(),
    };
    for &node in graph.keys() {
        if !tarjan.index.contains_key(&node) {
            tarjan.visit(node);
        }
    }
    let mut found = tarjan.found;
    for component in &mut found {
        component.sort_unstable();
    }
    found.sort_unstable();
    found
}

struct Tarjan<'g> {
    graph: &'g Graph,
    index: BTreeMap<FileId, usize>,
    low: BTreeMap<FileId, usize>,
    stack: Vec<FileId>,
    on_stack: BTreeMap<FileId, bool>,
    next: usize,
    found: Vec<Vec<FileId>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, node: FileId) {
        self.index.insert(node, self.next);
        self.low.insert(node, self.next);
        self.next += 1;
        self.stack.push(node);
        self.on_stack.insert(node, true);
        let targets: Vec<FileId> = self
            .graph
            .get(&node)
            .map(|t| t.keys().copied().collect())
            .unwrap_or_default();
        for target in targets {
            if !self.index.contains_key(&target) {
                self.visit(target);
                let low = self.low[&node].min(self.low[&target]);
                self.low.insert(node, low);
            } else if self.on_stack.get(&target) == Some(&true) {
                let low = self.low[&node].min(self.index[&target]);
                self.low.insert(node, low);
            }
        }
        if self.low[&node] == self.index[&node] {
            let mut component = Vec::new();
            while let Some(member) = self.stack.pop() {
                self.on_stack.insert(member, false);
                component.push(member);
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                self.found.push(component);
            }
        }
    }
}

/// A circle as a message: its files, then each dependency between two of them with its
/// reason.
pub fn describe(crates: &[Crate], graph: &Graph, circle: &[FileId]) -> String {
    let name = |(c, f): FileId| crates[c].files[f].path.clone();
    let mut text = format!(
        "circle: {}\n",
        circle
            .iter()
            .map(|&id| name(id))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for &from in circle {
        for (to, reason) in graph.get(&from).into_iter().flatten() {
            if circle.contains(to) {
                text += &format!("  {} -> {} ({reason})\n", name(from), name(*to));
            }
        }
    }
    text
}
