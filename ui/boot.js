// Loads the Leptos app; kept in a file so the CSP needs no inline script.
import init from "./pizza_ui.js";

const query = new URLSearchParams(location.search);

// The theme, before the first layout: the host puts it in the page's
// address (src-tauri/src/first_paint.rs); the UI applies it again once it
// has read the settings.
const theme = query.get("theme");
if (theme === "system" || theme === "light" || theme === "dark") {
  document.documentElement.setAttribute("data-theme", theme);
}

// The desktop's interface font, before the first layout: the host puts
// GTK's font families in the page's address (src-tauri/src/desktop_font.rs).
const families = query.get("font");
if (families) {
  const quoted = families
    .split(",")
    .filter((family) => family && !/["\\]/.test(family))
    .map((family) => `"${family}"`);
  if (quoted.length) {
    document.documentElement.style.setProperty("--font", `${quoted.join(", ")}, sans-serif`);
  }
}

init().then((wasm) => {
  // How much memory the UI's code holds (wasm memory only grows): the
  // desktop benchmark's soak reads it to tell a leak from the engine's heap.
  window.pizzaUiMemory = () => wasm.memory.buffer.byteLength;
});
