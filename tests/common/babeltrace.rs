//! babeltrace2 (Debian's `babeltrace2`, the CTF reference reader) as the oracle of the CTF
//! tests: its `source.ctf.fs` component reads a trace directory, `sink.text.pretty` prints
//! every event, with timestamps in clock cycles (`--clock-cycles`), and the events are parsed
//! back here.
use std::path::Path;
use std::process::Command;

/// One event as babeltrace2 printed it.
#[derive(Debug, Clone)]
pub struct BtEvent {
    /// Its timestamp, in cycles of the trace's clock.
    pub cycle: u64,
    /// The event class's name.
    pub name: String,
    /// The packet context's `cpu_id`.
    pub cpu_id: u64,
    /// The payload's fields as printed: `name`, text.
    pub fields: Vec<(String, String)>,
}

impl BtEvent {
    /// The text of field `name`.
    pub fn field(&self, name: &str) -> &str {
        self.fields
            .iter()
            .find(|(field, _)| field == name)
            .map(|(_, text)| text.as_str())
            .unwrap_or_else(|| panic!("event {self:?} has no field {name}"))
    }

    /// Field `name` as a number (decimal, or hex with `0x`), or an enumeration's container.
    pub fn number(&self, name: &str) -> u64 {
        number(self.field(name))
    }

    /// The label of enumeration field `name` (`( "label" : container = N )`).
    pub fn label(&self, name: &str) -> &str {
        let text = self.field(name);
        text.strip_prefix("( \"")
            .and_then(|rest| rest.rsplit_once("\" : container = "))
            .map(|(label, _)| label)
            .unwrap_or_else(|| panic!("field {name} is not an enumeration: {text}"))
    }
}

/// A decimal number, a `0x` hexadecimal one, or an enumeration's container value.
pub fn number(text: &str) -> u64 {
    let text = text
        .rsplit_once("container = ")
        .map_or(text, |(_, rest)| rest.trim_end_matches(" )"));
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    }
    .unwrap_or_else(|e| panic!("not a number: {text:?} ({e})"))
}

/// What babeltrace2 read from a trace.
#[derive(Debug)]
pub struct BtRead {
    pub events: Vec<BtEvent>,
    /// The lines of its output that are not events and of its standard error: its
    /// warnings (about discarded events and packets, among others).
    pub warnings: Vec<String>,
}

impl BtRead {
    /// The events of class `name`.
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a BtEvent> + 'a {
        self.events.iter().filter(move |event| event.name == name)
    }

    /// How many events of class `name`.
    pub fn count(&self, name: &str) -> usize {
        self.named(name).count()
    }
}

/// Runs babeltrace2 on the trace in `dir` and parses what it prints. Fails the test, saying
/// how to install it, when babeltrace2 is missing (`.ci/run` installs it), and when it fails
/// or warns.
pub fn read_trace(dir: &Path) -> BtRead {
    let out = Command::new("babeltrace2")
        .arg("--clock-cycles")
        .arg(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `babeltrace2` ({e}): this test checks pmprobe's CTF traces with the \
                 reference reader; install it (Debian: apt-get install babeltrace2)"
            )
        });
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "babeltrace2 {} failed:\n{stderr}",
        dir.display()
    );
    let mut events = Vec::new();
    let mut warnings = Vec::new();
    for line in stdout.lines() {
        match parse_event(line) {
            Some(event) => events.push(event),
            None => warnings.push(line.to_string()),
        }
    }
    warnings.extend(stderr.lines().map(str::to_string));
    BtRead { events, warnings }
}

/// `[00000000000000000297] (+000000000003) mem_write: { cpu_id = 3 }, { pc = 0x1CC, ... }`.
fn parse_event(line: &str) -> Option<BtEvent> {
    let rest = line.strip_prefix('[')?;
    let (cycle, rest) = rest.split_once(']')?;
    let cycle = cycle.parse().ok()?;
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix("(+") {
        Some(delta) => delta.split_once(") ")?.1,
        None => rest,
    };
    let (name, rest) = rest.split_once(": ")?;
    let mut groups = braced_groups(rest).into_iter();
    let context = groups.next()?;
    let cpu_id = fields(&context)
        .into_iter()
        .find(|(name, _)| name == "cpu_id")
        .map(|(_, text)| number(&text))?;
    let fields = groups
        .next()
        .map(|group| fields(&group))
        .unwrap_or_default();
    Some(BtEvent {
        cycle,
        name: name.to_string(),
        cpu_id,
        fields,
    })
}

/// The `{ ... }` groups of `text`, without their braces.
fn braced_groups(text: &str) -> Vec<String> {
    let mut groups = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '{' => {
                if depth > 0 {
                    current.push(c);
                }
                depth += 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    groups.push(std::mem::take(&mut current));
                } else {
                    current.push(c);
                }
            }
            _ if depth > 0 => current.push(c),
            _ => {}
        }
    }
    groups
}

/// `a = 1, b = ( "x" : container = 2 )` as (name, text) pairs.
fn fields(group: &str) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    let mut depth = 0;
    let mut in_string = false;
    let mut current = String::new();
    let mut push = |item: &str| {
        if let Some((name, text)) = item.split_once(" = ") {
            fields.push((name.trim().to_string(), text.trim().to_string()));
        }
    };
    let mut previous = '\0';
    for c in group.chars() {
        match c {
            '"' if previous != '\\' => in_string = !in_string,
            '(' if !in_string => depth += 1,
            ')' if !in_string => depth -= 1,
            ',' if depth == 0 && !in_string => {
                push(&current);
                current.clear();
                previous = c;
                continue;
            }
            _ => {}
        }
        current.push(c);
        previous = c;
    }
    push(&current);
    fields
}
