//! The IDE's breakpoints: line, function and instruction breakpoints (conditions, hit
//! counts, log points) on the machine's breakpoint set, and data breakpoints on its
//! watchpoints; whether a breakpoint the machine stopped at stops the IDE.

use super::*;

impl<G: GdbMachine> DapProgram<G> {
    /// The machine's breakpoint set is the union of every kind's.
    pub(super) fn sync_breakpoints(&mut self) {
        let addrs: Vec<u64> = self.bps.iter().map(|(_, b)| b.addr).collect();
        let set = self.core.target.machine.breakpoints();
        set.clear();
        for addr in addrs {
            set.insert(addr);
        }
    }

    pub(super) fn sync_watchpoints(&mut self) {
        let watches: Vec<DataBp> = self.data_bps.clone();
        let set = self.core.target.machine.watchpoints();
        set.clear();
        for w in watches {
            set.insert(w.addr, w.len, w.kind);
        }
    }

    pub(super) fn make_bp(&mut self, kind: BpKind, addr: u64, spec: &impl Conditions) -> Bp {
        // Hit counts survive a re-send of the same breakpoint (the IDE sends a file's whole
        // list on every change).
        let hits = self
            .bps
            .iter()
            .find(|(k, b)| *k == kind && b.addr == addr)
            .map_or(0, |(_, b)| b.hits);
        Bp {
            id: self.new_id(),
            addr,
            condition: spec
                .condition()
                .filter(|c| !c.trim().is_empty())
                .map(String::from),
            hit_condition: spec
                .hit_condition()
                .filter(|c| !c.trim().is_empty())
                .map(String::from),
            log_message: spec.log_message().map(String::from),
            hits,
        }
    }

    /// Replaces the IDE's breakpoints of `kind` with `specs`, each placed by `place` at gdb
    /// code addresses (or refused, saying why); the answers, in order.
    pub(super) fn replace_breakpoints<S: Conditions>(
        &mut self,
        kind: BpKind,
        specs: &[S],
        place: impl Fn(&Self, &S) -> Result<Vec<u64>, String>,
    ) -> Vec<Breakpoint> {
        let mut new = Vec::new();
        let mut answers = Vec::new();
        for spec in specs {
            match place(self, spec) {
                Ok(addrs) if !addrs.is_empty() => {
                    let mut answer = Breakpoint::default();
                    for gdb in addrs {
                        let native = self.machine().gdb_code_to_native(gdb);
                        let bp = self.make_bp(kind, native, spec);
                        answer = self.verified(bp.id, gdb, self.view.loc(gdb));
                        new.push((kind, bp));
                    }
                    answers.push(answer);
                }
                placed => {
                    let why = placed.err().unwrap_or_else(|| "no code there".to_string());
                    let id = self.new_id();
                    answers.push(Breakpoint::failed(id, why));
                }
            }
        }
        self.bps.retain(|(k, _)| *k != kind);
        self.bps.extend(new);
        self.sync_breakpoints();
        answers
    }

    pub(super) fn set_breakpoints(
        &mut self,
        args: SetBreakpointsArguments,
    ) -> Result<BreakpointsResponseBody, String> {
        let source = args.source.unwrap_or_default();
        let path = source
            .path
            .as_deref()
            .ok_or("setBreakpoints needs source.path")?;
        let specs = args.breakpoints.unwrap_or_default();
        let line_of = |spec: &SourceBreakpoint| spec.line.unwrap_or(0).max(0) as u32;
        let lines: Vec<u32> = specs.iter().map(line_of).collect();
        let mut answers = match self.view.file_index(path) {
            Some(file) => self.replace_breakpoints(BpKind::Source(file), &specs, |me, spec| {
                let line = line_of(spec);
                me.view
                    .line_addresses(file, line)
                    .map(|(_, addrs)| addrs)
                    .ok_or_else(|| format!("no code at or after line {line}"))
            }),
            // Not a file of the program: nothing is set, each is answered.
            None => lines
                .iter()
                .map(|_| {
                    let id = self.new_id();
                    Breakpoint::failed(id, format!("{path} is not a file of this program"))
                })
                .collect(),
        };
        // The IDE's own source object and, when refused, the line it asked for.
        for (answer, line) in answers.iter_mut().zip(lines) {
            if answer.verified {
                answer.source = Some(source.clone());
            } else {
                answer.line = Some(i64::from(line));
            }
        }
        Ok(BreakpointsResponseBody {
            breakpoints: answers,
        })
    }

    pub(super) fn set_function_breakpoints(
        &mut self,
        args: SetFunctionBreakpointsArguments,
    ) -> BreakpointsResponseBody {
        let specs = args.breakpoints.unwrap_or_default();
        let answers = self.replace_breakpoints(BpKind::Function, &specs, |me, spec| {
            let name = spec.name.as_deref().unwrap_or("");
            me.view
                .function_named(name)
                .or_else(|| me.view.label(name).filter(|l| l.1).map(|l| l.0))
                .map(|gdb| vec![gdb])
                .ok_or_else(|| format!("no function or code label named {name:?}"))
        });
        BreakpointsResponseBody {
            breakpoints: answers,
        }
    }

