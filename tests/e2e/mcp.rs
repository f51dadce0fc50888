//! MCP end to end: server-everything added in the form connects and lists
//! its tools; Make a skill drafts a skill over it; a scripted model
//! delegates and the subagent calls `echo`, the card showing the result;
//! the server's process killed, it shows crashed and comes back by itself;
//! a plugin folder installed behind its trust prompt brings its skill and
//! server.

use std::path::{Path, PathBuf};

use crate::chat::{ask, configure_provider, feed_has, openai_mock};
use crate::harness::{App, Sandbox};
use crate::skills::{fill, text_content};
use anyhow::{Context, Result, bail, ensure};
use pizza_test_support::mcp::{mcp_servers, test_server_bin};
use pizza_test_support::mock_provider::sse;
use serde_json::json;

const ASK: &str = "Say hello pizza through the everything server.";
const REPORT: &str = "The server echoed: hello pizza.";

fn state_of(id: &str) -> String {
    format!("return document.querySelector('[data-testid=mcp-status-{id}]')?.dataset.state ?? null")
}

/// The processes whose working folder is `dir`: the server the app started there.
fn processes_in(dir: &Path) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir))
        .collect()
}

/// A plugin folder with one skill and one server (the fast test server).
fn write_plugin(root: &Path) -> Result<()> {
    std::fs::create_dir_all(root.join(".claude-plugin"))?;
    std::fs::create_dir_all(root.join("skills/stock-check"))?;
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        json!({"name": "to-open", "version": "1.0.0", "description": "Pantry helpers.", "commands": "./commands"})
            .to_string(),
    )?;
    std::fs::write(
        root.join("skills/stock-check/SKILL.md"),
        "---\nname: stock-check\ndescription: Checks stock with the pantry server; returns a list.\ntools: [\"mcp:pantry:*\"]\n---\n\nCheck the stock.\n",
    )?;
    std::fs::write(
        root.join(".mcp.json"),
        json!({"mcpServers": {"pantry": {"command": test_server_bin().display().to_string(), "args": ["--name", "pantry"]}}})
            .to_string(),
    )?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_server_added_in_the_form_serves_a_drafted_skill_and_survives_a_crash() -> Result<()>
{
    let servers = mcp_servers().map_err(anyhow::Error::msg)?;
    let mock = openai_mock().await?;
    let path = "/v1/chat/completions";
    mock.push_for(
        path,
        sse::openai_chat_tool_call(
            "call_task",
            "task",
            &json!({"skill": "everything", "ask": ASK}),
        ),
    );
    mock.push_for(
        path,
        sse::openai_chat_tool_call(
            "call_echo",
            "everything__echo",
            &json!({"message": "hello pizza"}),
        ),
    );
    mock.push_for(path, sse::openai_chat_text(REPORT));
    mock.push_for(path, sse::openai_chat_text(REPORT));
    mock.set_default(path, sse::openai_chat_text("Done."));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    // The server runs in a folder of its own, so the test can find its process.
    let server_dir: PathBuf = sandbox.path().join("everything-cwd");
    std::fs::create_dir_all(&server_dir)?;
    let server_dir = std::fs::canonicalize(&server_dir)?;
    write_plugin(&sandbox.open_dialog_answer())?;

    let app = App::start(&sandbox, "mcp").await?;
    app.run(async |app| {
        // Add server-everything in the form.
        app.click("[data-testid=rail-mcp]").await?;
        app.click("[data-testid=mcp-add]").await?;
        fill(app, "mcp-form-id", "everything").await?;
        fill(app, "mcp-form-command", &servers.node.display().to_string()).await?;
        fill(app, "mcp-form-args", &format!("{}\nstdio", servers.everything.display())).await?;
        fill(app, "mcp-form-cwd", &server_dir.display().to_string()).await?;
        app.click("[data-testid=mcp-form-save]").await?;
        app.find("[data-testid=mcp-card-everything]").await?;
        app.wait_for_value(&state_of("everything"), &json!("connected")).await?;
        app.find("[data-testid=mcp-tool-everything-echo]").await?;
        let written = std::fs::read_to_string(sandbox.data_root().join(".mcp.json"))?;
        ensure!(written.contains("\"everything\"") && written.contains("stdio"), "{written}");
        let status = text_content(app, "[data-testid=status-mcp]").await?;
        ensure!(status.contains('1'), "the status bar: {status}");

        // Make a skill: the editor opens with the draft; saved, it is ready.
        app.click("[data-testid=mcp-make-skill-everything]").await?;
        app.find("[data-testid=skill-save]").await?;
        app.click("[data-testid=skill-save]").await?;
        app.find("[data-testid=skill-card-everything]").await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=skill-readiness-everything]')?.dataset.state ?? null",
            &json!("ready"),
        )
        .await?;
        let skill = std::fs::read_to_string(sandbox.data_root().join("skills/everything/SKILL.md"))?;
        ensure!(skill.contains("mcp:everything:*"), "{skill}");

        // A scripted model delegates; the subagent calls echo.
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(app, ASK).await?;
        let card = "[data-testid=delegation-call_task]";
        app.find(card).await?;
        app.wait_for_value(
            &format!("return document.querySelector('{card}')?.dataset.state ?? null"),
            &json!("done"),
        )
        .await?;
        let tools = text_content(app, "[data-testid=delegation-tool-call_task]").await?;
        ensure!(tools.contains("hello pizza"), "the subagent's echo and its result: {tools}");
        app.wait_for_value(&feed_has(&[REPORT]), &json!(true)).await?;
        let sub = mock
            .requests()
            .into_iter()
            .filter(|r| r.path.ends_with("/chat/completions"))
            .find(|r| String::from_utf8_lossy(&r.body).contains("Echo: hello pizza"))
            .context("the subagent read the tool's result")?;
        ensure!(!String::from_utf8_lossy(&sub.body).contains("\"name\":\"task\""));

        // Kill the server's process: crashed, then connected again by itself.
        app.click("[data-testid=rail-mcp]").await?;
        let before = processes_in(&server_dir);
        ensure!(!before.is_empty(), "no server process runs in {}", server_dir.display());
        for pid in &before {
            std::process::Command::new("kill").args(["-9", &pid.to_string()]).status()?;
        }
        app.wait_for_value(&state_of("everything"), &json!("crashed")).await?;
        app.wait_for_value(&state_of("everything"), &json!("connected")).await?;
        let after = processes_in(&server_dir);
        ensure!(!after.is_empty() && after.iter().all(|p| !before.contains(p)), "{before:?} → {after:?}");

        // Install a plugin folder: the trust prompt lists what it runs.
        app.click("[data-testid=plugin-install-folder]").await?;
        app.find("[data-testid=plugin-trust]").await?;
        let commands = text_content(app, "[data-testid=plugin-trust-commands]").await?;
        ensure!(commands.contains("pizza-mcp-test-server"), "the trust prompt: {commands}");
        app.click("[data-testid=plugin-trust-confirm]").await?;
        app.find("[data-testid=plugin-card-to-open]").await?;
        app.find("[data-testid=mcp-card-pantry]").await?;
        app.wait_for_value(&state_of("pantry"), &json!("connected")).await?;
        let detail = text_content(app, "[data-testid=plugin-card-to-open]").await?;
        ensure!(detail.contains("commands"), "the dropped field is noted: {detail}");
        app.click("[data-testid=rail-skills]").await?;
        app.find("[data-testid=skill-card-stock-check]").await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=skill-readiness-stock-check]')?.dataset.state ?? null",
            &json!("ready"),
        )
        .await?;
        if !sandbox.data_root().join("plugins/to-open/.claude-plugin/plugin.json").is_file() {
            bail!("the plugin was not installed into the data root");
        }
        Ok(())
    })
    .await
}
