//! Instruction forms (basic and pseudo) and MARS's first-fit operand matching, plus the
//! expansion of pseudo-instruction templates into basic instructions.
//!
//! A form's operand types come from tokenizing its example exactly as a source line is
//! tokenized. A statement takes the first form of its mnemonic (basic forms first, then the
//! pseudo table in file order) whose operand types accept it; when none does, MARS reports
//! the mismatch against the mnemonic's first form, and so do we.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::basic::{forms as basic_forms, BasicInstruction, Operand, BASIC_INSTRUCTIONS};
use super::lexer::{parse_int, parse_register, tokenize, Tok, Token};
use super::pseudo_table::PSEUDO_OPS;

/// Operand types as MARS classifies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Reg,
    FpReg,
    Int5,
    Int16,
    Int16U,
    Int32,
    Label,
    LParen,
    RParen,
    Plus,
    Minus,
    Other,
}

fn int_kind(v: i32) -> Kind {
    match v {
        0..=31 => Kind::Int5,
        32..=65535 => Kind::Int16U,
        -32768..=-1 => Kind::Int16,
        _ => Kind::Int32,
    }
}

pub fn kind_of(tok: &Token) -> Kind {
    match tok.kind {
        Tok::Reg(_) => Kind::Reg,
        Tok::FpReg(_) => Kind::FpReg,
        Tok::Int(v) => int_kind(v),
        Tok::Word => Kind::Label,
        Tok::LParen => Kind::LParen,
        Tok::RParen => Kind::RParen,
        Tok::Plus => Kind::Plus,
        Tok::Minus => Kind::Minus,
        _ => Kind::Other,
    }
}

/// Where a computed template operand takes its number from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The integer in source token n (`VLn`, `VHn`, `VHLn`).
    Value(usize),
    /// The address of the label in source token n (`LLn`, `LHn`, `LHL`).
    Label(usize),
    /// The label in token 2 plus the integer in token 4 (`label+100000` forms).
    LabelPlus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Half {
    Low,
    High,
    /// High half plus one when bit 15 is set, because the low half is later sign-extended.
    HighAdjusted,
}

/// One operand of a template instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arg {
    Fixed(Operand),
    /// `RGn`: the register in source token n.
    Reg(usize),
    /// `NRn`: the register after it.
    NextReg(usize),
    /// `OPn`: the integer in source token n as is.
    Op(usize),
    /// `LAB`: the label in the last source token, as a branch target.
    Lab,
    /// `S32`: 32 minus the integer in the last token.
    S32,
    /// `BROFFnm`: n without delayed branching, m with it.
    BranchOffset(i32, i32),
    Computed(Source, i32, Half),
}

#[derive(Debug, Clone)]
pub struct TemplateInsn {
    basic: &'static BasicInstruction,
    args: Vec<Arg>,
    /// `DBNOP`: present only with delayed branching.
    delay_slot_nop: bool,
}

