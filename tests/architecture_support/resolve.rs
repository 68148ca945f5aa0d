//! Paths to files: a path written in a file names the file that defines what it names. The
//! path's longest module prefix gives a module and its file (`crate::a::b::Item::new`: the
//! file of `a::b`); when the item after that prefix is a name the module's file only brings
//! in with a `use` (a re-export, or an import its children see through `super::`), the path
//! leads on where that `use` leads, until a file defines it.

use std::collections::BTreeMap;

use super::modules::Crate;
use super::parse::WrittenPath;

/// A file of one of the crates read: (crate index, file index).
pub type FileId = (usize, usize);

/// Where a path leads: a module of a crate (the crate's index, the module's absolute path
/// with the item after it), or outside the crates read (`core`, `std`, other crates).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Module(usize, Vec<String>),
    Outside,
}

/// The names each file's `use` declarations bind, by (inline scope, name).
type Aliases = BTreeMap<(Vec<String>, String), Target>;

/// How many `use`s in a row a path is followed through (re-exports of re-exports).
const MAX_HOPS: usize = 16;

/// Resolves the paths of every file of `crates` to the files they name: for each file, the
/// files its paths name, each with the first path (as written) that names it. A file's own
/// file is left out.
pub fn resolve_all(crates: &[Crate]) -> BTreeMap<FileId, BTreeMap<FileId, String>> {
    let mut aliases: BTreeMap<FileId, Aliases> = BTreeMap::new();
    for (c, krate) in crates.iter().enumerate() {
        for f in 0..krate.files.len() {
            aliases.insert((c, f), file_aliases(crates, c, f));
        }
    }
    let mut out = BTreeMap::new();
    for (c, krate) in crates.iter().enumerate() {
        for (f, file) in krate.files.iter().enumerate() {
            let mut named: BTreeMap<FileId, String> = BTreeMap::new();
            for path in &file.facts.paths {
                let target = target(crates, c, f, path, &aliases[&(c, f)]);
                for id in defining_files(crates, &aliases, target, 0) {
                    if id != (c, f) {
                        named.entry(id).or_insert_with(|| path.segments.join("::"));
                    }
                }
            }
            out.insert((c, f), named);
        }
    }
    out
}

/// The names a file's `use` declarations bind, and where each leads (resolved in order, twice,
/// so that a `use` may build on a name another binds).
fn file_aliases(crates: &[Crate], c: usize, f: usize) -> Aliases {
    let mut aliases = Aliases::new();
    for _ in 0..2 {
        for path in &crates[c].files[f].facts.paths {
            if let Some(name) = &path.binds {
                let target = target(crates, c, f, path, &aliases);
                aliases.insert((path.scope.clone(), name.clone()), target);
            }
        }
    }
    aliases
}

/// Where `path`, written in file `f` of crate `c`, leads.
fn target(crates: &[Crate], c: usize, f: usize, path: &WrittenPath, aliases: &Aliases) -> Target {
    let krate = &crates[c];
    let here: Vec<String> = [krate.files[f].module.clone(), path.scope.clone()].concat();
    let Some((first, rest)) = path.segments.split_first() else {
        return Target::Outside;
    };
    let rest = rest.to_vec();
    match first.as_str() {
        "crate" => Target::Module(c, rest),
        "self" => Target::Module(c, [here, rest].concat()),
        "super" => {
            let mut base = here;
            let mut rest = rest.as_slice();
            if base.pop().is_none() {
                return Target::Outside;
            }
            while let Some((head, tail)) = rest.split_first()
                && head == "super"
            {
                if base.pop().is_none() {
                    return Target::Outside;
                }
                rest = tail;
            }
            Target::Module(c, [base, rest.to_vec()].concat())
        }
        name => {
            let mut child = here.clone();
            child.push(name.to_string());
            if krate.modules.contains_key(&child) {
                return Target::Module(c, [child, rest].concat());
            }
            // A name a `use` of this scope binds, or (seen through `use super::*`) of the file.
            let alias = aliases
                .get(&(path.scope.clone(), name.to_string()))
                .or_else(|| aliases.get(&(Vec::new(), name.to_string())));
            match alias {
                Some(Target::Module(tc, absolute)) => {
                    return Target::Module(*tc, [absolute.clone(), rest].concat());
                }
                Some(Target::Outside) => return Target::Outside,
                None => {}
            }
            if krate.spec.externs.iter().any(|e| e == name)
                && let Some(tc) = crates.iter().position(|k| k.spec.name == name)
            {
                return Target::Module(tc, rest);
            }
            Target::Outside
        }
    }
}

/// The files that define what `target` names: the file(s) of its longest module prefix,
/// unless the item after the prefix is a name that file binds with a `use`, which is then
/// followed. A macro exported at the root: the file defining it.
fn defining_files(
    crates: &[Crate],
    aliases: &BTreeMap<FileId, Aliases>,
    target: Target,
    hops: usize,
) -> Vec<FileId> {
    let Target::Module(c, absolute) = target else {
        return Vec::new();
    };
    let krate = &crates[c];
    if let [name, ..] = absolute.as_slice()
        && let Some(&file) = krate.macros.get(name)
        && !krate.modules.contains_key(&absolute[..1])
    {
        return vec![(c, file)];
    }
    let Some(k) = (0..=absolute.len())
        .rev()
        .find(|&k| krate.modules.contains_key(&absolute[..k]))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &f in &krate.modules[&absolute[..k]] {
        let file_module = &krate.files[f].module;
        let followed = absolute.get(k).and_then(|item| {
            let scope = absolute[..k].get(file_module.len()..)?.to_vec();
            match aliases[&(c, f)].get(&(scope, item.clone()))? {
                Target::Module(tc, to) if hops < MAX_HOPS => {
                    let onward = [to.clone(), absolute[k + 1..].to_vec()].concat();
                    Some(defining_files(
                        crates,
                        aliases,
                        Target::Module(*tc, onward),
                        hops + 1,
                    ))
                }
                _ => None,
            }
        });
        match followed {
            Some(files) if !files.is_empty() => out.extend(files),
            _ => out.push((c, f)),
        }
    }
    out
}