    pub(super) fn verified(
        &self,
        id: i64,
        gdb: u64,
        loc: Option<crate::dap::view::Loc>,
    ) -> Breakpoint {
        let native = self.machine().gdb_code_to_native(gdb);
        let mut b = Breakpoint {
            instruction_reference: Some(self.fmt_addr(native)),
            ..Breakpoint::verified(id)
        };
        if let Some(loc) = loc {
            b.line = Some(i64::from(loc.line));
            b.source = self.source(loc.file);
        }
        b
    }

    pub(super) fn set_instruction_breakpoints(
        &mut self,
        args: SetInstructionBreakpointsArguments,
    ) -> BreakpointsResponseBody {
        let specs = args.breakpoints.unwrap_or_default();
        let answers = self.replace_breakpoints(BpKind::Instruction, &specs, |me, spec| {
            let reference = spec.instruction_reference.as_deref().unwrap_or("");
            let offset = spec.offset.unwrap_or(0);
            let base = me
                .parse_addr(reference)
                .ok_or_else(|| format!("{reference:?} is not an address"))?;
            let gdb = me.machine().native_code_to_gdb(base);
            Ok(vec![gdb.wrapping_add(offset as u64)])
        });
        BreakpointsResponseBody {
            breakpoints: answers,
        }
    }

    pub(super) fn data_breakpoint_info(
        &self,
        args: DataBreakpointInfoArguments,
    ) -> DataBreakpointInfoResponseBody {
        let name = args.name.as_deref().unwrap_or("").trim();
        let unit = u64::from(self.machine().unit_bytes());
        let (addr, len, what) = match self.view.data_label(name) {
            Some(label) => {
                let units = (u64::from(label.ty.size) / unit).max(1)
                    * u64::from(label.count.unwrap_or(1)).max(1);
                (
                    self.machine().gdb_to_native(label.addr).0,
                    units,
                    label.name.clone(),
                )
            }
            None => match self.parse_addr(name.trim_start_matches('&')) {
                Some(addr) => (
                    addr,
                    u64::from(self.machine().word_units()),
                    self.fmt_addr(addr),
                ),
                None => {
                    return DataBreakpointInfoResponseBody {
                        data_id: None,
                        description: format!("{name:?} is not a data label or an address"),
                        ..DataBreakpointInfoResponseBody::default()
                    }
                }
            },
        };
        let plural = if len == 1 { "" } else { "s" };
        DataBreakpointInfoResponseBody {
            data_id: Some(format!("{}:{}", self.fmt_addr(addr), len)),
            description: format!("{what} ({len} unit{plural} at {})", self.fmt_addr(addr)),
            access_types: Some(vec![
                DataBreakpointAccessType::Read,
                DataBreakpointAccessType::Write,
                DataBreakpointAccessType::ReadWrite,
            ]),
            can_persist: Some(true),
        }
    }

    /// `setExceptionBreakpoints`: the debugging checks the IDE's filters name are on, the
    /// others off.
    pub(super) fn set_exception_breakpoints(
        &mut self,
        args: SetExceptionBreakpointsArguments,
    ) -> BreakpointsResponseBody {
        if let Some(checks) = &mut self.core.target.checks {
            let mut set = asmdbg_core::CheckSet::NONE;
            for name in &args.filters {
                if let Some(kind) = asmdbg_core::CheckKind::parse(name) {
                    set.insert(kind);
                }
            }
            checks.set_checks(set);
        }
        BreakpointsResponseBody::default()
    }

    pub(super) fn set_data_breakpoints(
        &mut self,
        args: SetDataBreakpointsArguments,
    ) -> BreakpointsResponseBody {
        let specs = args.breakpoints.unwrap_or_default();
        let mut answers = Vec::new();
        let mut new = Vec::new();
        for spec in &specs {
            let id = self.new_id();
            let data_id = spec.data_id.as_deref().unwrap_or("");
            let parsed = data_id
                .rsplit_once(':')
                .and_then(|(a, l)| Some((self.parse_addr(a)?, l.parse::<u64>().ok()?)));
            let kind = match spec.access_type {
                Some(DataBreakpointAccessType::Read) => WatchKind::Read,
                Some(DataBreakpointAccessType::ReadWrite) => WatchKind::Access,
                Some(DataBreakpointAccessType::Write) | None => WatchKind::Write,
            };
            match parsed {
                Some((addr, len)) => {
                    new.push(DataBp {
                        id,
                        addr,
                        len: len.max(1),
                        kind,
                    });
                    answers.push(Breakpoint::verified(id));
                }
                None => answers.push(Breakpoint {
                    message: Some(format!(
                        "{data_id:?} is not a data id from dataBreakpointInfo"
                    )),
                    ..Breakpoint::failed(id, String::new())
                }),
            }
        }
        self.data_bps = new;
        self.sync_watchpoints();
        BreakpointsResponseBody {
            breakpoints: answers,
        }
    }

