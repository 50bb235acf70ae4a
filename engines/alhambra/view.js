// Alhambra board drawing: one SVG string from an Alhambra observation (see view.py for the marks).
// Plain browser JS: no DOM, no dependencies. Rows stack vertically so a phone can read them.
(function () {
  "use strict";
  var W = 640, M = 20;
  var TYPE_FILL = ["#bfe3f2", "#4a7fd0", "#d0483f", "#9c6a3c", "#f1ebdf", "#4f9d4a", "#8656b5"];
  var TYPE_INK = ["#1d4f6b", "#fff", "#fff", "#fff", "#3b3325", "#fff", "#fff"];
  var CURRENCY_FILL = ["#e8c12a", "#3f9e5a", "#3a6fc4", "#e58a2b"];
  var WALL = "#3a2411";

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  function fit(text, width, max) {
    return Math.max(9, Math.min(max, Math.floor(width / (String(text).length * 0.62))));
  }
  function t(x, y, size, text, extra) {
    return '<text x="' + x + '" y="' + y + '" font-size="' + size + '"' + (extra || "") + ">" + esc(text) + "</text>";
  }
  function rect(x, y, w, h, fill, extra) {
    return '<rect x="' + x + '" y="' + y + '" width="' + w + '" height="' + h + '" fill="' + fill + '"' + (extra || "") + "/>";
  }

  function render(obs, ctx) {
    var S = ctx.static, seats = ctx.seats || [], colors = ctx.colors || [];
    function name(s) { return seats[s] !== undefined ? seats[s] : "seat " + s; }
    function colour(s) { return colors[s] || "#666"; }
    var out = [], y = 0;

    // One building tile, size x size at (x, y). wallAttrs: attributes of its wall lines (palace tiles).
    function tile(id, x, y0, size, cls, attrs, wallAttrs) {
      var info = S.tiles[id], type = info.type;
      var g = ['<g class="tile ' + cls + '"' + (attrs || "") + ' data-tile="' + id + '" transform="translate(' + x + "," + y0 + ')">'];
      g.push("<title>" + esc(info.text) + "</title>");
      g.push(rect(1, 1, size - 2, size - 2, TYPE_FILL[type], ' rx="3" stroke="#00000033"'));
      if (type === 0) {
        g.push('<circle cx="' + size / 2 + '" cy="' + size / 2 + '" r="' + size * 0.3 + '" fill="#5fb4dc" stroke="#1d4f6b" stroke-width="2"/>');
        g.push('<circle cx="' + size / 2 + '" cy="' + size / 2 + '" r="' + size * 0.1 + '" fill="#fff"/>');
      } else {
        var label = S.types[type].name;
        if (size >= 70) {
          g.push(t(size / 2, size * 0.45, fit(label, size - 12, 15), label, ' text-anchor="middle" font-weight="bold" fill="' + TYPE_INK[type] + '"'));
          g.push(t(size / 2, size * 0.78, 20, info.price, ' text-anchor="middle" font-weight="bold" fill="' + TYPE_INK[type] + '"'));
        } else { // the type's initial (P S A C G T) for those who cannot tell the colours apart, and the price
          if (size >= 36) g.push(t(size * 0.2, size * 0.3, Math.round(size * 0.2), label.charAt(0), ' text-anchor="middle" fill="' + TYPE_INK[type] + '" opacity="0.8"'));
          g.push(t(size / 2, size * 0.66, Math.max(10, Math.round(size * 0.36)), info.price, ' text-anchor="middle" font-weight="bold" fill="' + TYPE_INK[type] + '"'));
        }
      }
      var wall = Math.max(3, Math.round(size / 9)), h = wall / 2;
      var lines = { N: [0, h, size, h], S: [0, size - h, size, size - h], W: [h, 0, h, size], E: [size - h, 0, size - h, size] };
      info.walls.split("").forEach(function (d) {
        var l = lines[d];
        g.push('<line class="wall"' + (wallAttrs || "") + ' x1="' + l[0] + '" y1="' + l[1] + '" x2="' + l[2] + '" y2="' + l[3] +
          '" stroke="' + WALL + '" stroke-width="' + wall + '" stroke-linecap="square"/>');
      });
      g.push("</g>");
      return g.join("");
    }
    // One money card (or its back when id is null).
    function money(id, x, y0, w, h, cls, attrs) {
      if (id === null) {
        return '<g class="money back' + (cls ? " " + cls : "") + '"' + (attrs || "") + ">" +
          rect(x, y0, w, h, "#7a2e2e", ' rx="4" stroke="#e6c77a" stroke-width="1.5"') +
          '<circle cx="' + (x + w / 2) + '" cy="' + (y0 + h / 2) + '" r="' + w * 0.22 + '" fill="none" stroke="#e6c77a" stroke-width="1.5"/></g>';
      }
      var m = S.money[id], cur = S.currencies[m[0]];
      return '<g class="money ' + cls + '"' + (attrs || "") + ' data-card="' + id + '"><title>' + m[1] + " " + esc(cur) + "</title>" +
        rect(x, y0, w, h, CURRENCY_FILL[m[0]], ' rx="5" stroke="#00000055" stroke-width="1.5"') +
        t(x + w / 2, y0 + h * 0.58, Math.round(h * 0.42), m[1], ' text-anchor="middle" font-weight="bold" fill="#fff" stroke="#00000044" stroke-width="0.8"') +
        (h >= 60 ? t(x + w / 2, y0 + h - 8, fit(cur, w - 6, 12), cur, ' text-anchor="middle" fill="#fff"') : "") + "</g>";
    }

    // --- header: turn, who moves, scoring rounds, bag and deck
    var phase = { action: "action", placement: "placing bought tiles", final_placement: "placing the last tiles", over: "game over" }[obs.phase];
    out.push(rect(0, 0, W, 100, "#6b2d2a"));
    out.push(t(M, 34, 24, "Turn " + obs.turn_number + " \u00B7 " + phase, ' fill="#fff" font-weight="bold"'));
    var who = obs.to_move === null ? "final standings" : name(obs.to_move) + " to move";
    out.push(t(M, 62, fit(who, 330, 19), who, ' fill="#f6dcc4"'));
    out.push(t(M, 88, 14, "scoring", ' fill="#f6dcc4"'));
    for (var r = 1; r <= 3; r++) {
      var done = obs.scoring_done.indexOf(r) >= 0;
      out.push('<g class="scoring-round' + (done ? " done" : "") + '" data-round="' + r + '"><title>scoring round ' + r + (done ? " done" : " to come") + "</title>" +
        '<circle cx="' + (M + 70 + (r - 1) * 30) + '" cy="83" r="12" fill="' + (done ? "#f2c230" : "none") + '" stroke="#f2c230" stroke-width="2"/>' +
        t(M + 70 + (r - 1) * 30, 88, 14, r, ' text-anchor="middle" font-weight="bold" fill="' + (done ? "#6b2d2a" : "#f2c230") + '"') + "</g>");
    }
    function pile(cls, count, label, x, fill) {
      out.push('<g class="pile ' + cls + '" data-count="' + count + '"><title>' + label + ": " + count + "</title>" +
        rect(x, 10, 64, 64, fill, ' rx="6" stroke="#f6dcc4" stroke-width="2"') +
        t(x + 32, 50, 22, count, ' text-anchor="middle" fill="#fff" font-weight="bold"') +
        t(x + 32, 92, 12, label, ' text-anchor="middle" fill="#f6dcc4"') + "</g>");
    }
    pile("bag", obs.bag_count, "tiles in bag", W - 160, "#8c5a3a");
    pile("deck", obs.deck_count, "money deck", W - 84, "#7a2e2e");
    y = 100;

    // --- the building market (one slot per currency) and the money market
    var slotW = 150, tileS = 96;
    out.push(rect(0, y, W, 360, "#f6efe2"));
    out.push(t(M, y + 30, 20, "Building market", ' font-weight="bold" fill="#3b2a18"'));
    for (var s = 1; s <= 4; s++) {
      var cur = S.slot_currency[s - 1], sx = M + (s - 1) * slotW, tid = obs.building_market[String(s)];
      out.push('<g class="slot" data-slot="' + s + '">');
      out.push(rect(sx, y + 44, slotW - 10, 160, "#fff", ' rx="8" stroke="' + CURRENCY_FILL[cur] + '" stroke-width="3"'));
      out.push(rect(sx, y + 44, slotW - 10, 28, CURRENCY_FILL[cur], ' rx="8"'));
      out.push(t(sx + (slotW - 10) / 2, y + 64, 16, S.currencies[cur], ' text-anchor="middle" fill="#fff" font-weight="bold"'));
      if (tid === null) out.push(t(sx + (slotW - 10) / 2, y + 140, 15, "empty", ' text-anchor="middle" fill="#999" font-style="italic"'));
      out.push("</g>");
      if (tid !== null) out.push(tile(tid, sx + (slotW - 10 - tileS) / 2, y + 86, tileS, "market", ' data-slot="' + s + '"'));
    }
    out.push(t(M, y + 238, 20, "Money market", ' font-weight="bold" fill="#3b2a18"'));
    obs.money_market.forEach(function (id, i) { out.push(money(id, M + i * 74, y + 252, 64, 92, "market")); });
    if (!obs.money_market.length) out.push(t(M, y + 300, 15, "empty", ' fill="#999" font-style="italic"'));
    out.push(t(W - M, y + 238, 13, obs.discard.length + " money cards discarded", ' text-anchor="end" fill="#6b5a48"'));
    y += 360;

    // --- tiles waiting to be placed: bought this turn, or left on the market at the end
    var waiting = obs.held_this_turn.map(function (id) { return [id, "held", obs.to_move]; });
    obs.awarded_to_place.forEach(function (a) { a[1].forEach(function (id) { waiting.push([id, "award", a[0]]); }); });
    if (waiting.length) {
      out.push(rect(0, y, W, 142, "#fff4cc"));
      var label = obs.phase === "final_placement" ? "Left on the market, to be placed by the richest" : "Bought this turn, to be placed";
      out.push(t(M, y + 28, 18, label, ' font-weight="bold" fill="#3b2a18"'));
      waiting.forEach(function (w, i) {
        var x = M + i * 96;
        out.push(tile(w[0], x, y + 40, 80, w[1], ' data-seat="' + w[2] + '"'));
        out.push(t(x + 40, y + 136, 13, name(w[2]), ' text-anchor="middle" fill="' + colour(w[2]) + '"'));
      });
      y += 142;
    }

    // --- legend: building types and their points per scoring round
    out.push(rect(0, y, W, 112, "#fbf8f1"));
    S.types.forEach(function (ty, k) {
      if (!k) return;
      var lx = M + ((k - 1) % 3) * 200, ly = y + 14 + Math.floor((k - 1) / 3) * 48;
      out.push(rect(lx, ly, 36, 36, TYPE_FILL[k], ' rx="3" stroke="#00000033"'));
      out.push(t(lx + 44, ly + 15, 15, ty.name, ' font-weight="bold" fill="#3b2a18"'));
      out.push(t(lx + 44, ly + 33, 13, ty.points.map(function (p) { return p.join("/"); }).join(" \u00B7 "), ' fill="#6b5a48"'));
    });
    y += 112;

    // --- the players: score, money, building counts, palace grid, reserve (places at the end)
    var rank = obs.players.map(function (p) {
      return obs.players.filter(function (q) { return q.score > p.score; }).length;
    });
    function rankText(r) { return r === 0 ? "\u2605 winner" : ["", "2nd", "3rd", "4th", "5th", "6th"][r] + " place"; }
    obs.players.forEach(function (p) {
      var s = p.seat, mine = obs.seat === s;
      var xs = p.alhambra.map(function (c) { return c.x; }), ys = p.alhambra.map(function (c) { return c.y; });
      var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
      var cols = x1 - x0 + 1, rows = y1 - y0 + 1;
      var cell = Math.max(16, Math.min(56, Math.floor((W - 2 * M - 20) / cols)));
      var handN = p.hand ? p.hand.length : p.hand_count;
      var handRows = Math.max(1, Math.ceil(handN / 14));
      var reserveRows = Math.ceil(p.reserve.length / 12);
      var gridY = 124 + handRows * 50;
      var h = gridY + rows * cell + 16 + (reserveRows ? 30 + reserveRows * 48 : 0) + 10;
      var acting = obs.to_move === s;
      out.push('<g class="player' + (mine ? " you" : "") + '" data-seat="' + s + '">');
      out.push(rect(0, y, W, h, mine ? "#fffbe8" : "#f7f5f0", ' stroke="#d6cfc2"'));
      out.push(rect(0, y, 10, h, colour(s)));
      if (acting) out.push(rect(4, y + 3, W - 8, h - 6, "none", ' rx="6" stroke="' + colour(s) + '" stroke-width="4"'));
      var label = name(s) + (mine ? " (you)" : "");
      out.push(t(M + 4, y + 32, fit(label, 380, 22), label, ' font-weight="bold" fill="#3b2a18"'));
      var tag = obs.phase === "over" ? rankText(rank[s]) : acting ? "to move" : "";
      if (tag) out.push(t(M + 4, y + 52, 14, tag, ' fill="' + colour(s) + '" font-weight="bold"'));
      out.push('<g class="score" data-seat="' + s + '" data-value="' + p.score + '"><title>' + p.score + " points</title>" +
        rect(W - 150, y + 12, 130, 40, "#fff", ' rx="20" stroke="#6b2d2a" stroke-width="2"') +
        t(W - 85, y + 39, 20, p.score + " pts", ' text-anchor="middle" font-weight="bold" fill="#6b2d2a"') + "</g>");
      // building counts per type, and the longest wall
      p.type_counts.forEach(function (n, k) {
        var cx = M + 4 + k * 62;
        out.push(rect(cx, y + 62, 54, 30, TYPE_FILL[k + 1], ' rx="4" stroke="#00000033"'));
        out.push(t(cx + 27, y + 83, 17, n, ' text-anchor="middle" font-weight="bold" fill="' + TYPE_INK[k + 1] + '"'));
      });
      out.push(rect(M + 4 + 6 * 62, y + 62, 150, 30, "#fff", ' rx="4" stroke="' + WALL + '" stroke-width="2"'));
      out.push(t(M + 4 + 6 * 62 + 75, y + 83, 15, "longest wall " + p.longest_wall, ' text-anchor="middle" fill="' + WALL + '"'));
      // money in hand: faces where this view shows them, backs otherwise
      var hy = y + 104;
      out.push(t(M + 4, hy + 26, 14, "money", ' fill="#6b5a48"'));
      for (var i = 0; i < handN; i++) {
        var mx = M + 64 + (i % 14) * 38, my = hy + Math.floor(i / 14) * 50;
        out.push(money(p.hand ? p.hand[i] : null, mx, my, 34, 46, p.hand ? "hand" : "", ' data-seat="' + s + '"'));
      }
      if (!handN) out.push(t(M + 64, hy + 26, 14, "none", ' fill="#999" font-style="italic"'));
      if (p.hand) {
        var totals = [0, 0, 0, 0];
        p.hand.forEach(function (id) { totals[S.money[id][0]] += S.money[id][1]; });
        out.push("<title>" + totals.map(function (v, c) { return v + " " + S.currencies[c]; }).join(", ") + "</title>");
      }
      // the palace: north up
      var gx = M + 10 + Math.floor((W - 2 * M - 20 - cols * cell) / 2), gy = y + gridY;
      out.push(rect(gx - 6, gy - 6, cols * cell + 12, rows * cell + 12, "#e9dfc9", ' rx="6"'));
      p.alhambra.forEach(function (c) {
        out.push(tile(c.tile, gx + (c.x - x0) * cell, gy + (y1 - c.y) * cell, cell, "palace", ' data-seat="' + s + '"', ' data-seat="' + s + '"'));
      });
      // the reserve
      if (reserveRows) {
        var ry = gy + rows * cell + 16;
        out.push(t(M + 4, ry + 20, 14, "reserve", ' fill="#6b5a48"'));
        p.reserve.forEach(function (id, k) {
          out.push(tile(id, M + 70 + (k % 12) * 46, ry + 28 + Math.floor(k / 12) * 48 - 28 + 4, 42, "reserve", ' data-seat="' + s + '"'));
        });
      }
      out.push("</g>");
      y += h;
    });

    // --- Dirk, the imaginary third player of the 2-player game
    if (obs.dirk) {
      var dRows = Math.max(1, Math.ceil(obs.dirk.tiles.length / 12));
      var dh = 50 + dRows * 48;
      out.push(rect(0, y, W, dh, "#eeeeee"));
      out.push(t(M, y + 30, 18, "Dirk \u00B7 " + obs.dirk.score + " pts", ' font-weight="bold" fill="#444"'));
      obs.dirk.type_counts.forEach(function (n, k) {
        var cx = W - M - (6 - k) * 44;
        out.push(rect(cx, y + 12, 38, 26, TYPE_FILL[k + 1], ' rx="4" stroke="#00000033"'));
        out.push(t(cx + 19, y + 31, 15, n, ' text-anchor="middle" font-weight="bold" fill="' + TYPE_INK[k + 1] + '"'));
      });
      obs.dirk.tiles.forEach(function (id, k) {
        out.push(tile(id, M + (k % 12) * 46, y + 42 + Math.floor(k / 12) * 48, 42, "dirk"));
      });
      y += dh;
    }
    return '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + W + " " + y + '" font-family="DejaVu Sans, Verdana, sans-serif" class="board alhambra">' + out.join("") + "</svg>";
  }

  (window.ArenaViewers = window.ArenaViewers || {})["alhambra"] = { render: render };
})();
