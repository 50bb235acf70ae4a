// Top Race board drawing: one SVG string from a Top Race observation (see view.py for the marks).
// Plain browser JS: no DOM, no dependencies. The track is unrolled into bands of rows read left to
// right, top to bottom (driving direction), lane 0 (left in driving direction) on top.
(function () {
  "use strict";
  var W = 640, M = 20, PER_BAND = 16;
  var CAR_FILL = { red: "#d7263d", yellow: "#f4c20d", blue: "#1e6fd9", black: "#222222", purple: "#8e44ad", green: "#1e9e50", joker: "#ffffff" };
  var CAR_INK = { red: "#fff", yellow: "#222", blue: "#fff", black: "#fff", purple: "#fff", green: "#fff", joker: "#222" };
  var DECISIONS = {
    bid: "bid or pass", take_car: "choose a car and start space", take_offer: "choose a card of the offer",
    turn: "play a card", joker: "name the joker's car", move: "choose where the car goes",
    "return": "bring a broken-down car back", claim: "claim the card for a pitstop?", tip: "place a tip",
    trade: "trade shares"
  };
  var PHASES = { auction: "car auction", offer_auction: "offer auction", race: "race", over: "game over" };

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
  function money(n) {
    var s = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, "\u202f");
    return (n < 0 ? "-" : "") + s;
  }
  function short(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  function ordinal(n) { return n + (n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"); }

  function render(obs, ctx) {
    var S = ctx.static, seats = ctx.seats || [], colors = ctx.colors || [];
    function name(s) { return seats[s] !== undefined ? seats[s] : "seat " + s; }
    function colour(s) { return colors[s] || "#666"; }
    var out = [], y = 0;
    var track = S.tracks[obs.track], shares = obs.modules.shares;

    // A tempo card face (id) or its back (id null), w x h at (x, y).
    function tempo(id, x, y0, w, h, cls, attrs) {
      var g = '<g class="tempo ' + cls + (id === null ? " back" : "") + '"' + (attrs || "") + (id === null ? "" : ' data-card="' + id + '"') +
        ' transform="translate(' + x + "," + y0 + ')">';
      if (id === null) {
        return g + rect(0, 0, w, h, "#1f2f4a", ' rx="5" stroke="#c9d3e6" stroke-width="1.5"') +
          '<path d="M' + w * 0.25 + " " + h * 0.5 + " L" + w * 0.5 + " " + h * 0.3 + " L" + w * 0.75 + " " + h * 0.5 + " L" + w * 0.5 + " " + h * 0.7 + 'Z" fill="#c9d3e6"/></g>';
      }
      var c = S.cards[id];
      g += "<title>" + esc(c.text) + "</title>" + rect(0, 0, w, h, c.group === "S" ? "#2b2b2b" : "#fdfdf8", ' rx="5" stroke="#555" stroke-width="1.5"');
      if (c.group === "S") {
        g += t(w / 2, h * 0.3, Math.round(w * 0.3), "S/B", ' text-anchor="middle" fill="#fff" font-weight="bold"');
        c.spurt_breakdown.forEach(function (car, i) {
          g += '<circle cx="' + w * (i ? 0.7 : 0.3) + '" cy="' + h * 0.62 + '" r="' + w * 0.17 + '" fill="' + CAR_FILL[car] + '" stroke="#fff"/>';
        });
      } else {
        var n = c.slots.length, sh = (h - 6) / Math.max(n, 3);
        c.slots.forEach(function (slot, i) {
          var car = slot[0];
          g += rect(3, 3 + i * sh, w - 6, sh - 2, CAR_FILL[car], ' rx="2"' + (car === "joker" ? ' stroke="#999" stroke-dasharray="3 2"' : ""));
          g += t(w / 2, 3 + i * sh + sh * 0.72, Math.min(16, Math.round(sh * 0.8)), (car === "joker" ? "J " : "") + slot[1], ' text-anchor="middle" font-weight="bold" fill="' + CAR_INK[car] + '"');
        });
      }
      return g + "</g>";
    }
    // A car token: w x h at (x, y).
    function carToken(car, x, y0, w, h, cls, title) {
      var owner = obs.owners[car];
      var attrs = ' data-car="' + car + '"' + (owner === null || owner === undefined ? "" : ' data-owner="' + owner + '"');
      var stroke = owner === null || owner === undefined ? "#fff" : colour(owner);
      return '<g class="car ' + cls + '"' + attrs + "><title>" + esc(title) + "</title>" +
        rect(x, y0, w, h, CAR_FILL[car], ' rx="' + Math.round(h / 3) + '" stroke="' + stroke + '" stroke-width="3"' + (cls === "broken" ? ' opacity="0.45"' : "")) +
        (cls === "broken" ? t(x + w / 2, y0 + h * 0.75, Math.round(h * 0.8), "\u2715", ' text-anchor="middle" fill="#fff" font-weight="bold"') : "") + "</g>";
    }
    function ownerText(car) {
      var o = obs.owners[car];
      return o === null || o === undefined ? (shares ? "" : "unsold") : name(o);
    }

    // --- header
    out.push(rect(0, 0, W, 100, "#1f2f4a"));
    var title = "Race " + obs.race + " of " + obs.races + " \u00B7 " + track.name;
    out.push(t(M, 34, fit(title, W - 2 * M, 24), title, ' fill="#fff" font-weight="bold"'));
    var who = obs.to_move === null ? PHASES[obs.phase] + " \u00B7 final standings"
      : PHASES[obs.phase] + " \u00B7 " + name(obs.to_move) + ": " + (DECISIONS[obs.decision] || obs.decision);
    out.push(t(M, 62, fit(who, W - 2 * M, 18), who, ' fill="#dbe5f5"'));
    var mods = ["pitstop", "tips", "shares"].filter(function (m) { return obs.modules[m]; });
    var info = (mods.length ? "with " + mods.join(", ") + " \u00B7 " : "basic game \u00B7 ") + "tip lines crossed: " + obs.lines_crossed + "/" + track.tip_lines.length;
    out.push(t(M, 88, 14, info, ' fill="#9fb3d1"'));
    y = 100;

    // --- the track, in bands of PER_BAND rows
    var cw = (W - 2 * M) / PER_BAND, lh = 30, bandH = 3 * lh + 28;
    var bands = Math.ceil(track.rows / PER_BAND);
    out.push(rect(0, y, W, bands * bandH + 20, "#cfe3c4"));
    function pos(row) { // x, y of the top-left of a row (lane 0)
      var b = Math.floor(row / PER_BAND);
      return [M + (row - b * PER_BAND) * cw, y + 20 + b * bandH];
    }
    for (var b = 0; b < bands; b++) {
      var first = b * PER_BAND, p0 = pos(first);
      out.push(t(M, p0[1] - 5, 11, "row " + first, ' fill="#3d5a2f"'));
    }
    var spaceAt = {};
    track.spaces.forEach(function (sp) {
      var id = sp[0], back = sp[1], front = sp[2], lane = sp[3], k = track.row_kinds.charAt(back);
      spaceAt[id] = sp;
      var fill = back < 2 ? "#4a4f57" : k === "C" ? "#6e6a66" : k === "K" ? "#7a5a5a" : "#5b5f66";
      var title = "row " + back + ", " + S.lanes[lane] + " lane";
      for (var r = back, part = 0; r < front; part++) { // a 2-row space may wrap onto the next band
        var q = pos(r), end = Math.min(front, (Math.floor(r / PER_BAND) + 1) * PER_BAND);
        out.push('<rect class="' + (part ? "space-rest" : "space") + '" data-space="' + id + '" x="' + (q[0] + 0.5) + '" y="' + (q[1] + lane * lh + 0.5) +
          '" width="' + ((end - r) * cw - 1) + '" height="' + (lh - 1) + '" fill="' + fill + '" stroke="#e8e8e8" stroke-width="1">' +
          "<title>" + title + "</title></rect>");
        r = end;
      }
    });
    // start numbers, tip lines, finish
    Object.keys(track.start_spaces).forEach(function (n) {
      var sp = spaceAt[track.start_spaces[n]], q = pos(sp[1]);
      out.push(t(q[0] + 3, q[1] + sp[3] * lh + 11, 9, n, ' fill="#ddd"'));
    });
    track.tip_lines.forEach(function (row, i) {
      var q = pos(row), crossed = obs.lines_crossed > i;
      out.push('<g class="tip-line" data-row="' + row + '"><title>tip line ' + (i + 1) + " (row " + row + ")</title>" +
        '<line x1="' + q[0] + '" y1="' + (q[1] - 4) + '" x2="' + q[0] + '" y2="' + (q[1] + 3 * lh + 4) + '" stroke="' + (crossed ? "#f4c20d" : "#fff2a8") + '" stroke-width="4"/>' +
        t(q[0] + 3, q[1] - 5, 11, "T" + (i + 1), ' fill="#7a6200" font-weight="bold"') + "</g>");
    });
    var fin = pos(track.rows - 1);
    for (var i = 0; i < 6; i++) {
      for (var j = 0; j < 2; j++) {
        out.push(rect(fin[0] + cw - 8 + j * 4, fin[1] + i * lh / 2, 4, lh / 2, (i + j) % 2 ? "#fff" : "#111"));
      }
    }
    out.push(t(fin[0] + cw, fin[1] + 3 * lh + 14, 11, "finish", ' text-anchor="end" fill="#3d5a2f" font-weight="bold"'));
    var legend = [["#4a4f57", "start grid"], ["#5b5f66", "straight"], ["#6e6a66", "curve"], ["#7a5a5a", "chicane"]];
    legend.forEach(function (l, i) {
      var lx = M + i * 100, ly = y + bands * bandH + 2;
      out.push(rect(lx, ly - 9, 12, 12, l[0]) + t(lx + 16, ly + 2, 11, l[1], ' fill="#3d5a2f"'));
    });
    // cars on the track, and broken-down cars where they broke down
    S.cars.forEach(function (car) {
      var st = obs.cars[car], where = st.space || st.broken;
      if (!where) return;
      var sp = spaceAt[where], q = pos(sp[1]);
      var w = Math.min((sp[2] - sp[1]) * cw, cw * 1.5) - 6;
      out.push(carToken(car, q[0] + 3, q[1] + sp[3] * lh + 4, w, lh - 8, st.space ? "on-track" : "broken",
        car + (st.space ? "" : " (broken down)") + ", row " + sp[1] + ", " + S.lanes[sp[3]] + " lane" + (ownerText(car) ? ", " + ownerText(car) : "")));
    });
    y += bands * bandH + 20;

    // --- the cars: owner and state; finished cars by place, unsold ones waiting
    out.push(rect(0, y, W, 96, "#f4f6f9"));
    S.cars.forEach(function (car, k) {
      var st = obs.cars[car], cx = M + k * 100;
      var state = st.place ? ordinal(st.place) : st.space ? "row " + spaceAt[st.space][1] : st.broken ? "broken down" : shares ? "on the grid" : "for sale";
      if (st.place || (!st.space && !st.broken)) {
        out.push(carToken(car, cx, y + 12, 90, 30, st.place ? "finished" : "waiting", car + ": " + state));
        if (st.place) out.push(t(cx + 45, y + 33, 16, ordinal(st.place), ' text-anchor="middle" font-weight="bold" fill="' + CAR_INK[car] + '"'));
      } else {
        out.push(rect(cx, y + 12, 90, 30, CAR_FILL[car], ' rx="10" opacity="0.25"'));
        out.push(t(cx + 45, y + 33, 14, state, ' text-anchor="middle" fill="#333"'));
      }
      out.push(t(cx + 45, y + 62, 13, car, ' text-anchor="middle" font-weight="bold" fill="#333"'));
      var ow = ownerText(car), o = obs.owners[car];
      if (ow) out.push(t(cx + 45, y + 80, fit(short(ow, 12), 92, 13), short(ow, 12), ' text-anchor="middle" fill="' + (o === null || o === undefined ? "#888" : colour(o)) + '"'));
    });
    y += 96;

    // --- the auction (cars, or the Shares offer)
    if (obs.auction) {
      var a = obs.auction, ah = obs.offer.length ? 170 : 96;
      out.push('<g class="auction">' + rect(0, y, W, ah, "#fff4d6"));
      out.push(t(M, y + 28, 18, obs.phase === "offer_auction" ? "Auction of the offer" : "Car auction \u00B7 " + a.cars_left + " cars left", ' font-weight="bold" fill="#5a4200"'));
      var high = a.high_bid === null ? "no bid yet" : "high bid " + money(a.high_bid) + " by " + name(a.high_bidder);
      out.push(t(M, y + 54, fit(high, W - 2 * M, 16), high, ' fill="#5a4200"'));
      var passed = a.passed.length ? "passed: " + a.passed.map(name).join(", ") : "nobody has passed";
      out.push(t(M, y + 78, fit(passed, W - 2 * M, 14), passed, ' fill="#7a6a40"'));
      obs.offer.forEach(function (id, k) { out.push(tempo(id, M + k * 62, y + 92, 54, 70, "offer")); });
      out.push("</g>");
      y += ah;
    }

    // --- the card being played, the discard pile and the box
    out.push(rect(0, y, W, 120, "#eef1f6"));
    if (obs.card) {
      out.push(tempo(obs.card.id, M, y + 12, 64, 96, "current"));
      var by = "played by " + short(name(obs.card.by), 24);
      out.push(t(M + 76, y + 40, fit(by, W - 280, 15), by, ' fill="#333" font-weight="bold"'));
      out.push(t(M + 76, y + 62, 14, "slot " + (obs.card.slot + 1) + (obs.car ? ": " + obs.car + " car" : ""), ' fill="#555"'));
    } else {
      out.push(t(M, y + 64, 15, "no card in play", ' fill="#888" font-style="italic"'));
    }
    var top = obs.discard.length ? S.cards[obs.discard[obs.discard.length - 1]].text : "";
    out.push('<g class="pile discard" data-count="' + obs.discard.length + '"><title>discard pile' + (top ? ", top: " + esc(top) : "") + "</title>" +
      rect(W - 170, y + 14, 64, 76, "#fdfdf8", ' rx="5" stroke="#555" stroke-dasharray="4 3"') +
      t(W - 138, y + 60, 22, obs.discard.length, ' text-anchor="middle" font-weight="bold" fill="#333"') + t(W - 138, y + 108, 12, "discard", ' text-anchor="middle" fill="#555"') + "</g>");
    if (obs.modules.pitstop) {
      out.push('<g class="pile box" data-count="' + obs.box.length + '"><title>Box: ' + obs.box.map(function (c) { return esc(S.cards[c].text); }).join(" | ") + "</title>" +
        rect(W - 90, y + 14, 64, 76, "#fdfdf8", ' rx="5" stroke="#555"') +
        t(W - 58, y + 60, 22, obs.box.length, ' text-anchor="middle" font-weight="bold" fill="#333"') + t(W - 58, y + 108, 12, "box", ' text-anchor="middle" fill="#555"') + "</g>");
    }
    y += 120;

    // --- the players
    for (var s = 0; s < obs.players; s++) {
      var mine = obs.seat === s, acting = obs.to_move === s;
      var hand = mine ? obs.hand : null, size = obs.hand_sizes[s];
      var handRows = Math.max(1, Math.ceil(size / 10));
      var extra = (obs.reserved[s].length || obs.modules.pitstop ? 1 : 0) + (obs.modules.tips ? 1 : 0) + (shares ? 1 : 0);
      var h = 64 + handRows * 78 + extra * 46 + 10;
      out.push('<g class="player' + (mine ? " you" : "") + '" data-seat="' + s + '">');
      out.push(rect(0, y, W, h, mine ? "#fffbe8" : "#f7f8fa", ' stroke="#d5dae2"'));
      out.push(rect(0, y, 10, h, colour(s)));
      if (acting) out.push(rect(4, y + 3, W - 8, h - 6, "none", ' rx="6" stroke="' + colour(s) + '" stroke-width="4"'));
      var label = name(s) + (mine ? " (you)" : "");
      out.push(t(M + 4, y + 30, fit(label, 330, 21), label, ' font-weight="bold" fill="#1f2f4a"'));
      var tag = acting ? DECISIONS[obs.decision] || "" : "";
      if (obs.phase === "over") {
        var r = obs.cash.filter(function (c) { return c > obs.cash[s]; }).length;
        tag = r === 0 ? "\u2605 most money" : ordinal(r + 1) + " in money";
      }
      if (obs.order.length && obs.phase === "race") tag = (tag ? tag + " \u00B7 " : "") + ordinal(obs.order.indexOf(s) + 1) + " in turn order";
      if (tag) out.push(t(M + 4, y + 50, 13, tag, ' fill="' + colour(s) + '" font-weight="bold"'));
      out.push('<g class="cash" data-seat="' + s + '" data-value="' + obs.cash[s] + '">' +
        rect(W - 190, y + 10, 170, 38, "#fff", ' rx="19" stroke="#1e9e50" stroke-width="2"') +
        t(W - 105, y + 36, 19, money(obs.cash[s]), ' text-anchor="middle" font-weight="bold" fill="#14703a"') + "</g>");
      if (!shares) { // the cars this seat owns, as small swatches by the name
        var owned = S.cars.filter(function (c) { return obs.owners[c] === s; });
        owned.forEach(function (c, k) { out.push(rect(W - 190 - 26 * (owned.length - k), y + 18, 20, 20, CAR_FILL[c], ' rx="6" stroke="#fff"')); });
      }
      var cy = y + 60;
      out.push(t(M + 4, cy + 34, 13, size + " card" + (size === 1 ? "" : "s"), ' fill="#555"'));
      for (var k = 0; k < size; k++) {
        out.push(tempo(hand ? hand[k] : null, M + 84 + (k % 10) * 52, cy + Math.floor(k / 10) * 78, 48, 72, hand ? "hand" : "", ' data-seat="' + s + '"'));
      }
      cy += handRows * 78;
      if (obs.reserved[s].length || obs.modules.pitstop) {
        var rx = M + 84;
        if (obs.modules.pitstop) {
          out.push(t(M + 4, cy + 26, 13, "pitstops", ' fill="#555"'));
          for (var f = 0; f < obs.free_pitstops[s]; f++) {
            out.push('<g class="pitstop-card" data-seat="' + s + '"><title>free pitstop card</title>' + rect(rx, cy + 4, 30, 38, "#e85d04", ' rx="4"') +
              t(rx + 15, cy + 29, 14, "P", ' text-anchor="middle" fill="#fff" font-weight="bold"') + "</g>");
            rx += 36;
          }
          if (!obs.free_pitstops[s]) { out.push(t(rx, cy + 26, 13, "none left", ' fill="#999" font-style="italic"')); rx += 80; }
          rx += 12;
        }
        obs.reserved[s].forEach(function (id) { out.push(tempo(id, rx, cy + 2, 30, 42, "reserved", ' data-seat="' + s + '"')); rx += 36; });
        if (obs.reserved[s].length) out.push(t(rx + 4, cy + 26, 12, "reserved", ' fill="#555"'));
        cy += 46;
      }
      if (obs.modules.tips) {
        out.push(t(M + 4, cy + 26, 13, "tips", ' fill="#555"'));
        for (var tp = 0; tp < 3; tp++) {
          var tx = M + 84 + tp * 44, car = mine ? obs.tips[tp] : null, placed = mine ? !!car : tp < obs.tips_placed[s];
          if (car) out.push('<g class="tip shown" data-seat="' + s + '"><title>tip ' + (tp + 1) + ": " + car + '</title><circle cx="' + (tx + 17) + '" cy="' + (cy + 22) + '" r="17" fill="' + CAR_FILL[car] + '" stroke="#333" stroke-width="2"/>' +
            t(tx + 17, cy + 28, 15, tp + 1, ' text-anchor="middle" font-weight="bold" fill="' + CAR_INK[car] + '"') + "</g>");
          else if (placed) out.push('<g class="tip back" data-seat="' + s + '"><title>tip ' + (tp + 1) + ' (secret)</title><circle cx="' + (tx + 17) + '" cy="' + (cy + 22) + '" r="17" fill="#1f2f4a" stroke="#c9d3e6" stroke-width="2"/>' +
            t(tx + 17, cy + 28, 15, "?", ' text-anchor="middle" font-weight="bold" fill="#c9d3e6"') + "</g>");
          else out.push('<circle cx="' + (tx + 17) + '" cy="' + (cy + 22) + '" r="17" fill="none" stroke="#bbb" stroke-width="2" stroke-dasharray="4 3"/>');
        }
        cy += 46;
      }
      if (shares) {
        out.push(t(M + 4, cy + 26, 13, "shares", ' fill="#555"'));
        var last = obs.results.length ? obs.results[obs.results.length - 1] : null;
        var holdings = mine && obs.holdings ? obs.holdings : obs.phase === "over" && last && last.holdings ? last.holdings[s] : null;
        if (holdings) {
          S.cars.forEach(function (c, k) {
            out.push('<g class="share" data-seat="' + s + '" data-car="' + c + '"><title>' + holdings[c] + " " + c + " shares</title>" +
              rect(M + 84 + k * 62, cy + 4, 56, 36, CAR_FILL[c], ' rx="6" stroke="#333"') +
              t(M + 112 + k * 62, cy + 29, 17, holdings[c], ' text-anchor="middle" font-weight="bold" fill="' + CAR_INK[c] + '"') + "</g>");
          });
        } else {
          out.push(t(M + 84, cy + 26, 13, "secret until the race ends", ' fill="#888" font-style="italic"'));
        }
        cy += 46;
      }
      out.push("</g>");
      y += h;
    }

    // --- the finished races
    obs.results.forEach(function (r) {
      var rh = 100;
      out.push('<g class="race-result" data-race="' + r.race + '">' + rect(0, y, W, rh, "#eaf4ea", ' stroke="#cfe3c4"'));
      out.push(t(M, y + 24, 16, "Race " + r.race + " \u00B7 " + S.tracks[r.track].name, ' font-weight="bold" fill="#1f4a2a"'));
      var order = Object.keys(r.places).sort(function (p, q) { return r.places[p] - r.places[q]; });
      order.forEach(function (car, k) {
        var cx = M + k * 100, ow = r.owners ? short(name(r.owners[car]), 12) : "";
        out.push(rect(cx, y + 34, 90, 24, CAR_FILL[car], ' rx="8"'));
        out.push(t(cx + 45, y + 51, 13, ordinal(r.places[car]) + " " + car, ' text-anchor="middle" font-weight="bold" fill="' + CAR_INK[car] + '"'));
        if (ow) out.push(t(cx + 45, y + 74, fit(ow, 92, 12), ow, ' text-anchor="middle" fill="' + colour(r.owners[car]) + '"'));
      });
      var cash = r.cash.map(function (c, i) { return short(name(i), 12) + " " + money(c); }).join(" \u00B7 ");
      out.push(t(M, y + 93, fit(cash, W - 2 * M, 12), cash, ' fill="#1f4a2a"') + "</g>");
      y += rh + 6;
    });
    return '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + W + " " + y + '" font-family="DejaVu Sans, Verdana, sans-serif" class="board top_race">' + out.join("") + "</svg>";
  }

  (window.ArenaViewers = window.ArenaViewers || {})["top_race"] = { render: render };
})();
