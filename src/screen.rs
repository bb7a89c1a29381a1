//! A machine's display drawn in a terminal: pure functions from a [`Frame`], the previous
//! drawing and the terminal's size to the bytes that draw it, so that everything here is tested
//! without a terminal.
//!
//! Each character cell is an upper half block (U+2580 `▀`) whose foreground colour is the
//! upper dot and whose background colour is the lower one: two dots per cell vertically, one
//! across, in 24-bit colour (`ESC[38;2;R;G;Bm`, `ESC[48;2;R;G;Bm`). The frame is scaled to fit
//! the area given, keeping its shape on screen (a unit is `unit_width × unit_height` pixels
//! and a dot is about square): up by a whole factor (each dot one unit), down by letting each
//! dot show what stands out among the units it covers ([`feature`]) — averaging would fade a
//! line one unit wide to a third of its colour, or lose it. After the first drawing only the cells that changed are sent, each run
//! of them after one cursor move.
//!
//! Which terminal can show it ([`unfit_reason`]): one that says it has 24-bit colour
//! (`COLORTERM=truecolor` or `24bit`; `TERM` set and not `dumb`) and has at least
//! [`MIN_COLS`] × [`MIN_ROWS`] cells.

use std::io::Write as _;

use asmdbg_core::display::Frame;

/// The smallest terminal the display is drawn in.
pub const MIN_COLS: u16 = 20;
pub const MIN_ROWS: u16 = 6;
/// Rows `asmdbg run` keeps for the program's console below the display (and one blank row
/// between them).
pub const CONSOLE_ROWS: u16 = 3;

/// The upper half block, UTF-8.
const HALF_BLOCK: &str = "\u{2580}";

/// What `asmdbg run` suggests instead of a display its terminal cannot show.
pub const USE_PNG: &str = "use --display-png FILE";

/// Why the terminal cannot show the display, as one line for stderr (with no newline) that
/// ends with `remedy` (e.g. [`USE_PNG`]); `None` when it can. `term` and `colorterm` are the
/// environment's `TERM` and `COLORTERM`, `size` the terminal's columns and rows (`None`:
/// unknown).
pub fn unfit_reason(
    term: Option<&str>,
    colorterm: Option<&str>,
    size: Option<(u16, u16)>,
    remedy: &str,
) -> Option<String> {
    let unfit = |what: String, why: &str| {
        Some(format!(
            "asmdbg: the terminal{what} cannot show the display: {why}; {remedy}"
        ))
    };
    let term = match term {
        None | Some("") => {
            return unfit(String::new(), "TERM is not set, so it may have no colours")
        }
        Some("dumb") => return unfit(" (TERM=dumb)".to_string(), "it has no colours"),
        Some(term) => term,
    };
    if !matches!(colorterm, Some("truecolor") | Some("24bit")) {
        return unfit(
            format!(" (TERM={term})"),
            "it does not say it has 24-bit colour (COLORTERM=truecolor or 24bit: set it if it has)",
        );
    }
    match size {
        None | Some((0, _)) | Some((_, 0)) => unfit(String::new(), "its size is unknown"),
        Some((cols, rows)) if cols < MIN_COLS || rows < MIN_ROWS => unfit(
            format!(" of {cols}x{rows} cells"),
            &format!("it needs at least {MIN_COLS}x{MIN_ROWS}"),
        ),
        Some(_) => None,
    }
}

/// A frame as the terminal shows it: `cols × rows` cells, each an (upper, lower) pair of
/// `0x00RRGGBB` colours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    pub cols: u16,
    pub rows: u16,
    cells: Vec<(u32, u32)>,
}

impl Picture {
    /// The (upper, lower) colours of the cell at `col`, `row` (from 0).
    pub fn cell(&self, col: u16, row: u16) -> (u32, u32) {
        self.cells[row as usize * self.cols as usize + col as usize]
    }
}

