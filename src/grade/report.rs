//! Results of `asmdbg test` as people and tools read them: a table for the terminal, JUnit XML
//! for CI, Gradescope's `results.json`, and asmdbg's own JSON.

use serde_json::{json, Value};

use super::spec::Visibility;

/// One case of one submission.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub name: String,
    pub points: f64,
    pub max_points: f64,
    pub visibility: Visibility,
    /// What went wrong, one line each; empty when the case passed.
    pub failures: Vec<String>,
    /// How the run ended and how many instructions it took.
    pub summary: String,
    pub seconds: f64,
}

impl CaseResult {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// One submission's results, cases in the spec's order.
#[derive(Debug, Clone)]
pub struct SubmissionResult {
    pub name: String,
    /// What was worth saying about the submission as a whole (its files were one folder down).
    pub notes: Vec<String>,
    pub cases: Vec<CaseResult>,
}

impl SubmissionResult {
    pub fn score(&self) -> f64 {
        self.cases.iter().map(|c| c.points).sum()
    }

    pub fn max_score(&self) -> f64 {
        self.cases.iter().map(|c| c.max_points).sum()
    }

    pub fn passed(&self) -> bool {
        self.cases.iter().all(CaseResult::passed)
    }
}

fn points(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p:.2}")
    }
}

/// The table: a line a submission with its score, then a line a case.
pub fn table(results: &[SubmissionResult]) -> String {
    let mut text = String::new();
    for sub in results {
        text.push_str(&format!(
            "{}: {}/{} points, {} of {} cases passed\n",
            sub.name,
            points(sub.score()),
            points(sub.max_score()),
            sub.cases.iter().filter(|c| c.passed()).count(),
            sub.cases.len()
        ));
        for note in &sub.notes {
            text.push_str(&format!("  note: {note}\n"));
        }
        for case in &sub.cases {
            let mark = if case.passed() { "pass" } else { "FAIL" };
            text.push_str(&format!(
                "  {mark}  {} ({}/{}): {}\n",
                case.name,
                points(case.points),
                points(case.max_points),
                case.summary
            ));
            for failure in &case.failures {
                text.push_str(&format!("        {failure}\n"));
            }
        }
    }
    text
}

/// Escapes text for XML attributes and content; characters XML 1.0 cannot hold become `?`.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML (the schema CI systems read): a `testsuite` per submission, a `testcase` per case,
/// `failure` with the first problem as its message and all of them as its text.
pub fn junit(results: &[SubmissionResult]) -> String {
    let tests: usize = results.iter().map(|s| s.cases.len()).sum();
    let failures: usize = results
        .iter()
        .map(|s| s.cases.iter().filter(|c| !c.passed()).count())
        .sum();
    let time: f64 = results
        .iter()
        .flat_map(|s| &s.cases)
        .map(|c| c.seconds)
        .sum();
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    text.push_str(&format!(
        "<testsuites name=\"asmdbg test\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"{time:.3}\">\n"
    ));
    for (id, sub) in results.iter().enumerate() {
        let failed = sub.cases.iter().filter(|c| !c.passed()).count();
        let time: f64 = sub.cases.iter().map(|c| c.seconds).sum();
        text.push_str(&format!(
            "  <testsuite name=\"{}\" id=\"{id}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\" time=\"{time:.3}\">\n",
            xml(&sub.name),
            sub.cases.len()
        ));
        for case in &sub.cases {
            text.push_str(&format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
                xml(&case.name),
                xml(&sub.name),
                case.seconds
            ));
            if case.passed() {
                text.push_str("/>\n");
            } else {
                text.push_str(&format!(
                    ">\n      <failure message=\"{}\" type=\"check\">{}</failure>\n    </testcase>\n",
                    xml(&case.failures[0]),
                    xml(&format!("{}\n{}", case.summary, case.failures.join("\n")))
                ));
            }
        }
        text.push_str("  </testsuite>\n");
    }
    text.push_str("</testsuites>\n");
    text
}

/// Gradescope's `results.json` for one submission: the total score, and a test per case
/// with `name`, `score`, `max_score`, `output` and `visibility` (hidden cases are
/// `after_published`, so students see them once grades are out).
pub fn gradescope(sub: &SubmissionResult) -> Value {
    let tests: Vec<Value> = sub
        .cases
        .iter()
        .map(|case| {
            let mut output = case.summary.clone();
            for failure in &case.failures {
                output.push('\n');
                output.push_str(failure);
            }
            json!({
                "name": case.name,
                "score": case.points,
                "max_score": case.max_points,
                "status": if case.passed() { "passed" } else { "failed" },
                "output": output,
                "visibility": match case.visibility {
                    Visibility::Visible => "visible",
                    Visibility::Hidden => "after_published",
                },
            })
        })
        .collect();
    let mut results = json!({
        "score": sub.score(),
        "execution_time": sub.cases.iter().map(|c| c.seconds).sum::<f64>(),
        "tests": tests,
    });
    if !sub.notes.is_empty() {
        results["output"] = sub.notes.join("\n").into();
    }
    results
}

