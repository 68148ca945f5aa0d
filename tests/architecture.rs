//! The rules of `docs/architecture.md` that the build checks, on the real sources: imports
//! between layers only as the layer table allows, no circle of files beyond those the page
//! lists as still to remove, the "never import" rules, no Rust file over 600 lines, the demo
//! firmware's files in the rooms of its room table. Then the checker itself on small trees
//! written for each case, where the answer is known from the rule (a circle, a forbidden
//! import, a long file) rather than from the checker (the room table's cases are in
//! `architecture_support/rooms.rs`).

mod architecture_support;

use std::fs;
use std::path::{Path, PathBuf};

use architecture_support::doc::{bullets, code_spans};
use architecture_support::layers::{
    layer_errors, never_errors, read_layers, read_never, table_errors,
};
use architecture_support::rooms::{read_rooms, room_errors};
use architecture_support::{MAX_LINES, Tree, circle_differences, long_files, read_tree};

/// The demo firmware's folder, whose files the room table places.
const DEMO: &str = "src/demo/";
/// The heading of the page's list of circles still to remove.
const CIRCLES_LEFT: &str = "### Circles still to remove";

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn architecture_page() -> String {
    fs::read_to_string(repository().join("docs/architecture.md")).expect("docs/architecture.md")
}

fn real_tree() -> Tree {
    read_tree(repository()).expect("the sources read")
}

fn paths_of(tree: &Tree, from: &str) -> Vec<String> {
    let (c, f) = tree
        .crates
        .iter()
        .enumerate()
        .find_map(|(c, k)| {
            k.files
                .iter()
                .position(|file| file.path == from)
                .map(|f| (c, f))
        })
        .unwrap_or_else(|| panic!("{from} is not read"));
    tree.graph[&(c, f)]
        .keys()
        .map(|&(tc, tf)| tree.crates[tc].files[tf].path.clone())
        .collect()
}

#[test]
fn the_checker_reads_the_real_tree() {
    let tree = real_tree();
    let files: usize = tree.crates.iter().map(|k| k.files.len()).sum();
    // The library and the demo firmware's binary, and each tool's library and binary.
    let names: Vec<&str> = tree.crates.iter().map(|k| k.spec.name.as_str()).collect();
    for name in [
        "pmprobe",
        "pmprobe (bin)",
        "spusim",
        "spusim (bin)",
        "pmprofile",
        "pmprofile (bin)",
    ] {
        assert!(names.contains(&name), "{name} not read: {names:?}");
    }
    assert!(files > 250, "only {files} files read");
    // Written in src/rt/console.rs: `use crate::sync::{IrqMutex, IrqSpinMutex};`.
    let console = paths_of(&tree, "src/rt/console.rs");
    assert!(
        console.contains(&"src/sync/spin_mutex.rs".to_string()),
        "{console:?}"
    );
    // Written in tools/spusim/src/pipeline_engine.rs: `pmprobe::spu::pipeline::...` paths.
    let engine = paths_of(&tree, "tools/spusim/src/pipeline_engine.rs");
    assert!(
        engine.iter().any(|p| p.starts_with("src/spu/pipeline/")),
        "{engine:?}"
    );
    assert_eq!(
        tree.unreached(),
        Vec::<String>::new(),
        "source files no crate declares"
    );
}

#[test]
fn imports_between_layers_are_those_the_layer_table_allows() {
    let tree = real_tree();
    let layers = read_layers(&architecture_page()).unwrap();
    let lib = tree.library.expect("src/lib.rs");
    let library = &tree.crates[lib];
    let mut errors = table_errors(&layers, library);
    errors.extend(layer_errors(&layers, library, lib, &tree.graph));
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
}

#[test]
fn folders_never_import_what_the_page_forbids() {
    let tree = real_tree();
    let rules = read_never(&architecture_page()).unwrap();
    assert!(!rules.is_empty());
    let errors = never_errors(&rules, &tree.crates, &tree.graph);
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
}

#[test]
fn demo_files_sit_in_rooms_and_import_only_the_rooms_below_that_their_row_names() {
    let tree = real_tree();
    let rooms = read_rooms(&architecture_page()).unwrap();
    let errors = room_errors(&rooms, DEMO, &tree.crates, &tree.graph);
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
}