/// The size in dots (columns, half-rows) of `frame` scaled into `cols × rows` cells. A unit's
/// shape is kept: `unit_width × unit_height` pixels is the smallest block of dots of that shape
/// (one dot for a square unit). When the frame fits at that size it is scaled up by the largest
/// whole factor that fits, so that every unit is the same block; otherwise it is scaled down
/// to the largest size that fits.
pub fn fit(frame: &Frame, cols: u16, rows: u16) -> (u32, u32) {
    let (uw, uh) = (
        u64::from(frame.unit_width.max(1)),
        u64::from(frame.unit_height.max(1)),
    );
    let common = gcd(uw, uh);
    let w = u64::from(frame.width) * (uw / common);
    let h = u64::from(frame.height) * (uh / common);
    let (cw, ch) = (u64::from(cols), 2 * u64::from(rows));
    if w == 0 || h == 0 || cw == 0 || ch == 0 {
        return (0, 0);
    }
    let (dw, dh) = if cw >= w && ch >= h {
        let factor = (cw / w).min(ch / h);
        (w * factor, h * factor)
    } else if cw * h <= ch * w {
        (cw, (h * cw / w).max(1))
    } else {
        ((w * ch / h).max(1), ch)
    };
    (dw as u32, dh as u32)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// For each of `dots` dots across `units` units: the units whose colours make the dot's
/// (`start..end`). Up (more dots than units): the unit under the dot's centre. Down: every
/// unit the dot covers, even partly.
fn spans(units: u32, dots: u32) -> Vec<(u32, u32)> {
    let (units, dots64) = (u64::from(units), u64::from(dots));
    (0..u64::from(dots))
        .map(|i| {
            if dots64 >= units {
                let u = ((2 * i + 1) * units / (2 * dots64)).min(units - 1);
                (u as u32, u as u32 + 1)
            } else {
                let start = i * units / dots64;
                let end = ((i + 1) * units).div_ceil(dots64).clamp(start + 1, units);
                (start as u32, end as u32)
            }
        })
        .collect()
}

/// The frame's background: its most common colour (the first of them in a tie).
fn background(frame: &Frame) -> u32 {
    let mut counts: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    let mut best = (0, 0);
    for &pixel in &frame.pixels {
        let pixel = pixel & 0x00ff_ffff;
        let n = counts.entry(pixel).or_insert(0);
        *n += 1;
        if *n > best.1 {
            best = (pixel, *n);
        }
    }
    best.0
}

/// The colour of a dot covering the units `xs × ys`: the colour most of them have among those
/// that are not the frame's `background` (a line one unit wide across a shrunk picture keeps
/// its colour), the background when all are.
fn feature(frame: &Frame, xs: (u32, u32), ys: (u32, u32), background: u32) -> u32 {
    if xs.1 - xs.0 == 1 && ys.1 - ys.0 == 1 {
        return frame.at(xs.0, ys.0) & 0x00ff_ffff;
    }
    // A few units a dot: a list beats a map.
    let mut seen: Vec<(u32, u32)> = Vec::new();
    for y in ys.0..ys.1 {
        for x in xs.0..xs.1 {
            let c = frame.at(x, y) & 0x00ff_ffff;
            if c == background {
                continue;
            }
            match seen.iter_mut().find(|(colour, _)| *colour == c) {
                Some((_, n)) => *n += 1,
                None => seen.push((c, 1)),
            }
        }
    }
    // The first seen wins a tie: the top left of the block, as a line is drawn.
    let mut best: Option<(u32, u32)> = None;
    for &(colour, n) in &seen {
        match best {
            Some((_, most)) if n <= most => {}
            _ => best = Some((colour, n)),
        }
    }
    best.map_or(background, |(colour, _)| colour)
}

/// `frame` scaled to fit `cols × rows` cells (see [`fit`]). A picture with an odd number of
/// dots down has a black lower half in its last row.
pub fn picture(frame: &Frame, cols: u16, rows: u16) -> Picture {
    let (dw, dh) = fit(frame, cols, rows);
    let columns = spans(frame.width, dw);
    let lines = spans(frame.height, dh);
    let shrunk = dw < frame.width || dh < frame.height;
    let back = if shrunk { background(frame) } else { 0 };
    let dot = |x: usize, y: usize| match lines.get(y) {
        Some(&ys) => feature(frame, columns[x], ys, back),
        None => 0,
    };
    let (pc, pr) = (dw as usize, (dh as usize).div_ceil(2));
    let mut cells = Vec::with_capacity(pc * pr);
    for row in 0..pr {
        for col in 0..pc {
            cells.push((dot(col, 2 * row), dot(col, 2 * row + 1)));
        }
    }
    Picture {
        cols: pc as u16,
        rows: pr as u16,
        cells,
    }
}

/// The bytes that draw `new` with its top left cell at `top`, `left` (1-based, as the
/// terminal counts): every cell when there is no `old` picture of the same size on the
/// screen, else only the cells that differ from it. Ends with the colours reset when
/// anything was drawn; empty when nothing changed.
pub fn paint(new: &Picture, old: Option<&Picture>, top: u16, left: u16) -> Vec<u8> {
    let old = old.filter(|o| o.cols == new.cols && o.rows == new.rows);
    let mut out = Vec::new();
    // Where the terminal's cursor is and which colours it writes with, once known.
    let mut cursor = None;
    let (mut fg, mut bg) = (None, None);
    for row in 0..new.rows {
        for col in 0..new.cols {
            let (upper, lower) = new.cell(col, row);
            if old.is_some_and(|o| o.cell(col, row) == (upper, lower)) {
                continue;
            }
            if cursor != Some((row, col)) {
                // Writing to a Vec cannot fail.
                let _ = write!(out, "\x1b[{};{}H", top + row, left + col);
            }
            let (new_fg, new_bg) = (fg != Some(upper), bg != Some(lower));
            if new_fg || new_bg {
                out.extend_from_slice(b"\x1b[");
                if new_fg {
                    push_colour(&mut out, 38, upper);
                }
                if new_fg && new_bg {
                    out.push(b';');
                }
                if new_bg {
                    push_colour(&mut out, 48, lower);
                }
                out.push(b'm');
                (fg, bg) = (Some(upper), Some(lower));
            }
            out.extend_from_slice(HALF_BLOCK.as_bytes());
            cursor = Some((row, col + 1));
        }
    }
    if !out.is_empty() {
        out.extend_from_slice(b"\x1b[0m");
    }
    out
}

/// The SGR parameters of a 24-bit colour: `layer` 38 for the foreground, 48 for the
/// background.
fn push_colour(out: &mut Vec<u8>, layer: u8, colour: u32) {
    let (r, g, b) = ((colour >> 16) & 0xff, (colour >> 8) & 0xff, colour & 0xff);
    // Writing to a Vec cannot fail.
    let _ = write!(out, "{layer};2;{r};{g};{b}");
}

/// The picture as lines of text, for a terminal's ordinary output (after the run, where the
/// cursor is): each row ends with the colours reset and a newline.
pub fn lines(picture: &Picture) -> Vec<u8> {
    let mut out = Vec::new();
    for row in 0..picture.rows {
        let one = Picture {
            cols: picture.cols,
            rows: 1,
            cells: (0..picture.cols).map(|c| picture.cell(c, row)).collect(),
        };
        let drawn = paint(&one, None, 1, 1);
        // Drop the cursor move: the row goes where the cursor is.
        let start = drawn.iter().position(|&b| b == b'H').map_or(0, |p| p + 1);
        out.extend_from_slice(&drawn[start..]);
        out.push(b'\n');
    }
    out
}

/// How `frame` is shown in `cols × rows` cells, for a status line: `64×32 display, ×2` (each
/// unit a block of dots), `128×124 display, at 62%` (shrunk: one dot covers more than one unit
/// where it must, and shows what stands out among them).
pub fn scale_text(frame: &Frame, cols: u16, rows: u16) -> String {
    let (dw, _) = fit(frame, cols, rows);
    let (uw, uh) = (
        u64::from(frame.unit_width.max(1)),
        u64::from(frame.unit_height.max(1)),
    );
    let natural = u64::from(frame.width) * (uw / gcd(uw, uh));
    let size = format!("{}×{} display", frame.width, frame.height);
    if natural == 0 {
        return size;
    }
    let dw = u64::from(dw);
    if dw >= natural && dw % natural == 0 {
        format!("{size}, ×{}", dw / natural)
    } else {
        format!("{size}, at {}%", dw * 100 / natural)
    }
}

/// The bytes that write `text` as a status line on row `row` (1-based) of a terminal `cols`
/// wide: dim, cut to fit, the rest of the row cleared.
pub fn status_line(text: &str, row: u16, cols: u16) -> Vec<u8> {
    let shown: String = text.chars().take(usize::from(cols)).collect();
    format!("\x1b[{row};1H\x1b[0;2m{shown}\x1b[0m\x1b[K").into_bytes()
}

/// A display drawn again and again in one area of a terminal: the whole picture the first
/// time (and after [`Screen::forget`] or a change of size), then only what changed.
#[derive(Debug)]
pub struct Screen {
    top: u16,
    cols: u16,
    rows: u16,
    shown: Option<Picture>,
}

impl Screen {
    /// An area of `cols × rows` cells from row `top` (1-based) down, at the left edge.
    pub fn new(top: u16, cols: u16, rows: u16) -> Screen {
        Screen {
            top,
            cols,
            rows,
            shown: None,
        }
    }

    /// The bytes that bring the area from what it showed to `frame`. A first drawing clears
    /// the area's rows before it.
    pub fn draw(&mut self, frame: &Frame) -> Vec<u8> {
        let new = picture(frame, self.cols, self.rows);
        let mut out = Vec::new();
        let same_size = self
            .shown
            .as_ref()
            .is_some_and(|o| o.cols == new.cols && o.rows == new.rows);
        if !same_size {
            out.extend_from_slice(b"\x1b[0m");
            for row in 0..self.rows {
                let _ = write!(out, "\x1b[{};1H\x1b[2K", self.top + row);
            }
        }
        out.extend(paint(
            &new,
            self.shown.as_ref().filter(|_| same_size),
            self.top,
            1,
        ));
        self.shown = Some(new);
        out
    }

    /// The terminal no longer shows what was drawn (a new viewer, a cleared screen, bytes
    /// that were dropped): the next drawing is whole.
    pub fn forget(&mut self) {
        self.shown = None;
    }

    /// The last picture drawn.
    pub fn shown(&self) -> Option<&Picture> {
        self.shown.as_ref()
    }
}

/// How `asmdbg run` shares a terminal of `cols × rows` cells: the display in the rows
/// `1..=display_rows`, a blank row, then the console's rows from `console_top` to the bottom
/// (a scrolling region).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunLayout {
    pub cols: u16,
    pub rows: u16,
    pub display_rows: u16,
    pub console_top: u16,
}

