// The theme and the desktop's font, applied while the page's head is still
// being read: a classic script runs before the first paint, where a module
// (boot.js) runs after it and a paint in between showed the page in the
// system's style for a frame. The host puts both in the page's address
// (src-tauri/src/first_paint.rs, src-tauri/src/desktop_font.rs); the UI
// applies the stored theme again once it has read the settings. Kept in a
// file so the CSP needs no inline script.
(() => {
  const query = new URLSearchParams(location.search);
  const root = document.documentElement;

  const theme = query.get("theme");
  if (theme === "system" || theme === "light" || theme === "dark") {
    root.setAttribute("data-theme", theme);
  }

  const families = query.get("font");
  if (families) {
    const quoted = families
      .split(",")
      .filter((family) => family && !/["\\]/.test(family))
      .map((family) => `"${family}"`);
    if (quoted.length) {
      root.style.setProperty("--font", `${quoted.join(", ")}, sans-serif`);
    }
  }
})();

// Without a last look to show (ui/snapshot.js), nothing is painted before
// the UI runs, so its code (~3 MB of wasm) is fetched and compiled from
// here, while the rest of the page is read, instead of once boot.js runs at
// the end of the parse: measured on the release app, the UI starts ~15 ms
// sooner. With a last look it is left to boot.js: the page's main thread
// takes the download in piece by piece, and the last look was painted
// 30-50 ms later. boot.js hands this compile to the UI's start, and fetches
// the code itself if it failed.
(() => {
  const snapshot = window.__pizzaSnapshot;
  if (typeof snapshot === "string" && snapshot) return;
  if (typeof WebAssembly.compileStreaming !== "function") return;
  const compiled = WebAssembly.compileStreaming(fetch("./pizza_ui_bg.wasm"));
  // Handled by boot.js; this keeps an early failure from being reported
  // as unhandled before it gets there.
  compiled.catch(() => {});
  window.pizzaUiModule = compiled;
})();
