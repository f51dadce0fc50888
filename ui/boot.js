// Loads the Leptos app; kept in a file so the CSP needs no inline script.
// The theme and font are applied before it, by first_paint.js.
import init from "./pizza_ui.js";

init().then((wasm) => {
  // How much memory the UI's code holds (wasm memory only grows): the
  // desktop benchmark's soak reads it to tell a leak from the engine's heap.
  window.pizzaUiMemory = () => wasm.memory.buffer.byteLength;
});
