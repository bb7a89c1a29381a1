//! Which folders are submissions, and where in each the program's files are. Real uploads are
//! untidy: a zip made on macOS holds `lab4/` and `__MACOSX/`, a repository holds `.git/`, a
//! student names the file `Nim.asm`. Junk is never taken for a submission; a program one
//! folder down is found; a file that is missing is reported with what the submission holds
//! instead, so every submission gets a result with a reason.

use std::path::{Path, PathBuf};

/// A submission: a name and the folder that holds what the student handed in.
#[derive(Debug, Clone)]
pub struct Submission {
    pub name: String,
    pub dir: PathBuf,
}

impl Submission {
    fn of(dir: &Path) -> Submission {
        Submission {
            name: dir.file_name().map_or_else(
                || dir.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            dir: dir.to_path_buf(),
        }
    }
}

/// What archives and tools leave beside a student's files: macOS's resource forks, version
/// control and editor folders, anything hidden.
pub fn is_junk(name: &str) -> bool {
    name.starts_with('.') || name == "__MACOSX" || name.starts_with("._")
}

/// The folders below `dir` that are not junk, in name order.
fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| !is_junk(&e.file_name().to_string_lossy()))
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// The submissions the command line names, checked before anything is graded (a name that is
/// no folder is a usage error). With none, the spec's own folder. With `one` (Gradescope: the
/// folder is the one submission), each folder named is a submission whatever it holds.
/// Otherwise a folder that holds the program's files (or no folders) is one submission, and any
/// other folder is a folder of submissions, one a subfolder that is not junk.
pub fn submissions(
    files: &[String],
    spec_dir: &Path,
    named: &[PathBuf],
    one: bool,
) -> Result<Vec<Submission>, String> {
    if named.is_empty() {
        let dir = std::path::absolute(spec_dir).unwrap_or_else(|_| spec_dir.to_path_buf());
        return Ok(vec![Submission::of(&dir)]);
    }
    let mut found = Vec::new();
    for path in named {
        if !path.is_dir() {
            let what = if path.exists() {
                "not a folder"
            } else {
                "no such folder"
            };
            return Err(format!(
                "{}: {what}; name a submission's folder or a folder of submissions",
                path.display()
            ));
        }
        let subs = subfolders(path);
        let holds_program = files.iter().all(|f| path.join(f).is_file());
        if one || subs.is_empty() || holds_program {
            found.push(Submission::of(path));
        } else {
            found.extend(subs.iter().map(|p| Submission::of(p)));
        }
    }
    Ok(found)
}

/// Where a submission's program is: the folder its files are in (the submission's own, or one
/// folder down), and a note when it was not where the spec names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub dir: PathBuf,
    pub note: Option<String>,
}

/// Finds the program's `files` in the submission `dir`: there, or in the one subfolder (not
/// junk) that holds the first of them. `Err`: a message for the student naming the file that
/// is missing and what the submission holds instead.
pub fn locate(files: &[String], dir: &Path) -> Result<Located, String> {
    let missing = |folder: &Path| files.iter().find(|f| !holds_exactly(folder, f));
    let Some(first_missing) = missing(dir) else {
        return Ok(Located {
            dir: dir.to_path_buf(),
            note: None,
        });
    };
    let holders: Vec<PathBuf> = subfolders(dir)
        .into_iter()
        .filter(|sub| missing(sub).is_none())
        .collect();
    if let [only] = holders.as_slice() {
        let folder = only
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Ok(Located {
            dir: only.clone(),
            note: Some(format!(
                "the program's files were found in the folder {folder}/ of the submission"
            )),
        });
    }
    Err(describe_missing(first_missing, dir, &holders))
}

/// Whether `folder` holds the file `file` under exactly that name. On a file system that
/// ignores case (Windows, macOS) `Nim.asm` answers for `nim.asm`; a grade must not depend on
/// where it is given, so the name is compared as Linux (Gradescope) compares it.
fn holds_exactly(folder: &Path, file: &str) -> bool {
    let path = folder.join(file);
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return false;
    };
    path.is_file()
        && std::fs::read_dir(parent)
            .is_ok_and(|entries| entries.flatten().any(|entry| entry.file_name() == name))
}

