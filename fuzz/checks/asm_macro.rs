//! Checks of the `asm_macro` fuzz target (also run on the committed seeds by
//! `tests/robust_fuzz_seeds.rs`): the assembler's macro and repeat expander against a
//! reference expander written here from the gas manual ("`.macro`", "`.rept`", "`.irp`"),
//! on programs generated from the input.
//!
//! The input describes up to four macros and a top level. A macro has up to three
//! parameters, some with defaults (`p1=7`). Bodies and the top level are statements:
//! `.byte` of a parameter or a literal, a call of any macro (itself included, so recursion
//! happens) with positional or keyword arguments, `.rept N` and `.irp x, a, b` blocks.
//!
//! The reference, from the manual: a call substitutes each `\param` by its argument, by
//! position or by `name=value`, else by its default, else by nothing; `.rept N` repeats its
//! body N times; `.irp x, v...` repeats it once per value with `\x` replaced. Each macro
//! call and each repeat body being expanded is one level of nesting: past
//! `MAX_EXPANSION_DEPTH` levels (101, gas's) the assembler stops with a `NestingLimit`
//! error.
//!
//! Checks: a program that stays within the limit assembles to exactly the reference's
//! bytes; one that goes past it is a `NestingLimit` error; nothing panics or hangs (repeat
//! counts are small, and recursion ends at the limit).
use std::fmt::Write as _;

use pmprobe::spu::isa::asm::{AsmErrorKind, MAX_EXPANSION_DEPTH, assemble};

#[path = "byte_stream.rs"]
mod byte_stream;
use byte_stream::ByteStream;

const MACROS: usize = 4;
const MAX_PARAMS: usize = 3;
const MAX_STATEMENTS: usize = 4;
/// Blocks inside blocks in one body.
const MAX_BLOCK_DEPTH: u32 = 3;
/// Bytes the reference produces at most before it gives up: the image is bigger, and the
/// generator keeps programs far below this unless recursion fans out.
const MAX_BYTES: usize = 16 * 1024;

/// A value a `.byte` or an argument holds: a literal, or a parameter of the enclosing macro
/// (or the `.irp` symbol).
#[derive(Clone, Debug)]
enum Value {
    Literal(u8),
    Param(usize),
    IrpSymbol,
}

#[derive(Clone, Debug)]
enum Argument {
    Positional(Value),
    Keyword(usize, Value),
}

#[derive(Clone, Debug)]
enum Statement {
    Byte(Value),
    Call(usize, Vec<Argument>),
    Rept(u8, Vec<Statement>),
    Irp(Vec<u8>, Vec<Statement>),
}

struct Macro {
    defaults: Vec<Option<u8>>,
    body: Vec<Statement>,
}

fn value(input: &mut ByteStream<'_>, params: usize, in_irp: bool) -> Value {
    match input.below(3) {
        0 if params > 0 => Value::Param(input.below(params)),
        1 if in_irp => Value::IrpSymbol,
        _ => Value::Literal(input.byte()),
    }
}

/// What a generated statement may refer to.
#[derive(Clone, Copy)]
struct Scope<'a> {
    /// Parameters of every macro, so each call is one gas accepts.
    arity: &'a [usize],
    /// Parameters of the macro being written (0 at the top level).
    params: usize,
    in_irp: bool,
}

/// Arguments gas accepts for a macro of `params` parameters: positional ones first, no more
/// than the parameters, then keywords naming distinct parameters the positional ones did not
/// fill (gas: "too many positional arguments", "Value for parameter ... was already
/// specified" otherwise).
fn arguments(input: &mut ByteStream<'_>, params: usize, scope: Scope<'_>) -> Vec<Argument> {
    let positional = input.below(params + 1);
    let mut list: Vec<Argument> = (0..positional)
        .map(|_| Argument::Positional(value(input, scope.params, scope.in_irp)))
        .collect();
    for slot in positional..params {
        if input.below(3) == 0 {
            list.push(Argument::Keyword(
                slot,
                value(input, scope.params, scope.in_irp),
            ));
        }
    }
    list
}

