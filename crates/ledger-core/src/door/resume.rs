//! Resuming, as the doors call it: `check`, everything a resuming session
//! must know in one report (`ledger check --json`), and `changes`, every
//! change of the workspace in brief (`ledger changes --json`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Verb, Workspace, text};
use crate::{
    Result,
    lifecycle::{
        ChangeSummary, GatePrerequisites, Resume, ResumeRequest, list_changes, resume_check,
    },
    tasks::TaskRule,
};

/// Everything a resuming session must know, in one report: for each active
/// change (or the one named) its approvals with causes, its verdict checked
/// now with every gate it relied on, its envelope, its tasks and the work left;
/// every gate `ledger.toml` declares and every verdict the store records,
/// checked now; and the store's health. `work` lists every item (each naming
/// its change, if any); `nothing_to_do` is the one verdict (the CLI's exit 0;
/// otherwise 1). The same options serve every stage: prerequisites that
/// nothing checked relies on are listed in `notes`, never refused.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckOptions {
    /// The one change to check; default: every active change, and every
    /// change with live recorded state whose files are gone.
    #[serde(default)]
    pub change: Option<String>,
    /// Where changes live, relative to the workspace.
    #[serde(default = "crate::door::openspec::default_changes_root")]
    pub changes_root: String,
    /// The artifact schema for every change read (a name or a path); default:
    /// each change's own.
    #[serde(default)]
    pub schema: Option<String>,
    /// The rule of each tracked Tasks file; default: each change's own.
    #[serde(default)]
    pub task_rule: Option<TaskRule>,
    /// Gate name → prerequisite name → how to observe it now (as
    /// `check_validation` takes them); for a declared gate they replace the
    /// declared ones of the same name. Those of a gate nothing checked relies
    /// on are noted (`notes`), not used.
    #[serde(default)]
    pub gate_prerequisites: GatePrerequisites,
    /// Whether the prerequisite commands `ledger.toml` declares (`env-cmd`)
    /// may be run to observe them: the caller's decision, which no file of
    /// the checkout can make. Default: not run; each stays unverified and a
    /// note says so.
    #[serde(default)]
    pub allow_env_cmd: bool,
}

fn check(ws: &Workspace, o: CheckOptions) -> Result<Resume> {
    let request = ResumeRequest {
        workspace: ws.path().to_owned(),
        changes_root: o.changes_root,
        schema: o.schema,
        task_rule: o.task_rule,
        change: o.change,
        gate_prerequisites: o.gate_prerequisites,
        allow_env_cmd: o.allow_env_cmd,
    };
    resume_check(ws.store()?, &request)
}

/// Every change of the workspace — active and archived on disk, and those
/// with recorded state whose files are gone — each in brief: where it is,
/// how many approvals stand, its tasks, its recorded verdict, its next
/// outcome (`ledger changes --json`).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangesOptions {
    /// Where changes live, relative to the workspace.
    #[serde(default = "crate::door::openspec::default_changes_root")]
    pub changes_root: String,
    /// The artifact schema for every change read; default: each change's own.
    #[serde(default)]
    pub schema: Option<String>,
    /// The rule of each tracked Tasks file; default: each change's own.
    #[serde(default)]
    pub task_rule: Option<TaskRule>,
}

