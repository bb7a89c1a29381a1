//! `asmdbg dap` moving through recorded history on each machine (issue 28): going forward from
//! a breakpoint reached backwards, data breakpoints that stop after the access forwards and
//! before it backwards, going on from a guest fault, and the stop at the program's end.

mod support;

use serde_json::{json, Value};
use support::dap::DapClient;
use support::Scratch;

/// A small program per machine: a loop of three passes counting in a register, the count
/// stored once after it, and the end.
struct Case {
    file: &'static str,
    source: &'static str,
    /// The loop's first line (the counting instruction).
    loop_line: i64,
    /// The store of the count, and the line after it.
    store_line: i64,
    after_store: i64,
    /// The counting register and the stored word, as `evaluate` reads them.
    counter: &'static str,
    stored: &'static str,
    /// What `dataBreakpointInfo` is asked for the stored word.
    data_name: &'static str,
    /// How `evaluate` shows 0, 1, 2 and 3.
    values: [&'static str; 4],
}

const LC3: Case = Case {
    file: "count.asm",
    source: "\t.ORIG x3000\n\tAND R1, R1, #0\n\tADD R2, R1, #3\nLOOP\tADD R1, R1, #1\n\tADD R2, R2, #-1\n\tBRp LOOP\n\tST R1, TOTAL\n\tHALT\nTOTAL\t.FILL #0\n\t.END\n",
    loop_line: 4,
    store_line: 7,
    after_store: 8,
    counter: "R1",
    stored: "TOTAL",
    data_name: "TOTAL",
    values: ["0 (x0000)", "1 (x0001)", "2 (x0002)", "3 (x0003)"],
};

const MIPS: Case = Case {
    file: "count.s",
    source: ".data\ntotal:\t.word 0\n.text\nmain:\tli $t1, 0\n\tli $t2, 3\nloop:\taddi $t1, $t1, 1\n\taddi $t2, $t2, -1\n\tbgtz $t2, loop\n\tsw $t1, total\n\tli $v0, 10\n\tsyscall\n",
    loop_line: 6,
    store_line: 9,
    after_store: 10,
    counter: "$t1",
    stored: "total",
    data_name: "total",
    values: ["0 (0x00000000)", "1 (0x00000001)", "2 (0x00000002)", "3 (0x00000003)"],
};

const SIMPLERISC: Case = Case {
    file: "count.asm",
    source: ".main:\n\tmov r1, 0\n\tmov r2, 3\n.loop:\n\tadd r1, r1, 1\n\tsub r2, r2, 1\n\tcmp r2, 0\n\tbgt .loop\n\tmov r4, 0\n\tst r1, 1000[r4]\n\tmov r3, 7\n",
    loop_line: 5,
    store_line: 10,
    after_store: 11,
    counter: "r1",
    stored: "*1000",
    data_name: "1000",
    values: [
        "0 (0x00000000)",
        "1 (0x00000001)",
        "2 (0x00000002)",
        "3 (0x00000003)",
    ],
};

fn cases() -> [(Case, Value); 3] {
    [
        (LC3, Value::Null),
        (MIPS, Value::Null),
        (SIMPLERISC, json!({"isa": "simplerisc"})),
    ]
}

/// A session stopped on the entry of `case`'s program.
fn start(dir: &Scratch, case: &Case, isa: &Value) -> (DapClient, String) {
    let prog = dir.write(case.file, case.source);
    let mut args = json!({"program": prog});
    if let Some(isa) = isa.get("isa") {
        args["isa"] = isa.clone();
    }
    let mut dap = DapClient::start();
    assert_eq!(dap.launch(args)["reason"], "entry");
    (dap, prog.to_string_lossy().into_owned())
}

fn eval(dap: &mut DapClient, expression: &str) -> String {
    dap.ok(
        "evaluate",
        json!({"expression": expression, "context": "watch"}),
    )["result"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A motion and the stop it ends with.
fn motion(dap: &mut DapClient, command: &str, args: Value) -> Value {
    let mut args = args;
    args["threadId"] = json!(1);
    dap.ok(command, args);
    dap.stopped()
}

/// Item 1: after reverseContinue lands on a breakpoint, continue, next and an instruction
/// step run on from it (they stopped again where they were, executing nothing).
#[test]
fn forward_from_a_breakpoint_reached_backwards_runs_on() {
    for (case, isa) in cases() {
        let dir = Scratch::new();
        let (mut dap, prog) = start(&dir, &case, &isa);
        let name = case.file;
        dap.ok(
            "setBreakpoints",
            json!({"source": {"path": prog}, "breakpoints": [{"line": case.loop_line}]}),
        );
        for pass in 0..3 {
            let stop = motion(&mut dap, "continue", json!({}));
            assert_eq!(stop["reason"], "breakpoint", "{name}: {stop}");
            assert_eq!(eval(&mut dap, case.counter), case.values[pass], "{name}");
        }
        // Back to the second hit, then each forward motion from there.
        let back_to_second_hit = |dap: &mut DapClient| {
            let stop = motion(dap, "reverseContinue", json!({}));
            assert_eq!(stop["reason"], "breakpoint", "{name}: {stop}");
            assert_eq!(eval(dap, case.counter), case.values[1], "{name}");
            assert_eq!(dap.top().1, case.loop_line, "{name}");
        };
        back_to_second_hit(&mut dap);
        let stop = motion(&mut dap, "continue", json!({}));
        assert_eq!(stop["reason"], "breakpoint", "{name}: {stop}");
        assert_eq!(
            eval(&mut dap, case.counter),
            case.values[2],
            "{name}: continue reaches the third hit"
        );
        back_to_second_hit(&mut dap);
        let stop = motion(&mut dap, "next", json!({}));
        assert_eq!(stop["reason"], "step", "{name}: {stop}");
        assert_eq!(dap.top().1, case.loop_line + 1, "{name}: next");
        assert_eq!(eval(&mut dap, case.counter), case.values[2], "{name}");
        back_to_second_hit(&mut dap);
        let stop = motion(&mut dap, "stepIn", json!({"granularity": "instruction"}));
        assert_eq!(stop["reason"], "step", "{name}: {stop}");
        assert_eq!(dap.top().1, case.loop_line + 1, "{name}: stepIn");
        assert_eq!(eval(&mut dap, case.counter), case.values[2], "{name}");
    }
}

/// Item 3: a data breakpoint stops after the write going forwards (the new value in memory,
/// the PC past the store), by continue, by line and by instruction, and before it going
/// backwards (the old value, the PC on the store).
#[test]
fn data_breakpoints_stop_after_the_write_forwards_and_before_it_backwards() {
    for (case, isa) in cases() {
        let dir = Scratch::new();
        let (mut dap, _) = start(&dir, &case, &isa);
        let name = case.file;
        let info = dap.ok("dataBreakpointInfo", json!({"name": case.data_name}));
        let set = dap.ok(
            "setDataBreakpoints",
            json!({"breakpoints": [{"dataId": info["dataId"], "accessType": "write"}]}),
        );
        let id = set["breakpoints"][0]["id"].clone();
        let after = |dap: &mut DapClient, stop: Value, how: &str| {
            assert_eq!(stop["reason"], "data breakpoint", "{name} {how}: {stop}");
            assert_eq!(stop["hitBreakpointIds"][0], id, "{name}");
            assert_eq!(dap.top().1, case.after_store, "{name} {how}");
            assert_eq!(eval(dap, case.stored), case.values[3], "{name} {how}");
        };
        let before = |dap: &mut DapClient, stop: Value| {
            assert_eq!(stop["reason"], "data breakpoint", "{name} back: {stop}");
            assert_eq!(stop["hitBreakpointIds"][0], id, "{name}");
            assert_eq!(dap.top().1, case.store_line, "{name} back");
            assert_eq!(eval(dap, case.stored), case.values[0], "{name} back");
        };
        let stop = motion(&mut dap, "continue", json!({}));
        after(&mut dap, stop, "continue");
        let stop = motion(&mut dap, "reverseContinue", json!({}));
        before(&mut dap, stop);
        let stop = motion(&mut dap, "next", json!({}));
        after(&mut dap, stop, "next");
        let stop = motion(&mut dap, "reverseContinue", json!({}));
        before(&mut dap, stop);
        let stop = motion(&mut dap, "stepIn", json!({"granularity": "instruction"}));
        after(&mut dap, stop, "stepIn");
        // From the end of the program backwards as well.
        let stop = motion(&mut dap, "continue", json!({}));
        assert_eq!(stop["reason"], "exit", "{name}: {stop}");
        let stop = motion(&mut dap, "reverseContinue", json!({}));
        before(&mut dap, stop);
    }
}

/// The `output` events of category `category` taken so far, in order.
fn outputs(dap: &mut DapClient, category: &str) -> Vec<String> {
    let mut texts = Vec::new();
    dap.events.retain(|e| {
        if e["event"] == "output" && e["body"]["category"] == category {
            texts.push(e["body"]["output"].as_str().unwrap_or_default().to_string());
            false
        } else {
            true
        }
    });
    texts
}

/// Item 4: the fault's text goes to stderr once per stop; going back and forward again
/// reaches the fault again; going on from it ends the program as `asmdbg run` does.
#[test]
fn going_on_from_a_fault_ends_the_program() {
    /// (file, source, launch arguments, message, exit code, the faulting instruction, motions)
    type Fault = (
        &'static str,
        &'static str,
        Value,
        &'static str,
        i64,
        &'static str,
        &'static [&'static str],
    );
    let cases: [Fault; 3] = [
        (
            "ill.asm",
            "\t.ORIG x3000\n\tAND R0, R0, #0\n\t.FILL xD000\n\t.END\n",
            // The .FILL runs on purpose: the fault, not the code-as-data check, is tested.
            json!({"profile": "lc3sim", "noChecks": true}),
            "Illegal instruction at x3001!",
            1,
            "x3001",
            &["continue", "next", "stepIn", "stepOut"],
        ),
        (
            "segv.s",
            ".text\nmain:\tli $t0, 0\n\tlw $t1, 0($t0)\n\tli $v0, 10\n\tsyscall\n",
            json!({}),
            "Runtime exception at 0x00400004: address out of range 0x00000000",
            0,
            "0x00400004",
            &["continue", "next"],
        ),
        (
            "div.asm",
            ".main:\n\tmov r1, 5\n\tdiv r2, r1, r0\n\tmov r3, 1\n",
            // r0 is the course machine's zero: the fault, not the uninitialised check, is tested.
            json!({"isa": "simplerisc", "noChecks": true}),
            "Cannot divide by a 0",
            1,
            "4",
            &["stepIn", "continue"],
        ),
    ];
    for (file, source, extra, message, code, ip, motions) in cases {
        for command in motions {
            let dir = Scratch::new();
            let prog = dir.write(file, source);
            let mut args = extra.clone();
            args["program"] = json!(prog);
            let mut dap = DapClient::start();
            dap.launch(args);
            let fault = |dap: &mut DapClient| {
                let stop = motion(dap, "continue", json!({}));
                assert_eq!(stop["reason"], "exception", "{file}: {stop}");
                assert!(
                    stop["description"].as_str().unwrap().contains(message),
                    "{file}: {stop}"
                );
                let said = outputs(dap, "stderr");
                assert_eq!(said.len(), 1, "{file}: {said:?}");
                assert!(said[0].contains(message), "{file}: {said:?}");
                assert_eq!(dap.top().2, ip, "{file}: the faulting instruction");
            };
            fault(&mut dap);
            // Back one instruction and on again: the same fault, a new stop.
            let stop = motion(&mut dap, "stepBack", json!({"granularity": "instruction"}));
            assert_eq!(stop["reason"], "step", "{file}: {stop}");
            assert_ne!(dap.top().2, ip, "{file}");
            fault(&mut dap);
            dap.ok(command, json!({"threadId": 1}));
            assert_eq!(
                dap.event("exited")["body"]["exitCode"],
                code,
                "{file} {command}"
            );
            dap.event("terminated");
            assert!(
                !dap.events.iter().any(|e| e["event"] == "stopped"),
                "{file} {command}: {:?}",
                dap.events
            );
            assert_eq!(outputs(&mut dap, "stderr"), Vec::<String>::new(), "{file}");
            assert!(
                !outputs(&mut dap, "stdout").concat().contains(message),
                "{file}: the fault is not program output"
            );
        }
    }
}

/// Item 5: the stop at the program's end has reason `exit`, and its top frame is in the source
/// at the last instruction's line, named after the code it is in, also when the PC has run off
/// the end of the code.
#[test]
fn the_end_of_the_program_is_an_exit_stop_at_the_last_line() {
    let cases: [(&str, &str, Value, i64, &str); 5] = [
        // HALT runs the OS's trap routine, which halts the machine.
        (LC3.file, LC3.source, json!({}), 109, "TRAP_HALT"),
        (MIPS.file, MIPS.source, json!({}), 11, "main"),
        (
            "off.s",
            ".text\nmain:\tli $t1, 1\nmore:\tli $t2, 2\n",
            json!({}),
            3,
            // The function the last instruction is in (`more` is a label inside it).
            "main",
        ),
        (
            "exit2.s",
            ".text\nmain:\tli $a0, 3\n\tli $v0, 17\n\tsyscall\n",
            json!({}),
            4,
            "main",
        ),
        (
            SIMPLERISC.file,
            SIMPLERISC.source,
            json!({"isa": "simplerisc"}),
            11,
            // The slot after the code, as gdb names it, at the last line.
            "end_of_program",
        ),
    ];
    for (file, source, extra, line, function) in cases {
        let dir = Scratch::new();
        let prog = dir.write(file, source);
        let mut args = extra.clone();
        args["program"] = json!(prog);
        let mut dap = DapClient::start();
        dap.launch(args);
        let stop = motion(&mut dap, "continue", json!({}));
        assert_eq!(stop["reason"], "exit", "{file}: {stop}");
        let code = if file == "exit2.s" { 3 } else { 0 };
        assert_eq!(
            stop["description"],
            format!("The program ended (exit code {code}): step back to see how, or continue to end the session"),
            "{file}"
        );
        let st = dap.ok("stackTrace", json!({"threadId": 1}));
        let top = &st["stackFrames"][0];
        assert_eq!(top["name"], function, "{file}: {top}");
        assert_eq!(top["line"], line, "{file}: {top}");
        let path = top["source"]["path"].as_str().unwrap_or_default();
        if function == "TRAP_HALT" {
            assert!(path.ends_with("lc3-os-patt.asm"), "{file}: {top}");
        } else {
            assert_eq!(path, prog.to_str().unwrap(), "{file}: {top}");
        }
        dap.ok("continue", json!({"threadId": 1}));
        assert_eq!(dap.event("exited")["body"]["exitCode"], code, "{file}");
        dap.event("terminated");
    }
}
