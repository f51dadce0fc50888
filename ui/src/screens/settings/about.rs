//! Settings › About: what is running, and what it logged ([`logs`]).

mod logs;

use crate::app_state::AppState;
use leptos::prelude::*;
use pizza_protocol::BuildProfile;

#[component]
pub(super) fn About() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <section class="form" aria-labelledby="about-title">
            <h1 id="about-title">"About"</h1>
            {move || match state.info.get() {
                None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                Some(info) => {
                    let profile = match info.build_profile {
                        BuildProfile::Debug => "debug",
                        BuildProfile::Release => "release",
                    };
                    view! {
                        <dl class="facts">
                            <dt>"Name"</dt><dd>{info.name}</dd>
                            <dt>"Version"</dt><dd data-testid="about-version">{info.version}</dd>
                            <dt>"Build"</dt><dd>{profile}</dd>
                            <dt>"Protocol"</dt><dd>{info.protocol_version}</dd>
                            <dt>"Data folder"</dt><dd class="mono" data-testid="about-data-root">{info.data_root}</dd>
                        </dl>
                    }
                        .into_any()
                }
            }}
        </section>
        <logs::Logs />
    }
}
