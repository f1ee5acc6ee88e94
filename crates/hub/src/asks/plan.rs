//! Where a plan to approve is: the plan file Claude Code has the agent write (`.claude/plans/<name>.md`),
//! since its ExitPlanMode hooks carry no plan (2.1.330 sends `{}`).

use serde_json::Value;

/// The plan file a Write or Edit of the agent targets, if it is one: `<...>/.claude/plans/<name>.md`.
pub(super) fn plan_file(tool: &str, input: &Value) -> Option<std::path::PathBuf> {
    if !matches!(tool, "Write" | "Edit" | "MultiEdit") {
        return None;
    }
    let path = std::path::Path::new(input.get("file_path")?.as_str()?);
    let in_plans = path.parent().is_some_and(|p| {
        p.file_name().is_some_and(|n| n == "plans")
            && p.parent()
                .and_then(|c| c.file_name())
                .is_some_and(|n| n == ".claude")
    });
    (path.is_absolute() && in_plans && path.extension().is_some_and(|e| e == "md"))
        .then(|| path.to_owned())
}

/// A plan file's text, if it is a regular file of reasonable size.
pub(super) fn read_plan(path: &std::path::Path) -> Option<String> {
    const MAX_PLAN: u64 = 256 * 1024;
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_PLAN {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_a_plan_file_of_claude_code_is_taken_for_the_plan() {
        let write = |path: &str| json!({ "file_path": path, "content": "x" });
        assert!(plan_file("Write", &write("/home/u/.claude/plans/fancy-plan.md")).is_some());
        assert!(plan_file("Edit", &write("/home/u/.claude/plans/fancy-plan.md")).is_some());
        assert!(plan_file("Read", &write("/home/u/.claude/plans/fancy-plan.md")).is_none());
        for other in [
            "/etc/passwd",
            "/home/u/plans/a.md",
            "/home/u/.claude/plans/a.txt",
            "plans/a.md",
        ] {
            assert!(plan_file("Write", &write(other)).is_none(), "{other}");
        }
    }
}
