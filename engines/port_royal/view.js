// Port Royal board drawing: one SVG string from a Port Royal observation (see view.py for the marks).
// Plain browser JS: no DOM, no dependencies. Rows stack vertically so a phone can read them.
(function () {
  "use strict";
  var W = 640; // viewBox width; everything is laid out in rows of this width
  var SHIP = { yellow: "#e0a81e", blue: "#2f6fbf", green: "#2e9a4e", red: "#c8393b", black: "#2b2b2b" };
  var BAND = {
    settler: "#8a5a2b", captain: "#8a5a2b", priest: "#8a5a2b", jack_of_all_trades: "#8a5a2b",
    sailor: "#4a5a6a", pirate: "#3a3f47", mademoiselle: "#b0487c", jester: "#7b4fa0",
    admiral: "#1f3b73", governor: "#9a7410"
  };
  var SYMBOL = { cross: "\u271D", anchor: "\u2693", house: "\u2302", any: "\u2605" };
  var ABILITY = {
    trader: "+1 coin", mademoiselle: "\u22121 cost", jester: "+1 if none", admiral: "+2 at 5",
    governor: "+1 card"
  };
  var SWORD = "\u2694", SKULL = "\u2620";

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  function fit(text, width, max) { // a font size that fits text in width (DejaVu Sans bold ~0.62em)
    return Math.max(9, Math.min(max, Math.floor(width / (String(text).length * 0.62))));
  }
  function t(x, y, size, text, extra) {
    return '<text x="' + x + '" y="' + y + '" font-size="' + size + '"' + (extra || "") + ">" + esc(text) + "</text>";
  }
  function rect(x, y, w, h, fill, extra) {
    return '<rect x="' + x + '" y="' + y + '" width="' + w + '" height="' + h + '" fill="' + fill + '"' + (extra || "") + "/>";
  }
  function cap(s) { return s.charAt(0).toUpperCase() + s.slice(1); }

  // One card face, w x h at (x, y); cls and attrs go on the group.
  function face(c, x, y, w, h, cls, attrs) {
    var out = ['<g class="card ' + cls + '"' + (attrs || "") + ' data-card="' + c.id + '" transform="translate(' + x + "," + y + ')">'];
    out.push("<title>" + esc(c.text) + "</title>");
    var big = h >= 110, mid = w / 2;
    if (c.kind === "ship") {
      out.push(rect(0, 0, w, h, SHIP[c.colour], ' rx="8" stroke="#111" stroke-width="1.5"'));
      out.push(t(mid, big ? 26 : 18, fit(c.name, w - 10, big ? 18 : 14), cap(c.name), ' text-anchor="middle" fill="#fff" font-weight="bold"'));
      out.push(t(mid, big ? h * 0.55 : h * 0.62, big ? 30 : 20, c.coins + "\u00A0\u25C9", ' text-anchor="middle" fill="#ffe680" font-weight="bold"'));
      var sw = c.swords === null ? SKULL : SWORD + " " + c.swords;
      out.push(t(mid, h - (big ? 16 : 8), big ? 24 : 16, sw, ' text-anchor="middle" fill="#fff"'));
    } else if (c.kind === "person") {
      var band = c.type === "trader" ? SHIP[c.colour] : BAND[c.type];
      var bh = big ? 34 : 24;
      out.push(rect(0, 0, w, h, "#fbf3dc", ' rx="8" stroke="#5a4630" stroke-width="1.5"'));
      out.push('<path d="M0 8 a8 8 0 0 1 8 -8 h' + (w - 16) + ' a8 8 0 0 1 8 8 v' + (bh - 8) + ' h-' + w + ' z" fill="' + band + '"/>');
      out.push(t(mid, bh * 0.7, fit(c.title, w - 8, big ? 16 : 13), c.title, ' text-anchor="middle" fill="#fff" font-weight="bold"'));
      var centre;
      if (c.swords) centre = SWORD + " " + c.swords;
      else if (c.symbol) centre = SYMBOL[c.symbol];
      else centre = ABILITY[c.type] || "";
      var csize = (c.swords || c.symbol) ? (big ? 34 : 22) : (big ? 17 : 12);
      out.push(t(mid, big ? h * 0.55 : h * 0.66, csize, centre, ' text-anchor="middle" fill="#3b2a18"'));
      if (big) {
        out.push('<circle cx="22" cy="' + (h - 22) + '" r="15" fill="#f2c230" stroke="#8a6a10"/>');
        out.push(t(22, h - 16, 17, c.cost, ' text-anchor="middle" font-weight="bold" fill="#3b2a18"'));
        out.push(t(w - 8, h - 15, 18, c.ip + " IP", ' text-anchor="end" font-weight="bold" fill="#7a1d1d"'));
      } else {
        out.push(t(w - 5, h - 6, 14, c.ip + " IP", ' text-anchor="end" font-weight="bold" fill="#7a1d1d"'));
      }
    } else if (c.kind === "tax_increase") {
      out.push(rect(0, 0, w, h, "#5b5b66", ' rx="8" stroke="#111" stroke-width="1.5"'));
      out.push(t(mid, 30, 16, "Tax", ' text-anchor="middle" fill="#fff" font-weight="bold"'));
      out.push(t(mid, 50, 14, "Increase", ' text-anchor="middle" fill="#fff"'));
      out.push(t(mid, h - 20, 14, c.bonus === "most_swords" ? "most " + SWORD : "fewest IP", ' text-anchor="middle" fill="#ffe680"'));
    } else { // expedition
      out.push(rect(0, 0, w, h, "#e9d8a6", ' rx="8" stroke="#7a5a20" stroke-width="1.5"'));
      out.push(t(mid, big ? 24 : 16, big ? 15 : 12, "Expedition", ' text-anchor="middle" fill="#5a3e10" font-weight="bold"'));
      var need = "";
      ["cross", "anchor", "house"].forEach(function (s) {
        for (var i = 0; i < (c.requires[s] || 0); i++) need += SYMBOL[s];
      });
      out.push(t(mid, big ? h * 0.52 : h * 0.6, fit(need, w - 10, big ? 34 : 22), need, ' text-anchor="middle" fill="#3b2a18"'));
      out.push(t(mid, h - (big ? 16 : 7), big ? 17 : 13, c.ip + " IP \u00B7 " + c.coins + "\u25C9", ' text-anchor="middle" font-weight="bold" fill="#7a1d1d"'));
    }
    out.push("</g>");
    return out.join("");
  }

  function render(obs, ctx) {
    var cards = ctx.static.cards, seats = ctx.seats || [], colors = ctx.colors || [];
    function name(s) { return seats[s] !== undefined ? seats[s] : "seat " + s; }
    function colour(s) { return colors[s] || "#666"; }
    var out = [], y = 0, M = 20;

    // --- header: round, whose turn, phase; the draw and discard piles
    out.push(rect(0, 0, W, 96, "#123b5c"));
    var phase = { DISCOVER: "Discover", REPEL: "Repel or dock?", TRADE: "Trade & hire", OVER: "Game over" }[obs.state];
    out.push(t(M, 34, 24, "Round " + obs.round + " \u00B7 " + phase, ' fill="#fff" font-weight="bold"'));
    var who = obs.to_act === null ? "final standings" : name(obs.to_act) + " to act";
    if (obs.state === "TRADE" && obs.phase2) {
      who += " (" + obs.phase2.takes_used + "/" + obs.phase2.allowance + " taken)";
    }
    out.push(t(M, 62, fit(who, 420, 19), who, ' fill="#cfe3f5"'));
    out.push(t(M, 86, 15, "active: " + name(obs.active) + (obs.end_triggered ? " \u00B7 end triggered" : ""), ' fill="#9cc0de"'));
    var lastDiscard = obs.discard_pile.length ? cards[obs.discard_pile[obs.discard_pile.length - 1]] : null;
    out.push('<g class="pile draw back" data-count="' + obs.draw_pile_count + '"><title>draw pile: ' + obs.draw_pile_count + ' cards</title>');
    out.push(rect(W - 150, 8, 56, 68, "#6b3e1e", ' rx="6" stroke="#e0c080" stroke-width="2"'));
    out.push(t(W - 122, 50, 20, obs.draw_pile_count, ' text-anchor="middle" fill="#fff" font-weight="bold"') + "</g>");
    out.push('<g class="pile discard" data-count="' + obs.discard_pile.length + '"><title>discard pile: ' + obs.discard_pile.length +
      " cards" + (lastDiscard ? ", top: " + esc(lastDiscard.text) : "") + "</title>");
    out.push(rect(W - 80, 8, 56, 68, "#d9d2c0", ' rx="6" stroke="#fff" stroke-width="2" stroke-dasharray="4 3"'));
    out.push(t(W - 52, 50, 20, obs.discard_pile.length, ' text-anchor="middle" fill="#333" font-weight="bold"') + "</g>");
    out.push(t(W - 122, 92, 11, "draw", ' text-anchor="middle" fill="#cfe3f5"'));
    out.push(t(W - 52, 92, 11, "discard", ' text-anchor="middle" fill="#cfe3f5"'));
    y = 96;

    // --- the harbour (and the ship waiting to be repelled)
    var CW = 110, CH = 150, GAP = 10, PER = 5;
    function cardRow(list, title, bg) { // list of [card, class]
      var rows = Math.ceil(list.length / PER);
      var h = rows ? 40 + rows * (CH + GAP) + 4 : 74;
      out.push(rect(0, y, W, h, bg));
      out.push(t(M, y + 28, 20, title, ' font-weight="bold" fill="#1d2b36"'));
      if (!list.length) out.push(t(M, y + 58, 16, "empty", ' fill="#7b8794" font-style="italic"'));
      list.forEach(function (pair, i) {
        var cx = M + (i % PER) * (CW + GAP), cy = y + 40 + Math.floor(i / PER) * (CH + GAP);
        out.push(face(pair[0], cx, cy, CW, CH, pair[1]));
        if (pair[1] === "pending") {
          out.push(rect(cx - 4, cy - 4, CW + 8, CH + 8, "none", ' rx="10" stroke="#c8393b" stroke-width="4" stroke-dasharray="8 5"'));
          out.push(rect(cx + 10, cy + CH - 12, CW - 20, 22, "#c8393b", ' rx="11"'));
          out.push(t(cx + CW / 2, cy + CH + 4, 14, "repel?", ' text-anchor="middle" fill="#fff" font-weight="bold"'));
        }
      });
      y += h;
    }
    var harbour = obs.harbour.map(function (c) { return [cards[c.id], "harbour"]; });
    if (obs.pending_ship) harbour.push([cards[obs.pending_ship.id], "pending"]);
    var colours = {};
    obs.harbour.forEach(function (c) { if (c.kind === "ship") colours[c.colour] = 1; });
    var nShips = Object.keys(colours).length;
    cardRow(harbour, "Harbour \u00B7 " + obs.harbour.length + " card" + (obs.harbour.length === 1 ? "" : "s") + ", " +
      nShips + " ship colour" + (nShips === 1 ? "" : "s"), "#d8ecf6");

    // --- the expedition display
    cardRow(obs.expedition_area.map(function (id) { return [cards[id], "expedition open"]; }), "Expeditions", "#f4ecd6");

    // --- the players (at the end: their places, by IP then coins; expedition holders first if required)
    function key(p) { return [obs.end_condition === "expedition_required" ? (p.expeditions.length ? 1 : 0) : 0, p.ip, p.coins]; }
    function better(a, b) { for (var i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i]; return false; }
    var rank = obs.players.map(function (p) {
      return obs.players.filter(function (q) { return better(key(q), key(p)); }).length;
    });
    function rankText(r) { return r === 0 ? "\u2605 winner" : ["", "2nd", "3rd", "4th", "5th"][r] + " place"; }
    var PW = 86, PH = 66, PPER = 6;
    obs.players.forEach(function (p) {
      var s = p.seat, mine = obs.you === s;
      var personRows = Math.max(1, Math.ceil((p.persons.length + p.expeditions.length) / PPER));
      var coinRows = Math.max(1, Math.ceil(p.coins / 40));
      var h = 92 + coinRows * 26 + personRows * (PH + 8) + 8;
      var active = obs.active === s, acting = obs.to_act === s;
      out.push('<g class="player' + (mine ? " you" : "") + '" data-seat="' + s + '">');
      out.push(rect(0, y, W, h, mine ? "#fffbe8" : "#f7f7f4", ' stroke="#c9c9c0"'));
      out.push(rect(0, y, 10, h, colour(s)));
      if (acting) out.push(rect(4, y + 3, W - 8, h - 6, "none", ' rx="6" stroke="' + colour(s) + '" stroke-width="4"'));
      var label = name(s) + (mine ? " (you)" : "");
      out.push(t(M + 4, y + 32, fit(label, 270, 22), label, ' font-weight="bold" fill="#1d2b36"'));
      var tag = (active ? "active" : "") + (acting ? (active ? " \u00B7 to act" : "to act") : "");
      if (obs.state === "OVER") tag = rankText(rank[s]);
      if (tag) out.push(t(M + 4, y + 54, 14, tag, ' fill="' + colour(s) + '" font-weight="bold"'));
      // stats: IP, swords, coins
      var stats = [["ip", p.ip + "/" + ctx.static.end_ip + " IP", "#7a1d1d"], ["swords", SWORD + " " + p.swords, "#3a3f47"], ["coins", p.coins + " \u25C9", "#8a6a10"]];
      stats.forEach(function (st, i) {
        var sx = W - 330 + i * 106;
        out.push('<g class="stat ' + st[0] + '" data-seat="' + s + '" data-value="' + (st[0] === "ip" ? p.ip : st[0] === "swords" ? p.swords : p.coins) + '">');
        out.push(rect(sx, y + 14, 98, 40, "#fff", ' rx="20" stroke="' + st[2] + '" stroke-width="2"'));
        out.push(t(sx + 49, y + 41, 19, st[1], ' text-anchor="middle" font-weight="bold" fill="' + st[2] + '"') + "</g>");
      });
      // coins: face-down cards, drawn as backs
      var cy = y + 66;
      out.push(t(M + 4, cy + 18, 14, "coins", ' fill="#555"'));
      for (var i = 0; i < p.coins; i++) {
        var cx = M + 56 + (i % 40) * 13, row = Math.floor(i / 40);
        out.push('<rect class="coin back" data-seat="' + s + '" x="' + cx + '" y="' + (cy + row * 26) + '" width="16" height="22" rx="3" fill="#6b3e1e" stroke="#e0c080"/>');
      }
      if (!p.coins) out.push(t(M + 56, cy + 18, 14, "none", ' fill="#999" font-style="italic"'));
      // persons and fulfilled expeditions as small cards
      var py0 = cy + coinRows * 26 + 6;
      var all = p.persons.map(function (id) { return [id, "person"]; }).concat(p.expeditions.map(function (id) { return [id, "expedition won"]; }));
      if (!all.length) out.push(t(M + 4, py0 + 30, 14, "no persons yet", ' fill="#999" font-style="italic"'));
      all.forEach(function (pair, k) {
        var c = cards[pair[0]];
        var x = M + 4 + (k % PPER) * (PW + 8), yy = py0 + Math.floor(k / PPER) * (PH + 8);
        out.push(face(c, x, yy, PW, PH, pair[1], ' data-seat="' + s + '"'));
      });
      out.push("</g>");
      y += h;
    });
    return '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + W + " " + y + '" font-family="DejaVu Sans, Verdana, sans-serif" class="board port_royal">' + out.join("") + "</svg>";
  }

  (window.ArenaViewers = window.ArenaViewers || {})["port_royal"] = { render: render };
})();