#[test]
fn the_only_circles_are_those_listed_as_still_to_remove() {
    let tree = real_tree();
    let listed: Vec<Vec<String>> = bullets(&architecture_page(), CIRCLES_LEFT)
        .unwrap_or_else(|| panic!("no heading {CIRCLES_LEFT}"))
        .iter()
        .map(|bullet| code_spans(bullet))
        .collect();
    let found = tree.circles();
    let differences = circle_differences(&found, &listed);
    let described: Vec<String> = found
        .iter()
        .filter(|circle| !listed.iter().any(|l| sorted(l) == **circle))
        .map(|circle| tree.describe(circle))
        .collect();
    assert!(
        differences.is_empty(),
        "\n{}\n{}",
        differences.join("\n"),
        described.join("\n")
    );
}

#[test]
fn no_rust_file_is_longer_than_600_lines() {
    assert_eq!(long_files(repository()), Vec::<(String, usize)>::new());
}

fn sorted(files: &[String]) -> Vec<String> {
    let mut files = files.to_vec();
    files.sort();
    files
}

// The checker on trees written for the case.

/// A tree in a fresh temporary folder with `files` ((path, text)) and a `Cargo.toml` naming
/// the package `pmprobe`.
fn scratch_tree(case: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!(
        "pmprobe-architecture-{case}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("Cargo.toml"), "[package]\nname = \"pmprobe\"\n").unwrap();
    for (path, text) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    root
}

fn circles_of(case: &str, files: &[(&str, &str)]) -> Vec<Vec<String>> {
    let root = scratch_tree(case, files);
    let circles = read_tree(&root).unwrap().circles();
    fs::remove_dir_all(root).unwrap();
    circles
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn two_siblings_that_use_each_other_are_a_circle() {
    let circles = circles_of(
        "siblings",
        &[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "use crate::b::B;\npub struct A(B);\n"),
            (
                "src/b.rs",
                "use super::a::{self, A};\npub struct B;\nfn f(_: A) {}\n",
            ),
        ],
    );
    assert_eq!(circles, vec![strings(&["src/a.rs", "src/b.rs"])]);
}

#[test]
fn paths_written_out_in_code_count_as_imports() {
    // No `use` line at all: an expression in a.rs, a type in b.rs.
    let circles = circles_of(
        "written-out",
        &[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "pub struct A;\nfn f() { crate::b::g(); }\n"),
            ("src/b.rs", "pub fn g() {}\nfn h(_: super::a::A) {}\n"),
        ],
    );
    assert_eq!(circles, vec![strings(&["src/a.rs", "src/b.rs"])]);
}

#[test]
fn a_child_that_uses_what_its_parent_defines_is_a_circle() {
    // p/mod.rs declares c and re-exports from it; c uses P, defined in p/mod.rs.
    let circles = circles_of(
        "parent",
        &[
            ("src/lib.rs", "mod p;\n"),
            ("src/p/mod.rs", "mod c;\npub use c::C;\npub struct P;\n"),
            ("src/p/c.rs", "use super::P;\npub struct C(P);\n"),
        ],
    );
    assert_eq!(circles, vec![strings(&["src/p/c.rs", "src/p/mod.rs"])]);
}

#[test]
fn a_parent_that_declares_and_reexports_children_that_use_siblings_is_no_circle() {
    // c reaches D through the parent's re-export: it names d.rs's definition, not p/mod.rs.
    let circles = circles_of(
        "index",
        &[
            ("src/lib.rs", "mod p;\n"),
            (
                "src/p/mod.rs",
                "mod c;\nmod d;\npub use c::C;\npub use d::D;\n",
            ),
            ("src/p/c.rs", "use super::D;\npub struct C(D);\n"),
            ("src/p/d.rs", "pub struct D;\n"),
        ],
    );
    assert_eq!(circles, Vec::<Vec<String>>::new());
}

#[test]
fn comments_strings_and_visibility_paths_are_not_imports() {
    let circles = circles_of(
        "not-imports",
        &[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "use crate::b::B;\npub struct A;\n"),
            (
                "src/b.rs",
                "/// See [`A`](crate::a::A).\n// crate::a::A\npub struct B;\n\
                 const S: &str = \"crate::a::A\";\npub(in crate::a) fn f() {}\n",
            ),
        ],
    );
    assert_eq!(circles, Vec::<Vec<String>>::new());
}

/// The files `from` depends on in a tree of `files`.
fn dependencies(case: &str, files: &[(&str, &str)], from: &str) -> Vec<String> {
    let root = scratch_tree(case, files);
    let tree = read_tree(&root).unwrap();
    fs::remove_dir_all(&root).unwrap();
    let mut found = paths_of(&tree, from);
    found.sort();
    found
}

