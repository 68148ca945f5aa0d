//! The demo firmware's rooms, read from `docs/architecture.md`'s room table
//! (`| room | what it shows | may import |`), and the imports of the demo that break it.
//!
//! A row names one room: a folder (`src/demo/mfc/`) or a single file (`src/demo/scenario.rs`),
//! from the top room down. Its "may import" cell is `—` or the rooms below it that its files
//! may import. Every file under the demo's folder is in a room; a file imports files of its own
//! room and of the rooms its row names. A `mod x;` declaration places a file; it imports
//! nothing (the demo's `mod.rs` declares every room).

use super::doc::{code_spans, table};
use super::graph::Graph;
use super::modules::Crate;

/// The header of the room table.
pub const ROOM_HEADER: [&str; 3] = ["room", "what it shows", "may import"];

/// A row of the room table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Room {
    /// A folder (ending in `/`) or a file.
    pub path: String,
    pub may_import: Vec<String>,
}

impl Room {
    fn holds(&self, file: &str) -> bool {
        if self.path.ends_with('/') {
            file.starts_with(&self.path)
        } else {
            file == self.path
        }
    }
}

/// The rooms from the table, top down; an error for a row that is not one path, and for a
/// room that may import a room that is not below it (so the rooms can never make a circle).
pub fn read_rooms(markdown: &str) -> Result<Vec<Room>, String> {
    let rows = table(markdown, &ROOM_HEADER)
        .ok_or("no room table (| room | what it shows | may import |)")?;
    let mut rooms = Vec::new();
    for row in &rows {
        let (Some(path), Some(may_import)) = (row.first(), row.get(2)) else {
            return Err(format!("room table: a short row: {row:?}"));
        };
        let path = match code_spans(path).as_slice() {
            [single] if *path == format!("`{single}`") => single.clone(),
            _ => return Err(format!("room table: the room `{path}` is not one `path`")),
        };
        let may_import = if may_import == "—" {
            Vec::new()
        } else {
            code_spans(may_import)
        };
        rooms.push(Room { path, may_import });
    }
    for (at, room) in rooms.iter().enumerate() {
        for other in &room.may_import {
            match rooms.iter().position(|r| r.path == *other) {
                Some(below) if below > at => {}
                Some(_) => {
                    return Err(format!(
                        "room table: {} may import {other}, which is not below it",
                        room.path
                    ));
                }
                None => {
                    return Err(format!(
                        "room table: {} may import {other}, which has no row",
                        room.path
                    ));
                }
            }
        }
    }
    Ok(rooms)
}

/// The room holding `file` (a file row before the folder around it).
fn room_of<'r>(rooms: &'r [Room], file: &str) -> Option<&'r Room> {
    rooms
        .iter()
        .filter(|room| room.holds(file))
        .max_by_key(|room| room.path.len())
}

/// The files under `folder` in no room, and the imports between rooms that the table does not
/// allow.
pub fn room_errors(rooms: &[Room], folder: &str, crates: &[Crate], graph: &Graph) -> Vec<String> {
    let mut errors = Vec::new();
    for krate in crates {
        for file in &krate.files {
            if file.path.starts_with(folder) && room_of(rooms, &file.path).is_none() {
                errors.push(format!(
                    "{} is in no room of the room table: put it in the room of what it shows, \
                     or give it a row",
                    file.path
                ));
            }
        }
    }
    for (&(c, f), targets) in graph {
        let from = &crates[c].files[f].path;
        let Some(room) = room_of(rooms, from) else {
            continue;
        };
        for (&(tc, tf), reason) in targets {
            let to = &crates[tc].files[tf].path;
            let Some(target) = room_of(rooms, to) else {
                continue;
            };
            if reason.starts_with("mod ")
                || target.path == room.path
                || room.may_import.contains(&target.path)
            {
                continue;
            }
            errors.push(format!(
                "{from} (room {}) imports {to} (room {}) by `{reason}`: the room table lets it \
                 import {}",
                room.path,
                target.path,
                if room.may_import.is_empty() {
                    "no other room".to_string()
                } else {
                    room.may_import.join(", ")
                }
            ));
        }
    }
    errors
}