#[derive(Debug, Clone)]
pub enum Body {
    Basic(&'static BasicInstruction),
    Pseudo(Vec<TemplateInsn>),
}

#[derive(Debug, Clone)]
pub struct Form {
    pub example: &'static str,
    pub kinds: Vec<Kind>,
    pub body: Body,
}

impl Form {
    /// Words this form produces.
    pub fn word_count(&self, delay_slots: bool) -> u32 {
        match &self.body {
            Body::Basic(_) => 1,
            Body::Pseudo(t) => t
                .iter()
                .filter(|i| delay_slots || !i.delay_slot_nop)
                .count() as u32,
        }
    }
}

fn example_kinds(example: &str) -> Vec<Kind> {
    tokenize(example).iter().skip(1).map(kind_of).collect()
}

fn digit_at(s: &str, i: usize) -> Option<i32> {
    s.as_bytes()
        .get(i)
        .filter(|b| b.is_ascii_digit())
        .map(|b| (b - b'0') as i32)
}

/// `n` then optional `Pm` then optional `U` (for `LL`, `LH`, `VL`, `VH`, `VHL`).
fn indexed(rest: &str, half: Half, value: bool) -> Option<Arg> {
    let n = digit_at(rest, 0)? as usize;
    let add = if rest.as_bytes().get(1) == Some(&b'P') {
        digit_at(rest, 2)?
    } else {
        0
    };
    let source = if value {
        Source::Value(n)
    } else {
        Source::Label(n)
    };
    Some(Arg::Computed(source, add, half))
}

fn parse_arg(piece: &str) -> Option<Arg> {
    if let Some(r) = parse_register(piece) {
        return Some(Arg::Fixed(Operand::Reg(r)));
    }
    if let Some(v) = parse_int(piece) {
        return Some(Arg::Fixed(Operand::Imm(v)));
    }
    let p = piece;
    let arg = if let Some(rest) = p.strip_prefix("RG") {
        Arg::Reg(digit_at(rest, 0)? as usize)
    } else if let Some(rest) = p.strip_prefix("NR") {
        Arg::NextReg(digit_at(rest, 0)? as usize)
    } else if let Some(rest) = p.strip_prefix("OP") {
        Arg::Op(digit_at(rest, 0)? as usize)
    } else if p == "LAB" {
        Arg::Lab
    } else if p == "S32" {
        Arg::S32
    } else if let Some(rest) = p.strip_prefix("BROFF") {
        Arg::BranchOffset(digit_at(rest, 0)?, digit_at(rest, 1)?)
    } else if p == "LHL" {
        Arg::Computed(Source::Label(2), 0, Half::High)
    } else if p == "LHPN" {
        Arg::Computed(Source::LabelPlus, 0, Half::High)
    } else if let Some(rest) = p.strip_prefix("LHPA") {
        let add = rest
            .strip_prefix('P')
            .and_then(|d| digit_at(d, 0))
            .unwrap_or(0);
        Arg::Computed(Source::LabelPlus, add, Half::HighAdjusted)
    } else if let Some(rest) = p.strip_prefix("LLPP") {
        Arg::Computed(Source::LabelPlus, digit_at(rest, 0)?, Half::Low)
    } else if p == "LLP" || p == "LLPU" {
        Arg::Computed(Source::LabelPlus, 0, Half::Low)
    } else if let Some(rest) = p.strip_prefix("LL") {
        indexed(rest, Half::Low, false)?
    } else if let Some(rest) = p.strip_prefix("LH") {
        indexed(rest, Half::HighAdjusted, false)?
    } else if let Some(rest) = p.strip_prefix("VL") {
        indexed(rest, Half::Low, true)?
    } else if let Some(rest) = p.strip_prefix("VHL") {
        indexed(rest, Half::High, true)?
    } else if let Some(rest) = p.strip_prefix("VH") {
        indexed(rest, Half::HighAdjusted, true)?
    } else {
        return None;
    };
    Some(arg)
}

fn parse_template(text: &str) -> Option<TemplateInsn> {
    let text = text.trim();
    if text == "DBNOP" {
        return Some(TemplateInsn {
            basic: basic_forms("nop").next()?,
            args: Vec::new(),
            delay_slot_nop: true,
        });
    }
    let (mnemonic, rest) = text.split_once(' ').unwrap_or((text, ""));
    let pieces: Vec<&str> = rest
        .split([',', ' ', '(', ')'])
        .filter(|p| !p.is_empty())
        .collect();
    let args = pieces
        .iter()
        .map(|p| parse_arg(p))
        .collect::<Option<Vec<_>>>()?;
    let basic = basic_forms(mnemonic).find(|b| b.fields.len() == args.len())?;
    Some(TemplateInsn {
        basic,
        args,
        delay_slot_nop: false,
    })
}

/// All forms by lower-case mnemonic, basic forms first.
pub fn table() -> &'static HashMap<&'static str, Vec<Form>> {
    static TABLE: OnceLock<HashMap<&'static str, Vec<Form>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut map: HashMap<&'static str, Vec<Form>> = HashMap::new();
        for basic in BASIC_INSTRUCTIONS {
            map.entry(basic.mnemonic()).or_default().push(Form {
                example: basic.example,
                kinds: example_kinds(basic.example),
                body: Body::Basic(basic),
            });
        }
        for &(example, templates) in PSEUDO_OPS {
            let mnemonic = example.split(' ').next().unwrap_or(example);
            let insns: Option<Vec<TemplateInsn>> =
                templates.split(';').map(parse_template).collect();
            // Every template of the table parses (checked by a test); skip defensively.
            let Some(insns) = insns else { continue };
            map.entry(mnemonic).or_default().push(Form {
                example,
                kinds: example_kinds(example),
                body: Body::Pseudo(insns),
            });
        }
        map
    })
}

/// Why a statement's operands fit no form; the token index (into the operands) to blame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    TooFew(&'static str),
    TooMany(&'static str),
    OutOfRange(usize),
    WrongType(usize),
}

