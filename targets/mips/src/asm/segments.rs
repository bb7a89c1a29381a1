//! Segments and layout: the address counter of each segment, bytes laid down at it, alignment,
//! and the chunks merged into one per contiguous run.

use asmdbg_core::SourceLoc;

use super::source::Line;
use super::Assembler;
use crate::program::{Chunk, ChunkKind};

/// The size of each MARS memory segment.
pub(super) const SEGMENT_BYTES: u32 = 4 << 20;

const SEGMENTS: [ChunkKind; 5] = [
    ChunkKind::Text,
    ChunkKind::Data,
    ChunkKind::KText,
    ChunkKind::KData,
    ChunkKind::Extern,
];

pub(super) fn segment_index(kind: ChunkKind) -> usize {
    SEGMENTS.iter().position(|&k| k == kind).unwrap_or(0)
}

impl Assembler<'_> {
    pub(super) fn here(&self) -> u32 {
        self.next[segment_index(self.segment)]
    }

    /// Lays `bytes` down at the current address; returns where they went.
    pub(super) fn emit(&mut self, bytes: &[u8]) -> (usize, usize) {
        let kind = self.segment;
        let addr = self.here();
        self.unplaced_labels.clear();
        let found = self
            .chunks
            .iter()
            .rposition(|c| c.kind == kind && c.addr.wrapping_add(c.bytes.len() as u32) == addr);
        let index = match found {
            Some(i) => i,
            None => {
                self.chunks.push(Chunk {
                    kind,
                    addr,
                    bytes: Vec::new(),
                });
                self.chunks.len() - 1
            }
        };
        let chunk = &mut self.chunks[index];
        let offset = chunk.bytes.len();
        chunk.bytes.extend_from_slice(bytes);
        self.next[segment_index(kind)] = addr.wrapping_add(bytes.len() as u32);
        (index, offset)
    }

    pub(super) fn align(&mut self, to: u32) {
        let i = segment_index(self.segment);
        let old = self.next[i];
        let new = old.wrapping_add(to - 1) & !(to - 1);
        if new == old {
            return;
        }
        let moved = std::mem::take(&mut self.unplaced_labels);
        self.reserve(new.wrapping_sub(old));
        for name in &moved {
            if let Some(sym) = self.labels[self.unit].get_mut(name) {
                sym.addr = new as u64;
            }
        }
        self.unplaced_labels = moved;
    }

    /// Zero bytes (`.space`, alignment, `.extern`). Beyond a segment's 4 MiB nothing could
    /// hold them, so the address just moves on and memory stays zero.
    pub(super) fn reserve(&mut self, bytes: u32) {
        if bytes <= SEGMENT_BYTES {
            self.emit(&vec![0u8; bytes as usize]);
        } else {
            let i = segment_index(self.segment);
            self.next[i] = self.next[i].wrapping_add(bytes);
            self.unplaced_labels.clear();
        }
    }

    pub(super) fn record_line(&mut self, addr: u32, line: &Line) {
        let (file, number) = match line.calls.first() {
            Some(call) => (call.file, call.line),
            None => (line.file, line.line),
        };
        self.lines
            .insert(addr as u64, SourceLoc { file, line: number });
    }
}

/// One chunk per contiguous run of each segment, in address order.
pub(super) fn merge_chunks(mut chunks: Vec<Chunk>) -> Vec<Chunk> {
    chunks.retain(|c| !c.bytes.is_empty());
    chunks.sort_by_key(|c| (segment_index(c.kind), c.addr));
    let mut out: Vec<Chunk> = Vec::with_capacity(chunks.len());
    for c in chunks {
        if let Some(last) = out.last_mut() {
            let end = last.addr as u64 + last.bytes.len() as u64;
            if last.kind == c.kind && (c.addr as u64) <= end {
                let start = (c.addr - last.addr) as usize;
                let needed = start + c.bytes.len();
                if last.bytes.len() < needed {
                    last.bytes.resize(needed, 0);
                }
                last.bytes[start..needed].copy_from_slice(&c.bytes);
                continue;
            }
        }
        out.push(c);
    }
    out
}
