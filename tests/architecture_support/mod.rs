//! The checker behind `tests/architecture.rs`: it reads a tree's Rust sources (the library
//! in `src/`, the tools in `tools/*/src`), builds the graph of which file depends on which,
//! and finds what `docs/architecture.md` forbids: an import between layers its layer table
//! does not allow, a circle of files it does not list, a file over the length limit, a demo
//! file outside the rooms of its room table or importing a room its row does not name.
//!
//! How a path is read, and what counts as a dependency, is `docs/architecture.md`'s "The
//! rules the build checks"; [`resolve`] and [`graph`] implement it.

pub mod doc;
pub mod graph;
pub mod layers;
pub mod lexer;
pub mod modules;
pub mod parse;
pub mod resolve;
pub mod rooms;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use graph::{Graph, circles, describe, file_graph};
use modules::{Crate, CrateSpec, read_crate, relative};
use resolve::FileId;

/// The longest a Rust source file may be, in lines.
pub const MAX_LINES: usize = 600;

/// The crates of a tree and their file graph.
pub struct Tree {
    pub root: PathBuf,
    pub crates: Vec<Crate>,
    pub graph: Graph,
    /// The index in `crates` of the library (`src/lib.rs`), if the tree has one.
    pub library: Option<usize>,
}

/// The `name = ".."` of a `Cargo.toml`'s `[package]`, `-` as `_` (as code names the crate).
fn package_name(manifest: &Path) -> Option<String> {
    let text = fs::read_to_string(manifest).ok()?;
    let package = text.split("[package]").nth(1)?;
    let line = package
        .lines()
        .find(|line| line.trim_start().starts_with("name"))?;
    let name = line.split('"').nth(1)?;
    Some(name.replace('-', "_"))
}

/// The crates of one package at `dir`: its library (`src/lib.rs`) and its binary
/// (`src/main.rs`), which may name the library and the crates in `externs`.
fn package_crates(root: &Path, dir: &Path, externs: &[String]) -> Vec<CrateSpec> {
    let name = package_name(&dir.join("Cargo.toml")).unwrap_or_else(|| "crate".to_string());
    let src = dir.join("src");
    let mut specs = Vec::new();
    if src.join("lib.rs").is_file() {
        specs.push(CrateSpec {
            name: name.clone(),
            root: src
                .join("lib.rs")
                .strip_prefix(root)
                .unwrap_or(&src)
                .to_path_buf(),
            externs: externs.to_vec(),
        });
    }
    if src.join("main.rs").is_file() {
        let mut bin_externs = externs.to_vec();
        bin_externs.push(name.clone());
        specs.push(CrateSpec {
            name: format!("{name} (bin)"),
            root: src
                .join("main.rs")
                .strip_prefix(root)
                .unwrap_or(&src)
                .to_path_buf(),
            externs: bin_externs,
        });
    }
    specs
}

/// The crates of the tree at `root`: the package at the root and each `tools/*` package,
/// which may name the root's library.
pub fn crate_specs(root: &Path) -> Vec<CrateSpec> {
    let mut specs = package_crates(root, root, &[]);
    let library = specs.first().map(|spec| spec.name.clone());
    let mut tools: Vec<PathBuf> = fs::read_dir(root.join("tools"))
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|dir| dir.join("Cargo.toml").is_file() && dir.join("src").is_dir())
        .collect();
    tools.sort();
    for tool in tools {
        specs.extend(package_crates(
            root,
            &tool,
            &library.iter().cloned().collect::<Vec<_>>(),
        ));
    }
    specs
}

/// Reads the tree at `root`.
pub fn read_tree(root: &Path) -> Result<Tree, String> {
    let specs = crate_specs(root);
    let crates = specs
        .iter()
        .map(|spec| read_crate(root, spec))
        .collect::<Result<Vec<_>, _>>()?;
    let graph = file_graph(&crates);
    let library = specs
        .iter()
        .position(|spec| spec.root == Path::new("src/lib.rs"));
    Ok(Tree {
        root: root.to_path_buf(),
        crates,
        graph,
        library,
    })
}

impl Tree {
    /// The sorted paths of the files `ids`.
    fn paths(&self, ids: &[FileId]) -> Vec<String> {
        let mut paths: Vec<String> = ids
            .iter()
            .map(|&(c, f)| self.crates[c].files[f].path.clone())
            .collect();
        paths.sort();
        paths
    }

    /// The circles of the tree, each as its sorted file paths.
    pub fn circles(&self) -> Vec<Vec<String>> {
        circles(&self.graph)
            .iter()
            .map(|circle| self.paths(circle))
            .collect()
    }

    /// A circle described with the dependencies that close it.
    pub fn describe(&self, paths: &[String]) -> String {
        let ids: Vec<FileId> = circles(&self.graph)
            .into_iter()
            .find(|circle| self.paths(circle) == paths)
            .unwrap_or_default();
        describe(&self.crates, &self.graph, &ids)
    }

    /// The `.rs` files under the crates' source folders that no crate reaches by its `mod`
    /// declarations (the checks would not see them).
    pub fn unreached(&self) -> Vec<String> {
        let reached: BTreeSet<&str> = self
            .crates
            .iter()
            .flat_map(|k| k.files.iter().map(|f| f.path.as_str()))
            .collect();
        let folders: BTreeSet<PathBuf> = self
            .crates
            .iter()
            .filter_map(|k| self.root.join(&k.spec.root).parent().map(Path::to_path_buf))
            .collect();
        folders
            .iter()
            .flat_map(|folder| rust_files(folder))
            .map(|file| relative(&self.root, &file))
            .filter(|file| !reached.contains(file.as_str()))
            .collect()
    }
}

/// The `.rs` files under `dir`, `target` and hidden folders left out, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The `.rs` files under `root` longer than [`MAX_LINES`], with their lengths.
pub fn long_files(root: &Path) -> Vec<(String, usize)> {
    rust_files(root)
        .iter()
        .filter_map(|file| {
            let lines = fs::read_to_string(file).ok()?.lines().count();
            (lines > MAX_LINES).then(|| (relative(root, file), lines))
        })
        .collect()
}

/// The differences between the circles `found` and the circles `listed` (each a set of
/// files): one message per circle found and not listed, and per circle listed and not found.
pub fn circle_differences(found: &[Vec<String>], listed: &[Vec<String>]) -> Vec<String> {
    let as_set = |files: &Vec<String>| files.iter().cloned().collect::<BTreeSet<_>>();
    let found: Vec<BTreeSet<String>> = found.iter().map(as_set).collect();
    let listed: Vec<BTreeSet<String>> = listed.iter().map(as_set).collect();
    let mut out = Vec::new();
    for circle in found.iter().filter(|c| !listed.contains(c)) {
        out.push(format!(
            "a circle not listed: {}",
            circle.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    for circle in listed.iter().filter(|c| !found.contains(c)) {
        out.push(format!(
            "listed, and no longer a circle: {}",
            circle.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    out
}
