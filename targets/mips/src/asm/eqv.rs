//! `.eqv`: definitions recorded and substituted into later lines, as MARS's tokenizer does.

use super::lexer::{self, Tok, Token};
use super::source::Line;
use super::Assembler;

impl Assembler<'_> {
    /// Records `.eqv` definitions and substitutes earlier ones into later lines, one
    /// identifier at a time, re-tokenizing after each substitution as MARS does.
    pub(super) fn substitute_eqv(&mut self, lines: Vec<Line>) -> Vec<Line> {
        let mut out = Vec::with_capacity(lines.len());
        for mut line in lines {
            let mut tokens = lexer::tokenize(&line.text);
            let dir = if tokens.first().is_some_and(|t| t.text.starts_with('.')) {
                Some(0)
            } else if tokens.get(1).is_some_and(|t| t.kind == Tok::Colon)
                && tokens.get(2).is_some_and(|t| t.text.starts_with('.'))
            {
                Some(2)
            } else {
                None
            };
            if let Some(d) = dir.filter(|&d| tokens[d].text.eq_ignore_ascii_case(".eqv")) {
                self.define_eqv(&line, &tokens, d);
                line.tokens = tokens;
                out.push(line);
                continue;
            }
            for _ in 0..100 {
                let Some(tok) = tokens.iter().find(|t| {
                    t.kind == Tok::Word
                        && self.eqv.contains_key(&t.text)
                        && !lexer::is_keyword(&t.text)
                }) else {
                    break;
                };
                let replacement = self.eqv.get(&tok.text).cloned().unwrap_or_default();
                let chars: Vec<char> = line.text.chars().collect();
                let start = (tok.col as usize).saturating_sub(1).min(chars.len());
                let end = (start + tok.text.chars().count()).min(chars.len());
                let mut text: String = chars[..start].iter().collect();
                text.push_str(&replacement);
                text.extend(&chars[end..]);
                line.text = text;
                tokens = lexer::tokenize(&line.text);
            }
            line.tokens = tokens;
            out.push(line);
        }
        out
    }

    fn define_eqv(&mut self, line: &Line, tokens: &[Token], d: usize) {
        let directive = &tokens[d];
        if tokens.len() < d + 3 {
            self.error_at(line, directive, "Too few operands for .eqv directive");
            return;
        }
        let name = &tokens[d + 1];
        if name.kind != Tok::Word || lexer::is_keyword(&name.text) {
            self.error_at(line, directive, "Malformed .eqv directive");
            return;
        }
        if tokens[d + 2..].iter().any(|t| t.text == name.text) {
            let msg = format!(
                "Cannot substitute {} for itself in .eqv directive",
                name.text
            );
            self.error_at(line, directive, msg);
            return;
        }
        let chars: Vec<char> = line.text.chars().collect();
        let start = (tokens[d + 2].col as usize).saturating_sub(1);
        let last = &tokens[tokens.len() - 1];
        let end = (last.col as usize - 1 + last.text.chars().count()).min(chars.len());
        let expression: String = chars[start.min(end)..end].iter().collect();
        if let Some(old) = self.eqv.get(&name.text) {
            if *old != expression {
                let msg = format!("\"{}\" is already defined", name.text);
                self.error_at(line, name, msg);
                return;
            }
        }
        self.eqv.insert(name.text.clone(), expression);
    }
}
