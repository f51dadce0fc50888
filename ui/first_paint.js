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