#[test]
fn use_trees_are_expanded_and_names_they_bind_lead_on() {
    let found = dependencies(
        "use-trees",
        &[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\n"),
            (
                "src/a.rs",
                "use crate::{b::{self, B as Bee}, c::*};\nuse d as dee;\n\
                 fn f() { dee::g(); }\nfn h() { e::E; }\n",
            ),
            ("src/b.rs", "pub struct B;\n"),
            ("src/c.rs", "pub struct C;\n"),
            ("src/d.rs", "pub fn g() {}\n"),
            ("src/e.rs", "pub struct E;\n"),
        ],
        "src/a.rs",
    );
    // `use d as dee` is an extern crate `d` in Rust 2018; `e::E` with no `use` or `mod e`
    // in a.rs names no module of a.rs's scope either: both lead outside.
    assert_eq!(found, strings(&["src/b.rs", "src/c.rs"]));
}

#[test]
fn lexer_skips_raw_strings_chars_and_nested_comments() {
    let found = dependencies(
        "lexer",
        &[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
            (
                "src/a.rs",
                "const R: &str = r#\"a \"quoted\" // crate::b::B\"#;\nconst Q: char = '\"';\n\
                 /* outer /* crate::b::B */ still a comment */\nfn f<'a>(_: &'a u8) { crate::c::g(); }\n",
            ),
            ("src/b.rs", "pub struct B;\n"),
            ("src/c.rs", "pub fn g() {}\n"),
        ],
        "src/a.rs",
    );
    assert_eq!(found, strings(&["src/c.rs"]));
}

#[test]
fn path_attributes_inline_test_modules_and_exported_macros_are_followed() {
    let found = dependencies(
        "attributes",
        &[
            (
                "src/lib.rs",
                "mod a;\n#[path = \"other_name.rs\"]\nmod b;\nmod m;\n",
            ),
            (
                "src/a.rs",
                "fn f() { crate::say!(); }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    \
                 use crate::b::B;\n}\n",
            ),
            ("src/other_name.rs", "pub struct B;\n"),
            (
                "src/m.rs",
                "#[macro_export]\nmacro_rules! say { () => {}; }\n",
            ),
        ],
        "src/a.rs",
    );
    assert_eq!(found, strings(&["src/m.rs", "src/other_name.rs"]));
}

#[test]
fn a_tool_reaches_the_library_by_its_crate_name() {
    let root = scratch_tree(
        "tool",
        &[
            ("src/lib.rs", "pub mod spu;\n"),
            ("src/spu/mod.rs", "mod unit;\npub use unit::Unit;\n"),
            ("src/spu/unit.rs", "pub struct Unit;\n"),
            ("tools/sim/Cargo.toml", "[package]\nname = \"sim\"\n"),
            (
                "tools/sim/src/lib.rs",
                "pub fn run() { let _ = pmprobe::spu::Unit; }\n",
            ),
            ("tools/sim/src/main.rs", "fn main() { sim::run() }\n"),
        ],
    );
    let tree = read_tree(&root).unwrap();
    fs::remove_dir_all(&root).unwrap();
    assert_eq!(
        paths_of(&tree, "tools/sim/src/lib.rs"),
        strings(&["src/spu/unit.rs"])
    );
    assert_eq!(
        paths_of(&tree, "tools/sim/src/main.rs"),
        strings(&["tools/sim/src/lib.rs"])
    );
}

/// A layer table as the page writes it: `high` over `low` over `base`.
const LAYERS: &str = "\
| layer | imports | what it is |
|---|---|---|
| the users | pmprobe's public paths | programs |
| `high` | `low` (only `src/high/feed.rs`), `base` | the top |
| `low` | `base` | the middle |
| `base` | — | the bottom |
";

fn layer_report(case: &str, files: &[(&str, &str)]) -> Vec<String> {
    let root = scratch_tree(case, files);
    let tree = read_tree(&root).unwrap();
    fs::remove_dir_all(&root).unwrap();
    let layers = read_layers(LAYERS).unwrap();
    let lib = tree.library.unwrap();
    let mut errors = table_errors(&layers, &tree.crates[lib]);
    errors.extend(layer_errors(&layers, &tree.crates[lib], lib, &tree.graph));
    errors
}

const LAYERED: [(&str, &str); 5] = [
    ("src/lib.rs", "pub mod base;\npub mod high;\npub mod low;\n"),
    ("src/base.rs", "pub struct Base;\n"),
    ("src/low.rs", "pub struct Low(crate::base::Base);\n"),
    ("src/high/mod.rs", "mod feed;\nuse crate::base::Base;\n"),
    ("src/high/feed.rs", "use crate::low::Low;\n"),
];

#[test]
fn imports_the_layer_table_allows_pass() {
    assert_eq!(layer_report("layers-ok", &LAYERED), Vec::<String>::new());
}

