//! The program's display and keyboard over DAP (issue 29, VS Code): `asmdbgDisplay` events
//! carry frames right after the launch, after every stop (stepping back redraws the earlier
//! frame) and, throttled, while the program runs; `asmdbgKey` requests press keys that the
//! machine logs like typed input, so time travel replays them.

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::dap::DapClient;
use support::Scratch;

/// A frame event's pixels as `0x00RRGGBB` units.
fn pixels(event: &Value) -> Vec<u32> {
    let text = event["body"]["pixels"].as_str().expect("pixels");
    let rgb = asmdbg_session::dap::wire::unbase64(text).expect("base64");
    let body = &event["body"];
    let units = body["width"].as_u64().unwrap() * body["height"].as_u64().unwrap();
    assert_eq!(rgb.len() as u64, 3 * units, "3 bytes a unit: {body}");
    rgb.chunks(3)
        .map(|p| u32::from(p[0]) << 16 | u32::from(p[1]) << 8 | u32::from(p[2]))
        .collect()
}

/// PennSim's colour of an LC-3 video word.
fn pennsim(word: u16) -> u32 {
    asmdbg_core::display::pennsim_rgb(word)
}

/// The frame the display shows now (`asmdbgFrame`).
fn showing(dap: &mut DapClient) -> Vec<u32> {
    let body = dap.ok("asmdbgFrame", json!({}));
    pixels(&json!({ "body": body }))
}

fn frame_events(dap: &mut DapClient) -> Vec<Value> {
    let mut frames = Vec::new();
    dap.events.retain(|e| {
        if e["event"] == "asmdbgDisplay" {
            frames.push(e.clone());
            false
        } else {
            true
        }
    });
    frames
}

const RED_DOT: &str = "        .ORIG x3000
        LD R1, RED
        STI R1, VIDEO
        HALT
RED     .FILL x7C00
VIDEO   .FILL xC000
        .END
";

#[test]
fn frames_follow_the_launch_every_stop_and_stepping_back() {
    let dir = Scratch::new();
    let program = dir.write("dot.asm", RED_DOT);
    let mut dap = DapClient::start();
    dap.ok(
        "initialize",
        json!({"adapterID": "asmdbg", "linesStartAt1": true}),
    );
    dap.ok(
        "launch",
        json!({"program": program, "display": true, "console": "internalConsole"}),
    );
    dap.event("initialized");
    // The first frame comes with the launch: PennSim's 128 x 124 screen (each pixel a 2 x 2
    // block, as its window shows it), black.
    let first = dap.event("asmdbgDisplay");
    assert_eq!(first["body"]["width"], 128);
    assert_eq!(first["body"]["height"], 124);
    assert_eq!(first["body"]["unitWidth"], 2);
    assert_eq!(first["body"]["unitHeight"], 2);
    assert!(pixels(&first).iter().all(|&p| p == 0));
    dap.ok("configurationDone", json!({}));
    dap.stopped();
    let step = json!({"threadId": 1, "granularity": "instruction"});
    dap.ok("stepIn", step.clone());
    dap.stopped();
    assert!(
        frame_events(&mut dap).is_empty(),
        "the LD drew nothing: no frame"
    );
    dap.ok("stepIn", step.clone());
    dap.stopped();
    let drawn = dap.event("asmdbgDisplay");
    let red = pixels(&drawn);
    assert_eq!(red[0], 0xf8_00_00, "x7C00 at xC000 is PennSim's red");
    assert!(red[1..].iter().all(|&p| p == 0));
    // Back over the store: the black screen again; forward: red again.
    dap.ok("stepBack", step.clone());
    dap.stopped();
    assert_eq!(pixels(&dap.event("asmdbgDisplay"))[0], 0);
    dap.ok("stepIn", step);
    dap.stopped();
    assert_eq!(pixels(&dap.event("asmdbgDisplay"))[0], 0xf8_00_00);
    // The current frame on request (a panel opened late).
    assert_eq!(showing(&mut dap)[0], 0xf8_00_00);
    // restart: the program as loaded, its screen black.
    dap.ok("restart", json!({}));
    dap.stopped();
    assert_eq!(pixels(&dap.event("asmdbgDisplay"))[0], 0);
    dap.ok("disconnect", json!({}));
}

