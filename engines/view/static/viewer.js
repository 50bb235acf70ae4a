// The match viewer shell: controls, move list, scores over time, seat views. It draws each
// position with the game's ArenaViewers[game].render(obs, ctx) (or the generic drawing).
// Data: engines/view/frames.py (key frames + deltas, decoded here on demand and cached).
(function () {
  "use strict";
  const COLORS = ["#d62828", "#1d6fd8", "#2a9d3c", "#d99a00", "#8e44ad", "#e67e22"];
  const SPEEDS = [1, 2, 5, 10, 25, 50];
  // Every value from the match data is escaped where it meets HTML, numbers too: an offline file plays
  // whatever log it was given, and a crafted log may put markup where a number belongs.
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));

  // Apply one delta (see engines/view/delta.py) without touching `base`: containers on the changed
  // paths are copied once, everything else is shared with the previous observation.
  function applyDelta(base, ops) {
    const fresh = new Set();
    const cow = (x) => {
      if (fresh.has(x)) return x;
      const copy = Array.isArray(x) ? x.slice() : Object.assign({}, x);
      fresh.add(copy);
      return copy;
    };
    let root = base;
    for (const op of ops) {
      const path = op[0];
      if (path.length === 0) { root = op[1]; continue; }
      root = cow(root);
      let node = root;
      for (let i = 0; i < path.length - 1; i++) {
        const child = cow(node[path[i]]);
        node[path[i]] = child;
        node = child;
      }
      const last = path[path.length - 1];
      if (op.length === 1) {
        if (Array.isArray(node)) node.splice(last, 1); else delete node[last];
      } else {
        node[last] = op[1];
      }
    }
    return root;
  }

  // Observations of one view: decoded from the nearest cached position or key frame, then cached.
  function FrameStore(frames) {
    const cache = new Array(frames.length);
    return function at(i) {
      if (cache[i] !== undefined) return cache[i];
      let j = i;
      while (cache[j] === undefined && !("k" in frames[j])) j--;
      if (cache[j] === undefined) cache[j] = frames[j].k;
      for (let p = j + 1; p <= i; p++) cache[p] = applyDelta(cache[p - 1], frames[p].d);
      return cache[i];
    };
  }

  function mount(root, config) {
    const t0 = performance.now();
    const data = config.data;
    const n = data.moves.length;
    const seats = data.seats;
    const renderer = (window.ArenaViewers || {})[data.game] || window.ArenaViewers.generic;
    const stores = {};
    for (const [key, frames] of Object.entries(data.views)) stores[key] = FrameStore(frames);
    const allowed = new Set((config.allowedSeats || []).map(String));
    const faultsAt = new Map();
    for (const f of data.faults) {
      if (!faultsAt.has(f.move)) faultsAt.set(f.move, []);
      faultsAt.get(f.move).push(f);
    }
    const params = new URLSearchParams(location.search);
    let pos = clamp(parseInt(params.get("move"), 10) || 0);
    let view = "spectator";
    let timer = null;
    let speed = 5;
    const api = {lastRenderMs: null, renders: 0, view: () => view, position: () => pos, moves: n};

    function clamp(i) { return Math.max(0, Math.min(n, i | 0)); }
    const who = (s) => `<span class="av-who" style="--c:${COLORS[s % COLORS.length]}">seat ${esc(s)} · ${esc(seats[s])}</span>`;

    const seatOptions = seats.map((name, s) => {
      const ok = allowed.has(String(s));
      return `<option value="${s}"${ok ? "" : " disabled"}>seat ${s}: ${esc(name)}${ok ? "" : " (private)"}</option>`;
    }).join("");
    root.innerHTML = `
<div class="av-bar">
  <button type="button" data-act="first" title="first (Home)">|◀</button>
  <button type="button" data-act="prev" title="previous (←)">◀</button>
  <button type="button" data-act="play" class="av-play" title="play / pause (space)">▶ play</button>
  <button type="button" data-act="next" title="next (→)">▶</button>
  <button type="button" data-act="last" title="last (End)">▶|</button>
  <label>speed <select class="av-speed">${SPEEDS.map((s) => `<option value="${s}"${s === speed ? " selected" : ""}>${s}/s</option>`).join("")}</select></label>
  <input type="range" class="av-slider" min="0" max="${n}" value="${pos}" aria-label="move">
  <span class="av-pos"></span>
  <label>view <select class="av-view"><option value="spectator">spectator</option>${seatOptions}</select></label>
</div>
<div class="av-main">
  <div class="av-board"></div>
  <div class="av-side">
    <div class="av-current"></div>
    <ol class="av-moves">${data.moves.map((m, i) => moveItem(m, i)).join("")}</ol>
  </div>
</div>
<div class="av-scores"></div>
<details class="av-raw"><summary>the observation as JSON (in a seat view: exactly what that seat's bot was given)</summary><pre></pre></details>
<p class="av-note"></p>`;
    const $ = (sel) => root.querySelector(sel);
    const board = $(".av-board"), list = $(".av-moves"), slider = $(".av-slider"), viewSelect = $(".av-view");
    const raw = $(".av-raw"), note = $(".av-note");
    let highlighted = null;

    function moveItem(m, i) {
      const faults = (faultsAt.get(i) || []).map((f) =>
        ` <span class="av-fault"${f.detail ? ` title="${esc(f.detail)}"` : ""}>⚠ fault (seat ${esc(f.seat)}): ${esc(f.kind)}</span>`).join("");
      const ms = m.ms ? ` <small class="muted">${esc(m.ms)} ms</small>` : "";
      return `<li data-move="${i + 1}"${faults ? ' class="has-fault"' : ""}>${who(m.s)} ${esc(m.t)}${ms}${faults}</li>`;
    }

    function drawChart() {
      const box = $(".av-scores");
      if (!data.scores) { box.innerHTML = ""; return; }
      const W = 1000, H = 160, L = 40, T = 10, B = 20;
      let max = 1, min = 0;
      for (const row of data.scores) for (const v of row) { if (v > max) max = v; if (v < min) min = v; }
      const x = (i) => L + (W - L - 10) * (n ? i / n : 0);
      const y = (v) => T + (H - T - B) * (1 - (v - min) / (max - min));
      const step = Math.max(1, Math.floor(n / 800));  // at most ~800 points a line
      const lines = seats.map((_, s) => {
        const pts = [];
        for (let i = 0; i <= n; i += step) pts.push(`${x(i).toFixed(1)},${y(data.scores[i][s]).toFixed(1)}`);
        if (n % step) pts.push(`${x(n).toFixed(1)},${y(data.scores[n][s]).toFixed(1)}`);
        return `<polyline class="av-line" data-seat="${s}" fill="none" stroke="${COLORS[s % COLORS.length]}" stroke-width="2" points="${pts.join(" ")}"/>`;
      }).join("");
      const faults = data.faults.map((f) =>
        `<path class="av-fault-mark" d="M${x(f.move + 1).toFixed(1)},${T} l-5,-8 h10 z" fill="#c00"><title>move ${esc(f.move + 1)}: fault of seat ${esc(f.seat)} (${esc(f.kind)})</title></path>`).join("");
      const legend = seats.map((name, s) => `<span class="av-who" style="--c:${COLORS[s % COLORS.length]}">${esc(name)}</span>`).join(" ");
      box.innerHTML = `<div class="av-legend">scores over time: ${legend}</div>
<svg viewBox="0 0 ${W} ${H}" width="100%" class="av-chart">
<line x1="${L}" y1="${y(0)}" x2="${W - 10}" y2="${y(0)}" stroke="#999"/>
<text x="${L - 6}" y="${y(max) + 4}" text-anchor="end" font-size="11">${max}</text>
<text x="${L - 6}" y="${y(min) + 4}" text-anchor="end" font-size="11">${min}</text>
${lines}${faults}<line class="av-cursor" x1="0" x2="0" y1="${T}" y2="${H - B}" stroke="#333" stroke-dasharray="3 3"/></svg>`;
      box.querySelector(".av-chart").addEventListener("click", (e) => {
        const r = e.currentTarget.getBoundingClientRect();
        go(Math.round(((e.clientX - r.left) / r.width * W - L) / (W - L - 10) * n));
      });
      api.chartX = x;
    }

    function drawCurrent() {
      const parts = [];
      if (pos === 0) parts.push(`<p><b>Set-up</b> <span class="muted">(before move 1)</span></p>`);
      else {
        const m = data.moves[pos - 1];
        parts.push(`<p><b>Move ${pos}</b> ${who(m.s)} ${esc(m.t)}${m.ms ? ` <small class="muted">${esc(m.ms)} ms</small>` : ""}</p>`);
        if (m.e && m.e.length) parts.push(`<ul class="av-events">${m.e.map((e) => `<li>${esc(e)}</li>`).join("")}</ul>`);
        for (const f of faultsAt.get(pos - 1) || []) parts.push(`<p class="av-fault">⚠ fault of seat ${esc(f.seat)}: ${esc(f.kind)}${f.detail ? `: ${esc(f.detail)}` : ""} (a random legal move was played)</p>`);
      }
      if (pos < n) parts.push(`<p class="muted">next: ${who(data.moves[pos].s)} to move</p>`);
      else if (data.outcome) {
        const o = data.outcome;
        const order = seats.map((_, s) => s).sort((a, b) => o.ranks[a] - o.ranks[b] || a - b);
        parts.push(`<p><b>Result</b></p><ol class="av-result">${order.map((s) => `<li>${who(s)} place ${esc(o.ranks[s] + 1)}, score ${esc(o.scores[s])}${s in (data.forfeits || {}) ? " (forfeited)" : ""}</li>`).join("")}</ol>`);
      }
      $(".av-current").innerHTML = parts.join("");
    }

    function draw() {
      const started = performance.now();
      const obs = stores[view](pos);
      let svg;
      try {
        svg = renderer.render(obs, {static: data.static, seats, colors: COLORS, viewer: view === "spectator" ? null : Number(view), move: pos});
      } catch (err) {
        console.error(err);
        svg = `<p class="av-error">the drawing failed: ${esc(err && err.message)}</p>`;
      }
      board.innerHTML = svg;
      board.dataset.move = String(pos);
      board.dataset.view = view;
      slider.value = String(pos);
      $(".av-pos").textContent = `move ${pos} / ${n}`;
      drawCurrent();
      if (highlighted) highlighted.classList.remove("current");
      highlighted = pos > 0 ? list.children[pos - 1] : null;
      if (highlighted) {
        highlighted.classList.add("current");
        const top = highlighted.offsetTop;  // the list is position: relative
        if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 20) list.scrollTop = top - list.clientHeight / 2;
      }
      const cursor = root.querySelector(".av-cursor");
      if (cursor) { const cx = api.chartX(pos).toFixed(1); cursor.setAttribute("x1", cx); cursor.setAttribute("x2", cx); }
      if (raw.open) raw.querySelector("pre").textContent = JSON.stringify(obs, null, 1);
      api.lastRenderMs = performance.now() - started;
      api.renders += 1;
      const url = new URL(location.href);
      url.searchParams.set("move", String(pos));
      if (view === "spectator") url.searchParams.delete("seat"); else url.searchParams.set("seat", view);
      try { history.replaceState(null, "", url.toString()); } catch (e) { /* some file:// pages refuse; the page still works */ }
    }

    function go(i) { pos = clamp(i); draw(); }
    function stop() { if (timer) { clearInterval(timer); timer = null; } $(".av-play").textContent = "▶ play"; }
    function play() {
      if (timer) return stop();
      if (pos >= n) pos = 0;
      $(".av-play").textContent = "⏸ pause";
      timer = setInterval(() => { if (pos >= n) stop(); else go(pos + 1); }, 1000 / speed);
    }

    async function setView(key) {
      key = String(key);
      if (key !== "spectator" && !allowed.has(key)) {
        note.textContent = `seat ${key}'s view is private`;
        viewSelect.value = view;
        return false;
      }
      if (!stores[key]) {
        note.textContent = `loading seat ${key}'s view…`;
        try {
          const response = await fetch(`${config.framesUrl}?seat=${encodeURIComponent(key)}`, {credentials: "same-origin"});
          const body = await response.json();
          if (!response.ok) throw new Error(body.detail || response.statusText);
          stores[key] = FrameStore(body.frames);
        } catch (err) {
          note.textContent = `seat ${key}'s view: ${err.message}`;
          viewSelect.value = view;
          return false;
        }
      }
      note.textContent = key === "spectator" ? "" : `seat ${key}'s view: what ${seats[+key]} saw (hidden cards of the others as backs)`;
      view = key;
      viewSelect.value = key;
      draw();
      return true;
    }

    root.querySelector(".av-bar").addEventListener("click", (e) => {
      const act = e.target.closest("button") && e.target.closest("button").dataset.act;
      if (act === "first") { stop(); go(0); }
      else if (act === "prev") { stop(); go(pos - 1); }
      else if (act === "next") { stop(); go(pos + 1); }
      else if (act === "last") { stop(); go(n); }
      else if (act === "play") play();
    });
    slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
    $(".av-speed").addEventListener("change", (e) => { speed = Number(e.target.value); if (timer) { stop(); play(); } });
    viewSelect.addEventListener("change", () => setView(viewSelect.value));
    list.addEventListener("click", (e) => { const li = e.target.closest("li[data-move]"); if (li) { stop(); go(Number(li.dataset.move)); } });
    raw.addEventListener("toggle", () => { if (raw.open) draw(); });
    document.addEventListener("keydown", (e) => {
      const tag = e.target.tagName;
      if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && e.target.type !== "range") || e.altKey || e.ctrlKey || e.metaKey) return;
      const keys = {ArrowLeft: () => go(pos - 1), ArrowRight: () => go(pos + 1), Home: () => go(0), End: () => go(n)};
      if (keys[e.key]) { e.preventDefault(); stop(); keys[e.key](); }
      else if (e.key === " " && tag !== "BUTTON") { e.preventDefault(); play(); }
    });

    Object.assign(api, {go, setView, play, stop, observation: (key, i) => stores[String(key)](i)});
    window.arenaViewer = api;
    drawChart();
    const wanted = params.get("seat");
    draw();
    api.openMs = performance.now() - t0;  // mounting: the move list, the chart, the first drawing
    api.shownAt = performance.now();  // since the page's navigation began
    api.ready = wanted !== null ? setView(wanted) : Promise.resolve(true);
    return api;
  }

  // The site's page: fetch the match's data from config.framesUrl, then mount.
  async function load(root, config) {
    root.textContent = "loading the match…";
    try {
      const response = await fetch(config.framesUrl, {credentials: "same-origin"});
      const body = await response.json();
      if (!response.ok) throw new Error(body.detail || response.statusText);
      return mount(root, Object.assign({}, config, {data: body}));
    } catch (err) {
      console.error(err);
      root.textContent = `the match could not be loaded: ${err.message}`;
      return null;
    }
  }

  window.ArenaViewer = {mount, load, applyDelta};
})();