/// The checker on trees written for each case: the answer follows from the rule.
#[cfg(test)]
mod cases {
    use std::fs;

    use super::{read_rooms, room_errors};
    use crate::architecture_support::read_tree;

    /// `top` over `mid` over `base`; the folder's `mod.rs` has a row of its own.
    const ROOMS: &str = "\
| room | what it shows | may import |
|---|---|---|
| `src/demo/mod.rs` | the map | — |
| `src/demo/top.rs` | the story | `src/demo/mid/`, `src/demo/base/` |
| `src/demo/mid/` | a section | `src/demo/base/` |
| `src/demo/base/` | leaves | — |
";

    /// The errors for a demo of `files` (paths under `src/`) against [`ROOMS`].
    fn errors(case: &str, files: &[(&str, &str)]) -> Vec<String> {
        let root = std::env::temp_dir().join(format!(
            "pmprobe-architecture-rooms-{case}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("Cargo.toml"), "[package]\nname = \"pmprobe\"\n").unwrap();
        let mut all = vec![
            ("src/main.rs", "mod demo;\n"),
            (
                "src/demo/mod.rs",
                "pub mod base;\npub mod mid;\npub mod top;\n",
            ),
            ("src/demo/top.rs", "fn f() { crate::demo::mid::a::g(); }\n"),
            ("src/demo/mid/mod.rs", "pub mod a;\npub mod b;\n"),
            ("src/demo/mid/a.rs", "pub fn g() { super::b::h(); }\n"),
            (
                "src/demo/mid/b.rs",
                "pub fn h() { crate::demo::base::leaf::x(); }\n",
            ),
            ("src/demo/base/mod.rs", "pub mod leaf;\n"),
            ("src/demo/base/leaf.rs", "pub fn x() {}\n"),
        ];
        for &(path, text) in files {
            match all.iter_mut().find(|(p, _)| *p == path) {
                Some(file) => file.1 = text,
                None => all.push((path, text)),
            }
        }
        for (path, text) in &all {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        let tree = read_tree(&root).unwrap();
        fs::remove_dir_all(&root).unwrap();
        room_errors(
            &read_rooms(ROOMS).unwrap(),
            "src/demo/",
            &tree.crates,
            &tree.graph,
        )
    }

    #[test]
    fn imports_down_the_table_and_inside_a_room_pass() {
        assert_eq!(errors("rooms-ok", &[]), Vec::<String>::new());
    }

    #[test]
    fn a_leaf_that_imports_a_room_above_is_reported() {
        let found = errors(
            "rooms-up",
            &[(
                "src/demo/base/leaf.rs",
                "pub fn x() { crate::demo::mid::a::g(); }\n",
            )],
        );
        assert_eq!(
            found,
            vec![
                "src/demo/base/leaf.rs (room src/demo/base/) imports src/demo/mid/a.rs \
                 (room src/demo/mid/) by `crate::demo::mid::a::g`: the room table lets it \
                 import no other room"
                    .to_string()
            ]
        );
    }

    #[test]
    fn a_file_outside_every_room_is_reported() {
        let found = errors(
            "rooms-stray",
            &[
                (
                    "src/demo/mod.rs",
                    "pub mod base;\npub mod mid;\npub mod top;\npub mod stray;\n",
                ),
                ("src/demo/stray.rs", "pub fn s() {}\n"),
            ],
        );
        assert_eq!(
            found,
            vec![
                "src/demo/stray.rs is in no room of the room table: put it in the room of \
                 what it shows, or give it a row"
                    .to_string()
            ]
        );
    }

    #[test]
    fn a_table_whose_room_may_import_one_above_it_is_refused() {
        let table = "| room | what it shows | may import |\n|---|---|---|\n\
                     | `src/demo/a/` | x | — |\n| `src/demo/b/` | y | `src/demo/a/` |\n";
        assert_eq!(
            read_rooms(table),
            Err(
                "room table: src/demo/b/ may import src/demo/a/, which is not below it".to_string()
            )
        );
    }
}