impl RunLayout {
    /// The display as large as it fits above [`CONSOLE_ROWS`] rows of console.
    pub fn new(frame: &Frame, cols: u16, rows: u16) -> RunLayout {
        let room = rows.saturating_sub(CONSOLE_ROWS + 1).max(1);
        let (_, dots_down) = fit(frame, cols, room);
        let display_rows = (dots_down.div_ceil(2) as u16).clamp(1, room);
        RunLayout {
            cols,
            rows,
            display_rows,
            console_top: display_rows + 2,
        }
    }

    /// The screen the display is drawn on.
    pub fn screen(&self) -> Screen {
        Screen::new(1, self.cols, self.display_rows)
    }

    /// Into the alternate screen, cleared, without a cursor, the console's rows a scrolling
    /// region with the cursor at its top.
    pub fn enter(&self) -> Vec<u8> {
        format!(
            "\x1b[?1049h\x1b[?25l\x1b[0m\x1b[H\x1b[2J\x1b[{};{}r\x1b[{};1H",
            self.console_top, self.rows, self.console_top
        )
        .into_bytes()
    }
}

/// `drawing` wrapped so that the console's cursor and colours are what they were after it
/// (saved with DECSC, given back with DECRC): the program's output goes on where it was.
/// Empty stays empty.
pub fn keep_cursor(drawing: Vec<u8>) -> Vec<u8> {
    if drawing.is_empty() {
        return drawing;
    }
    let mut out = Vec::with_capacity(drawing.len() + 4);
    out.extend_from_slice(b"\x1b7");
    out.extend(drawing);
    out.extend_from_slice(b"\x1b8");
    out
}

