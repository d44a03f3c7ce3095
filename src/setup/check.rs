//! A check the doctor runs and reports.

/// One line of `ask-popup doctor`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Check {
    pub check: String,
    /// None: not checked here (e.g. outside Zellij, or the agent is not installed).
    pub ok: Option<bool>,
    pub detail: String,
    /// For a failed check: the command that fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// A check that holds with a doubt (`ok` is true): said, with its fix, but no failure.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub warning: bool,
}

impl Check {
    pub fn pass(check: &str, detail: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            ok: Some(true),
            detail: detail.into(),
            fix: None,
            warning: false,
        }
    }
    pub fn fail(check: &str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            ok: Some(false),
            detail: detail.into(),
            fix: Some(fix.into()),
            warning: false,
        }
    }
    /// Holds, but with a doubt worth saying and what would remove it.
    pub fn warn(check: &str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            ok: Some(true),
            detail: detail.into(),
            fix: Some(fix.into()),
            warning: true,
        }
    }
    pub fn skip(check: &str, detail: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            ok: None,
            detail: detail.into(),
            fix: None,
            warning: false,
        }
    }
}

/// The doctor's report: one line per check (✓, ✗ with its fix, ⚠ with its fix, or – not
/// checked).
pub fn report(checks: &[Check]) -> String {
    let mut out = String::new();
    for c in checks {
        let mark = match c.ok {
            Some(true) if c.warning => "⚠",
            Some(true) => "✓",
            Some(false) => "✗",
            None => "–",
        };
        out.push_str(&format!("{mark} {}: {}\n", c.check, c.detail));
        if let Some(fix) = &c.fix {
            out.push_str(&format!("    fix: {fix}\n"));
        }
    }
    out
}

/// Whether every check that ran held.
pub fn all_hold(checks: &[Check]) -> bool {
    checks.iter().all(|c| c.ok != Some(false))
}