impl Mismatch {
    /// MARS's text, which quotes the token it blames (the operator for a count mismatch).
    pub fn message(&self, operator: &Token, operands: &[Token]) -> String {
        let quoted = |i: &usize| operands.get(*i).map_or(String::new(), |t| t.text.clone());
        match self {
            Mismatch::TooFew(e) => format!(
                "\"{}\": Too few or incorrectly formatted operands. Expected: {e}",
                operator.text
            ),
            Mismatch::TooMany(e) => format!(
                "\"{}\": Too many or incorrectly formatted operands. Expected: {e}",
                operator.text
            ),
            Mismatch::OutOfRange(i) => format!("\"{}\": operand is out of range", quoted(i)),
            Mismatch::WrongType(i) => format!("\"{}\": operand is of incorrect type", quoted(i)),
        }
    }
}

fn check(form: &Form, operands: &[Token]) -> Result<(), Mismatch> {
    use Kind::{Int16, Int16U, Int32, Int5, Label, Reg};
    if operands.len() < form.kinds.len() {
        return Err(Mismatch::TooFew(form.example));
    }
    if operands.len() > form.kinds.len() {
        return Err(Mismatch::TooMany(form.example));
    }
    for (i, (&spec, tok)) in form.kinds.iter().zip(operands).enumerate() {
        let cand = kind_of(tok);
        let value = match tok.kind {
            Tok::Int(v) => v,
            _ => 0,
        };
        let ok = spec == cand
            || (spec == Label && tok.kind == Tok::Word)
            || (spec == Reg && cand == Reg)
            || matches!(
                (spec, cand),
                (Int16 | Int16U | Int32, Int5) | (Int32, Int16 | Int16U)
            )
            || (spec == Int16 && cand == Int16U && value <= 32767);
        if ok {
            continue;
        }
        let range = matches!(
            (spec, cand),
            (Int5, Int16 | Int16U | Int32) | (Int16, Int16U | Int32) | (Int16U, Int16 | Int32)
        );
        return Err(if range {
            Mismatch::OutOfRange(i)
        } else {
            Mismatch::WrongType(i)
        });
    }
    Ok(())
}

/// The first form of `forms` that accepts `operands`, or the mismatch against the first form.
pub fn select<'a>(forms: &'a [Form], operands: &[Token]) -> Result<&'a Form, Mismatch> {
    if let Some(f) = forms.iter().find(|f| check(f, operands).is_ok()) {
        return Ok(f);
    }
    match forms.first() {
        Some(first) => check(first, operands).map(|_| first),
        None => Err(Mismatch::TooFew("")),
    }
}

/// Why a matched statement could not be turned into words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpandError {
    /// The label (operand index) is not defined.
    Undefined(usize),
    /// A register pair needs the register after $31 / $f31.
    NoNextRegister(usize),
    Encode(super::basic::EncodeError),
}

/// Resolves labels for expansion.
pub trait Labels {
    fn address(&self, name: &str) -> Option<u32>;
}

/// Source tokens as MARS numbers them: index 0 is the operator, parentheses count.
struct Statement<'a> {
    operands: &'a [Token],
    labels: &'a dyn Labels,
}

impl Statement<'_> {
    /// Token n (1-based) of the statement.
    fn token(&self, n: usize) -> Option<&Token> {
        n.checked_sub(1).and_then(|i| self.operands.get(i))
    }

    fn int(&self, n: usize) -> i32 {
        match self.token(n).map(|t| &t.kind) {
            Some(Tok::Int(v)) => *v,
            Some(Tok::Reg(r) | Tok::FpReg(r)) => *r as i32,
            _ => 0,
        }
    }

    fn reg(&self, n: usize) -> u8 {
        match self.token(n).map(|t| &t.kind) {
            Some(Tok::Reg(r) | Tok::FpReg(r)) => *r,
            _ => 0,
        }
    }

    fn label(&self, n: usize) -> Result<u32, ExpandError> {
        let tok = self.token(n).ok_or(ExpandError::Undefined(0))?;
        if let Tok::Int(v) = tok.kind {
            return Ok(v as u32);
        }
        self.labels
            .address(&tok.text)
            .ok_or(ExpandError::Undefined(n - 1))
    }

    fn last(&self) -> usize {
        self.operands.len()
    }

    fn operand(&self, arg: Arg, delay_slots: bool) -> Result<Operand, ExpandError> {
        Ok(match arg {
            Arg::Fixed(op) => op,
            Arg::Reg(n) => Operand::Reg(self.reg(n)),
            Arg::NextReg(n) => {
                let r = self.reg(n);
                if r >= 31 {
                    return Err(ExpandError::NoNextRegister(n - 1));
                }
                Operand::Reg(r + 1)
            }
            Arg::Op(n) => Operand::Imm(self.int(n)),
            Arg::Lab => Operand::Addr(self.label(self.last())?),
            Arg::S32 => Operand::Imm(32i32.wrapping_sub(self.int(self.last()))),
            Arg::BranchOffset(off, on) => Operand::Imm(if delay_slots { on } else { off }),
            Arg::Computed(source, add, half) => {
                let base = match source {
                    Source::Value(n) => self.int(n) as u32,
                    Source::Label(n) => self.label(n)?,
                    Source::LabelPlus => self.label(2)?.wrapping_add(self.int(4) as u32),
                };
                let v = base.wrapping_add(add as u32);
                Operand::Imm(match half {
                    Half::Low => (v & 0xffff) as i32,
                    Half::High => (v as i32) >> 16,
                    Half::HighAdjusted => ((v as i32) >> 16).wrapping_add(((v >> 15) & 1) as i32),
                })
            }
        })
    }
}

