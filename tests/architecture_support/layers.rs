//! The layer rules of `docs/architecture.md`, read from its layer table and its "never
//! imports" table, and the imports of the library that break them.
//!
//! The layer table (`| layer | imports | what it is |`), one row per top-level module of the
//! library from the top layer down. Its imports cell is `—` (none) or a comma list of
//! entries `` `layer` ``, each optionally followed by `(only `file`, `file`)`: the files of
//! the row's layer that may import that layer (and every one of them does). A row of the
//! library's users says `pmprobe's public paths`, which the compiler checks.

use std::collections::{BTreeMap, BTreeSet};

use super::doc::{code_spans, table};
use super::graph::Graph;
use super::modules::Crate;

/// The header of the layer table.
pub const LAYER_HEADER: [&str; 3] = ["layer", "imports", "what it is"];
/// The header of the table of folders that never import others.
pub const NEVER_HEADER: [&str; 2] = ["files under", "never import"];

/// What the users' row says it imports.
const USERS: &str = "pmprobe's public paths";

/// One layer the table lets another import: all of its files, or only those listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allowed {
    pub layer: String,
    /// `None`: every file of the importing layer may.
    pub only: Option<Vec<String>>,
}

/// A row of the layer table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    pub name: String,
    pub imports: Vec<Allowed>,
}

/// The library's layers from the table, top down, without the users' rows.
pub fn read_layers(markdown: &str) -> Result<Vec<Layer>, String> {
    let rows = table(markdown, &LAYER_HEADER)
        .ok_or("no layer table (| layer | imports | what it is |)")?;
    let mut layers = Vec::new();
    for row in rows {
        let (Some(name), Some(imports)) = (row.first(), row.get(1)) else {
            return Err(format!("layer table: a short row: {row:?}"));
        };
        if imports == USERS {
            continue;
        }
        let name = match code_spans(name).as_slice() {
            [single] if *name == format!("`{single}`") => single.clone(),
            _ => return Err(format!("layer table: the layer `{name}` is not one `name`")),
        };
        let imports = if imports == "—" {
            Vec::new()
        } else {
            split_top_level(imports)
                .iter()
                .map(|entry| {
                    allowed(entry)
                        .ok_or_else(|| format!("layer table, row {name}: cannot read `{entry}`"))
                })
                .collect::<Result<_, _>>()?
        };
        layers.push(Layer { name, imports });
    }
    Ok(layers)
}

/// `text` split at the commas outside parentheses, each part trimmed.
fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    parts.iter().map(|part| part.trim().to_string()).collect()
}

