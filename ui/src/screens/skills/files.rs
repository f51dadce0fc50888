//! The skill's sibling files (its references): each with its size; text
//! ones open for editing, and a new text file can be added by path. The
//! host keeps files it did not show as text (binary, large) untouched.

use leptos::prelude::*;
use pizza_protocol::{SkillFileText, SkillFileView};

/// One sibling file as the editor holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileDraft {
    pub(crate) path: String,
    pub(crate) size: u64,
    /// `None`: binary or too large to edit here.
    pub(crate) text: Option<String>,
}

/// The files, and whether anything about them changed (untouched files are
/// not sent, so the host keeps them as they are).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileDrafts {
    files: RwSignal<Vec<FileDraft>>,
    touched: RwSignal<bool>,
}

impl FileDrafts {
    pub(crate) fn new(files: Vec<SkillFileView>) -> Self {
        let files = files
            .into_iter()
            .map(|f| FileDraft {
                path: f.path,
                size: f.size,
                text: f.text,
            })
            .collect();
        Self {
            files: RwSignal::new(files),
            touched: RwSignal::new(false),
        }
    }

    /// What `skill_save` gets: every text file once one changed.
    pub(crate) fn to_save(self) -> Option<Vec<SkillFileText>> {
        if !self.touched.get_untracked() {
            return None;
        }
        Some(self.files.with_untracked(|files| {
            files
                .iter()
                .filter_map(|f| {
                    f.text.as_ref().map(|text| SkillFileText {
                        path: f.path.clone(),
                        text: text.clone(),
                    })
                })
                .collect()
        }))
    }

    fn edit(self, path: &str, text: String) {
        self.files.update(|files| {
            if let Some(file) = files.iter_mut().find(|f| f.path == path) {
                file.size = text.len() as u64;
                file.text = Some(text);
            }
        });
        self.touched.set(true);
    }

    fn remove(self, path: &str) {
        self.files.update(|files| files.retain(|f| f.path != path));
        self.touched.set(true);
    }

    /// Adds an empty text file; the reason it can't, otherwise.
    fn add(self, path: &str) -> Result<(), &'static str> {
        let path = path.trim().trim_start_matches('/');
        if path.is_empty() {
            return Err("Type a path for the new file, like references/notes.md.");
        }
        if path == "SKILL.md" {
            return Err("SKILL.md is the form above.");
        }
        if self
            .files
            .with_untracked(|f| f.iter().any(|x| x.path == path))
        {
            return Err("A file with this path is already there.");
        }
        self.files.update(|files| {
            files.push(FileDraft {
                path: path.to_owned(),
                size: 0,
                text: Some(String::new()),
            });
        });
        self.touched.set(true);
        Ok(())
    }
}

/// `1234` → `1.2 KB`.
pub(crate) fn size_label(size: u64) -> String {
    match size {
        0..1_000 => format!("{size} B"),
        1_000..1_000_000 => format!("{:.1} KB", size as f64 / 1_000.0),
        _ => format!("{:.1} MB", size as f64 / 1_000_000.0),
    }
}

#[component]
pub(crate) fn SiblingFiles(drafts: FileDrafts, editable: bool) -> impl IntoView {
    let new_path = RwSignal::new(String::new());
    let add_error = RwSignal::new(None::<&'static str>);
    let add = move || match drafts.add(&new_path.get_untracked()) {
        Ok(()) => {
            new_path.set(String::new());
            add_error.set(None);
        }
        Err(reason) => add_error.set(Some(reason)),
    };
    let paths = move || {
        drafts
            .files
            .with(|files| files.iter().map(|f| f.path.clone()).collect::<Vec<_>>())
    };
    view! {
        <fieldset class="field skill-files" data-testid="skill-files">
            <legend>"Files"</legend>
            <p class="hint muted">"References the skill can read while it works, under /skills/<name>/."</p>
            <ul class="skill-files__list" role="list">
                <For each=paths key=|p| p.clone() let:path>
                    <FileRow drafts path editable />
                </For>
            </ul>
            {editable.then(|| view! {
                <div class="field__row skill-files__add">
                    <input class="input mono" data-testid="skill-file-new-path" placeholder="references/notes.md"
                        aria-label="Path of a new text file" spellcheck="false" autocomplete="off"
                        prop:value=move || new_path.get()
                        on:input=move |ev| new_path.set(event_target_value(&ev))
                        on:keydown=move |ev| if ev.key() == "Enter" { ev.prevent_default(); add() } />
                    <button type="button" class="button" data-testid="skill-file-add" on:click=move |_| add()>"Add file"</button>
                </div>
                {move || add_error.get().map(|m| view! { <p class="field__error" role="alert">{m}</p> })}
            })}
        </fieldset>
    }
}

#[component]
fn FileRow(drafts: FileDrafts, path: String, editable: bool) -> impl IntoView {
    let lookup = path.clone();
    let file = crate::leaving::memo(move |_| {
        drafts
            .files
            .with(|files| files.iter().find(|f| f.path == lookup).cloned())
    });
    let (edit_path, remove_path) = (path.clone(), path.clone());
    let is_text = file.get_untracked().is_some_and(|f| f.text.is_some());
    let size = move || file.get().map(|f| size_label(f.size)).unwrap_or_default();
    view! {
        <li class="skill-file" data-testid=format!("skill-file-{path}")>
            {if is_text {
                view! {
                    <details class="skill-file__details">
                        <summary>
                            <span class="mono">{path.clone()}</span>" "<span class="muted">{size}</span>
                        </summary>
                        <textarea class="input mono skill-file__text" rows="8" spellcheck="false"
                            aria-label=format!("Text of {path}") data-testid=format!("skill-file-text-{path}")
                            readonly=!editable
                            prop:value=move || file.get().and_then(|f| f.text).unwrap_or_default()
                            on:input=move |ev| drafts.edit(&edit_path, event_target_value(&ev))></textarea>
                        {editable.then(|| view! {
                            <button type="button" class="link skill-file__remove"
                                on:click=move |_| drafts.remove(&remove_path)>"Remove this file"</button>
                        })}
                    </details>
                }.into_any()
            } else {
                view! {
                    <span class="skill-file__binary">
                        <span class="mono">{path.clone()}</span>" "<span class="muted">{size}" · not editable here, kept as is"</span>
                    </span>
                }.into_any()
            }}
        </li>
    }
}
