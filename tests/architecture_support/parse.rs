//! What one source file says about modules: the modules it declares (`mod x;`, with their
//! `#[path]`), its inline modules, its `use` trees with the braces expanded, the paths written
//! out in its code, and the macros it exports at the crate root.

use super::lexer::Token;

/// A path as written, in the module it was written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenPath {
    /// The module path of the (inline) module it is written in, relative to the file's module.
    pub scope: Vec<String>,
    /// Its segments (`crate`, `super`, `self` kept; `$crate` is `crate`; a leading `::`
    /// dropped).
    pub segments: Vec<String>,
    /// From a `use` declaration (`false`: written out in code).
    pub in_use: bool,
    /// The name a `use` binds (its last segment or its `as` name); `None` for a glob or a
    /// path in code.
    pub binds: Option<String>,
}

/// A `mod x;` declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModDecl {
    /// The (inline) module it is declared in, relative to the file's module.
    pub scope: Vec<String>,
    pub name: String,
    /// Its `#[path = ".."]`, if it has one.
    pub path: Option<String>,
}

/// What a file says about modules.
#[derive(Clone, Debug, Default)]
pub struct FileFacts {
    pub declared: Vec<ModDecl>,
    /// Inline modules (`mod x { .. }`), as paths relative to the file's module.
    pub inline: Vec<Vec<String>>,
    pub paths: Vec<WrittenPath>,
    /// Names of the `#[macro_export]` macros it defines (they live at the crate root).
    pub exported_macros: Vec<String>,
}

fn ident(token: Option<&Token>) -> Option<&str> {
    match token {
        Some(Token::Ident(name)) => Some(name),
        _ => None,
    }
}

