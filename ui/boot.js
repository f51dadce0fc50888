// Loads the Leptos app; kept in a file so the CSP needs no inline script.
import init from "./pizza_ui.js";
init();