/// "No nim.asm in the submission; it holds Nim.asm, notes.txt (Nim.asm differs only in case:
/// name it nim.asm)".
fn describe_missing(file: &str, dir: &Path, holders: &[PathBuf]) -> String {
    if holders.len() > 1 {
        let names: Vec<String> = holders
            .iter()
            .filter_map(|h| h.strip_prefix(dir).ok())
            .map(|h| format!("{}/", h.display()))
            .collect();
        return format!(
            "{file} is in several folders of the submission ({}); hand in one program",
            names.join(", ")
        );
    }
    let held = listing(dir);
    let wanted = Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_string());
    let near = held.iter().find(|h| {
        Path::new(h)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(&wanted))
    });
    let mut text = format!("the submission has no {file}");
    if held.is_empty() {
        text.push_str("; it is empty");
    } else {
        const SHOWN: usize = 12;
        let mut list = held
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if held.len() > SHOWN {
            list.push_str(&format!(" and {} more", held.len() - SHOWN));
        }
        text.push_str(&format!("; it holds {list}"));
    }
    if let Some(near) = near {
        text.push_str(&format!(
            " ({near} differs only in the case of its letters: name it {wanted})"
        ));
    }
    text
}

/// The files of a submission (and of its folders one level down), junk left out, as paths
/// relative to it.
fn listing(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut add = |folder: &Path, prefix: &str| {
        if let Ok(entries) = std::fs::read_dir(folder) {
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name().to_string_lossy().into_owned();
                if !is_junk(&name) && entry.path().is_file() {
                    names.push(format!("{prefix}{name}"));
                }
            }
        }
    };
    add(dir, "");
    for sub in subfolders(dir) {
        let prefix = format!("{}/", sub.file_name().unwrap_or_default().to_string_lossy());
        add(&sub, &prefix);
    }
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(tag: &str, files: &[&str]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("asmdbg-subs-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for f in files {
            let path = dir.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        dir
    }

    fn nim() -> Vec<String> {
        vec!["nim.asm".to_string()]
    }

    #[test]
    fn a_program_one_folder_down_is_found_and_junk_is_ignored() {
        let dir = tree(
            "down",
            &["lab4/nim.asm", "__MACOSX/lab4/._nim.asm", ".git/config"],
        );
        let found = locate(&nim(), &dir).unwrap();
        assert_eq!(found.dir, dir.join("lab4"));
        assert!(found.note.unwrap().contains("lab4/"));
        let subs = submissions(&nim(), &dir, std::slice::from_ref(&dir), false).unwrap();
        let names: Vec<&str> = subs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["lab4"], "junk is no submission");
        let one = submissions(&nim(), &dir, std::slice::from_ref(&dir), true).unwrap();
        assert_eq!(locate(&nim(), &one[0].dir).unwrap().dir, dir.join("lab4"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_file_names_what_is_there() {
        let dir = tree("case", &["Nim.asm", "notes.txt"]);
        assert_eq!(
            locate(&nim(), &dir).unwrap_err(),
            "the submission has no nim.asm; it holds Nim.asm, notes.txt (Nim.asm differs only in the case of its letters: name it nim.asm)"
        );
        let empty = tree("empty", &[]);
        assert_eq!(
            locate(&nim(), &empty).unwrap_err(),
            "the submission has no nim.asm; it is empty"
        );
        let twice = tree("twice", &["a/nim.asm", "b/nim.asm"]);
        assert!(locate(&nim(), &twice)
            .unwrap_err()
            .contains("several folders of the submission (a/, b/)"));
        for d in [dir, empty, twice] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    #[test]
    fn a_folder_of_submissions_skips_junk_and_a_missing_folder_is_refused() {
        let dir = tree(
            "many",
            &["alice/nim.asm", "bob/Nim.asm", "__MACOSX/x", ".git/HEAD"],
        );
        let subs = submissions(&nim(), &dir, std::slice::from_ref(&dir), false).unwrap();
        let names: Vec<&str> = subs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["alice", "bob"]);
        let one = submissions(&nim(), &dir, std::slice::from_ref(&dir), true).unwrap();
        assert_eq!(one.len(), 1);
        let err = submissions(&nim(), &dir, &[dir.join("nobody")], false).unwrap_err();
        assert!(
            err.ends_with(
                "nobody: no such folder; name a submission's folder or a folder of submissions"
            ),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