    /// A breakpoint stop at the pc: whether it stops (conditions, hit counts), with log
    /// messages written on the way; the ids of the breakpoints that stop.
    pub(super) fn breakpoint_decides(&mut self, out: &mut Outbox) -> Option<Vec<i64>> {
        let pc = self.machine().pc();
        let mut stopping = Vec::new();
        let here: Vec<usize> = (0..self.bps.len())
            .filter(|&i| self.bps[i].1.addr == pc)
            .collect();
        if here.is_empty() {
            // A breakpoint the IDE did not set (none): stop anyway, it is the machine's.
            return Some(Vec::new());
        }
        for i in here {
            let bp = self.bps[i].1.clone();
            if let Some(cond) = &bp.condition {
                match expr::evaluate(cond, &self.names()) {
                    Ok(0) => continue,
                    Ok(_) => {}
                    Err(e) => {
                        out.output(
                            "console",
                            &format!("breakpoint condition {cond:?}: {e}; stopping\n"),
                        );
                    }
                }
            }
            self.bps[i].1.hits += 1;
            let hits = self.bps[i].1.hits;
            if let Some(hc) = &bp.hit_condition {
                if !hit_condition_met(hc, hits) {
                    continue;
                }
            }
            if let Some(log) = &bp.log_message {
                let text = interpolate(log, &self.names());
                out.output("console", &format!("{text}\n"));
                continue;
            }
            stopping.push(bp.id);
        }
        if stopping.is_empty() {
            None
        } else {
            Some(stopping)
        }
    }

    /// Going backwards, whether the breakpoints at the pc stop: those whose condition holds
    /// (hit counts count forward runs only, and log points log forward only); their ids.
    pub(super) fn stops_in_reverse(&self) -> Option<Vec<i64>> {
        let pc = self.machine().pc();
        let here: Vec<&Bp> = self
            .bps
            .iter()
            .map(|(_, b)| b)
            .filter(|b| b.addr == pc)
            .collect();
        if here.is_empty() {
            return Some(Vec::new());
        }
        let ids: Vec<i64> = here
            .into_iter()
            .filter(|b| b.log_message.is_none())
            .filter(|b| match &b.condition {
                Some(cond) => expr::evaluate(cond, &self.names()) != Ok(0),
                None => true,
            })
            .map(|b| b.id)
            .collect();
        (!ids.is_empty()).then_some(ids)
    }

    /// A `data breakpoint` stop for an access of `kind` to `addr`, naming the data
    /// breakpoints it hit.
    pub(super) fn data_breakpoint_stop(&mut self, kind: WatchKind, addr: u64, out: &mut Outbox) {
        let ids: Vec<i64> = self
            .data_bps
            .iter()
            .filter(|w| addr >= w.addr && addr < w.addr.saturating_add(w.len))
            .map(|w| w.id)
            .collect();
        let what = match kind {
            WatchKind::Write => "write to",
            WatchKind::Read => "read of",
            WatchKind::Access => "access to",
        };
        let desc = format!("{what} {}", self.describe_data(addr));
        self.stopped(out, "data breakpoint", Some(desc), ids);
    }

    pub(super) fn describe_data(&self, native: u64) -> String {
        let gdb = self.machine().native_to_gdb(native);
        match self.view.data.iter().find(|d| d.addr == gdb) {
            Some(d) => format!("{} ({})", d.name, self.fmt_addr(native)),
            None => self.fmt_addr(native),
        }
    }

    pub(super) fn machine_has_bp_here(&self) -> bool {
        let pc = self.machine().pc();
        self.bps.iter().any(|(_, b)| b.addr == pc)
    }
}

/// VS Code's hit conditions: `N` or `>= N` (from the Nth hit on), `> N`, `== N`, `% N`.
fn hit_condition_met(text: &str, hits: u64) -> bool {
    let t = text.trim();
    let (op, rest) = ["==", ">=", ">", "%", "="]
        .iter()
        .find_map(|op| t.strip_prefix(op).map(|r| (*op, r)))
        .unwrap_or((">=", t));
    let Some(n) = expr::number(rest.trim()).map(|n| n as u64) else {
        return true;
    };
    match op {
        "==" | "=" => hits == n,
        ">" => hits > n,
        "%" => n != 0 && hits % n == 0,
        _ => hits >= n,
    }
}

/// A log message with its `{expression}` holes filled.
fn interpolate(text: &str, ctx: &dyn ExprContext) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => {
                let inner = &rest[open + 1..open + close];
                match expr::evaluate(inner, ctx) {
                    Ok(v) => out.push_str(&v.to_string()),
                    Err(e) => out.push_str(&format!("<{e}>")),
                }
                rest = &rest[open + close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_conditions() {
        assert!(!hit_condition_met("3", 2));
        assert!(hit_condition_met("3", 3));
        assert!(hit_condition_met(">= 3", 4));
        assert!(!hit_condition_met("== 3", 4));
        assert!(hit_condition_met("%2", 4));
        assert!(!hit_condition_met("% 2", 3));
        assert!(hit_condition_met("> 1", 2));
    }
}
