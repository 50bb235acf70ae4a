// El Capitán map drawing: one SVG string from an observation (see engines/el_capitan/view.py for the marks).
// Plain JS, no DOM: render(obs, ctx) builds a string; city layout is cached per ctx.static.
(function () {
  "use strict";
  var FALLBACK = ["#d64541", "#2f6fd0", "#e8e8e8", "#f08c28", "#3aa35b"];
  var TIER = { A: "#b8860b", B: "#7d8a99", C: "#9c6b3f" };
  var W = 644, CW = 204, CH = 124, GAP = 10, MX = 6;
  var cache = typeof WeakMap === "function" ? new WeakMap() : null;

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  // Cities by id with their panel corner, the sea-route lines and the track squares (all static).
  function layout(st) {
    var g = cache && cache.get(st);
    if (g) return g;
    g = { byId: {}, routes: "", names: {} };
    var i, c;
    for (i = 0; i < st.cities.length; i++) {
      c = st.cities[i];
      var x = MX + (c.col - 1) * (CW + GAP), y = 44 + (c.row - 1) * (CH + GAP);
      g.byId[c.id] = { city: c, x: x, y: y, cx: x + CW / 2, cy: y + CH / 2, shut: {} };
      for (var k = 0; k < c.shut_sites.length; k++) g.byId[c.id].shut[c.shut_sites[k]] = true;
      g.names[c.id] = c.name;
    }
    for (i = 0; i < st.routes.length; i++) {
      var a = g.byId[st.routes[i][0]], b = g.byId[st.routes[i][1]];
      var mx = (a.cx + b.cx) / 2, my = (a.cy + b.cy) / 2;
      g.routes += '<g class="route" data-from="' + st.routes[i][0] + '" data-to="' + st.routes[i][1] + '"><title>sea route ' +
        esc(a.city.name + " \u2013 " + b.city.name) + ' (1 seal)</title><line x1="' + a.cx + '" y1="' + a.cy + '" x2="' + b.cx +
        '" y2="' + b.cy + '" stroke="#d7ecfb" stroke-width="5" stroke-dasharray="10 6"/><circle cx="' + mx + '" cy="' + my +
        '" r="5" fill="#c0392b" stroke="#fff" stroke-width="1.5"/></g>';
    }
    if (cache) cache.set(st, g);
    return g;
  }

  function ship(x, y, seat, color, at, harbour, title) {
    return '<g class="ship" data-seat="' + seat + '" data-at="' + esc(at) + '"' + (harbour ? ' data-harbour="' + harbour + '"' : "") +
      ' transform="translate(' + x + "," + y + ') scale(1.25)"><title>' + esc(title) + "</title>" +
      '<path d="M-11 2 H11 L7 8 H-7 Z" fill="' + color + '" stroke="#1a1a1a" stroke-width="1.2"/>' +
      '<path d="M-1 1 V-11 L8 -1 Z" fill="#fffaf0" stroke="#1a1a1a" stroke-width="1"/>' +
      '<text x="1" y="-1.5" font-size="7" font-weight="bold" fill="#1a1a1a">' + seat + "</text></g>";
  }

  function cardFace(x, y, info, names, cls, attrs) {
    var out = '<g class="card ' + cls + '"' + attrs + ' transform="translate(' + x + "," + y + ')">';
    if (info.kind === "destination") {
      var dots = "";
      for (var i = 0; i < info.seals; i++) dots += '<circle cx="' + (29 - (info.seals - 1) * 5 + i * 10) + '" cy="27" r="3.6" fill="#c0392b"/>';
      out += "<title>" + esc(names[info.city] + " card: " + info.seals + " seal" + (info.seals > 1 ? "s" : "") + ", " + info.price + " Florins") + "</title>" +
        '<rect width="58" height="44" rx="4" fill="#fdf3d8" stroke="#8a6d3b"/>' +
        '<text x="29" y="13" font-size="10" font-weight="bold" text-anchor="middle" fill="#3a2f1e">' + esc(names[info.city].slice(0, 11)) + "</text>" + dots +
        '<text x="29" y="41" font-size="9" text-anchor="middle" fill="#5b4a2e">' + info.price + " Fl</text>";
    } else {
      out += "<title>" + esc(names[info.cities[0]] + " \u2013 " + names[info.cities[1]] + " card: " + info.price + " Florins") + "</title>" +
        '<rect width="58" height="44" rx="4" fill="#e3f0fa" stroke="#3d6d94"/>' +
        '<text x="29" y="13" font-size="9" font-weight="bold" text-anchor="middle" fill="#1f3b55">' + esc(names[info.cities[0]].slice(0, 11)) + "</text>" +
        '<text x="29" y="24" font-size="8" text-anchor="middle" fill="#1f3b55">\u2195</text>' +
        '<text x="29" y="34" font-size="9" font-weight="bold" text-anchor="middle" fill="#1f3b55">' + esc(names[info.cities[1]].slice(0, 11)) + "</text>" +
        '<text x="29" y="43" font-size="8" text-anchor="middle" fill="#3d6d94">' + info.price + " Fl</text>";
    }
    return out + "</g>";
  }

  function render(obs, ctx) {
    var st = ctx.static, g = layout(st), n = obs.num_players, s, i, k;
    var colors = [];
    for (s = 0; s < n; s++) colors.push(esc((ctx.colors && ctx.colors[s]) || FALLBACK[s % FALLBACK.length]));
    var seats = ctx.seats || [], players = obs.players, out = [];
    var mapBottom = 44 + 3 * CH + 2 * GAP;

    // player rows: hands wrap at 10 cards a line
    var perLine = 10, rowH = [], panelH = 0;
    for (s = 0; s < n; s++) {
      var lines = Math.ceil(players[s].hand.length / perLine);
      var chipLine = players[s].loans.length || players[s].bonus_card ? 26 : 0;
      rowH.push(54 + chipLine + lines * 48);
      panelH += rowH[s] + 6;
    }
    var dispTop = mapBottom + 58, playersTop = dispTop + 110, H = playersTop + panelH + 6;
    out.push('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + W + " " + H + '" class="el-capitan-board" font-family="Georgia, \'Times New Roman\', serif">');
    out.push('<rect width="' + W + '" height="' + H + '" fill="#f4ecd8"/>');

    // header
    var head;
    if (obs.turn_step === "over") head = "Game over after payday " + obs.phase;
    else {
      head = "Phase " + obs.phase + " \u00b7 round " + obs.round;
      if (obs.turn_step === "settle" && obs.settling) head += " \u00b7 payday: seat " + obs.settling.seat + " settles a loan";
      else if (obs.turn_step === "choose_start") head += " \u00b7 seat " + obs.chooser + " chooses the start player";
      else if (obs.to_move !== null && obs.to_move !== undefined) head += " \u00b7 seat " + obs.to_move + " to move";
    }
    out.push('<text x="10" y="27" font-size="18" font-weight="bold" fill="#3a2f1e">' + esc(head) + "</text>");
    out.push('<g class="start-player" data-seat="' + obs.start_player + '"><title>El Capit\u00e1n token: start player of this phase</title>' +
      '<circle cx="' + (W - 22) + '" cy="21" r="13" fill="#7a1f1f" stroke="#e6c36a" stroke-width="2"/>' +
      '<text x="' + (W - 22) + '" y="26" font-size="13" font-weight="bold" text-anchor="middle" fill="#f6e7b5">' + obs.start_player + "</text></g>");

    // the sea and its routes
    out.push('<rect x="2" y="38" width="' + (W - 4) + '" height="' + (mapBottom - 32) + '" rx="10" fill="#4f8fbf"/>');
    out.push(g.routes);

    // cities
    var ships = {}, bankShips = [], offShips = [];
    for (s = 0; s < n; s++) {
      var at = players[s].ship.at;
      if (at === "BANK") bankShips.push(s);
      else if (at === "OFFBOARD") offShips.push(s);
      else (ships[at] = ships[at] || []).push(s);
    }
    for (i = 0; i < st.cities.length; i++) {
      var c = st.cities[i], pl = g.byId[c.id], ob = obs.cities[c.id], x = pl.x, y = pl.y;
      out.push('<g class="city" data-city="' + c.id + '">');
      out.push('<rect x="' + x + '" y="' + y + '" width="' + CW + '" height="' + CH + '" rx="8" fill="#fbf5e6" stroke="#6b5432" stroke-width="1.5"/>');
      out.push('<text x="' + (x + 8) + '" y="' + (y + 19) + '" font-size="18" font-weight="bold" fill="#3a2f1e">' + esc(c.name) + "</text>");
      out.push('<g><title>value tier ' + c.tier + "; the track pays " + ob.value_now + ' now</title><rect x="' + (x + CW - 58) + '" y="' + (y + 5) +
        '" width="52" height="17" rx="8" fill="' + TIER[c.tier] + '"/><text x="' + (x + CW - 32) + '" y="' + (y + 18) +
        '" font-size="12" font-weight="bold" text-anchor="middle" fill="#fff">' + c.tier + " \u00b7 " + ob.value_now + "</text></g>");
      // harbour spaces and fortress sites
      for (k = 0; k < 2; k++) {
        var hx = x + 6 + k * 50, hy = y + 27;
        out.push('<g class="harbour-space" data-city="' + c.id + '" data-space="' + (k + 1) + '"><title>harbour space ' + (k + 1) +
          ": a warehouse costs " + c.harbour_prices[k] + ' Florins</title><rect x="' + hx + '" y="' + hy + '" width="46" height="28" rx="4" fill="#d6e9f5" stroke="#3d6d94"/>' +
          '<text x="' + (hx + 4) + '" y="' + (hy + 10) + '" font-size="9" fill="#1f3b55">H' + (k + 1) + "</text>" +
          '<text x="' + (hx + 4) + '" y="' + (hy + 25) + '" font-size="14" font-weight="bold" fill="#1f3b55">' + c.harbour_prices[k] + "</text></g>");
        var occupant = ob.harbor[k];
        if (occupant !== null && occupant !== undefined) {
          out.push(ship(hx + 30, hy + 15, occupant, colors[occupant], c.id, k + 1, "seat " + occupant + "'s ship in " + c.name + ", harbour space " + (k + 1)));
        }
        var fx = x + 108 + k * 48, fy = y + 27, fort = ob.fortresses[k];
        out.push('<g><title>fortress site ' + (k + 1) + ": " + c.fortress_prices[k] + ' Florins</title><rect x="' + fx + '" y="' + fy +
          '" width="44" height="28" rx="4" fill="#ece3cf" stroke="#6b5432"/><text x="' + (fx + 4) + '" y="' + (fy + 10) +
          '" font-size="9" fill="#5b4a2e">F' + (k + 1) + '</text><text x="' + (fx + 4) + '" y="' + (fy + 25) + '" font-size="14" font-weight="bold" fill="#5b4a2e">' +
          c.fortress_prices[k] + "</text></g>");
        if (fort !== null && fort !== undefined) {
          out.push('<path class="fortress" data-seat="' + fort + '" data-city="' + c.id + '" data-site="' + (k + 1) + '" transform="translate(' + (fx + 30) + "," + (fy + 15) +
            ')" d="M-9 10 V-6 H-6 V-10 H-3 V-6 H3 V-10 H6 V-6 H9 V10 Z" fill="' + colors[fort] + '" stroke="#1a1a1a" stroke-width="1.3"><title>seat ' + fort + "'s fortress</title></path>");
        }
      }
      // ships in the city without a harbour space
      var here = ships[c.id] || [], extra = 0;
      for (k = 0; k < here.length; k++) {
        if (players[here[k]].ship.harbor === null) {
          out.push(ship(x + CW - 18 - extra * 28, y + CH - 28, here[k], colors[here[k]], c.id, 0, "seat " + here[k] + "'s ship off " + c.name + " (no harbour space free)"));
          extra++;
        }
      }
      // the track: sites 1..12 and space 13
      for (k = 1; k <= 13; k++) {
        var tx = x + 5 + (k - 1) * 15, ty = y + 68, shut = k <= 12 && pl.shut[k];
        out.push('<rect x="' + tx + '" y="' + ty + '" width="13" height="13" rx="2" fill="' + (k === 13 ? "#cfc6b0" : "#efe4c8") +
          '" stroke="' + (shut ? "#111" : "#8a7a55") + '" stroke-width="' + (shut ? 2.4 : 1) + '"><title>' +
          (k === 13 ? "space 13 (no building)" : "site " + k + (shut ? " (shut-down site)" : "")) + ": pays " + c.track[k - 1] + "</title></rect>");
        out.push('<text x="' + (tx + 6.5) + '" y="' + (ty + 23) + '" font-size="9" text-anchor="middle" fill="#6b5432">' + c.track[k - 1] + "</text>");
        var w = k <= 12 ? ob.sites[k - 1] : null;
        if (w) {
          var neutral = w.color === "neutral";
          out.push('<rect class="warehouse' + (neutral ? " neutral" : "") + '" data-seat="' + w.seat + '" data-city="' + c.id + '" data-site="' + k +
            '" x="' + (tx + 1.5) + '" y="' + (ty + 1.5) + '" width="10" height="10" fill="' + colors[w.seat] + '" stroke="#1a1a1a" stroke-width="' +
            (neutral ? 1 : 0.8) + '"' + (neutral ? ' stroke-dasharray="2 1.5" fill-opacity="0.5"' : "") + "><title>site " + k + ": seat " + w.seat +
            (neutral ? " (neutral)" : "") + "</title></rect>");
        }
      }
      if (ob.reverse || ob.site1_pending) {
        out.push('<text x="' + (x + CW - 6) + '" y="' + (y + 119) + '" font-size="8.5" text-anchor="end" fill="#6b5432">' +
          (ob.reverse ? "building backwards" : "site 1 next") + "</text>");
      }
      // shut-down warehouses on the city picture
      out.push('<text x="' + (x + 6) + '" y="' + (y + 114) + '" font-size="10" fill="#6b5432">shut down:</text>');
      for (k = 0; k < ob.pictured.length; k++) {
        var pw = ob.pictured[k];
        out.push('<rect class="shutdown" data-seat="' + pw.seat + '" data-city="' + c.id + '" x="' + (x + 64 + k * 14) + '" y="' + (y + 104) +
          '" width="11" height="11" fill="' + colors[pw.seat] + '" stroke="#1a1a1a" stroke-width="0.8" opacity="0.65" transform="rotate(12 ' +
          (x + 69.5 + k * 14) + " " + (y + 109.5) + ')"><title>seat ' + pw.seat + "'s shut-down warehouse</title></rect>");
      }
      out.push("</g>");
    }

    // bank harbour, ships not yet sailed, loans and bonus cards left
    var by = mapBottom + 8;
    out.push('<rect x="6" y="' + by + '" width="250" height="38" rx="6" fill="#e8dcc0" stroke="#6b5432"/>');
    out.push('<text x="12" y="' + (by + 25) + '" font-size="15" font-weight="bold" fill="#3a2f1e">Bank harbour</text>');
    for (k = 0; k < bankShips.length; k++) out.push(ship(136 + k * 27, by + 21, bankShips[k], colors[bankShips[k]], "BANK", 0, "seat " + bankShips[k] + "'s ship at the bank"));
    if (offShips.length) {
      out.push('<text x="266" y="' + (by + 25) + '" font-size="13" fill="#3a2f1e">not yet sailed</text>');
      for (k = 0; k < offShips.length; k++) out.push(ship(380 + k * 27, by + 21, offShips[k], colors[offShips[k]], "OFFBOARD", 0, "seat " + offShips[k] + "'s ship, not yet sailed"));
    }
    out.push('<text x="' + (W - 10) + '" y="' + (by + 16) + '" font-size="13" text-anchor="end" fill="#3a2f1e">loans left: ' + obs.loan_supply.small + " small, " + obs.loan_supply.large + " large</text>");
    out.push('<text x="' + (W - 10) + '" y="' + (by + 34) + '" font-size="13" text-anchor="end" fill="#3a2f1e">bonus cards left: ' +
      (obs.bonus_left.length ? obs.bonus_left.join(", ") + " Fl" : "none") + "</text>");

    // cards on display and the piles
    var names = g.names, cards = st.cards, dx = 6;
    out.push('<text x="8" y="' + (dispTop + 11) + '" font-size="14" font-weight="bold" fill="#3a2f1e">On display</text>');
    var shown = obs.display.destination.concat(obs.display.link);
    for (k = 0; k < shown.length; k++) {
      out.push(cardFace(dx, dispTop + 16, cards[shown[k]], names, "display", ' data-card="' + esc(shown[k]) + '"'));
      dx += 63;
    }
    var py = dispTop + 66, piles = [["destination", obs.piles.destination_draw, obs.piles.destination_discard.length, "#8b2e2e"],
      ["link", obs.piles.link_draw, obs.piles.link_discard.length, "#2e5a8b"]];
    for (k = 0; k < 2; k++) {
      var px = 6 + k * 250, label = piles[k][0] === "destination" ? "destination cards" : "interconnection cards";
      out.push('<g class="back" data-pile="' + piles[k][0] + '" data-count="' + piles[k][1] + '"><title>' + piles[k][1] + " " + label + ' face down</title>' +
        '<rect x="' + (px + 3) + '" y="' + (py - 2) + '" width="30" height="38" rx="4" fill="' + piles[k][3] + '" opacity="0.6"/>' +
        '<rect x="' + px + '" y="' + py + '" width="30" height="38" rx="4" fill="' + piles[k][3] + '" stroke="#222"/>' +
        '<text x="' + (px + 15) + '" y="' + (py + 24) + '" font-size="13" font-weight="bold" text-anchor="middle" fill="#fff">' + piles[k][1] + "</text></g>");
      out.push('<text x="' + (px + 40) + '" y="' + (py + 16) + '" font-size="13" fill="#3a2f1e">' + label + "</text>");
      out.push('<text x="' + (px + 40) + '" y="' + (py + 32) + '" font-size="12" fill="#6b5432">draw pile \u00b7 ' + piles[k][2] + " discarded</text>");
    }

    // players
    var y0 = playersTop;
    for (s = 0; s < n; s++) {
      var p = players[s], ry = y0, acting = obs.to_move === s, mine = ctx.viewer === s;
      y0 += rowH[s] + 6;
      out.push('<g class="player" data-seat="' + s + '">');
      out.push('<rect x="4" y="' + ry + '" width="' + (W - 8) + '" height="' + rowH[s] + '" rx="7" fill="' + (mine ? "#fff4d6" : "#fffdf7") +
        '" stroke="' + (acting ? "#b8860b" : "#cdbf9e") + '" stroke-width="' + (acting ? 2.5 : 1) + '"/>');
      out.push('<circle cx="20" cy="' + (ry + 17) + '" r="8" fill="' + colors[s] + '" stroke="#222" stroke-width="1.2"/>');
      var full = "seat " + s + (seats[s] ? " \u00b7 " + seats[s] : "");
      var short = full.length > 30 ? full.slice(0, 29) + "\u2026" : full;
      out.push('<text x="34" y="' + (ry + 22) + '" font-size="17" font-weight="bold" fill="#222"><title>' + esc(full) + "</title>" + esc(short) + "</text>");
      out.push('<text class="money" x="' + (W - 14) + '" y="' + (ry + 25) + '" font-size="24" font-weight="bold" text-anchor="end" fill="#3a2f1e"><title>money (the score)</title>' +
        p.money + ' <tspan font-size="11">Fl</tspan></text>');
      var loc = p.ship.at === "BANK" ? "at the bank" : p.ship.at === "OFFBOARD" ? "not yet sailed" : "in " + names[p.ship.at] +
        (p.ship.harbor ? " (H" + p.ship.harbor + ")" : "");
      var sup = p.supply;
      var info = "ship " + loc + " \u00b7 left: " + sup.warehouses + " warehouses, " + sup.fortresses + " fortress" + (sup.fortresses === 1 ? "" : "es") +
        (st.two_players ? ", " + sup.neutral + " neutral" : "");
      out.push('<text x="12" y="' + (ry + 43) + '" font-size="13" fill="#444">' + esc(info) + "</text>");
      // loans and bonus card on a line of chips, then the hand
      var lx = 12, chips = p.loans.length || p.bonus_card, cy = ry + 52;
      for (k = 0; k < p.loans.length; k++) {
        var ln = p.loans[k];
        out.push('<g class="loan' + (ln.extended ? " extended" : "") + '" data-seat="' + s + '" data-size="' + ln.size + '"><title>' + ln.size + " loan" +
          (ln.extended ? ", extended" : "") + ": " + ln.due + ' Florins due</title><rect x="' + lx + '" y="' + cy + '" width="60" height="19" rx="3" fill="' +
          (ln.extended ? "#c0392b" : "#e9d8a6") + '" stroke="#6b5432"/><text x="' + (lx + 30) + '" y="' + (cy + 14) + '" font-size="12" text-anchor="middle" fill="' +
          (ln.extended ? "#fff" : "#3a2f1e") + '">loan ' + ln.due + "</text></g>");
        lx += 64;
      }
      if (p.bonus_card) {
        out.push('<g class="bonus" data-seat="' + s + '"><title>proliferation bonus card</title><rect x="' + lx + '" y="' + cy +
          '" width="70" height="19" rx="3" fill="#e6c36a" stroke="#6b5432"/><text x="' + (lx + 35) + '" y="' + (cy + 14) +
          '" font-size="12" text-anchor="middle" fill="#3a2f1e">bonus ' + p.bonus_card + "</text></g>");
      }
      // the hand, face up (hands are public in El Capitán)
      var handTop = ry + (chips ? 78 : 52);
      for (k = 0; k < p.hand.length; k++) {
        out.push(cardFace(10 + (k % perLine) * 62, handTop + Math.floor(k / perLine) * 48, cards[p.hand[k]], names, "hand",
          ' data-seat="' + s + '" data-card="' + esc(p.hand[k]) + '"'));
      }
      out.push("</g>");
    }
    out.push("</svg>");
    return out.join("");
  }

  (window.ArenaViewers = window.ArenaViewers || {})["el_capitan"] = { render: render };
})();
