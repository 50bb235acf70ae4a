// Catan board drawing: one SVG string from an observation (see engines/catan/view.py for the marks).
// Plain JS, no DOM: render(obs, ctx) builds a string; static geometry is cached per ctx.static.
(function () {
  "use strict";
  var TERRAIN = {
    forest: "#3f8f4a", hills: "#c9683f", pasture: "#9fd36a", fields: "#efc94c",
    mountains: "#9a9aa8", desert: "#e6d3a0"
  };
  var RESOURCE = { lumber: "#3f8f4a", brick: "#c9683f", wool: "#9fd36a", grain: "#efc94c", ore: "#9a9aa8" };
  var PRODUCES = { forest: "lumber", hills: "brick", pasture: "wool", fields: "grain", mountains: "ore", desert: "" };
  var DEV = { knight: "Knight", victory_point: "VP", road_building: "Roads", year_of_plenty: "Plenty", monopoly: "Monopoly" };
  var DEV_FULL = { knight: "Knight", victory_point: "Victory Point", road_building: "Road Building",
    year_of_plenty: "Year of Plenty", monopoly: "Monopoly" };
  var FALLBACK = ["#d64541", "#2f6fd0", "#e8e8e8", "#f08c28", "#3aa35b", "#8a5a2b"];
  var SEA = "#3d7fb8";
  var ROW = 64;
  var cache = typeof WeakMap === "function" ? new WeakMap() : null;

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  function r1(x) { return Math.round(x * 10) / 10; }
  function hexPoints(c, size) {
    var w = size * Math.sqrt(3) / 2, h = size / 2, x = c[0], y = c[1];
    return r1(x) + "," + r1(y - size) + " " + r1(x + w) + "," + r1(y - h) + " " + r1(x + w) + "," + r1(y + h) +
      " " + r1(x) + "," + r1(y + size) + " " + r1(x - w) + "," + r1(y + h) + " " + r1(x - w) + "," + r1(y - h);
  }

  // Everything that depends only on the board size, built once per static table.
  function geometry(st) {
    var g = cache && cache.get(st);
    if (g) return g;
    var size = st.hex_size, i, sea = "";
    for (i = 0; i < st.sea.length; i++) {
      sea += '<polygon points="' + hexPoints(st.sea[i], size - 1) + '" fill="#4a8cc4" stroke="#36709f" stroke-width="1"/>';
    }
    var land = [];
    for (i = 0; i < st.hexes.length; i++) land.push(hexPoints(st.hexes[i], size - 1.5));
    // the sea hexes are cut at the board's edge (ids are per board size: equal ids mean equal shapes)
    var clip = "catan-sea-" + esc(st.board);
    sea = '<clipPath id="' + clip + '"><rect width="' + st.width + '" height="' + st.height + '" rx="14"/></clipPath>' +
      '<g clip-path="url(#' + clip + ')"><rect width="' + st.width + '" height="' + st.height + '" fill="' + SEA + '"/>' + sea + "</g>";
    g = { sea: sea, land: land, width: Math.max(st.width, 480) };
    g.left = (g.width - st.width) / 2;
    if (cache) cache.set(st, g);
    return g;
  }

  function pips(n, x, y, color, table) {
    var k = table[String(n)] || 0, out = "", i, start = x - (k - 1) * 2.2;
    for (i = 0; i < k; i++) out += '<circle cx="' + r1(start + i * 4.4) + '" cy="' + r1(y) + '" r="1.4" fill="' + color + '"/>';
    return out;
  }

  function card(x, y, fill, label, count, cls, attrs, title) {
    return '<g class="' + cls + '"' + attrs + ' transform="translate(' + r1(x) + "," + r1(y) + ')">' +
      (title ? "<title>" + esc(title) + "</title>" : "") +
      '<rect x="2" y="-2" width="22" height="30" rx="3" fill="' + fill + '" stroke="#333" stroke-width="0.8" opacity="0.55"/>' +
      '<rect width="22" height="30" rx="3" fill="' + fill + '" stroke="#333" stroke-width="1"/>' +
      (label ? '<text x="11" y="12" font-size="7" text-anchor="middle" fill="#222">' + esc(label) + "</text>" : "") +
      '<text x="11" y="25" font-size="12" font-weight="bold" text-anchor="middle" fill="#111">' + count + "</text></g>";
  }

  function back(x, y, seat, kind, count) {
    var fill = kind === "resources" ? "#7b2d26" : "#3b3266";
    var title = count + (kind === "resources" ? " resource card" : " development card") + (count === 1 ? "" : "s");
    return '<g class="back" data-seat="' + seat + '" data-kind="' + kind + '" data-count="' + count +
      '" transform="translate(' + r1(x) + "," + r1(y) + ')"><title>' + title + "</title>" +
      '<rect x="3" y="-3" width="22" height="30" rx="3" fill="' + fill + '" stroke="#222" stroke-width="0.8" opacity="0.6"/>' +
      '<rect width="22" height="30" rx="3" fill="' + fill + '" stroke="#222" stroke-width="1"/>' +
      '<rect x="4" y="4" width="14" height="22" rx="2" fill="none" stroke="#f3e3b5" stroke-width="1" opacity="0.7"/>' +
      '<text x="11" y="20" font-size="12" font-weight="bold" text-anchor="middle" fill="#fff">' + count + "</text></g>";
  }

  function render(obs, ctx) {
    var st = ctx.static, g = geometry(st), size = st.hex_size;
    var n = obs.num_players, colors = [], s, i;
    for (s = 0; s < n; s++) colors.push(esc((ctx.colors && ctx.colors[s]) || FALLBACK[s % FALLBACK.length]));
    var seats = ctx.seats || [];
    var W = g.width, top = 40, left = g.left;
    var boardH = st.height;
    var panelTop = top + boardH + 8;
    var H = panelTop + 68 + n * ROW + 6;
    var out = [];
    out.push('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + r1(W) + " " + r1(H) +
      '" class="catan-board" font-family="Helvetica, Arial, sans-serif">');
    out.push('<rect width="' + r1(W) + '" height="' + r1(H) + '" fill="#f7f1e3"/>');

    // header: turn, who acts, dice
    var phase = String(obs.phase || "").toLowerCase().replace(/_/g, " ");
    var head = "Turn " + (obs.turn + 1) + " \u00b7 " + phase;
    if (obs.to_act !== null && obs.to_act !== undefined) head += " \u00b7 seat " + obs.to_act + " to act";
    if (obs.winner !== undefined && obs.winner !== null) head = "Game over \u00b7 seat " + obs.winner + " wins";
    else if (obs.phase === "GAME_OVER") head = "Game over \u00b7 turn limit";
    out.push('<text x="10" y="26" font-size="17" font-weight="bold" fill="#3a2f1e">' + esc(head) + "</text>");
    var dice = obs.dice || [];
    for (i = 0; i < dice.length; i++) {
      var dx = W - 10 - (dice.length - i) * 32;
      out.push('<g class="die" data-value="' + dice[i] + '"><rect x="' + r1(dx) + '" y="8" width="26" height="26" rx="5" fill="#fff" stroke="#333"/>' +
        '<text x="' + r1(dx + 13) + '" y="27" font-size="17" font-weight="bold" text-anchor="middle"' +
        (dice[0] + dice[1] === 7 ? ' fill="#c0392b"' : ' fill="#222"') + ">" + dice[i] + "</text></g>");
    }

    // the board
    out.push('<g transform="translate(' + r1(left) + "," + top + ')">');
    out.push(g.sea);
    var hexes = obs.board.hexes, pipTable = st.pips;
    for (i = 0; i < hexes.length; i++) {
      var hx = hexes[i], c = st.hexes[hx.id], num = hx.number || 0;
      var res = PRODUCES[hx.terrain];
      var name = res ? res + (num ? " " + num : "") : "desert";
      out.push('<g class="hex" data-hex="' + hx.id + '" data-terrain="' + esc(hx.terrain) + '" data-number="' + num + '">' +
        "<title>" + esc(hx.terrain + " (" + name + ")") + "</title>" +
        '<polygon points="' + g.land[hx.id] + '" fill="' + (TERRAIN[hx.terrain] || "#ccc") + '" stroke="#f3e6c4" stroke-width="2"/>' +
        '<text x="' + c[0] + '" y="' + r1(c[1] - size * 0.55) + '" font-size="9" text-anchor="middle" fill="#1d1d1d" opacity="0.75">' +
        esc(res || "desert") + "</text></g>");
      if (num) {
        var red = num === 6 || num === 8;
        var ink = red ? "#c0392b" : "#222";
        out.push('<g class="token' + (red ? " red" : "") + '" data-number="' + num + '">' +
          '<circle cx="' + c[0] + '" cy="' + c[1] + '" r="14" fill="#fbf3dc" stroke="#8a7a55" stroke-width="1"/>' +
          '<text x="' + c[0] + '" y="' + r1(c[1] + 4) + '" font-size="' + (red ? 15 : 14) + '" font-weight="bold" text-anchor="middle" fill="' + ink + '">' + num + "</text>" +
          pips(num, c[0], c[1] + 9, ink, pipTable) + "</g>");
      }
    }
    // harbours: docks toward their two corners and a ratio badge
    var harbors = obs.board.harbors;
    for (i = 0; i < harbors.length; i++) {
      var hb = harbors[i], slot = st.harbours[hb.slot], at = slot.at, generic = hb.type === "3:1";
      var v0 = st.vertices[slot.vertices[0]], v1 = st.vertices[slot.vertices[1]];
      var fill = generic ? "#ffffff" : RESOURCE[hb.type] || "#fff";
      out.push('<g class="harbour" data-slot="' + hb.slot + '" data-type="' + esc(hb.type) + '"><title>' +
        esc(generic ? "3:1 harbour (any resource)" : hb.type + " 2:1 harbour") + "</title>" +
        '<line x1="' + at[0] + '" y1="' + at[1] + '" x2="' + v0[0] + '" y2="' + v0[1] + '" stroke="#8b6b3d" stroke-width="3" stroke-dasharray="4 2"/>' +
        '<line x1="' + at[0] + '" y1="' + at[1] + '" x2="' + v1[0] + '" y2="' + v1[1] + '" stroke="#8b6b3d" stroke-width="3" stroke-dasharray="4 2"/>' +
        '<circle cx="' + at[0] + '" cy="' + at[1] + '" r="15" fill="' + fill + '" stroke="#5b4526" stroke-width="1.5"/>' +
        '<text x="' + at[0] + '" y="' + r1(at[1] + (generic ? 4.5 : 1)) + '" font-size="11" font-weight="bold" text-anchor="middle" fill="#222">' +
        (generic ? "3:1" : "2:1") + "</text>" +
        (generic ? "" : '<text x="' + at[0] + '" y="' + r1(at[1] + 10) + '" font-size="7" text-anchor="middle" fill="#222">' + esc(hb.type) + "</text>") +
        "</g>");
    }
    // a halo under what the last move placed (a road, a settlement or city, the robber)
    var evs = obs.last_events || [], verts = st.vertices, halo = "";
    for (i = 0; i < evs.length; i++) {
      var ev = evs[i], hp = null;
      if (ev.vertex !== undefined) hp = verts[ev.vertex];
      else if (ev.edge !== undefined) {
        var he = st.edges[ev.edge];
        hp = [(verts[he[0]][0] + verts[he[1]][0]) / 2, (verts[he[0]][1] + verts[he[1]][1]) / 2];
      } else if (ev.type === "move_robber") hp = [st.hexes[ev.hex][0] - 21, st.hexes[ev.hex][1] + 6];
      if (hp) halo += '<circle cx="' + r1(hp[0]) + '" cy="' + r1(hp[1]) + '" r="19" fill="#fff6a8" opacity="0.75" stroke="#f2c200" stroke-width="2"/>';
    }
    if (halo) out.push('<g class="last-move"><title>placed by the last move</title>' + halo + "</g>");
    // roads
    var roads = obs.roads;
    for (i = 0; i < roads.length; i++) {
      var e = st.edges[roads[i].edge], a = verts[e[0]], b = verts[e[1]];
      var ax = a[0] + (b[0] - a[0]) * 0.17, ay = a[1] + (b[1] - a[1]) * 0.17;
      var bx = b[0] + (a[0] - b[0]) * 0.17, by = b[1] + (a[1] - b[1]) * 0.17;
      var seg = ' x1="' + r1(ax) + '" y1="' + r1(ay) + '" x2="' + r1(bx) + '" y2="' + r1(by) + '"';
      s = roads[i].seat;
      out.push('<g class="road" data-seat="' + s + '" data-edge="' + roads[i].edge + '"><title>seat ' + s + "'s road</title><line" + seg +
        ' stroke="#222" stroke-width="9" stroke-linecap="round"/><line' + seg + ' stroke="' + colors[s] +
        '" stroke-width="6" stroke-linecap="round"/></g>');
    }
    // robber
    var rc = st.hexes[obs.board.robber_hex];
    out.push('<g class="robber" data-hex="' + obs.board.robber_hex + '" transform="translate(' + r1(rc[0] - 21) + "," + r1(rc[1] + 2) + ')">' +
      "<title>the robber</title>" +
      '<path d="M-7 12 Q-8 0 -4 -3 A6 6 0 1 1 4 -3 Q8 0 7 12 Z" fill="#2b2b2b" stroke="#eee" stroke-width="1.2"/></g>');
    // settlements and cities
    var blds = obs.buildings;
    for (i = 0; i < blds.length; i++) {
      var bd = blds[i], p = verts[bd.vertex];
      s = bd.seat;
      var shape = bd.kind === "city"
        ? "M-12 9 H12 V-3 H2 V-8 L-5 -14 L-12 -8 Z"
        : "M-8 8 H8 V-2 L0 -10 L-8 -2 Z";
      out.push('<path class="' + (bd.kind === "city" ? "city" : "settlement") + '" data-seat="' + s + '" data-vertex="' + bd.vertex +
        '" transform="translate(' + p[0] + "," + p[1] + ')" d="' + shape + '" fill="' + colors[s] +
        '" stroke="#1a1a1a" stroke-width="1.6" stroke-linejoin="round"><title>seat ' + s + "'s " + bd.kind + "</title></path>");
    }
    out.push("</g>");

    // bank, development deck, open trade
    var y = panelTop, x = 10, r;
    out.push('<text x="10" y="' + (y + 12) + '" font-size="11" fill="#5b4a2e">bank</text>');
    x = 44;
    var resources = st.resources;
    for (i = 0; i < resources.length; i++) {
      r = resources[i];
      out.push('<g class="bank" data-resource="' + r + '"><title>' + r + " in the bank</title>" +
        '<rect x="' + x + '" y="' + (y + 1) + '" width="30" height="15" rx="3" fill="' + RESOURCE[r] + '" stroke="#444" stroke-width="0.8"/>' +
        '<text x="' + (x + 15) + '" y="' + (y + 12.5) + '" font-size="11" font-weight="bold" text-anchor="middle" fill="#111">' + obs.bank[r] + "</text></g>");
      x += 34;
    }
    out.push('<text x="' + (x + 6) + '" y="' + (y + 12) + '" font-size="11" fill="#5b4a2e">development deck ' + obs.dev_deck + "</text>");
    var trade = obs.trade, line = "", answers = "";
    if (trade) {
      line = "seat " + trade.from + (trade.kind === "proposal"
        ? " offers " + sideText(trade.give) + " for " + sideText(trade.get)
        : " asks for offers");
      if (trade.answers) {  // public once everyone has answered
        var said = [];
        for (var who in trade.answers) {
          var ans = trade.answers[who];
          said.push("seat " + who + " " + (ans.give ? ans.answer + "s " + sideText(ans.give) + " for " + sideText(ans.get) : ans.answer + (ans.answer === "pass" ? "es" : "s")));
        }
        answers = "answers: " + said.join("; ");
      }
    } else if (obs.gift) {
      line = "seat " + obs.gift.from + " offers 1 " + obs.gift.resource + " as a gift to seat " + obs.gift.to;
    } else if (obs.pending_discards && Object.keys(obs.pending_discards).length) {
      line = "discarding: " + Object.keys(obs.pending_discards).map(function (k) {
        return "seat " + k + " owes " + obs.pending_discards[k];
      }).join(", ");
    }
    if (line) out.push('<text x="10" y="' + (y + 32) + '" font-size="12" fill="#7a3b12" class="trade">' + esc(line) + "</text>");
    if (answers) {
      var cut = answers.length > 80 ? answers.slice(0, 79) + "\u2026" : answers;
      out.push('<text x="10" y="' + (y + 46) + '" font-size="11" fill="#7a3b12"><title>' + esc(answers) + "</title>" + esc(cut) + "</text>");
    }

    // one row per seat
    y = panelTop + 54;
    var viewer = ctx.viewer, revealed = obs.revealed || null, you = obs.you || null;
    for (s = 0; s < n; s++) {
      var pl = obs.players[s], ry = y + s * ROW;
      // the observation's own seat sees its hand; ctx.viewer only highlights the row
      var acting = obs.to_act === s, mine = !!you && obs.seat === s;
      out.push('<g class="player" data-seat="' + s + '">');
      out.push('<rect x="4" y="' + ry + '" width="' + r1(W - 8) + '" height="' + (ROW - 4) + '" rx="7" fill="' +
        (viewer === s ? "#fff8e1" : "#fffdf7") + '" stroke="' + (acting ? "#d4880f" : "#d8ccb0") + '" stroke-width="' + (acting ? 2.5 : 1) + '"/>');
      out.push('<circle cx="20" cy="' + (ry + 17) + '" r="8" fill="' + colors[s] + '" stroke="#222" stroke-width="1.2"/>');
      var full = "seat " + s + (seats[s] ? " \u00b7 " + seats[s] : "");
      var shown = full.length > 26 ? full.slice(0, 25) + "\u2026" : full;
      out.push('<text x="34" y="' + (ry + 22) + '" font-size="14" font-weight="bold" fill="#222"><title>' + esc(full) + "</title>" + esc(shown) + "</text>");
      var vp = pl.public_vp, vpTitle = "visible victory points";
      if (mine) { vp = you.vp_total; vpTitle = "victory points with hidden VP cards"; }
      else if (revealed) { vp = pl.public_vp + ((revealed[String(s)].dev_cards || {}).victory_point || 0); vpTitle = "victory points"; }
      out.push('<text class="vp" x="' + r1(W - 14) + '" y="' + (ry + 24) + '" font-size="20" font-weight="bold" text-anchor="end" fill="#3a2f1e"><title>' +
        vpTitle + "</title>" + vp + ' <tspan font-size="11">VP</tspan></text>');
      // hands
      var hx0 = 12, hy = ry + 28;
      if (revealed || mine) {
        var resHand = revealed ? revealed[String(s)].resources : you.resources, devHand = {};
        if (revealed) devHand = revealed[String(s)].dev_cards;
        else for (i = 0; i < you.dev_cards.length; i++) devHand[you.dev_cards[i].type] = (devHand[you.dev_cards[i].type] || 0) + 1;
        for (i = 0; i < resources.length; i++) {
          r = resources[i];
          if (resHand[r]) {
            out.push(card(hx0, hy, RESOURCE[r], r, resHand[r], "face", ' data-seat="' + s + '" data-card="' + r + '" data-count="' + resHand[r] + '"', resHand[r] + " " + r));
            hx0 += 27;
          }
        }
        for (var dk in DEV) {
          if (devHand[dk]) {
            out.push(card(hx0, hy, "#d9cff2", DEV[dk], devHand[dk], "face dev", ' data-seat="' + s + '" data-card="' + dk + '" data-count="' + devHand[dk] + '"', devHand[dk] + " " + DEV_FULL[dk]));
            hx0 += 27;
          }
        }
        if (hx0 === 12) { out.push('<text x="12" y="' + (hy + 18) + '" font-size="11" fill="#777">no cards</text>'); hx0 = 64; }
      } else {
        out.push(back(hx0, hy, s, "resources", pl.resource_cards));
        out.push(back(hx0 + 32, hy, s, "development", pl.dev_cards));
        hx0 += 66;
      }
      // knights, road length, special cards, pieces
      var info = "\u2694 " + pl.knights_played + "   road " + pl.road_length;
      var sx = Math.max(hx0 + 6, 150);
      out.push('<text x="' + sx + '" y="' + (hy + 19) + '" font-size="12" fill="#333"><title>knights played, longest road length</title>' + info + "</text>");
      var bx0 = sx + 84;
      if (pl.longest_road) {
        out.push('<g class="longest-road" data-seat="' + s + '"><title>Longest Road (2 VP)</title><rect x="' + bx0 + '" y="' + (hy + 6) +
          '" width="84" height="18" rx="9" fill="#c9683f"/><text x="' + (bx0 + 42) + '" y="' + (hy + 19) +
          '" font-size="11" font-weight="bold" text-anchor="middle" fill="#fff">Longest Road</text></g>');
        bx0 += 88;
      }
      if (pl.largest_army) {
        out.push('<g class="largest-army" data-seat="' + s + '"><title>Largest Army (2 VP)</title><rect x="' + bx0 + '" y="' + (hy + 6) +
          '" width="84" height="18" rx="9" fill="#7a4fb0"/><text x="' + (bx0 + 42) + '" y="' + (hy + 19) +
          '" font-size="11" font-weight="bold" text-anchor="middle" fill="#fff">Largest Army</text></g>');
        bx0 += 88;
      }
      var sup = pl.supply;
      var extra = obs.favour_tokens ? "  \u2605" + obs.catan_tokens[s] + " \u2661" + obs.favour_tokens[s] : "";
      out.push('<text x="' + r1(W - 62) + '" y="' + (ry + 22) + '" font-size="11" text-anchor="end" fill="#666"><title>pieces left: settlements, cities, roads' +
        (extra ? "; Catan tokens, favour tokens" : "") + "</title>left " + sup.settlements + "S " + sup.cities + "C " + sup.roads + "R" + extra + "</text>");
      out.push("</g>");
    }
    out.push("</svg>");
    return out.join("");
  }

  function sideText(side) {
    var parts = [];
    for (var k in side) parts.push(side[k] + " " + k);
    return parts.join(" + ") || "nothing";
  }

  (window.ArenaViewers = window.ArenaViewers || {})["catan"] = { render: render };
})();
