//! What the IDE shows of a stopped program: threads, frames, scopes, variables (registers and
//! data labels), the values as they are shown.

use super::*;

impl<G: GdbMachine> DapProgram<G> {
    pub(super) fn source(&self, file: usize) -> Option<Source> {
        let path = self.view.files.get(file)?;
        let name = path.rsplit('/').next().unwrap_or(path);
        Some(Source {
            name: Some(name.to_string()),
            path: Some(path.clone()),
            ..Source::default()
        })
    }

    pub(super) fn threads(&self) -> ThreadsResponseBody {
        let name = self.machine().isa().info().title.to_string();
        ThreadsResponseBody {
            threads: vec![Thread { id: 1, name }],
        }
    }

    pub(super) fn stack_trace(&self, args: StackTraceArguments) -> StackTraceResponseBody {
        let frames = self.frames();
        let start = args.start_frame.unwrap_or(0).max(0) as usize;
        let levels = args.levels.unwrap_or(0).max(0) as usize;
        let take = if levels == 0 { usize::MAX } else { levels };
        let stack_frames: Vec<StackFrame> = frames
            .iter()
            .enumerate()
            .skip(start)
            .take(take)
            .map(|(i, f)| {
                let instruction = if self.machine().unit_bytes() == 2 {
                    2
                } else {
                    4
                };
                let before = f.pc.wrapping_sub(instruction);
                let lookup = match i {
                    // The PC ran off the end of the code (SimpleRISC runs off its end, MIPS
                    // drops off the bottom; a watched store may be the last instruction): the
                    // frame is where the last instruction is, which has a source line.
                    0 if self.view.loc(f.pc).is_none() && self.view.loc(before).is_some() => before,
                    0 => f.pc,
                    _ => f.pc.wrapping_sub(1),
                };
                let native = self.machine().gdb_code_to_native(f.pc);
                let name = self
                    .view
                    .function(lookup)
                    .map(|(n, _)| n)
                    .or_else(|| self.view.label_before(lookup))
                    .map_or_else(|| self.fmt_addr(native), str::to_string);
                let mut frame = StackFrame {
                    id: i as i64 + 1,
                    name,
                    instruction_pointer_reference: Some(self.fmt_addr(native)),
                    ..StackFrame::default()
                };
                if let Some(loc) = self.view.loc(lookup) {
                    frame.line = i64::from(loc.line);
                    frame.column = 1;
                    frame.source = self.source(loc.file);
                }
                frame
            })
            .collect();
        StackTraceResponseBody {
            stack_frames,
            total_frames: Some(frames.len() as i64),
        }
    }

    pub(super) fn scopes(&self) -> ScopesResponseBody {
        let scope = |name: &str, hint: &str, variables_reference| Scope {
            name: name.to_string(),
            presentation_hint: Some(hint.to_string()),
            variables_reference,
            expensive: false,
        };
        let mut scopes = vec![scope("Registers", "registers", 1)];
        let m = self.machine();
        if (0..m.registers().len()).any(|i| m.register_scope(i) == RegisterScope::Float) {
            scopes.push(scope("Floating point", "registers", 2));
        }
        scopes.push(scope("Data", "globals", 3));
        ScopesResponseBody { scopes }
    }

    pub(super) fn variables(
        &self,
        args: VariablesArguments,
    ) -> Result<VariablesResponseBody, String> {
        let reference = args.variables_reference.unwrap_or(0);
        let m = self.machine();
        let variables: Vec<Variable> = match reference {
            1 | 2 => m
                .registers()
                .iter()
                .enumerate()
                .filter(|(i, _)| (m.register_scope(*i) == RegisterScope::Float) == (reference == 2))
                .filter_map(|(i, r)| {
                    let v = m.read_register(i)?;
                    let name = m.register_label(i);
                    Some(Variable {
                        value: m.format_register(r, v),
                        evaluate_name: Some(name.to_string()),
                        name: name.to_string(),
                        ..Variable::default()
                    })
                })
                .collect(),
            3 => self
                .view
                .data
                .iter()
                .map(|d| {
                    let native = m.gdb_to_native(d.addr).0;
                    Variable {
                        name: d.name.clone(),
                        value: self.data_value(d),
                        type_: Some(d.ty.name.to_string()),
                        evaluate_name: Some(d.name.clone()),
                        memory_reference: Some(self.fmt_addr(native)),
                        ..Variable::default()
                    }
                })
                .collect(),
            other => return Err(format!("no variables under reference {other}")),
        };
        Ok(VariablesResponseBody { variables })
    }

