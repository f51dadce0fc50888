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

// The UI's code (~3 MB of wasm) is compiled from here rather than once
// boot.js runs at the end of the parse. The app's web process extension
// (crates/webext) usually put the module in `window.pizzaUiBytes` already:
// it is compiled off the page's thread, at once, or with a last look to
// show (ui/snapshot.js) once that is painted, which the compile would
// otherwise delay by ~30 ms while gaining the UI little (measured on the
// release app). Without it, and without a last look, it is fetched and
// compiled here: the UI starts ~15 ms sooner than from boot.js. With a
// last look a fetch is left to boot.js: the page's main thread takes the
// download in piece by piece, and the last look was painted 30-50 ms
// later. boot.js hands this compile to the UI's start, and fetches the
// code itself if it failed.
(() => {
  const bytes = window.pizzaUiBytes;
  delete window.pizzaUiBytes;
  const snapshot = window.__pizzaSnapshot;
  const covered = typeof snapshot === "string" && snapshot !== "";
  if (bytes instanceof Uint8Array && typeof WebAssembly.compile === "function") {
    const compile = () => {
      // The compile copies the bytes as it starts: the buffer is let go
      // of now rather than at the next collection.
      const compiled = WebAssembly.compile(bytes);
      try {
        bytes.buffer.transfer(0);
      } catch {
        // An engine without `transfer`: the buffer goes when collected.
      }
      return compiled;
    };
    const compiled = covered
      ? new Promise((resolve) => {
          // Called by ui/snapshot.js, once.
          window.pizzaLastLookPainted = () => {
            delete window.pizzaLastLookPainted;
            resolve(compile());
          };
        })
      : compile();
    compiled.catch(() => {});
    window.pizzaUiModule = compiled;
    // For the start-up figures (ui/src/place.rs).
    window.pizzaUiModuleHanded = true;
    return;
  }
  if (covered) return;
  if (typeof WebAssembly.compileStreaming !== "function") return;
  const compiled = WebAssembly.compileStreaming(fetch("./pizza_ui_bg.wasm"));
  // Handled by boot.js; this keeps an early failure from being reported
  // as unhandled before it gets there.
  compiled.catch(() => {});
  window.pizzaUiModule = compiled;
})();
