//! The crates of a source tree and their module trees: which file holds which module, found
//! by following `mod x;` declarations from each crate's root as the compiler does (every
//! declaration, whatever its `cfg`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::lexer::tokens;
use super::parse::{FileFacts, file_facts};

/// A crate to read: its name as other crates write it, its root file, and the crates it
/// may name (by their names).
#[derive(Clone, Debug)]
pub struct CrateSpec {
    pub name: String,
    pub root: PathBuf,
    pub externs: Vec<String>,
}

/// One source file of a crate.
#[derive(Debug)]
pub struct SourceFile {
    /// Its path relative to the tree's root, with `/` separators.
    pub path: String,
    /// The module it holds, from the crate root (empty for the root).
    pub module: Vec<String>,
    pub facts: FileFacts,
}

/// A crate with its module tree.
#[derive(Debug)]
pub struct Crate {
    pub spec: CrateSpec,
    pub files: Vec<SourceFile>,
    /// Every module (inline ones included) and the indices in `files` of the files holding
    /// it (two for a module declared twice, under different `cfg`s and `#[path]`s).
    pub modules: BTreeMap<Vec<String>, Vec<usize>>,
    /// `#[macro_export]` macros (they live at the crate root) and the file defining each.
    pub macros: BTreeMap<String, usize>,
    /// `mod x;` declarations: (declaring file, declared file), indices in `files`.
    pub declarations: Vec<(usize, usize)>,
}

/// The path of `path` relative to `root`, with `/` separators.
pub fn relative(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Reads the crate `spec` under the tree `root`.
/// A file that cannot be read, or a `mod x;` whose file is missing, is an error that says which.
pub fn read_crate(root: &Path, spec: &CrateSpec) -> Result<Crate, String> {
    let mut krate = Crate {
        spec: spec.clone(),
        files: Vec::new(),
        modules: BTreeMap::new(),
        macros: BTreeMap::new(),
        declarations: Vec::new(),
    };
    let mut queue = vec![(root.join(&spec.root), Vec::new(), true)];
    let mut seen = BTreeSet::new();
    while let Some((file, module, mod_rs)) = queue.pop() {
        if !seen.insert(file.clone()) {
            continue;
        }
        let text =
            fs::read_to_string(&file).map_err(|error| format!("{}: {error}", file.display()))?;
        let facts = file_facts(&tokens(&text));
        let index = krate.files.len();
        krate.modules.entry(module.clone()).or_default().push(index);
        for inline in &facts.inline {
            let inline = [module.clone(), inline.clone()].concat();
            krate.modules.entry(inline).or_default().push(index);
        }
        for name in &facts.exported_macros {
            krate.macros.insert(name.clone(), index);
        }
        let dir = file.parent().unwrap_or(root).to_path_buf();
        // A non-mod-rs file (`a.rs`) keeps its children in `a/`.
        let child_dir = if mod_rs {
            dir.clone()
        } else {
            dir.join(file.file_stem().unwrap_or_default())
        };
        for decl in &facts.declared {
            let scope_dir = decl.scope.iter().fold(child_dir.clone(), |d, s| d.join(s));
            let candidates = match &decl.path {
                Some(path) => vec![(dir.join(path), path.ends_with("mod.rs"))],
                None => vec![
                    (scope_dir.join(format!("{}.rs", decl.name)), false),
                    (scope_dir.join(&decl.name).join("mod.rs"), true),
                ],
            };
            let Some((child, child_mod_rs)) = candidates.into_iter().find(|(c, _)| c.is_file())
            else {
                return Err(format!(
                    "{}: `mod {}`, and no file for it",
                    relative(root, &file),
                    decl.name
                ));
            };
            let mut child_module = [module.clone(), decl.scope.clone()].concat();
            child_module.push(decl.name.clone());
            queue.push((child, child_module, child_mod_rs));
        }
        krate.files.push(SourceFile {
            path: relative(root, &file),
            module,
            facts,
        });
    }
    // Declarations as file indices, now that every file has one.
    for (index, file) in krate.files.iter().enumerate() {
        for decl in &file.facts.declared {
            let mut child = [file.module.clone(), decl.scope.clone()].concat();
            child.push(decl.name.clone());
            for &target in krate.modules.get(&child).into_iter().flatten() {
                krate.declarations.push((index, target));
            }
        }
    }
    krate.declarations.sort_unstable();
    krate.declarations.dedup();
    Ok(krate)
}