/// Back from [`RunLayout::enter`]: colours, scrolling region, cursor and the ordinary screen.
pub const LEAVE: &[u8] = b"\x1b[0m\x1b[r\x1b[?25h\x1b[?1049l";

#[cfg(test)]
mod tests {
    use super::*;

    const RED: u32 = 0xff0000;
    const GREEN: u32 = 0x00ff00;
    const BLUE: u32 = 0x0000ff;

    fn frame(width: u32, height: u32, pixels: Vec<u32>) -> Frame {
        Frame {
            width,
            height,
            unit_width: 1,
            unit_height: 1,
            pixels,
        }
    }

    /// What a terminal shows after `bytes`: (character, fg, bg) of each cell of `rows × cols`.
    fn shown(bytes: &[u8], rows: u16, cols: u16) -> vt100::Parser {
        let mut parser = vt100::Parser::new(rows, cols, 0);
        parser.process(bytes);
        parser
    }

    fn colours(parser: &vt100::Parser, row: u16, col: u16) -> (String, u32, u32) {
        let cell = parser.screen().cell(row, col).expect("a cell");
        let rgb = |c: vt100::Color| match c {
            vt100::Color::Rgb(r, g, b) => (r as u32) << 16 | (g as u32) << 8 | b as u32,
            other => panic!("not a 24-bit colour: {other:?}"),
        };
        (
            cell.contents().to_string(),
            rgb(cell.fgcolor()),
            rgb(cell.bgcolor()),
        )
    }