fn changes(ws: &Workspace, o: ChangesOptions) -> Result<Vec<ChangeSummary>> {
    let mut request = ResumeRequest::new(ws.path());
    request.changes_root = o.changes_root;
    request.schema = o.schema;
    request.task_rule = o.task_rule;
    list_changes(ws.store()?, &request)
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("check", &[], check).shown(text::resume),
        Verb::method("changes", &[], changes).shown(|c: &Vec<ChangeSummary>| text::changes(c)),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use crate::door::Case;
    use crate::door::testing::{call, code};

    /// Change `add-auth` with every spec-driven artifact and one open task.
    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let change = dir.path().join("openspec/changes/add-auth");
        std::fs::create_dir_all(change.join("specs/auth")).unwrap();
        std::fs::create_dir_all(dir.path().join("openspec/changes/archive/2026-01-01-old"))
            .unwrap();
        std::fs::write(change.join("proposal.md"), "# Why\n").unwrap();
        std::fs::write(change.join("design.md"), "# How\n").unwrap();
        std::fs::write(change.join("specs/auth/spec.md"), "# Auth\n").unwrap();
        std::fs::write(
            change.join("tasks.md"),
            "- [x] 1.1 [core] Add login\n- [ ] 1.2 [core] Add tokens\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn check_lists_the_work_and_changes_lists_every_change() {
        let dir = workspace();
        let reply = call(&dir, "check", json!({}), Case::Camel);
        let ok = &reply["ok"];
        assert_eq!(ok["nothingToDo"], false, "{reply}");
        let change = &ok["changes"][0];
        assert_eq!(change["change"], "add-auth");
        let kinds: Vec<&str> = (change["work"].as_array().unwrap().iter())
            .map(|w| w["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "approval",
                "approval",
                "approval",
                "approval",
                "tasks-left",
                "not-validated"
            ],
            "{reply}"
        );
        assert!(ok["store"]["refs"].is_array());
        assert_eq!(
            ok["changes"].as_array().unwrap().len(),
            1,
            "archived left out"
        );

        let listed = call(&dir, "changes", json!({}), Case::Snake);
        let listed = listed["ok"].as_array().unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0]["change"], "add-auth");
        assert_eq!(listed[0]["location"]["state"], "active");
        assert_eq!(listed[0]["tasks"], json!({"done": 1, "total": 2}));
        assert_eq!(listed[0]["approved"], 0);
        assert_eq!(listed[1]["change"], "old");
        assert_eq!(listed[1]["location"]["state"], "archived");

        let unknown = call(&dir, "check", json!({"change": "nope"}), Case::Snake);
        assert_eq!(code(&unknown), "unknown-change", "{unknown}");
        let foreign = json!({"gate_prerequisites": {"lint": {"x": {"literal": "1"}}}});
        let reply = call(&dir, "check", foreign, Case::Snake);
        let note = &reply["ok"]["notes"][0];
        assert_eq!(note["kind"], "unused-prerequisites", "{reply}");
        assert_eq!(note["subject"], "lint", "nothing relies on lint: {reply}");
    }

    /// The work kinds of the first change `check` reports.
    fn kinds(reply: &serde_json::Value) -> Vec<String> {
        (reply["ok"]["changes"][0]["work"].as_array().unwrap().iter())
            .map(|w| w["kind"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn a_standing_pass_leaves_the_archive_and_a_fix_after_it_is_work_again() {
        let dir = workspace();
        let tasks = dir.path().join("openspec/changes/add-auth/tasks.md");
        std::fs::write(
            &tasks,
            "- [x] 1.1 [core] Add login\n- [x] 1.2 [core] Add tokens\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/login.txt"), "login\n").unwrap();
        for artifact in ["proposal", "specs", "design", "tasks"] {
            let options = json!({"change": "add-auth", "artifact": artifact, "source": "m"});
            assert!(call(&dir, "approve", options, Case::Snake)["ok"].is_object());
        }
        let gate = json!({"name": "test", "argv": ["true"], "scope": {"roots": ["src"]}});
        assert_eq!(
            call(&dir, "run_gate", gate, Case::Snake)["ok"]["exit_code"],
            0
        );
        let set = json!({"change": "add-auth", "next": "archive"});
        assert!(call(&dir, "advance_state", set, Case::Snake)["ok"].is_object());
        let pass = json!({"change": "add-auth", "verdict": "PASS", "source": "review:1",
            "roots": ["src"], "gates": ["test"]});
        let recorded = call(&dir, "record_validation", pass, Case::Snake);
        assert!(recorded["ok"].is_object(), "{recorded}");

        let reply = call(&dir, "check", json!({"change": "add-auth"}), Case::Snake);
        assert_eq!(kinds(&reply), ["archive"], "{reply}");
        let change = &reply["ok"]["changes"][0];
        assert_eq!(change["validation"]["stands"], true);
        assert_eq!(change["validation"]["gates"][0]["fresh"], true);
        assert_eq!(change["state"]["state"]["next_outcome"], "archive");
        assert_eq!(
            reply["ok"]["nothing_to_do"], false,
            "an active change is work"
        );

        std::fs::write(dir.path().join("src/login.txt"), "fixed\n").unwrap();
        let reply = call(&dir, "check", json!({}), Case::Camel);
        assert_eq!(kinds(&reply), ["pass-changed", "gate-stale"], "{reply}");
        let gates = &reply["ok"]["changes"][0]["validation"]["gates"][0];
        assert_eq!(gates["fresh"], false);
        assert!(gates["reasons"].as_array().is_some_and(|r| !r.is_empty()));

        // Archived by hand, as OpenSpec's archive would move it: finalization.
        std::fs::write(dir.path().join("src/login.txt"), "login\n").unwrap();
        let archive = dir
            .path()
            .join("openspec/changes/archive/2026-02-02-add-auth");
        std::fs::rename(dir.path().join("openspec/changes/add-auth"), &archive).unwrap();
        let reply = call(&dir, "check", json!({}), Case::Snake);
        assert_eq!(
            reply["ok"]["changes"],
            json!([]),
            "no active change: {reply}"
        );
        assert_eq!(reply["ok"]["nothing_to_do"], true);
        let named = call(&dir, "check", json!({"change": "add-auth"}), Case::Snake);
        let change = &named["ok"]["changes"][0];
        assert_eq!(change["location"]["state"], "archived", "{named}");
        assert!(
            change["finalization"]["archive_move"].is_object(),
            "{named}"
        );
    }
}
