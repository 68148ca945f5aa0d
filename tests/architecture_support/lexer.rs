//! Rust source as the import check reads it: identifiers, punctuation and string literals,
//! without comments (doc links are not dependencies), character literals or numbers.

/// One token of a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// An identifier or keyword (`r#` removed from a raw one).
    Ident(String),
    /// `::`.
    PathSep,
    /// A string literal's contents, escapes left as written (only `#[path = ".."]` reads one).
    Str(String),
    /// Any other punctuation character.
    Punct(char),
}

/// The tokens of `source`.
pub fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i);
        } else if let Some((end, text)) = string_literal(&chars, i) {
            out.push(Token::Str(text));
            i = end;
        } else if c == '\'' {
            i = skip_quote(&chars, i);
        } else if c.is_ascii_digit() {
            i += 1;
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
        } else if is_ident_start(c) {
            let start = if c == 'r' && next == Some('#') {
                i + 2
            } else {
                i
            };
            let mut end = start;
            while end < chars.len() && is_ident_continue(chars[end]) {
                end += 1;
            }
            out.push(Token::Ident(chars[start..end].iter().collect()));
            i = end;
        } else if c == ':' && next == Some(':') {
            out.push(Token::PathSep);
            i += 2;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_continue(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The index after the block comment that starts at `i` (block comments nest).
fn skip_block_comment(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// A string literal starting at `i` (`".."`, `b".."`, `c".."`, `r#".."#`, `br".."`): the
/// index after it and its contents.
fn string_literal(chars: &[char], i: usize) -> Option<(usize, String)> {
    let mut j = i;
    if matches!(chars[j], 'b' | 'c') {
        j += 1;
    }
    let raw = chars.get(j) == Some(&'r');
    if raw {
        j += 1;
    }
    let mut hashes = 0;
    while raw && chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if chars.get(j) != Some(&'"') {
        return None;
    }
    // `r` alone, or `b`/`c` alone, before a quote is a prefix only right before it.
    j += 1;
    let start = j;
    while j < chars.len() {
        if !raw && chars[j] == '\\' {
            j += 2;
            continue;
        }
        if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
            let text = chars[start..j].iter().collect();
            return Some((j + 1 + hashes, text));
        }
        j += 1;
    }
    Some((j, chars[start..].iter().collect()))
}

/// The index after a character literal or a lifetime that starts at `i` (a `'`).
fn skip_quote(chars: &[char], i: usize) -> usize {
    match (chars.get(i + 1), chars.get(i + 2)) {
        (Some('\\'), _) => {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            j + 1
        }
        (Some(_), Some('\'')) => i + 3,
        _ => {
            let mut j = i + 1;
            while j < chars.len() && is_ident_continue(chars[j]) {
                j += 1;
            }
            j
        }
    }
}
