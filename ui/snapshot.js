// The main window's last look, shown while this page starts.
//
// The page paints its inbox only once its wasm has loaded and compiled and
// the thread list has come back, ~280 ms after it started. The host hands
// this page the markup the last window sent (`window.__pizzaSnapshot`, set
// by an initialization script; src-tauri/src/main_window.rs) if nothing has
// changed since. This classic script, the last thing in the body, shows it
// before the first paint: inert and hidden from assistive technology, over
// the page, which mounts underneath. The UI removes it once its own inbox
// has its list (`reveal`), with the page scrolled as the cover shows it,
// and sends the host what it shows when that changes and when the window is
// hidden (`watch`). Kept in a file so the CSP needs no inline script.
(() => {
  // The host keeps at most this much (window_snapshot.rs).
  const MAX_BYTES = 1 << 20;
  // How long the page must be still before its look is sent again.
  const SETTLE_MS = 1000;
  // A page that never reveals itself (a failure before the UI runs) still
  // shows itself after this.
  const GIVE_UP_MS = 10000;
  // The longest the UI's code waits for the last look to be painted.
  const LAST_LOOK_WAIT_MS = 300;

  const DAY_MS = 86400000;
  // The shell's scrolling regions, and what in them a scroll is kept by.
  const SCROLLERS = [".sidebar", ".pane"];
  const ANCHORS = "[data-thread-id], [data-message-id]";
  // Notices of a moment ("Saved", "Exported to …", the overlay of files
  // dragged over the window): a new page shows none of them, so a look
  // with one would lose it as the cover goes.
  const PASSING = ".saved, .quiet-notice, .drop-overlay";

  const cover = () => document.getElementById("snapshot");
  // The page's own shell, under the cover.
  const liveShell = () => document.querySelector("body > .shell");

  // The thread list's rows grouped as of today: a snapshot taken on an
  // earlier day has them under that day's headings. The list carries its
  // groups as `[[name, days or null], …]` (`data-day-groups`,
  // ui/src/screens/inbox/day_groups.rs): a row is in the first group whose
  // start, local midnight today less `days` days, it is not older than.
  // Rows are in the list's order, newest first, so each group is a run of
  // them. Left as taken when anything is missing.
  const regroup = (root) => {
    const list = root.querySelector("[data-day-groups]");
    if (!list) return;
    const sections = [...list.querySelectorAll(":scope > [data-day-group]")];
    const rows = sections.flatMap((section) => [
      ...section.querySelectorAll(":scope > [role=listitem]"),
    ]);
    let table;
    try {
      table = JSON.parse(list.dataset.dayGroups);
    } catch {
      return;
    }
    const heading = sections[0]?.querySelector(":scope > .threads__heading");
    if (!heading || !Array.isArray(table)) return;
    if (rows.some((row) => !row.dataset.activity)) return;
    const midnight = new Date().setHours(0, 0, 0, 0);
    const groupOf = (at) =>
      table.find(([, days]) => days === null || at >= midnight - days * DAY_MS)?.[0];
    const after = sections[sections.length - 1].nextSibling;
    const made = sections[0].cloneNode(false);
    for (const section of sections) section.remove();
    let section = null;
    let name = null;
    for (const row of rows) {
      const group = groupOf(Number(row.dataset.activity)) ?? name;
      if (!section || group !== name) {
        name = group;
        section = made.cloneNode(false);
        const title = heading.cloneNode(false);
        title.textContent = name;
        section.append(title);
        list.insertBefore(section, after);
      }
      section.append(row);
    }
  };
  // The page's own scroll made to match the last look's before it goes, so
  // nothing moves as it does: each scrolling region (the thread list, the
  // main pane) is scrolled so that the first thread or message the cover
  // shows at its top is at the same height in the page. A region that shows
  // none (Settings) takes the cover's offset; one whose first shown item the
  // page does not have (an older page of a long thread) keeps its own.
  const adopt = (shown) => {
    for (const selector of SCROLLERS) {
      const from = shown.querySelector(selector);
      const to = liveShell()?.querySelector(selector);
      if (!from || !to) continue;
      const anchors = [...from.querySelectorAll(ANCHORS)];
      if (!anchors.length) {
        to.scrollTop = from.scrollTop;
        continue;
      }
      const top = from.getBoundingClientRect().top;
      const first = anchors.find((anchor) => anchor.getBoundingClientRect().bottom > top);
      if (!first) continue;
      const name = first.hasAttribute("data-message-id") ? "data-message-id" : "data-thread-id";
      const value = CSS.escape(first.getAttribute(name));
      const same = to.querySelector(`[${name}="${value}"]`);
      if (!same) continue;
      const want = first.getBoundingClientRect().top - top;
      to.scrollTop += same.getBoundingClientRect().top - to.getBoundingClientRect().top - want;
    }
  };
  const reveal = () => {
    const shown = cover();
    if (!shown) return;
    adopt(shown);
    shown.remove();
  };

  const shown = window.__pizzaSnapshot;
  delete window.__pizzaSnapshot;
  if (typeof shown === "string" && shown) {
    const element = document.createElement("div");
    element.id = "snapshot";
    element.inert = true;
    element.setAttribute("aria-hidden", "true");
    element.innerHTML = shown;
    regroup(element);
    document.body.prepend(element);
    for (const scrolled of element.querySelectorAll("[data-scroll-top]")) {
      scrolled.scrollTop = Number(scrolled.dataset.scrollTop) || 0;
    }
    // The frame after the one that painted it, as the UI marks its own;
    // the UI's code waits for it to compile (ui/first_paint.js). A page
    // not shown paints no frame: its code compiles at once then, and in
    // any case after a moment.
    const painted = () => window.pizzaLastLookPainted?.();
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        window.pizzaSnapshotPainted = performance.now();
        painted();
      }),
    );
    if (document.visibilityState !== "visible") painted();
    setTimeout(painted, LAST_LOOK_WAIT_MS);
    setTimeout(reveal, GIVE_UP_MS);
  } else {
    window.pizzaLastLookPainted?.();
  }

  // The live shell's markup, without what only the live page may have:
  // ids, test ids, focus, object URLs and passing notices; scroll offsets
  // and what text fields hold kept.
  // Null when there is no shell, when a dialog, side panel or menu is open
  // (a new window opens none), or when it is too large to keep.
  const take = () => {
    const shell = liveShell();
    if (!shell || shell.querySelector("[role=dialog], [role=menu]")) return null;
    const copy = shell.cloneNode(true);
    const live = [shell, ...shell.querySelectorAll("*")];
    const copies = [copy, ...copy.querySelectorAll("*")];
    live.forEach((element, index) => {
      const copied = copies[index];
      if (element.scrollTop > 0) {
        copied.dataset.scrollTop = String(Math.round(element.scrollTop));
      }
      // A text field shows its value, which its markup does not carry
      // (a textarea's markup may carry the UI's own markers instead).
      if (element instanceof HTMLTextAreaElement) {
        copied.textContent = element.value;
      } else if (element instanceof HTMLInputElement) {
        copied.setAttribute("value", element.value);
      }
      copied.removeAttribute("id");
      copied.removeAttribute("data-testid");
      copied.removeAttribute("autofocus");
      if (copied.getAttribute("src")?.startsWith("blob:")) {
        copied.removeAttribute("src");
      }
    });
    for (const notice of copy.querySelectorAll(PASSING)) notice.remove();
    const html = copy.outerHTML;
    return html.length <= MAX_BYTES ? html : null;
  };

  // Calls `send` with the shell's markup once the page has been still for
  // a moment after a change, and at once when the window is hidden; never
  // while the snapshot still covers it.
  const watch = (send) => {
    let timer = 0;
    const later = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (!cover()) send(take());
      }, SETTLE_MS);
    };
    new MutationObserver(later).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
    // A scroll changes no markup, and is part of the look.
    document.addEventListener("scroll", later, { capture: true, passive: true });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden" && !cover()) {
        clearTimeout(timer);
        send(take());
      }
    });
    later();
  };

  window.pizzaSnapshot = { reveal, watch, regroup };
})();
