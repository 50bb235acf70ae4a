"""El Capitán's tables derived from ``data`` (rules file: el_capitan.md), and the shared action dicts.

- card tables: sailing card ids, prices, destination cities and seals, interconnection pairs, city
  distances, the sea routes of destination cards (§4.4.1) and every move a card allows (``MOVES``);
- board tables: harbour and fortress prices (§4.5, §4.7), value tracks (§5.1), loans (§4.8, §5.2),
  shut-down sites (§4.5.5, §6.1), the cheapest main action;
- the action dicts of the legal lists, built once at import and shared between lists (never mutate
  an action dict): no dicts to build per list, and ``apply`` finds a listed action by identity.

Indexes are the encodings of ``state`` (cities 0..8, sailing cards 0..53, loan cards 0..29).
"""
from __future__ import annotations

from engines.core import Action

from . import data

#: a price or a need that cannot be met
INF = 1 << 30
NCITY = len(data.CITY_IDS)
CITY_IDS = data.CITY_IDS
CITY_INDEX = data.CITY_INDEX

# --- derived card tables -------------------------------------------------------------------
NDEST = len(data.DESTINATION_CARDS)
CARD_IDS = tuple([c[0] for c in data.DESTINATION_CARDS] + [c[0] for c in data.LINK_CARDS])
CARD_INDEX = {cid: i for i, cid in enumerate(CARD_IDS)}
CARD_PRICE = tuple([c[3] for c in data.DESTINATION_CARDS] + [c[3] for c in data.LINK_CARDS])
NCARD = len(CARD_IDS)
DEST_CITY = tuple(CITY_INDEX[c[1]] for c in data.DESTINATION_CARDS)
DEST_SEALS = tuple(c[2] for c in data.DESTINATION_CARDS)
LINK_PAIR = tuple((CITY_INDEX[c[1]], CITY_INDEX[c[2]]) for c in data.LINK_CARDS)
DIST = tuple(tuple(data.city_distance(a, b) for b in CITY_IDS) for a in CITY_IDS)


def _route_targets(k: int, loc: int) -> tuple[int, ...]:
    """Cities a destination card reaches as a sea route from city ``loc`` (§4.4.1)."""
    return tuple(b for b in range(NCITY) if 1 <= DIST[loc][b] <= DEST_SEALS[k])


#: ROUTES[k][c]: sea-route targets of destination card k from city c
ROUTES = tuple(tuple(_route_targets(k, c) for c in range(NCITY)) for k in range(NDEST))


def _moves(k: int, loc: int) -> tuple[int, ...]:
    """Every city card k can move the ship to from ``loc`` (any use of the card)."""
    if k < NDEST:
        x = DEST_CITY[k]
        if loc < 0:
            return (x,)
        targets = set(ROUTES[k][loc])
        if x != loc:
            targets.add(x)
        return tuple(sorted(targets))
    a, b = LINK_PAIR[k - NDEST]
    if loc == a:
        return (b,)
    if loc == b:
        return (a,)
    return ()


#: MOVES[k][loc + 2]: where card k can take the ship from loc (OFFBOARD=-2, BANK=-1, cities 0..8)
MOVES = tuple(tuple(_moves(k, loc) for loc in range(-2, NCITY)) for k in range(len(CARD_IDS)))