/// One entry of an imports cell: `` `layer` `` or `` `layer` (only `a`, `b`) ``.
fn allowed(entry: &str) -> Option<Allowed> {
    let rest = entry.strip_prefix('`')?;
    let (layer, rest) = rest.split_once('`')?;
    let rest = rest.trim();
    if rest.is_empty() {
        return Some(Allowed {
            layer: layer.to_string(),
            only: None,
        });
    }
    let list = rest.strip_prefix("(only ")?.strip_suffix(')')?;
    let files = list
        .split(", ")
        .map(|file| {
            file.strip_prefix('`')?
                .strip_suffix('`')
                .map(str::to_string)
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Allowed {
        layer: layer.to_string(),
        only: Some(files),
    })
}

/// What is wrong with the table itself, given the library's top-level modules: a module
/// without a row, a row without a module, an import of a layer that is not below, an `only`
/// file that is not a file of the layer.
pub fn table_errors(layers: &[Layer], library: &Crate) -> Vec<String> {
    let modules: BTreeSet<&str> = library
        .modules
        .keys()
        .filter(|module| module.len() == 1)
        .map(|module| module[0].as_str())
        .collect();
    let names: Vec<&str> = layers.iter().map(|layer| layer.name.as_str()).collect();
    let mut errors = Vec::new();
    for module in &modules {
        if !names.contains(module) {
            errors.push(format!(
                "the library's module `{module}` has no row in the layer table"
            ));
        }
    }
    for (row, layer) in layers.iter().enumerate() {
        if !modules.contains(layer.name.as_str()) {
            errors.push(format!(
                "the layer table's `{}` is not a module of the library",
                layer.name
            ));
        }
        for allowed in &layer.imports {
            match names.iter().position(|name| *name == allowed.layer) {
                Some(below) if below > row => {}
                _ => errors.push(format!(
                    "`{}` imports `{}`, which is not a layer below it in the table",
                    layer.name, allowed.layer
                )),
            }
            for file in allowed.only.iter().flatten() {
                let in_layer = library
                    .files
                    .iter()
                    .any(|f| f.path == *file && f.module.first() == Some(&layer.name));
                if !in_layer {
                    errors.push(format!(
                        "`{}` (only {file}): no such file in `{}`",
                        allowed.layer, layer.name
                    ));
                }
            }
        }
    }
    errors
}

/// The imports between layers of the library (crate index `lib` in `graph`) that the table
/// does not allow, and the `only` files that import nothing of their layer.
pub fn layer_errors(layers: &[Layer], library: &Crate, lib: usize, graph: &Graph) -> Vec<String> {
    let mut errors = Vec::new();
    let mut used: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for (&(c, f), targets) in graph {
        if c != lib {
            continue;
        }
        let from = &library.files[f];
        let Some(from_layer) = from.module.first() else {
            continue;
        };
        for (&(tc, tf), reason) in targets {
            let to = &library.files[tf];
            let Some(to_layer) = to
                .module
                .first()
                .filter(|to| tc == lib && *to != from_layer)
            else {
                continue;
            };
            used.entry((from_layer.clone(), to_layer.clone()))
                .or_default()
                .insert(from.path.clone());
            let row = layers.iter().find(|layer| layer.name == *from_layer);
            let allowed = row.and_then(|row| row.imports.iter().find(|a| a.layer == *to_layer));
            let ok = allowed
                .is_some_and(|a| a.only.as_ref().is_none_or(|only| only.contains(&from.path)));
            if !ok {
                errors.push(format!(
                    "{} (layer `{from_layer}`) imports {} (layer `{to_layer}`) by `{reason}`, which the layer table does not allow",
                    from.path, to.path
                ));
            }
        }
    }
    for layer in layers {
        for allowed in &layer.imports {
            for file in allowed.only.iter().flatten() {
                let imports = used
                    .get(&(layer.name.clone(), allowed.layer.clone()))
                    .is_some_and(|files| files.contains(file));
                if !imports {
                    errors.push(format!(
                        "the layer table lets {file} import `{}`, and it does not: take it off",
                        allowed.layer
                    ));
                }
            }
        }
    }
    errors
}

/// The "never import" rules: (folder, folders its files never import).
pub fn read_never(markdown: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    let rows = table(markdown, &NEVER_HEADER).ok_or("no table | files under | never import |")?;
    rows.iter()
        .map(
            |row| match (row.first().map(|c| code_spans(c)), row.get(1)) {
                (Some(from), Some(never)) if from.len() == 1 => {
                    Ok((from[0].clone(), code_spans(never)))
                }
                _ => Err(format!("never-import table: cannot read {row:?}")),
            },
        )
        .collect()
}

/// The imports of files under a folder of `rules` from files under the folders it never
/// imports.
pub fn never_errors(
    rules: &[(String, Vec<String>)],
    crates: &[Crate],
    graph: &Graph,
) -> Vec<String> {
    let mut errors = Vec::new();
    for (&(c, f), targets) in graph {
        let from = &crates[c].files[f].path;
        for (&(tc, tf), reason) in targets {
            let to = &crates[tc].files[tf].path;
            for (folder, never) in rules {
                if from.starts_with(folder.as_str())
                    && never.iter().any(|n| to.starts_with(n.as_str()))
                {
                    errors.push(format!(
                        "{from} imports {to} by `{reason}`: files under {folder} never import {}",
                        never.join(", ")
                    ));
                }
            }
        }
    }
    errors
}
