//! Attachments in the real window: an image from the picker and a pasted
//! CSV go with a message; the provider gets the image as a base64 part and
//! the CSV as text; the thumbnails load through the `attachment:` scheme;
//! deleting the thread deletes the files.

use crate::chat::{ask, configure_provider, feed_has, openai_mock};
use crate::harness::{App, Sandbox};
use anyhow::{Result, ensure};
use base64::Engine as _;
use fantoccini::Locator;
use pizza_test_support::mock_provider::sse;
use serde_json::json;

const ANSWER: &str = "A red dot, and an order of two pizzas.";
const CSV: &str = "item,qty\npizza,2\n";

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0,
    1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0a, 0x49, 0x44, 0x41, 0x54,
    0x78, 0x9c, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0d, 0x0a, 0x2d, 0xb4, 0, 0, 0, 0, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Whether the image matched by `css` loaded (from the custom scheme).
fn image_loaded(css: &str) -> String {
    format!(
        "const i = document.querySelector({css});
         return !!i && i.complete && i.naturalWidth > 0 && i.src.startsWith('attachment:');",
        css = json!(css)
    )
}

/// Whether the composer's bottom edge is the pane's (inside its padding).
const COMPOSER_AT_BOTTOM: &str = "
    const pane = document.querySelector('.pane');
    const composer = document.querySelector('[data-testid=composer]');
    if (!pane || !composer) return false;
    const inner = pane.getBoundingClientRect().bottom - parseFloat(getComputedStyle(pane).paddingBottom);
    return Math.abs(inner - composer.getBoundingClientRect().bottom) < 2;";

fn ready_chips(count: usize) -> String {
    format!(
        "return document.querySelectorAll('[data-testid=attachment-chip][data-state=ready]').length === {count};"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_image_and_a_pasted_file_reach_the_model_and_go_with_the_thread() -> Result<()> {
    let mock = openai_mock().await?;
    mock.set_default("/v1/chat/completions", sse::openai_chat_text(ANSWER));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    std::fs::write(sandbox.attach_dialog_answer(), PNG)?;
    let attachments = sandbox.data_root().join("attachments");

    let app = App::start(&sandbox, "attachments").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        // The composer sits at the bottom from the start: nothing moves
        // under the pointer as the thread's welcome arrives.
        app.wait_for_value(COMPOSER_AT_BOTTOM, &json!(true)).await?;
        // The picker (answered by the sandbox) brings the image in.
        app.click("[data-testid=attach-button]").await?;
        app.wait_for_value(&ready_chips(1), &json!(true)).await?;
        app.wait_for_value(
            &image_loaded("[data-testid=attachment-chip] img"),
            &json!(true),
        )
        .await?;
        // A file pasted into the composer, as the clipboard hands it over.
        app.eval(&format!(
            "const input = document.querySelector('[data-testid=composer-input]');
             const data = new DataTransfer();
             data.items.add(new File([{csv}], 'order.csv', {{type: 'text/csv'}}));
             input.dispatchEvent(new ClipboardEvent('paste',
                 {{clipboardData: data, bubbles: true, cancelable: true}}));
             return null;",
            csv = json!(CSV)
        ))
        .await?;
        app.wait_for_value(&ready_chips(2), &json!(true)).await?;
        ask(app, "What is in these?").await?;
        app.wait_for_value(&feed_has(&[ANSWER]), &json!(true))
            .await?;
        // The sent message shows its image from the scheme.
        app.wait_for_value(
            &image_loaded("[data-testid=message-attachment-image]"),
            &json!(true),
        )
        .await?;
        app.wait_for_value(
            "return document.querySelectorAll('[data-testid=attachment-chip]').length;",
            &json!(0),
        )
        .await?;

        let asked = mock
            .requests()
            .into_iter()
            .filter(|r| r.path == "/v1/chat/completions")
            .map(|r| r.json().to_string())
            .find(|body| body.contains("What is in these?"));
        let Some(body) = asked else {
            anyhow::bail!("the provider never got the message");
        };
        let image = base64::engine::general_purpose::STANDARD.encode(PNG);
        ensure!(
            body.contains(&format!("data:image/png;base64,{image}")),
            "no image part in {body}"
        );
        ensure!(
            body.contains(
                "<attachment name=\\\"order.csv\\\" type=\\\"text/csv\\\">\\nitem,qty\\npizza,2\\n"
            ),
            "the CSV is not inlined in {body}"
        );
        ensure!(
            std::fs::read_dir(&attachments)?.count() == 2,
            "two files stored"
        );

        // Deleting the thread deletes its files. The row re-renders as the
        // run's end is announced, which can close its menu: retried until the
        // question shows.
        app.retrying(async || {
            if app
                .client
                .find(Locator::Css("[data-testid=confirm-ok]"))
                .await
                .is_ok()
            {
                return Ok(());
            }
            if app
                .client
                .find(Locator::Css("[data-testid=menu-delete]"))
                .await
                .is_err()
            {
                app.client
                    .find(Locator::Css(
                        "[data-testid=thread-row] [data-testid=thread-menu]",
                    ))
                    .await?
                    .click()
                    .await?;
            }
            app.client
                .find(Locator::Css("[data-testid=menu-delete]"))
                .await?
                .click()
                .await?;
            app.client
                .find(Locator::Css("[data-testid=confirm-ok]"))
                .await?;
            Ok(())
        })
        .await?;
        app.click("[data-testid=confirm-ok]").await?;
        app.wait_for_value(
            "return document.querySelectorAll('[data-testid=thread-row]').length;",
            &json!(0),
        )
        .await?;
        ensure!(
            std::fs::read_dir(&attachments)?.count() == 0,
            "the thread's files are gone"
        );
        Ok(())
    })
    .await
}
