// The drawing of a game without its own view.js: the observation as lines of JSON text, one
// `.gk` line per top-level key (the browser tests count them), nested entries below it.
(window.ArenaViewers = window.ArenaViewers || {}).generic = {
  render(obs, ctx) {
    const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
    const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + "…" : s);
    const lines = [];
    lines.push(["gh", 0, ctx.seats.map((name, i) => `seat ${i}: ${name}`).join("   ")]);
    for (const [key, value] of Object.entries(obs)) {
      const text = JSON.stringify(value);
      if (value === null || typeof value !== "object" || text.length <= 90) {
        lines.push(["gk", 0, `${key}: ${text}`]);
        continue;
      }
      lines.push(["gk", 0, `${key}:`]);
      for (const [sub, item] of Object.entries(value)) lines.push(["gc", 1, cut(`${sub}: ${JSON.stringify(item)}`, 120)]);
    }
    const h = 18 * lines.length + 10;
    const body = lines.map(([cls, depth, text], i) =>
      `<text class="${cls}" x="${8 + depth * 24}" y="${20 + 18 * i}">${esc(text)}</text>`).join("");
    return `<svg class="generic" viewBox="0 0 1000 ${h}" width="100%" font-family="monospace" font-size="13">` +
      `<rect width="1000" height="${h}" fill="#fafaf7"/>${body}</svg>`;
  },
};