/// Reads the module facts of a file's tokens.
pub fn file_facts(tokens: &[Token]) -> FileFacts {
    let mut facts = FileFacts::default();
    // Open inline modules: (name, brace depth inside them).
    let mut scopes: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut pending_path: Option<String> = None;
    let mut pending_export = false;
    let mut i = 0;
    while i < tokens.len() {
        let scope: Vec<String> = scopes.iter().map(|(name, _)| name.clone()).collect();
        match &tokens[i] {
            Token::Punct('#') => {
                if let Some((end, attribute)) = attribute(tokens, i) {
                    match attribute {
                        Attribute::Path(path) => pending_path = Some(path),
                        Attribute::MacroExport => pending_export = true,
                        Attribute::Other => {}
                    }
                    i = end;
                    continue;
                }
            }
            Token::Punct('{') => {
                depth += 1;
                pending_path = None;
            }
            Token::Punct('}') => {
                if scopes.last().is_some_and(|(_, open)| *open == depth) {
                    scopes.pop();
                }
                depth = depth.saturating_sub(1);
                pending_path = None;
            }
            Token::Punct(';') => pending_path = None,
            // `pub(in a::b)` names where an item is visible, not what it uses.
            Token::Ident(word)
                if word == "pub"
                    && tokens.get(i + 1) == Some(&Token::Punct('('))
                    && ident(tokens.get(i + 2)) == Some("in") =>
            {
                while i < tokens.len() && tokens[i] != Token::Punct(')') {
                    i += 1;
                }
                i += 1;
                continue;
            }
            Token::Ident(word) if word == "mod" => {
                if let Some(name) = ident(tokens.get(i + 1)) {
                    match tokens.get(i + 2) {
                        Some(Token::Punct(';')) => {
                            facts.declared.push(ModDecl {
                                scope: scope.clone(),
                                name: name.to_string(),
                                path: pending_path.take(),
                            });
                            i += 3;
                            continue;
                        }
                        Some(Token::Punct('{')) => {
                            depth += 1;
                            scopes.push((name.to_string(), depth));
                            let mut inline = scope.clone();
                            inline.push(name.to_string());
                            facts.inline.push(inline);
                            pending_path = None;
                            i += 3;
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            Token::Ident(word) if word == "macro_rules" => {
                if let (Some(Token::Punct('!')), Some(name)) =
                    (tokens.get(i + 1), ident(tokens.get(i + 2)))
                {
                    if pending_export {
                        facts.exported_macros.push(name.to_string());
                    }
                    pending_export = false;
                    i += 3;
                    continue;
                }
            }
            Token::Ident(word) if word == "use" && use_follows(tokens.get(i + 1)) => {
                let mut j = i + 1;
                let mut trees = Vec::new();
                use_tree(tokens, &mut j, Vec::new(), &mut trees);
                for (segments, binds) in trees {
                    facts.paths.push(WrittenPath {
                        scope: scope.clone(),
                        segments,
                        in_use: true,
                        binds,
                    });
                }
                i = j;
                continue;
            }
            _ => {}
        }
        if let Some((end, segments)) = code_path(tokens, i) {
            facts.paths.push(WrittenPath {
                scope,
                segments,
                in_use: false,
                binds: None,
            });
            i = end;
            continue;
        }
        i += 1;
    }
    facts
}

/// Whether the token after `use` starts a use tree (not `use<'a>`, precise capturing).
fn use_follows(token: Option<&Token>) -> bool {
    matches!(
        token,
        Some(Token::Ident(_) | Token::PathSep | Token::Punct('{') | Token::Punct('$'))
    )
}

enum Attribute {
    Path(String),
    MacroExport,
    Other,
}

/// The attribute `#[..]` or `#![..]` at `i`: the index after it and what it says.
fn attribute(tokens: &[Token], i: usize) -> Option<(usize, Attribute)> {
    let mut j = i + 1;
    if tokens.get(j) == Some(&Token::Punct('!')) {
        j += 1;
    }
    if tokens.get(j) != Some(&Token::Punct('[')) {
        return None;
    }
    let start = j + 1;
    let mut depth = 0;
    while j < tokens.len() {
        match tokens[j] {
            Token::Punct('[') => depth += 1,
            Token::Punct(']') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    let inside = &tokens[start..j.min(tokens.len())];
    let attribute = match inside {
        [Token::Ident(name), Token::Punct('='), Token::Str(path)] if name == "path" => {
            Attribute::Path(path.clone())
        }
        [Token::Ident(name)] if name == "macro_export" => Attribute::MacroExport,
        _ => Attribute::Other,
    };
    Some((j + 1, attribute))
}

/// Expands the use tree at `*j` under `prefix` into `out` (segments, bound name), and moves
/// `*j` past it (and past the `;` that ends a whole `use`).
fn use_tree(
    tokens: &[Token],
    j: &mut usize,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    if tokens.get(*j) == Some(&Token::PathSep) {
        *j += 1;
    }
    loop {
        match tokens.get(*j) {
            Some(Token::Punct('$')) => *j += 1,
            Some(Token::Ident(name)) => {
                prefix.push(name.clone());
                *j += 1;
                if tokens.get(*j) == Some(&Token::PathSep) {
                    *j += 1;
                    continue;
                }
                let mut binds = prefix.last().cloned();
                if ident(tokens.get(*j)) == Some("as") {
                    binds = ident(tokens.get(*j + 1)).map(str::to_string);
                    *j += 2;
                }
                if prefix.last().is_some_and(|last| last == "self") {
                    prefix.pop();
                    if binds.as_deref() == Some("self") {
                        binds = prefix.last().cloned();
                    }
                }
                out.push((prefix, binds.filter(|name| name != "_")));
                break;
            }
            Some(Token::Punct('*')) => {
                *j += 1;
                out.push((prefix, None));
                break;
            }
            Some(Token::Punct('{')) => {
                *j += 1;
                loop {
                    match tokens.get(*j) {
                        Some(Token::Punct('}')) => {
                            *j += 1;
                            break;
                        }
                        Some(Token::Punct(',')) => *j += 1,
                        None => break,
                        Some(_) => use_tree(tokens, j, prefix.clone(), out),
                    }
                }
                break;
            }
            _ => break,
        }
    }
    if tokens.get(*j) == Some(&Token::Punct(';')) {
        *j += 1;
    }
}

/// A path written out in code at `i` (`a::b::c`, `$crate::x`, `::a::b`): the index after it
/// and its segments. Only paths of two segments or more; a path that continues another
/// (after `::`) or a method call's receiver are not starts.
fn code_path(tokens: &[Token], i: usize) -> Option<(usize, Vec<String>)> {
    let mut j = i;
    let mut segments = Vec::new();
    if tokens.get(j) == Some(&Token::Punct('$')) {
        j += 1;
    }
    let Some(Token::Ident(first)) = tokens.get(j) else {
        return None;
    };
    if first == "Self" || tokens.get(j + 1) != Some(&Token::PathSep) {
        return None;
    }
    segments.push(first.clone());
    j += 1;
    while tokens.get(j) == Some(&Token::PathSep) {
        match tokens.get(j + 1) {
            Some(Token::Ident(name)) => {
                segments.push(name.clone());
                j += 2;
            }
            // `::<..>` (turbofish) or `::{..}` ends the path.
            _ => break,
        }
    }
    Some((j, segments))
}