fn statements(input: &mut ByteStream<'_>, scope: Scope<'_>, depth: u32) -> Vec<Statement> {
    let count = if input.is_done() {
        1
    } else {
        1 + input.below(MAX_STATEMENTS)
    };
    (0..count)
        .map(|_| {
            let choice = if input.is_done() { 0 } else { input.below(6) };
            match choice {
                2 | 3 => {
                    let target = input.below(MACROS);
                    let params = scope.arity.get(target).copied().unwrap_or(0);
                    Statement::Call(target, arguments(input, params, scope))
                }
                4 if depth < MAX_BLOCK_DEPTH => {
                    let times = 1 + input.below(3) as u8;
                    Statement::Rept(times, statements(input, scope, depth + 1))
                }
                // `.irp` inside `.irp` would need two symbols; one level is enough here.
                5 if depth < MAX_BLOCK_DEPTH && !scope.in_irp => {
                    let values = (0..1 + input.below(3)).map(|_| input.byte()).collect();
                    let inner = Scope {
                        in_irp: true,
                        ..scope
                    };
                    Statement::Irp(values, statements(input, inner, depth + 1))
                }
                _ => Statement::Byte(value(input, scope.params, scope.in_irp)),
            }
        })
        .collect()
}

fn write_value(out: &mut String, value: &Value) {
    let _ = match value {
        Value::Literal(byte) => write!(out, "{byte}"),
        Value::Param(i) => write!(out, "\\p{i}"),
        Value::IrpSymbol => write!(out, "\\x"),
    };
}

fn write_statements(out: &mut String, list: &[Statement]) {
    for statement in list {
        match statement {
            Statement::Byte(v) => {
                out.push_str("\t.byte ");
                write_value(out, v);
                out.push('\n');
            }
            Statement::Call(target, arguments) => {
                let _ = write!(out, "\tm{target}");
                for (n, argument) in arguments.iter().enumerate() {
                    out.push_str(if n == 0 { " " } else { ", " });
                    match argument {
                        Argument::Positional(v) => write_value(out, v),
                        Argument::Keyword(i, v) => {
                            let _ = write!(out, "p{i}=");
                            write_value(out, v);
                        }
                    }
                }
                out.push('\n');
            }
            Statement::Rept(times, body) => {
                let _ = writeln!(out, "\t.rept {times}");
                write_statements(out, body);
                out.push_str("\t.endr\n");
            }
            Statement::Irp(values, body) => {
                out.push_str("\t.irp x");
                for v in values {
                    let _ = write!(out, ", {v}");
                }
                out.push('\n');
                write_statements(out, body);
                out.push_str("\t.endr\n");
            }
        }
    }
}

/// Why the reference stopped.
#[derive(Debug)]
enum Stop {
    TooDeep,
    TooMuch,
}

/// What a `.byte` gets: the argument text, or nothing (an empty `.byte` adds no byte).
type Bound = Option<u8>;

struct Reference<'m> {
    macros: &'m [Macro],
    bytes: Vec<u8>,
}

