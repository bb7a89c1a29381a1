//! Macros: `.macro`/`.end_macro` definitions collected per file and their calls expanded,
//! with labels inside an expansion renamed per call (`done_M0`).

use std::collections::HashSet;

use super::lexer::{self, Tok, Token};
use super::source::{Line, Origin};
use super::Assembler;

/// Lines macro expansion may produce in one assembly, so nested calls cannot explode.
const EXPANSION_BUDGET: usize = 1_000_000;

pub(super) struct Macro {
    pub(super) name: String,
    params: Vec<String>,
    body: Vec<Line>,
    labels: HashSet<String>,
}

impl Assembler<'_> {
    /// Collects a `.macro` definition; returns the index after its `.end_macro`.
    pub(super) fn define_macro(&mut self, lines: &[Line], start: usize) -> usize {
        let header = &lines[start];
        let toks = &header.tokens;
        let Some(name) = toks.get(1) else {
            let msg = format!(
                "\"{}\" directive requires at least one argument.",
                toks[0].text
            );
            self.error_at(header, &toks[0], msg);
            return self.skip_to_end_macro(lines, start);
        };
        if name.kind != Tok::Word {
            let msg = format!("Invalid Macro name \"{}\"", name.text);
            self.error_at(header, name, msg);
            return self.skip_to_end_macro(lines, start);
        }
        let mut params = Vec::new();
        for t in &toks[2..] {
            match t.kind {
                Tok::LParen | Tok::RParen => {}
                _ if is_macro_param(t) => params.push(t.text.clone()),
                _ => {
                    let msg = format!("Invalid macro argument '{}'", t.text);
                    self.error_at(header, t, msg);
                    return self.skip_to_end_macro(lines, start);
                }
            }
        }
        let end = self.skip_to_end_macro(lines, start);
        let body: Vec<Line> = lines[start + 1..end.saturating_sub(1).max(start + 1)].to_vec();
        let labels = body
            .iter()
            .filter(|l| {
                l.tokens.len() >= 2
                    && l.tokens[0].kind == Tok::Word
                    && l.tokens[1].kind == Tok::Colon
            })
            .map(|l| l.tokens[0].text.clone())
            .collect();
        // MARS lets a later definition with the same name and arity win.
        self.macros.push(Macro {
            name: name.text.clone(),
            params,
            body,
            labels,
        });
        end
    }

    fn skip_to_end_macro(&mut self, lines: &[Line], start: usize) -> usize {
        for (j, l) in lines.iter().enumerate().skip(start + 1) {
            if l.tokens
                .first()
                .is_some_and(|t| t.text.eq_ignore_ascii_case(".end_macro"))
            {
                return j + 1;
            }
            if l.tokens
                .first()
                .is_some_and(|t| t.text.eq_ignore_ascii_case(".macro"))
            {
                self.error_at(l, &l.tokens[0], "Nested macros are not allowed");
            }
        }
        self.error_line(
            &lines[start],
            "Macro started but not ended (no .end_macro directive)",
        );
        lines.len()
    }

    /// Expands a macro call; false if `op` names no macro.
    pub(super) fn call_macro(
        &mut self,
        line: &Line,
        op: &Token,
        args: &[Token],
        depth: u32,
    ) -> bool {
        let args: &[Token] = match (args.first(), args.last()) {
            (Some(f), Some(l))
                if f.kind == Tok::LParen && l.kind == Tok::RParen && args.len() >= 2 =>
            {
                &args[1..args.len() - 1]
            }
            _ => args,
        };
        let Some(index) = self
            .macros
            .iter()
            .rposition(|m| m.name == op.text && m.params.len() == args.len())
        else {
            return false;
        };
        let looped = line
            .calls
            .iter()
            .any(|c| c.file == line.file && c.line == line.line);
        let body = self.macros[index].body.len();
        self.expanded_lines += body;
        if self.expanded_lines > EXPANSION_BUDGET {
            self.error_at(line, op, "macro expansion produces too many lines");
            return true;
        }
        if !self.count_lines(body, line.file) {
            return true;
        }
        if looped || depth >= 64 {
            self.error_at(
                line,
                op,
                "Detected a macro expansion loop (recursive reference). ",
            );
            return true;
        }
        let counter = self.macro_counter;
        self.macro_counter = self.macro_counter.wrapping_add(1);
        let mut calls = line.calls.clone();
        calls.push(Origin {
            file: line.file,
            line: line.line,
            col: op.col,
            len: op.width(),
            name: op.text.clone(),
        });
        let mut expanded = Vec::new();
        let mut unknown = Vec::new();
        {
            let m = &self.macros[index];
            for body_line in &m.body {
                let mut text: Vec<char> = body_line.text.chars().collect();
                let mut tokens: Vec<&Token> = body_line.tokens.iter().collect();
                tokens.sort_by_key(|t| std::cmp::Reverse(t.col));
                for t in tokens {
                    let param = m.params.iter().position(|p| *p == t.text);
                    let replacement = if is_macro_param(t) {
                        match param {
                            Some(p) => args[p].text.clone(),
                            None if t.kind == Tok::MacroParam => {
                                unknown.push((body_line.clone(), t.clone()));
                                continue;
                            }
                            None => continue,
                        }
                    } else if t.kind == Tok::Word && m.labels.contains(&t.text) {
                        format!("{}_M{counter}", t.text)
                    } else {
                        continue;
                    };
                    let start = (t.col as usize).saturating_sub(1).min(text.len());
                    let end = (start + t.text.chars().count()).min(text.len());
                    text.splice(start..end, replacement.chars());
                }
                let text: String = text.into_iter().collect();
                expanded.push(Line {
                    file: body_line.file,
                    line: body_line.line,
                    tokens: lexer::tokenize(&text),
                    text,
                    calls: calls.clone(),
                });
            }
        }
        for (l, t) in unknown {
            let l = Line {
                calls: calls.clone(),
                ..l
            };
            self.error_at(&l, &t, "Unknown macro parameter");
        }
        let expanded = self.substitute_eqv(expanded);
        self.run(&expanded, depth + 1);
        true
    }
}

/// `%name`, or SPIM's `$name` when it is not a register.
fn is_macro_param(t: &Token) -> bool {
    t.kind == Tok::MacroParam || (t.kind == Tok::Word && t.text.starts_with('$'))
}