# --- derived board tables ------------------------------------------------------------------
HARBOR_PRICE = tuple(data.TIERS[c["tier"]]["harbor_price"] for c in data.CITIES)
FORTRESS_PRICE = tuple(data.TIERS[c["tier"]]["fortress_price"] for c in data.CITIES)
TRACK = tuple(data.TIERS[c["tier"]]["track_values"] for c in data.CITIES)
NLOAN = len(data.LOAN_IDS)
#: the cheapest main action that costs anything (reopening is free)
MIN_PRICE = min(min(HARBOR_PRICE[c] + FORTRESS_PRICE[c]) for c in range(NCITY))
LOAN_INDEX = {lid: i for i, lid in enumerate(data.LOAN_IDS)}
DISPLAY_DESTINATION, DISPLAY_LINK, ROUND_CAP = data.DISPLAY_DESTINATION, data.DISPLAY_LINK, data.ROUND_CAP
LOAN_SMALL = tuple(range(0, 18))
LOAN_LARGE = tuple(range(18, 30))
LOAN_AMOUNT = tuple(data.LOANS[s]["amount"] for s in data.LOAN_SIZE)
LOAN_REPAY = tuple(data.LOANS[s]["repay"] for s in data.LOAN_SIZE)
LOAN_REPAY_EXT = tuple(data.LOANS[s]["repay_extended"] for s in data.LOAN_SIZE)


def _shut_sites(num_players: int) -> tuple[frozenset[int], ...]:
    """Shut-down sites of every city: black sites, plus the triangle with 2-3 players (§4.5.5, §6.1)."""
    out = []
    for c in data.CITIES:
        sites = set(c["black_sites"])
        if num_players <= 3:
            sites.add(c["triangle_site"])
        # Data constraint of §2.3: shut-down sites are >= 5, so reverse building never hits one.
        assert min(sites) >= 5
        out.append(frozenset(sites))
    return tuple(out)


SHUT_SITES = {n: _shut_sites(n) for n in range(2, 6)}

#: observation of a warehouse by colour code (shared dicts: observations are read-only)
WAREHOUSE_VIEW = tuple({"seat": code >> 1, "color": "neutral" if code & 1 else "main"} for code in range(10))

# --- the shared action dicts (see the module docstring) -----------------------------------------
#: BUY[k]: buy sailing card k
BUY = tuple({"type": "buy", "card": cid} for cid in CARD_IDS)
#: SAIL[k]: play card k as a destination (destination cards) or an interconnection (link cards)
SAIL = tuple({"type": "sail", "card": cid, "mode": "destination"} if k < NDEST
             else {"type": "sail", "card": cid} for k, cid in enumerate(CARD_IDS))
#: SAIL_ROUTE[k][b]: play destination card k as a sea route to city b
SAIL_ROUTE = tuple(tuple({"type": "sail", "card": CARD_IDS[k], "mode": "route", "to": cid}
                         for cid in CITY_IDS) for k in range(NDEST))
LOAN_ACTS = ({"type": "loan", "size": "small"}, {"type": "loan", "size": "large"})
PASS_ACT = {"type": "pass"}
END_TURN_ACT = {"type": "end_turn"}
FORTRESS_ACT = {"type": "build_fortress"}
#: REOPEN_ACTS[0]: reopen (one colour to reopen); [1 + neutral]: reopen that colour (2 players,
#: both pictured)
REOPEN_ACTS = ({"type": "reopen"}, {"type": "reopen", "color": "main"},
               {"type": "reopen", "color": "neutral"})


def _warehouse_action(site: int, color: int) -> Action:
    """A build_warehouse action: ``site`` 1 or 2 in an empty city (0: none given), ``color`` 0 none
    (3-5 players), 1 main, 2 neutral."""
    a: Action = {"type": "build_warehouse"}
    if site:
        a["site"] = site
    if color:
        a["color"] = "neutral" if color == 2 else "main"
    return a


#: WAREHOUSE_ACTS[site][color]: see ``_warehouse_action``
WAREHOUSE_ACTS = tuple(tuple(_warehouse_action(site, color) for color in range(3)) for site in range(3))
#: SETTLE_ACTS[t][loan]: repay (t 0) or extend (t 1) that loan card
SETTLE_ACTS = tuple(tuple({"type": t, "loan": lid} for lid in data.LOAN_IDS) for t in ("repay", "extend"))
CHOOSE_ACTS = tuple({"type": "choose_start", "seat": s} for s in range(5))  # 2-5 players
