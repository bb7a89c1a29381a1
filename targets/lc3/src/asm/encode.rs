//! Pass two: each statement's words written into its segment, with the source line of each
//! word and what every data directive emitted; instructions encoded in the form their operands
//! fit, labels resolved into `.FILL` words and PC offsets.

use asmdbg_core::{DataItem, SourceLoc};

use super::dialect::{is_lc3as_label, lc3as_value, lc3tools_signed, lc3tools_unsigned};
use super::lexer::{Token, TokenKind};
use super::mnemonics::{self, Field, Form, Mnemonic};
use super::report::describe_forms;
use super::statement::{Base, Emit, Statement};
use super::Assembler;

/// An operand as an instruction form sees it.
#[derive(Debug, Clone, Copy)]
enum Arg<'a> {
    Reg(u16),
    Num(i64),
    Label(&'a str),
    Bad,
}

impl Assembler<'_> {
    pub(super) fn encode(&mut self, statements: &[Statement]) {
        for st in statements {
            let (Some(addr), Some(seg)) = (st.addr, st.segment) else {
                continue;
            };
            let words: Vec<u16> = match &st.emit {
                Emit::Nothing => Vec::new(),
                Emit::Words(w) => w.clone(),
                Emit::Zeros(n) => vec![0; *n as usize],
                Emit::Invalid => vec![0],
                Emit::FillLabel(i) => vec![self.fill_label(st, *i)],
                Emit::Inst(m) => vec![self.instruction(st, *m, addr).unwrap_or(0)],
            };
            if let Some((_, Base::Directive(d))) = st.base {
                if let Some(directive) = d.data_directive() {
                    self.data.insert(DataItem {
                        addr: u64::from(addr),
                        end: u64::from(addr) + words.len() as u64,
                        directive,
                        elem_size: 2,
                        count: words.len() as u64,
                    });
                }
            }
            for (i, w) in words.into_iter().enumerate() {
                let at = u64::from(addr) + i as u64;
                self.lines.insert(
                    at,
                    SourceLoc {
                        file: self.rep.file,
                        line: st.line,
                    },
                );
                if let Some(segment) = self.segments.get_mut(seg) {
                    segment.words.push(w);
                }
            }
        }
    }

    fn fill_label(&mut self, st: &Statement, index: usize) -> u16 {
        let t = &st.tokens[index];
        let name = match &t.kind {
            TokenKind::Word(w) => w.as_str(),
            TokenKind::Str { raw, .. } => raw.as_str(),
            TokenKind::Num(_) => return 0,
        };
        match self.symbols.addr(name) {
            Some(a) => a as u16,
            None => {
                self.label_missing(st.line, t, name);
                0
            }
        }
    }

    fn arg<'t>(&self, t: &'t Token) -> Arg<'t> {
        match &t.kind {
            TokenKind::Num(v) => Arg::Num(*v),
            TokenKind::Word(w) => match mnemonics::register(w) {
                Some(r) => Arg::Reg(r),
                None if self.strict && !is_lc3as_label(w) => Arg::Bad,
                None => Arg::Label(w),
            },
            TokenKind::Str { .. } => Arg::Bad,
        }
    }

    fn instruction(&mut self, st: &Statement, m: Mnemonic, addr: u16) -> Option<u16> {
        let ops = st.operand_tokens();
        let args: Vec<Arg> = ops.iter().map(|t| self.arg(t)).collect();
        let commas_ok = !self.strict
            || ops
                .iter()
                .enumerate()
                .all(|(i, t)| t.commas_before == u8::from(i > 0));
        let fits = |f: &&Form| {
            f.fields.len() == args.len()
                && f.fields.iter().zip(&args).all(|(field, arg)| {
                    matches!(
                        (field, arg),
                        (Field::Reg(_), Arg::Reg(_))
                            | (Field::Imm(_) | Field::TrapVector, Arg::Num(_))
                            | (Field::PcOffset(_), Arg::Num(_) | Arg::Label(_))
                    )
                })
        };
        let form = m.forms.iter().find(fits).filter(|_| commas_ok);
        let Some(form) = form else {
            if self.strict {
                self.illegal_operands(st, m.name);
            } else if let Some((tok, _)) = st.base {
                let t = &st.tokens[tok];
                let written = self.file.line(st.line).chars().skip(t.col as usize - 1);
                let written: String = written.take(t.len as usize).collect();
                self.rep.error_at(
                    st.line,
                    t,
                    format!(
                        "invalid usage of '{written}' instruction (expected {}; {})",
                        describe_forms(m),
                        self.found_operands(st)
                    ),
                );
            }
            return None;
        };
        let mut word = form.base;
        let mut ok = true;
        for ((field, arg), t) in form.fields.iter().zip(&args).zip(ops) {
            match self.field_value(st.line, *field, *arg, t, addr) {
                Some(bits) => word |= bits,
                None => ok = false,
            }
        }
        ok.then_some(word)
    }

    fn field_value(
        &mut self,
        line: u32,
        field: Field,
        arg: Arg,
        t: &Token,
        addr: u16,
    ) -> Option<u16> {
        let number = |value: i64, bits: u32, signed: bool| {
            if self.strict {
                lc3as_value(value, bits)
            } else if signed {
                lc3tools_signed(value, bits)
            } else {
                lc3tools_unsigned(value, bits)
            }
        };
        let result = match (field, arg) {
            (Field::Reg(shift), Arg::Reg(r)) => Ok(r << shift),
            (Field::Imm(bits) | Field::PcOffset(bits), Arg::Num(v)) => {
                number(v, u32::from(bits), true)
            }
            (Field::TrapVector, Arg::Num(v)) => number(v, 8, false),
            (Field::PcOffset(bits), Arg::Label(name)) => {
                let Some(target) = self.symbols.addr(name) else {
                    self.label_missing(line, t, name);
                    return None;
                };
                let distance = target as i64 - (i64::from(addr) + 1);
                let bits = u32::from(bits);
                if self.strict {
                    let limit = 1i64 << (bits - 1);
                    if distance < -limit || distance >= limit {
                        Err(format!(
                            "label \"{name}\" at distance {distance} (allowed range is {} to {})",
                            -limit,
                            limit - 1
                        ))
                    } else {
                        Ok((distance & ((1 << bits) - 1)) as u16)
                    }
                } else {
                    lc3tools_signed(distance, bits).map_err(|_| {
                        format!(
                            "cannot encode as {bits}-bit 2's complement number \
                             (label '{name}' is {distance} words from the next instruction)"
                        )
                    })
                }
            }
            // Forms are matched before encoding, so no other pairs reach here.
            _ => Ok(0),
        };
        match result {
            Ok(bits) => Some(bits),
            Err(msg) => {
                self.rep.error_at(line, t, msg);
                None
            }
        }
    }
}