#[test]
fn keys_from_the_panel_reach_the_program_and_are_replayed() {
    let dir = Scratch::new();
    let program = dir.write(
        "key.asm",
        "        .ORIG x3000
        GETC
        STI R0, VIDEO
        HALT
VIDEO   .FILL xC001
        .END
",
    );
    let mut dap = DapClient::start();
    dap.launch(json!({"program": program, "display": true}));
    assert_eq!(frame_events(&mut dap).len(), 1, "the first frame");
    dap.ok("continue", json!({"threadId": 1}));
    // GETC waits for the key.
    std::thread::sleep(Duration::from_millis(200));
    assert!(!dap.has_event("stopped"), "{:?}", dap.events);
    let pressed = dap.ok("asmdbgKey", json!({"key": u32::from(b'A')}));
    assert_eq!(pressed["keys"], 1);
    let end = dap.stopped();
    assert_eq!(end["reason"], "exit", "{end}");
    let mut last = None;
    let deadline = Instant::now() + Duration::from_secs(10);
    while last.is_none() && Instant::now() < deadline {
        last = frame_events(&mut dap).pop();
        if last.is_none() {
            dap.ok("threads", json!({}));
        }
    }
    let frame = pixels(&last.expect("a frame after the key"));
    assert_eq!(
        frame[1],
        pennsim(u16::from(b'A')),
        "the key 'A' as a colour"
    );
    // Back to before the key was read, then forward again: the replay brings the same key.
    dap.ok("reverseContinue", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(pixels(&dap.event("asmdbgDisplay"))[1], 0);
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "exit");
    assert_eq!(
        pixels(&dap.event("asmdbgDisplay"))[1],
        pennsim(u16::from(b'A'))
    );
    // Bad requests say why.
    let why = dap.fails("asmdbgKey", json!({"key": 300}));
    assert!(why.contains("0 to 255"), "{why}");
    let why = dap.fails("asmdbgKey", json!({}));
    assert!(why.contains("`key`"), "{why}");
    dap.ok("disconnect", json!({}));
}

// A game's loop draws all the time: frames arrive about 30 times a second, not once a burst;
// a loop that draws nothing sends none.
#[test]
fn a_running_program_sends_frames_at_most_thirty_a_second_and_only_changes() {
    let dir = Scratch::new();
    let drawing = dir.write(
        "draw.asm",
        "        .ORIG x3000
        LD R2, VIDEO
LOOP    ADD R1, R1, #1
        STR R1, R2, #0
        BRnzp LOOP
VIDEO   .FILL xC000
        .END
",
    );
    let mut dap = DapClient::start();
    dap.launch(json!({"program": drawing, "display": true, "noHistory": true}));
    frame_events(&mut dap);
    dap.ok("continue", json!({"threadId": 1}));
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(1000));
    dap.ok("pause", json!({"threadId": 1}));
    let seconds = started.elapsed().as_secs_f64();
    dap.stopped();
    let frames = frame_events(&mut dap).len() as f64;
    assert!(frames >= 3.0, "{frames} frames in {seconds:.2} s");
    assert!(
        frames <= 31.0 * seconds + 3.0,
        "{frames} frames in {seconds:.2} s"
    );

    let idle = dir.write(
        "idle.asm",
        "        .ORIG x3000
LOOP    ADD R1, R1, #1
        BRnzp LOOP
        .END
",
    );
    let mut dap = DapClient::start();
    dap.launch(json!({"program": idle, "display": true, "noHistory": true}));
    assert_eq!(frame_events(&mut dap).len(), 1, "the first frame only");
    dap.ok("continue", json!({"threadId": 1}));
    std::thread::sleep(Duration::from_millis(300));
    dap.ok("pause", json!({"threadId": 1}));
    dap.stopped();
    assert!(frame_events(&mut dap).is_empty(), "{:?}", dap.events);
}