impl Reference<'_> {
    fn resolve(value: &Value, params: &[Bound], irp: Bound) -> Bound {
        match value {
            Value::Literal(byte) => Some(*byte),
            Value::Param(i) => params.get(*i).copied().flatten(),
            Value::IrpSymbol => irp,
        }
    }

    fn run(
        &mut self,
        list: &[Statement],
        params: &[Bound],
        irp: Bound,
        depth: usize,
    ) -> Result<(), Stop> {
        for statement in list {
            match statement {
                Statement::Byte(v) => {
                    if let Some(byte) = Self::resolve(v, params, irp) {
                        if self.bytes.len() >= MAX_BYTES {
                            return Err(Stop::TooMuch);
                        }
                        self.bytes.push(byte);
                    }
                }
                Statement::Call(target, arguments) => {
                    if depth + 1 > MAX_EXPANSION_DEPTH {
                        return Err(Stop::TooDeep);
                    }
                    let called = &self.macros[*target];
                    let mut bound: Vec<Bound> = called.defaults.clone();
                    let mut position = 0;
                    for argument in arguments {
                        let (slot, v) = match argument {
                            Argument::Positional(v) => {
                                position += 1;
                                (position - 1, v)
                            }
                            Argument::Keyword(i, v) => (*i, v),
                        };
                        // An empty argument leaves the default in place (gas substitutes a
                        // parameter's default when its argument is empty).
                        if let (Some(place), Some(given)) =
                            (bound.get_mut(slot), Self::resolve(v, params, irp))
                        {
                            *place = Some(given);
                        }
                    }
                    self.run(&called.body, &bound, None, depth + 1)?;
                }
                Statement::Rept(times, body) => {
                    if depth + 1 > MAX_EXPANSION_DEPTH {
                        return Err(Stop::TooDeep);
                    }
                    for _ in 0..*times {
                        self.run(body, params, irp, depth + 1)?;
                    }
                }
                Statement::Irp(values, body) => {
                    if depth + 1 > MAX_EXPANSION_DEPTH {
                        return Err(Stop::TooDeep);
                    }
                    for v in values {
                        self.run(body, params, Some(*v), depth + 1)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Runs one input; panics when a check fails.
pub fn check(data: &[u8]) {
    let mut input = ByteStream::new(data);
    let defaults: Vec<Vec<Option<u8>>> = (0..MACROS)
        .map(|_| {
            (0..input.below(MAX_PARAMS + 1))
                .map(|_| (input.below(2) == 0).then(|| input.byte()))
                .collect()
        })
        .collect();
    let arity: Vec<usize> = defaults.iter().map(Vec::len).collect();
    let macros: Vec<Macro> = defaults
        .into_iter()
        .map(|defaults| {
            let scope = Scope {
                arity: &arity,
                params: defaults.len(),
                in_irp: false,
            };
            let body = statements(&mut input, scope, 0);
            Macro { defaults, body }
        })
        .collect();
    let top_scope = Scope {
        arity: &arity,
        params: 0,
        in_irp: false,
    };
    let top = statements(&mut input, top_scope, 0);

    let mut text = String::new();
    for (n, m) in macros.iter().enumerate() {
        let _ = write!(text, "\t.macro m{n}");
        for (i, default) in m.defaults.iter().enumerate() {
            text.push_str(if i == 0 { " " } else { ", " });
            let _ = write!(text, "p{i}");
            if let Some(d) = default {
                let _ = write!(text, "={d}");
            }
        }
        text.push('\n');
        write_statements(&mut text, &m.body);
        text.push_str("\t.endm\n");
    }
    write_statements(&mut text, &top);

    let mut reference = Reference {
        macros: &macros,
        bytes: Vec::new(),
    };
    let expected = reference.run(&top, &[], None, 0);
    let mut image = vec![0u8; 256 * 1024];
    let result = assemble::<8>(&text, &mut image);
    match (expected, result) {
        (Ok(()), Ok(program)) => {
            assert_eq!(program.len, reference.bytes.len(), "{text}");
            assert_eq!(&image[..program.len], &reference.bytes[..], "{text}");
        }
        (Ok(()), Err(error)) => panic!("{text}: {error}, expected {:?}", reference.bytes),
        (Err(Stop::TooDeep), Err(error)) => assert!(
            matches!(error.kind, AsmErrorKind::NestingLimit { .. }),
            "{text}: {error}"
        ),
        (Err(Stop::TooDeep), Ok(_)) => panic!("{text}: nested too deeply, yet accepted"),
        // Fanned-out recursion: whatever limit the assembler reaches first, it must end in
        // an error or in a program, without panicking; its size is bounded by the image.
        (Err(Stop::TooMuch), _) => {}
    }
}
