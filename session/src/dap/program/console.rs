//! The debug console and the keys: `evaluate` (an expression, a data label, `monitor …` as
//! under gdb, `> text` typed on the program's console) and `asmdbgKey`, the display panel's
//! keys. The program's own console (its output as `output` events or a terminal, its input)
//! flows through the session core (`crate::core`).

use super::*;

impl<G: GdbMachine> DapProgram<G> {
    pub(super) fn evaluate(
        &mut self,
        args: EvaluateArguments,
        out: &mut Outbox,
    ) -> Result<EvaluateResponseBody, String> {
        let text = args.expression.as_deref().unwrap_or("").trim().to_string();
        let context = args.context.as_deref().unwrap_or("repl");
        if context == "repl" {
            if let Some(command) = text
                .strip_prefix("monitor ")
                .or_else(|| (text == "monitor").then_some("help"))
            {
                let reply = monitor_command(&mut self.core.target, command);
                self.core.collect_output();
                out.invalidated(&["all"]);
                return Ok(EvaluateResponseBody::text(reply));
            }
            if let Some(typed) = text.strip_prefix('>') {
                // What a person typing on the console sends: the keys to a machine that reads
                // keys (LC-3: Enter would be the next key), the line and its Enter to a machine
                // that reads lines (MARS, SimpleRISC).
                let mut keys = typed.strip_prefix(' ').unwrap_or(typed).to_string();
                if !self.machine().console_reads_keys() {
                    keys.push('\n');
                }
                self.core.on_console_input(keys.as_bytes());
                return Ok(EvaluateResponseBody::text(format!(
                    "typed {keys:?} on the program's console"
                )));
            }
        }
        if let Some(label) = self.view.data_label(&text).cloned() {
            let native = self.machine().gdb_to_native(label.addr).0;
            return Ok(EvaluateResponseBody {
                result: self.data_value(&label),
                type_: Some(label.ty.name.to_string()),
                variables_reference: 0,
                memory_reference: Some(self.fmt_addr(native)),
            });
        }
        let value = expr::evaluate(&text, &self.names())?;
        Ok(EvaluateResponseBody::text(self.format_value(value)))
    }

    /// `asmdbgKey`: keys pressed in the display panel, for the machine's keyboard device (or
    /// its console, for a machine without one), logged like typed input.
    pub(super) fn press_keys(&mut self, args: &Value) -> Result<AsmdbgKeyResponseBody, String> {
        let keys = keys_of(args)?;
        if self.held_keys.len() + keys.len() > MAX_HELD_KEYS {
            return Err(format!(
                "{} keys already wait for the program to come back to the end of its recorded run; continue it first",
                self.held_keys.len()
            ));
        }
        let count = keys.len();
        self.held_keys.extend(keys);
        // A single step that waited for input may run again.
        self.core.step_waits = false;
        self.release_keys();
        Ok(AsmdbgKeyResponseBody {
            keys: count,
            held: self.held_keys.len(),
        })
    }

    /// Gives the machine the keys pressed, unless it is in the past of its history (there the
    /// replay brings the keys recorded; new ones come after them, at the end of the recording).
    /// A keyboard device gets them one at a time, each once the program took the one before,
    /// as if typed live: keys typed in the past must not all arrive at once, where a one-key
    /// device keeps only the last.
    pub(super) fn release_keys(&mut self) {
        if self.held_keys.is_empty() || self.core.in_past() {
            return;
        }
        if !self.machine().has_keyboard_device() {
            let keys: Vec<u8> = self.held_keys.drain(..).collect();
            self.core.on_console_input(&keys);
            return;
        }
        if !self.core.target.machine.key_unread() {
            if let Some(key) = self.held_keys.pop_front() {
                self.core.target.machine.queue_key(key);
            }
        }
    }
}