#[test]
fn an_import_of_a_layer_above_is_reported() {
    let mut files = LAYERED.to_vec();
    files[2] = (
        "src/low.rs",
        "pub struct Low;\nfn f() { let _ = crate::high::feed::x; }\n",
    );
    let errors = layer_report("layers-up", &files);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("src/low.rs (layer `low`) imports src/high/feed.rs (layer `high`)"),
        "{errors:?}"
    );
}

#[test]
fn an_import_by_a_file_outside_the_only_list_is_reported() {
    let mut files = LAYERED.to_vec();
    files[3] = ("src/high/mod.rs", "mod feed;\nuse crate::low::Low;\n");
    let errors = layer_report("layers-only", &files);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("src/high/mod.rs (layer `high`) imports src/low.rs (layer `low`)"),
        "{errors:?}"
    );
}

#[test]
fn a_listed_file_that_no_longer_imports_its_layer_is_reported() {
    let mut files = LAYERED.to_vec();
    files[4] = ("src/high/feed.rs", "pub struct Feed;\n");
    let errors = layer_report("layers-stale", &files);
    assert_eq!(
        errors,
        strings(&[
            "the layer table lets src/high/feed.rs import `low`, and it does not: take it off"
        ])
    );
}

#[test]
fn a_table_row_that_imports_upwards_or_misses_a_module_is_reported() {
    let table = "| layer | imports | what it is |\n|---|---|---|\n| `high` | — | y |\n| `low` | `high` | x |\n";
    let root = scratch_tree(
        "table",
        &[
            (
                "src/lib.rs",
                "pub mod high;\npub mod low;\npub mod extra;\n",
            ),
            ("src/high.rs", ""),
            ("src/low.rs", ""),
            ("src/extra.rs", ""),
        ],
    );
    let tree = read_tree(&root).unwrap();
    fs::remove_dir_all(&root).unwrap();
    let errors = table_errors(
        &read_layers(table).unwrap(),
        &tree.crates[tree.library.unwrap()],
    );
    assert_eq!(
        errors,
        strings(&[
            "the library's module `extra` has no row in the layer table",
            "`low` imports `high`, which is not a layer below it in the table",
        ])
    );
}

#[test]
fn an_unreadable_imports_cell_is_an_error() {
    let table = "| layer | imports | what it is |\n|---|---|---|\n| `low` | high things | x |\n";
    assert_eq!(
        read_layers(table),
        Err("layer table, row low: cannot read `high things`".to_string())
    );
}

#[test]
fn a_folder_that_imports_what_it_never_may_is_reported() {
    let never = "| files under | never import |\n|---|---|\n| `src/p/model/` | `src/p/views/` |\n";
    let root = scratch_tree(
        "never",
        &[
            ("src/lib.rs", "mod p;\n"),
            ("src/p/mod.rs", "mod model;\nmod views;\n"),
            ("src/p/model/mod.rs", "fn f() { super::views::show(); }\n"),
            ("src/p/views/mod.rs", "pub fn show() {}\n"),
        ],
    );
    let tree = read_tree(&root).unwrap();
    fs::remove_dir_all(&root).unwrap();
    let errors = never_errors(&read_never(never).unwrap(), &tree.crates, &tree.graph);
    assert_eq!(
        errors,
        strings(&[
            "src/p/model/mod.rs imports src/p/views/mod.rs by `super::views::show`: \
                   files under src/p/model/ never import src/p/views/"
        ])
    );
}

#[test]
fn a_file_over_600_lines_is_reported_and_one_of_600_is_not() {
    let long = "//\n".repeat(MAX_LINES + 1);
    let limit = "//\n".repeat(MAX_LINES);
    let root = scratch_tree("long", &[("src/lib.rs", &limit), ("src/long.rs", &long)]);
    let found = long_files(&root);
    fs::remove_dir_all(&root).unwrap();
    assert_eq!(found, vec![("src/long.rs".to_string(), 601)]);
}

#[test]
fn a_circle_found_and_not_listed_and_one_listed_and_gone_both_fail() {
    let found = vec![strings(&["a.rs", "b.rs"])];
    let listed = vec![strings(&["c.rs", "d.rs"])];
    assert_eq!(
        circle_differences(&found, &listed),
        strings(&[
            "a circle not listed: a.rs, b.rs",
            "listed, and no longer a circle: c.rs, d.rs"
        ])
    );
    assert_eq!(
        circle_differences(&found, &[strings(&["b.rs", "a.rs"])]),
        Vec::<String>::new()
    );
}