// MIPS: MARS's Bitmap Display as the launch attribute `bitmap` configures it.
#[test]
fn a_mips_bitmap_display_sends_its_units_and_unit_size() {
    let dir = Scratch::new();
    let program = dir.write(
        "bitmap.asm",
        "        .text
main:   li $t0, 0x00ff8000
        sw $t0, 4($gp)
        li $v0, 10
        syscall
",
    );
    let mut dap = DapClient::start();
    dap.ok(
        "initialize",
        json!({"adapterID": "asmdbg", "linesStartAt1": true}),
    );
    dap.ok(
        "launch",
        json!({"program": program, "isa": "mips", "bitmap": "64x64,unit=8,base=gp", "console": "internalConsole"}),
    );
    let first = dap.event("asmdbgDisplay");
    assert_eq!(first["body"]["width"], 8);
    assert_eq!(first["body"]["height"], 8);
    assert_eq!(first["body"]["unitWidth"], 8);
    assert_eq!(first["body"]["unitHeight"], 8);
    dap.ok("configurationDone", json!({}));
    dap.stopped();
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "exit");
    let frame = pixels(&dap.event("asmdbgDisplay"));
    assert_eq!(frame[1], 0x00ff8000);
    assert_eq!(frame[0], 0);
    dap.ok("disconnect", json!({}));
}

// A program without a display gets no frames, and asking for one says why.
#[test]
fn a_program_without_a_display_sends_no_frames() {
    let dir = Scratch::new();
    let program = dir.write("plain.asm", RED_DOT);
    let mut dap = DapClient::start();
    dap.launch(json!({"program": program}));
    dap.ok("continue", json!({"threadId": 1}));
    dap.stopped();
    assert!(!dap.has_event("asmdbgDisplay"), "{:?}", dap.events);
    let why = dap.fails("asmdbgFrame", json!({}));
    assert!(why.contains("no display"), "{why}");
    dap.ok("disconnect", json!({}));
}

// A key pressed while the machine is in the past waits until it is back at the end of its
// recorded run: the replay first brings the keys recorded, then the new one comes.
#[test]
fn a_key_pressed_in_the_past_comes_after_the_recorded_ones() {
    let dir = Scratch::new();
    let program = dir.write(
        "keys.asm",
        "        .ORIG x3000
        GETC
        STI R0, FIRST
        GETC
        STI R0, SECOND
        HALT
FIRST   .FILL xC001
SECOND  .FILL xC002
        .END
",
    );
    let mut dap = DapClient::start();
    dap.launch(json!({"program": program, "display": true}));
    dap.ok("continue", json!({"threadId": 1}));
    dap.ok("asmdbgKey", json!({"text": "A"}));
    // The second GETC waits once the first store drew 'A' (a frame event says so, however slow
    // the machine is today): pause there, then go back before the first store.
    while pixels(&dap.event("asmdbgDisplay"))[1] != pennsim(u16::from(b'A')) {}
    dap.ok("pause", json!({"threadId": 1}));
    dap.stopped();
    let set = dap.ok(
        "setBreakpoints",
        json!({"source": {"path": program}, "breakpoints": [{"line": 3}]}),
    );
    assert_eq!(set["breakpoints"][0]["verified"], true, "{set}");
    dap.ok("reverseContinue", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "breakpoint");
    dap.ok(
        "setBreakpoints",
        json!({"source": {"path": program}, "breakpoints": []}),
    );
    assert_eq!(showing(&mut dap)[1], 0, "before the first store");
    frame_events(&mut dap);
    dap.ok("asmdbgKey", json!({"text": "B"}));
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "exit");
    // The display at the stop (a frame event sent while the replay ran may still be queued:
    // under load it can show the run before the first store).
    let frame = showing(&mut dap);
    assert_eq!(frame[1], pennsim(u16::from(b'A')));
    assert_eq!(frame[2], pennsim(u16::from(b'B')));
    dap.ok("disconnect", json!({}));
}

