//! The pieces of `docs/architecture.md` the checks read: tables found by their header row, and
//! bullet lists found by the heading above them.

/// The rows of the first table whose header cells are `header` (each row's cells trimmed, the
/// header and the `|---|` line left out); `None` if there is no such table.
pub fn table(markdown: &str, header: &[&str]) -> Option<Vec<Vec<String>>> {
    let mut lines = markdown.lines().peekable();
    while let Some(line) = lines.next() {
        if cells(line).is_some_and(|found| found == header) {
            lines.next(); // |---|---|
            let mut rows = Vec::new();
            while let Some(row) = lines.peek().and_then(|line| cells(line)) {
                rows.push(row);
                lines.next();
            }
            return Some(rows);
        }
    }
    None
}

/// The cells of a table row (`| a | b |`), `None` if the line is not one. A `|` inside
/// backticks is part of its cell.
fn cells(line: &str) -> Option<Vec<String>> {
    let line = line.trim();
    let inner = line.strip_prefix('|')?.strip_suffix('|')?;
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut code = false;
    for c in inner.chars() {
        match c {
            '`' => {
                code = !code;
                cell.push(c);
            }
            '|' if !code => cells.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    cells.push(cell.trim().to_string());
    Some(cells)
}

/// The bullets (`- ...` lines, continuation lines joined) between the heading line `heading`
/// and the next heading; `None` if there is no such heading.
pub fn bullets(markdown: &str, heading: &str) -> Option<Vec<String>> {
    let mut lines = markdown.lines().skip_while(|line| line.trim() != heading);
    lines.next()?;
    let mut bullets: Vec<String> = Vec::new();
    for line in lines {
        if line.starts_with('#') {
            break;
        }
        if let Some(item) = line.strip_prefix("- ") {
            bullets.push(item.trim().to_string());
        } else if line.starts_with("  ")
            && let Some(last) = bullets.last_mut()
        {
            last.push(' ');
            last.push_str(line.trim());
        }
    }
    Some(bullets)
}

/// The `code` spans of `text`, in order.
pub fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}