    #[test]
    fn each_cell_is_an_upper_half_block_with_the_upper_unit_in_front() {
        // 2 x 4 units: rows red, green, blue, red; left column only, right column black.
        let f = frame(2, 4, vec![RED, 0, GREEN, 0, BLUE, 0, RED, 0]);
        let p = picture(&f, 2, 2);
        assert_eq!((p.cols, p.rows), (2, 2));
        assert_eq!(p.cell(0, 0), (RED, GREEN));
        assert_eq!(p.cell(0, 1), (BLUE, RED));
        assert_eq!(p.cell(1, 1), (0, 0));
        let term = shown(&paint(&p, None, 3, 5), 10, 10);
        assert_eq!(colours(&term, 2, 4), ("\u{2580}".to_string(), RED, GREEN));
        assert_eq!(colours(&term, 3, 4), ("\u{2580}".to_string(), BLUE, RED));
        assert_eq!(colours(&term, 3, 5), ("\u{2580}".to_string(), 0, 0));
        // Nothing outside the picture, and the colours reset after it.
        assert_eq!(term.screen().cell(1, 4).unwrap().contents(), "");
        assert_eq!(term.screen().cell(2, 6).unwrap().contents(), "");
        assert!(paint(&p, None, 1, 1).ends_with(b"\x1b[0m"));
    }