    /// A data label's value as the Data scope shows it: a string's text, or a number in
    /// decimal and hex.
    pub(super) fn data_value(&self, d: &crate::dap::view::DataLabel) -> String {
        let src = GdbView(self.machine());
        if d.ty.encoding == TypeEncoding::Char && d.count.is_some() {
            let size = u64::from(d.ty.size.max(1));
            let n = u64::from(d.count.unwrap_or(0)).min(256);
            let mut text = String::new();
            for i in 0..n {
                match src.memory(d.addr + i * size, 1) {
                    Some(0) | None => break,
                    Some(c) => text.extend((c as u8 as char).escape_default()),
                }
            }
            return format!("\"{text}\"");
        }
        match src.memory(d.addr, d.ty.size) {
            Some(raw) => {
                let bits = 8 * u32::from(d.ty.size);
                let signed = sign_extend(raw, bits);
                match d.ty.encoding {
                    TypeEncoding::Float if d.ty.size == 4 => {
                        format!("{}", f32::from_bits(raw as u32))
                    }
                    TypeEncoding::Float if d.ty.size == 8 => format!("{}", f64::from_bits(raw)),
                    TypeEncoding::Unsigned => format!("{raw} ({})", self.hex(raw, bits)),
                    _ => format!("{signed} ({})", self.hex(raw, bits)),
                }
            }
            None => "<unreadable>".to_string(),
        }
    }

    pub(super) fn hex(&self, value: u64, bits: u32) -> String {
        let digits = (bits as usize).div_ceil(4);
        if self.machine().unit_bytes() == 2 {
            format!("x{value:0digits$X}")
        } else {
            format!("0x{value:0digits$x}")
        }
    }

    pub(super) fn format_value(&self, value: i64) -> String {
        let bits = (8 * self.machine().unit_bytes() * self.machine().word_units()).min(32);
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        format!("{value} ({})", self.hex(value as u64 & mask, bits))
    }

    pub(super) fn set_variable(
        &mut self,
        args: SetVariableArguments,
        out: &mut Outbox,
    ) -> Result<SetVariableResponseBody, String> {
        let reference = args.variables_reference.unwrap_or(0);
        let name = args.name.as_deref().ok_or("setVariable needs a name")?;
        let text = args.value.as_deref().ok_or("setVariable needs a value")?;
        let value = expr::evaluate(text, &self.names())?;
        let shown = match reference {
            1 | 2 => {
                let m = self.machine();
                let index = (0..m.registers().len())
                    .find(|&i| m.register_label(i) == name || m.registers()[i].name == name)
                    .ok_or_else(|| format!("no register {name}"))?;
                if !self.core.target.machine.write_register(index, value as u64) {
                    return Err(format!("{name} cannot be written"));
                }
                self.state_written();
                let m = self.machine();
                let r = m.registers()[index];
                m.format_register(&r, m.read_register(index).unwrap_or(0))
            }
            3 => {
                let label = self
                    .view
                    .data_label(name)
                    .ok_or_else(|| format!("no data label {name}"))?
                    .clone();
                let native = self.machine().gdb_to_native(label.addr).0;
                self.core
                    .target
                    .machine
                    .poke_word(native, value as u32)
                    .map_err(|e| e.to_string())?;
                self.state_written();
                out.memory(&self.fmt_addr(native), 0, u64::from(label.ty.size));
                self.data_value(&label)
            }
            other => return Err(format!("no variables under reference {other}")),
        };
        out.invalidated(&["variables"]);
        Ok(SetVariableResponseBody { value: shown })
    }
}