/// The words of a statement, and its branches that reach further than their words say.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Expansion {
    pub words: Vec<u32>,
    /// (address, whole displacement in words) of each far branch (see [`super::basic::Encoded`]).
    pub far_branches: Vec<(u32, i32)>,
}

impl Expansion {
    fn push(&mut self, addr: u32, encoded: super::basic::Encoded) {
        self.words.push(encoded.word);
        if let Some(displacement) = encoded.far_branch {
            self.far_branches.push((addr, displacement));
        }
    }
}

/// The words of a matched statement placed at `addr`.
pub fn expand(
    form: &Form,
    operands: &[Token],
    addr: u32,
    labels: &dyn Labels,
    delay_slots: bool,
) -> Result<Expansion, ExpandError> {
    let st = Statement { operands, labels };
    match &form.body {
        Body::Basic(basic) => {
            let mut ops = Vec::with_capacity(basic.fields.len());
            for (i, tok) in operands.iter().enumerate() {
                ops.push(match tok.kind {
                    Tok::Reg(r) | Tok::FpReg(r) => Operand::Reg(r),
                    Tok::Int(v) => Operand::Imm(v),
                    Tok::Word => {
                        Operand::Addr(labels.address(&tok.text).ok_or(ExpandError::Undefined(i))?)
                    }
                    _ => continue,
                });
            }
            let mut expansion = Expansion::default();
            expansion.push(addr, basic.encode(&ops, addr).map_err(ExpandError::Encode)?);
            Ok(expansion)
        }
        Body::Pseudo(insns) => {
            let mut expansion = Expansion::default();
            for insn in insns {
                if insn.delay_slot_nop && !delay_slots {
                    continue;
                }
                let ops = insn
                    .args
                    .iter()
                    .map(|&a| st.operand(a, delay_slots))
                    .collect::<Result<Vec<_>, _>>()?;
                let at = addr.wrapping_add(4 * expansion.words.len() as u32);
                let encoded = insn.basic.encode(&ops, at).map_err(ExpandError::Encode)?;
                expansion.push(at, encoded);
            }
            Ok(expansion)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pseudo_template_parses() {
        let mut broken = Vec::new();
        for &(example, templates) in PSEUDO_OPS {
            for t in templates.split(';') {
                if parse_template(t).is_none() {
                    broken.push(example);
                }
            }
        }
        // MARS's own table lacks the base register here ("swr RG1, 0"); the form is dropped.
        assert_eq!(broken, vec!["swr $t1,100"]);
        let pseudo: usize = table()
            .values()
            .flatten()
            .filter(|f| matches!(f.body, Body::Pseudo(_)))
            .count();
        assert_eq!(pseudo, 387);
    }

    #[test]
    fn li_picks_the_first_form_that_fits() {
        let forms = &table()["li"];
        let pick = |line: &str| select(forms, &tokenize(line)[1..]).unwrap().example;
        assert_eq!(pick("li $v0, 4"), "li $t1,-100");
        assert_eq!(pick("li $v0, -32768"), "li $t1,-100");
        assert_eq!(pick("li $v0, 32768"), "li $t1,100");
        assert_eq!(pick("li $v0, 65536"), "li $t1,100000");
        assert_eq!(pick("li $v0, -32769"), "li $t1,100000");
    }
}