    #[test]
    fn only_the_cells_that_changed_are_sent_again() {
        let mut pixels = vec![0; 8 * 8];
        let before = picture(&frame(8, 8, pixels.clone()), 8, 4);
        assert!(paint(&before, Some(&before), 1, 1).is_empty());
        pixels[3 * 8 + 5] = BLUE; // unit (5, 3): lower half of cell (5, 1)
        pixels[6 * 8 + 2] = RED; // unit (2, 6): upper half of cell (2, 3)
        pixels[6 * 8 + 3] = RED; // its neighbour: the same run, no second cursor move
        let after = picture(&frame(8, 8, pixels), 8, 4);
        let bytes = paint(&after, Some(&before), 1, 1);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert_eq!(text.matches('\u{2580}').count(), 3, "{text:?}");
        assert_eq!(text.matches('H').count(), 2, "{text:?}");
        assert!(text.starts_with("\x1b[2;6H"), "{text:?}");
        assert!(text.contains("\x1b[4;3H"), "{text:?}");
        // Drawn over the old picture, the terminal shows the new one.
        let mut term = shown(&paint(&before, None, 1, 1), 6, 10);
        term.process(&bytes);
        assert_eq!(colours(&term, 1, 5), ("\u{2580}".to_string(), 0, BLUE));
        assert_eq!(colours(&term, 3, 2), ("\u{2580}".to_string(), RED, 0));
        assert_eq!(colours(&term, 3, 3), ("\u{2580}".to_string(), RED, 0));
        assert_eq!(colours(&term, 3, 4), ("\u{2580}".to_string(), 0, 0));
        // A Screen does the same: whole first, then changes only.
        let mut screen = Screen::new(1, 8, 4);
        let first = screen.draw(&frame(8, 8, vec![0; 64]));
        assert_eq!(
            String::from_utf8_lossy(&first).matches('\u{2580}').count(),
            32
        );
        assert!(screen.draw(&frame(8, 8, vec![0; 64])).is_empty());
        screen.forget();
        assert_eq!(
            String::from_utf8_lossy(&screen.draw(&frame(8, 8, vec![0; 64])))
                .matches('\u{2580}')
                .count(),
            32
        );
    }

    #[test]
    fn a_large_frame_is_shrunk_to_fit_keeping_thin_lines() {
        // PennSim's 128 x 124 into 64 columns: each dot covers 2 x 2 pixels (124 rows ->
        // 62 dots, 31 cells).
        let mut pixels = vec![0; 128 * 124];
        // The top row of pixels: half of each dot of the top row of dots.
        pixels[..128].fill(RED);
        for y in 0..124 {
            pixels[y * 128] = 0x00ff00; // the left column
            pixels[y * 128 + 1] = 0x00ff00;
        }
        let mut f = frame(128, 124, pixels);
        assert_eq!(fit(&f, 64, 40), (64, 62));
        let p = picture(&f, 64, 40);
        assert_eq!((p.cols, p.rows), (64, 31));
        // A line one pixel high keeps its colour (black is the background).
        assert_eq!(p.cell(10, 0).0, RED);
        assert_eq!(p.cell(10, 0).1, 0);
        assert_eq!(p.cell(0, 10), (GREEN, GREEN));
        // Height limits: a short terminal takes 24 rows, 48 dots, of 124 pixels.
        assert_eq!(fit(&f, 200, 24), (49, 48));
        // PennSim's pixels are 2 x 2 on its screen: still one dot each.
        f.unit_width = 2;
        f.unit_height = 2;
        assert_eq!(fit(&f, 140, 65), (128, 124));
        // MARS units of 8 x 8 pixels are square dots (64 x 32 units twice as large in a big
        // terminal); units of 8 x 4 are half as tall as wide.
        f = Frame {
            width: 64,
            height: 32,
            unit_width: 8,
            unit_height: 8,
            pixels: vec![BLUE; 64 * 32],
        };
        assert_eq!(fit(&f, 80, 40), (64, 32));
        assert_eq!(fit(&f, 140, 40), (128, 64));
        assert_eq!(picture(&f, 140, 40).cell(127, 31), (BLUE, BLUE));
        f.unit_height = 4;
        assert_eq!(fit(&f, 80, 40), (80, 20));
        assert_eq!(fit(&f, 140, 40), (128, 32));
    }