// MIPS: the panel's keys go to MARS's MMIO keyboard (connected with a bitmap display), which a
// game polls; going back and forward replays the key.
#[test]
fn keys_from_the_panel_reach_a_mips_mmio_keyboard() {
    let dir = Scratch::new();
    let program = dir.write(
        "poll.asm",
        "        .text
main:   lui $t0, 0xffff
wait:   lw $t1, 0($t0)
        andi $t1, $t1, 1
        beq $t1, $zero, wait
        lw $t2, 4($t0)
        sw $t2, 0($gp)
        li $v0, 10
        syscall
",
    );
    let mut dap = DapClient::start();
    dap.launch(json!({"program": program, "isa": "mips", "bitmap": "64x64,unit=8,base=gp"}));
    frame_events(&mut dap);
    dap.ok("continue", json!({"threadId": 1}));
    std::thread::sleep(Duration::from_millis(100));
    assert!(!dap.has_event("stopped"), "it polls: {:?}", dap.events);
    dap.ok("asmdbgKey", json!({"text": "d"}));
    assert_eq!(dap.stopped()["reason"], "exit");
    assert_eq!(showing(&mut dap)[0], u32::from(b'd'));
    dap.ok("reverseContinue", json!({"threadId": 1}));
    dap.stopped();
    assert_eq!(showing(&mut dap)[0], 0);
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "exit");
    assert_eq!(showing(&mut dap)[0], u32::from(b'd'));
    dap.ok("disconnect", json!({}));
}

// Keys typed while the program is in its past are new input at the end of the recording: a
// one-key device (MARS's MMIO keyboard) gets them one at a time there, each after the program
// read the one before, as if typed live — not all at once, where only the last would count.
// The panel is told how many wait.
#[test]
fn keys_typed_in_the_past_reach_a_one_key_keyboard_one_by_one() {
    let dir = Scratch::new();
    let program = dir.write(
        "three.asm",
        "        .text
main:   lui $t0, 0xffff
        move $t3, $gp
        li $t4, 3
wait:   lw $t1, 0($t0)
        andi $t1, $t1, 1
        beq $t1, $zero, wait
        lw $t2, 4($t0)
        sw $t2, 0($t3)
        addiu $t3, $t3, 4
        addiu $t4, $t4, -1
        bgtz $t4, wait
        li $v0, 10
        syscall
",
    );
    let mut dap = DapClient::start();
    dap.launch(json!({"program": program, "isa": "mips", "bitmap": "64x64,unit=8,base=gp"}));
    dap.ok("continue", json!({"threadId": 1}));
    // Let it poll a while, then stop and go back to the start of the recording.
    std::thread::sleep(std::time::Duration::from_millis(100));
    dap.ok("pause", json!({"threadId": 1}));
    dap.stopped();
    let set = dap.ok(
        "setBreakpoints",
        json!({"source": {"path": program}, "breakpoints": [{"line": 3}]}),
    );
    assert_eq!(set["breakpoints"][0]["verified"], true, "{set}");
    dap.ok("reverseContinue", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "breakpoint");
    dap.ok(
        "setBreakpoints",
        json!({"source": {"path": program}, "breakpoints": []}),
    );
    let typed = dap.ok("asmdbgKey", json!({"text": "xyz"}));
    assert_eq!(typed["held"], 3, "{typed}");
    dap.ok("continue", json!({"threadId": 1}));
    assert_eq!(dap.stopped()["reason"], "exit");
    let frame = showing(&mut dap);
    assert_eq!(
        frame[..3],
        [u32::from(b'x'), u32::from(b'y'), u32::from(b'z')],
        "each key read in turn"
    );
    dap.ok("disconnect", json!({}));
}