/// GitHub Classroom's runner results for one submission (what its autograding reporter action
/// reads from a runner step's output, base64-encoded): a test per case with its points, the
/// reasons as its message. A hidden case shows its name and points only: the reporter prints
/// every message in the run's log, which the student reads.
pub fn classroom(sub: &SubmissionResult) -> Value {
    let tests: Vec<Value> = sub
        .cases
        .iter()
        .map(|case| {
            let message = match case.visibility {
                Visibility::Hidden => "a hidden case".to_string(),
                Visibility::Visible => {
                    let mut text = case.summary.clone();
                    for failure in sub.notes.iter().chain(&case.failures) {
                        text.push('\n');
                        text.push_str(failure);
                    }
                    text
                }
            };
            json!({
                "name": case.name,
                "status": if case.passed() { "pass" } else { "fail" },
                "score": case.points,
                "max_score": case.max_points,
                "message": message,
                "duration": (case.seconds * 1000.0).round(),
            })
        })
        .collect();
    json!({
        "version": 1,
        "status": if sub.passed() { "pass" } else { "fail" },
        "max_score": sub.max_score(),
        "tests": tests,
    })
}

/// asmdbg's JSON: every submission and case with all of its failures.
pub fn json(results: &[SubmissionResult]) -> Value {
    Value::Array(
        results
            .iter()
            .map(|sub| {
                json!({
                    "submission": sub.name,
                    "notes": sub.notes,
                    "score": sub.score(),
                    "max_score": sub.max_score(),
                    "cases": sub.cases.iter().map(|case| json!({
                        "name": case.name,
                        "passed": case.passed(),
                        "score": case.points,
                        "max_score": case.max_points,
                        "hidden": case.visibility == Visibility::Hidden,
                        "summary": case.summary,
                        "failures": case.failures,
                        "seconds": case.seconds,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<SubmissionResult> {
        vec![SubmissionResult {
            name: "alice <a&b>".to_string(),
            notes: vec![],
            cases: vec![
                CaseResult {
                    name: "ok".into(),
                    points: 2.0,
                    max_points: 2.0,
                    visibility: Visibility::Visible,
                    failures: vec![],
                    summary: "ended normally after 10 instructions".into(),
                    seconds: 0.001,
                },
                CaseResult {
                    name: "bad \"one\"".into(),
                    points: 0.0,
                    max_points: 1.5,
                    visibility: Visibility::Hidden,
                    failures: vec!["output differs at line 1\u{1}".into()],
                    summary: "ended normally".into(),
                    seconds: 0.002,
                },
            ],
        }]
    }

    #[test]
    fn the_table_shows_scores_and_failures() {
        let text = table(&sample());
        assert!(
            text.starts_with("alice <a&b>: 2/3.50 points, 1 of 2 cases passed\n"),
            "{text}"
        );
        assert!(
            text.contains("  FAIL  bad \"one\" (0/1.50): ended normally\n        output differs")
        );
    }

    #[test]
    fn junit_escapes_and_counts() {
        let text = junit(&sample());
        assert!(text.contains(
            "<testsuite name=\"alice &lt;a&amp;b&gt;\" id=\"0\" tests=\"2\" failures=\"1\""
        ));
        assert!(text.contains("<testcase name=\"bad &quot;one&quot;\""));
        assert!(
            text.contains("message=\"output differs at line 1?\""),
            "{text}"
        );
    }

    #[test]
    fn classroom_has_points_and_hides_hidden_reasons() {
        let value = classroom(&sample()[0]);
        assert_eq!(value["version"], 1);
        assert_eq!(value["status"], "fail");
        assert_eq!(value["max_score"], 3.5);
        assert_eq!(value["tests"][0]["status"], "pass");
        assert_eq!(value["tests"][0]["score"], 2.0);
        assert_eq!(value["tests"][1]["message"], "a hidden case");
        assert!(!value.to_string().contains("differs"));
    }

    #[test]
    fn gradescope_has_its_fields() {
        let value = gradescope(&sample()[0]);
        assert_eq!(value["score"], 2.0);
        assert_eq!(value["tests"][1]["max_score"], 1.5);
        assert_eq!(value["tests"][1]["visibility"], "after_published");
        assert_eq!(value["tests"][0]["visibility"], "visible");
    }
}
