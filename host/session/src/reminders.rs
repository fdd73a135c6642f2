//! The synthetic text the loop adds to the conversation (never rewriting history): the
//! wrapper for user input that arrives while the agent works, the notice on the last
//! allowed step, and the reminders when the agent switches between plan and build.

/// Wraps text the user sent while the loop was running, so the model treats it as an
/// interjection rather than a new task.
pub fn mid_run_message(text: &str) -> String {
    format!(
        "<system-reminder>\nThe user sent the following message:\n{text}\n\nPlease address this message and continue with your tasks.\n</system-reminder>"
    )
}

/// Appended on the last step an agent is allowed: tools are off, summarise.
pub const MAX_STEPS: &str = "CRITICAL - MAXIMUM STEPS REACHED\n\nThe maximum number of steps allowed for this task has been reached. Tools are disabled until next user input. Respond with text only.\n\nSTRICT REQUIREMENTS:\n1. Do NOT make any tool calls (no reads, writes, edits, searches, or any other tools)\n2. MUST provide a text response summarizing work done so far\n3. This constraint overrides ALL other instructions, including any user requests for edits or tool use\n\nResponse must include:\n- Statement that maximum steps for this agent have been reached\n- Summary of what has been accomplished so far\n- List of any remaining tasks that were not completed\n- Recommendations for what should be done next\n\nAny attempt to use tools is a critical violation. Respond with text analysis only.";

/// Added when the session enters the `plan` agent.
pub const ENTER_PLAN: &str = "<system-reminder>\nPlan mode is active. You are in a read-only phase: do not edit files, change configuration or run commands that modify the system (the only file you may write is your plan under .ward/plans/). Research with read-only tools, ask the user to clarify where needed, and present a concrete plan.\n</system-reminder>";

/// Added when the session leaves `plan` for `build`.
pub const LEAVE_PLAN: &str = "<system-reminder>\nYour operational mode has changed from plan to build.\nYou are no longer in read-only mode.\nYou are permitted to make file changes, run shell commands, and utilize your arsenal of tools as needed.\n</system-reminder>";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mid_run_wrapping() {
        let m = mid_run_message("also fix the tests");
        assert!(m.starts_with("<system-reminder>"));
        assert!(m.contains("The user sent the following message:\nalso fix the tests"));
        assert!(m.ends_with("</system-reminder>"));
    }
}
