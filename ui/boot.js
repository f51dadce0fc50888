// Loads the Leptos app; kept in a file so the CSP needs no inline script.
// The theme and font are applied before it, by first_paint.js, which may
// also have started fetching and compiling the UI's wasm: then that compile
// is used, and the wasm is fetched again only if it failed.
import init from "./pizza_ui.js";

const early = window.pizzaUiModule;
delete window.pizzaUiModule;
const module = early
  ? early.catch(() => new URL("./pizza_ui_bg.wasm", import.meta.url))
  : undefined;

init({ module_or_path: module }).then((wasm) => {
  // How much memory the UI's code holds (wasm memory only grows): the
  // desktop benchmark's soak reads it to tell a leak from the engine's heap.
  window.pizzaUiMemory = () => wasm.memory.buffer.byteLength;
});