    #[test]
    fn a_line_one_unit_wide_stays_in_its_colour_at_any_shrink() {
        // LC-3's 128 x 124 screen in an 80 x 24 terminal (and 160 x 50): a red line one unit
        // wide across a black screen, down and across, and a black line across a white one.
        for (cols, rows) in [(80, 21), (160, 46), (37, 11)] {
            let mut pixels = vec![0; 128 * 124];
            for y in 0..124 {
                pixels[y * 128 + 77] = RED;
            }
            pixels[61 * 128..62 * 128].fill(BLUE);
            let p = picture(&frame(128, 124, pixels), cols, rows);
            let all: Vec<u32> = p.cells.iter().flat_map(|&(a, b)| [a, b]).collect();
            let column_red = (0..p.rows).all(|row| {
                (0..p.cols).any(|col| p.cell(col, row).0 == RED || p.cell(col, row).1 == RED)
            });
            assert!(column_red, "{cols}x{rows}: the red line in every row");
            assert!(all.contains(&BLUE), "{cols}x{rows}: the blue line");
            assert!(
                all.iter().all(|&c| c == 0 || c == RED || c == BLUE),
                "no faded colours"
            );
            let mut white = vec![0xffffff; 128 * 124];
            white[40 * 128..41 * 128].fill(0);
            let p = picture(&frame(128, 124, white), cols, rows);
            assert!(
                p.cells.iter().any(|&(a, b)| a == 0 || b == 0),
                "a black line on white"
            );
        }
    }

    #[test]
    fn the_scale_says_how_the_frame_is_shown() {
        let lc3 = frame(128, 124, vec![0; 128 * 124]);
        assert_eq!(scale_text(&lc3, 80, 21), "128×124 display, at 33%");
        assert_eq!(scale_text(&lc3, 300, 130), "128×124 display, ×2");
        let mars = Frame {
            width: 64,
            height: 32,
            unit_width: 8,
            unit_height: 8,
            pixels: vec![0; 64 * 32],
        };
        assert_eq!(scale_text(&mars, 64, 16), "64×32 display, ×1");
        assert_eq!(
            status_line("a long status", 5, 6),
            b"\x1b[5;1H\x1b[0;2ma long\x1b[0m\x1b[K".to_vec()
        );
    }

    #[test]
    fn a_small_frame_is_scaled_up_by_a_whole_factor() {
        let f = frame(2, 2, vec![RED, GREEN, BLUE, 0xffffff]);
        // 7 columns and 4 rows (8 dots): the factor is min(7 / 2, 8 / 2) = 3.
        assert_eq!(fit(&f, 7, 4), (6, 6));
        let p = picture(&f, 7, 4);
        assert_eq!((p.cols, p.rows), (6, 3));
        assert_eq!(p.cell(0, 0), (RED, RED));
        assert_eq!(p.cell(2, 1), (RED, BLUE));
        assert_eq!(p.cell(3, 1), (GREEN, 0xffffff));
        assert_eq!(p.cell(5, 2), (0xffffff, 0xffffff));
    }

    #[test]
    fn an_odd_number_of_dots_ends_in_a_black_half() {
        let f = frame(1, 3, vec![RED, GREEN, BLUE]);
        let p = picture(&f, 1, 2);
        assert_eq!((p.cols, p.rows), (1, 2));
        assert_eq!(p.cell(0, 1), (BLUE, 0));
    }

