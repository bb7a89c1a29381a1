//! Assembly slips: a word one edit from an instruction's name (`PUST` for `PUTS`, `HALTT`,
//! `sycall`). Each assembler decides where such a word is worth a warning: where it is legal
//! but does nothing an instruction would (an LC-3 line with only a label), or next to the error
//! it already is (MIPS, SimpleRISC).

/// The name among `names` that `word` is one edit from (a letter inserted, dropped, changed, or
/// two neighbours swapped; case ignored), if `word` is not one of them and has three letters
/// or more (shorter words are an edit from too many names to say which was meant).
pub fn one_edit_from<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if word.chars().count() < 3 {
        return None;
    }
    let mut found = None;
    for name in names {
        match edits(word, name) {
            0 => return None,
            1 => found = found.or(Some(name)),
            _ => {}
        }
    }
    found
}

/// Edits from `a` to `b` (optimal string alignment: a swap of neighbours is one), case
/// ignored.
pub fn edits(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_uppercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_uppercase()).collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_edit_in_any_way_and_no_more() {
        let names = ["PUTS", "HALT", "RET", "ADD", "AND", "syscall"];
        assert_eq!(one_edit_from("PUST", names), Some("PUTS"));
        assert_eq!(one_edit_from("haltt", names), Some("HALT"));
        assert_eq!(one_edit_from("RETT", names), Some("RET"));
        assert_eq!(one_edit_from("sycall", names), Some("syscall"));
        assert_eq!(one_edit_from("HLT", names), Some("HALT"));
        // The name itself, two edits, and short words are not slips.
        assert_eq!(one_edit_from("PUTS", names), None);
        assert_eq!(one_edit_from("LOOP", names), None);
        assert_eq!(one_edit_from("PTSU", names), None);
        assert_eq!(one_edit_from("AD", names), None);
        assert_eq!(edits("", "abc"), 3);
        assert_eq!(edits("JRS", "JSR"), 1);
    }
}