    #[test]
    fn a_terminal_without_colour_or_room_is_told_so_in_one_line() {
        let truecolor = Some("truecolor");
        let reason = |term, colorterm, size| unfit_reason(term, colorterm, size, USE_PNG);
        assert_eq!(
            reason(Some("xterm-256color"), truecolor, Some((80, 24))),
            None
        );
        assert_eq!(reason(Some("xterm"), Some("24bit"), Some((20, 6))), None);
        let cases = [
            (None, truecolor, Some((80, 24)), "TERM is not set"),
            (Some("dumb"), truecolor, Some((80, 24)), "(TERM=dumb)"),
            (Some("xterm"), None, Some((80, 24)), "24-bit colour"),
            (
                Some("xterm"),
                Some("yes"),
                Some((80, 24)),
                "COLORTERM=truecolor",
            ),
            (Some("xterm"), truecolor, Some((19, 24)), "of 19x24 cells"),
            (
                Some("xterm"),
                truecolor,
                Some((80, 5)),
                "needs at least 20x6",
            ),
            (Some("xterm"), truecolor, None, "size is unknown"),
            (Some("xterm"), truecolor, Some((0, 0)), "size is unknown"),
        ];
        for (term, colorterm, size, says) in cases {
            let text = reason(term, colorterm, size).expect("unfit");
            assert!(text.starts_with("asmdbg: the terminal"), "{text}");
            assert!(text.contains("cannot show the display: "), "{text}");
            assert!(text.ends_with("; use --display-png FILE"), "{text}");
            assert!(text.contains(says), "{text} should say {says}");
            assert!(!text.contains('\n') && !text.contains('\x1b'), "{text}");
        }
    }

    #[test]
    fn the_run_layout_keeps_rows_for_the_console() {
        let f = frame(128, 124, vec![0; 128 * 124]);
        let layout = RunLayout::new(&f, 80, 24);
        // 20 rows of room: 40 dots of 124 -> height-bound, 20 rows.
        assert_eq!(layout.display_rows, 20);
        assert_eq!(layout.console_top, 22);
        // A big terminal takes the frame at its own size: 124 dots, 62 rows.
        let big = RunLayout::new(&f, 200, 80);
        assert_eq!((big.display_rows, big.console_top), (62, 64));
        let text = String::from_utf8(big.enter()).unwrap();
        assert!(
            text.contains("\x1b[64;80r") && text.ends_with("\x1b[64;1H"),
            "{text:?}"
        );
        // Console text written after entering scrolls below the display only.
        let mut term = vt100::Parser::new(80, 200, 0);
        term.process(&big.enter());
        let mut screen = big.screen();
        let red = frame(128, 124, vec![RED; 128 * 124]);
        term.process(b"before\r\n");
        term.process(&keep_cursor(screen.draw(&red)));
        assert_eq!(term.screen().cursor_position(), (64, 0));
        for i in 0..40 {
            term.process(format!("line {i}\r\n").as_bytes());
        }
        assert_eq!(colours(&term, 0, 0), ("\u{2580}".to_string(), RED, RED));
        assert_eq!(colours(&term, 61, 127).1, RED);
        assert!(term.screen().contents().contains("line 39"));
        assert!(!term.screen().contents().contains("line 0"));
        term.process(LEAVE);
        assert!(!term.screen().alternate_screen());
    }

    #[test]
    fn lines_draw_the_picture_where_the_cursor_is() {
        let p = picture(&frame(2, 2, vec![RED, GREEN, BLUE, 0]), 2, 1);
        let bytes = lines(&p);
        let mut term = vt100::Parser::new(5, 10, 0);
        term.process(b"text\r\n");
        // The terminal's output processing turns each newline into CR LF.
        let crlf = String::from_utf8(bytes).unwrap().replace('\n', "\r\n");
        term.process(crlf.as_bytes());
        assert_eq!(colours(&term, 1, 0), ("\u{2580}".to_string(), RED, BLUE));
        assert_eq!(colours(&term, 1, 1), ("\u{2580}".to_string(), GREEN, 0));
        assert_eq!(term.screen().cursor_position(), (2, 0));
    }
}
