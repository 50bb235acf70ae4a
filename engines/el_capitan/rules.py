"""El Capitán rules engine (rules file: el_capitan.md).

Representation (all plain lists of ints, so that ``clone`` is a handful of list copies):
- a city is an index 0..8 (``data.CITY_IDS``); ship locations add ``BANK`` (-1) and ``OFFBOARD`` (-2);
- a warehouse colour code is ``seat * 2 + neutral`` (neutral = 1 only in the 2-player game);
  ``sites[c][k]`` is that code or -1 for sites k = 1..12 (index 0 unused);
- a sailing card is an index 0..53 (0..17 destination cards, 18..53 interconnection cards);
- a loan card is an index 0..29 (``data.LOAN_IDS``, small ones first).

The action dicts of the legal lists are built once at import and shared between lists (never mutate
an action dict): no dicts to build per list, and ``apply`` finds a listed action by identity.
"""
from __future__ import annotations

import random
from heapq import heappop, heappush
from operator import itemgetter
from typing import Any, Mapping

from engines.core import Action, Event, Game, IllegalAction, Observation, Outcome, ranks_from_keys
from engines.el_capitan import fields as F

from . import data

BANK = -1
OFFBOARD = -2
INF = 1 << 30
NCITY = len(data.CITY_IDS)
CITY_IDS = data.CITY_IDS
CITY_INDEX = data.CITY_INDEX

# --- derived card tables -------------------------------------------------------------------
NDEST = len(data.DESTINATION_CARDS)
CARD_IDS = tuple([c[0] for c in data.DESTINATION_CARDS] + [c[0] for c in data.LINK_CARDS])
CARD_INDEX = {cid: i for i, cid in enumerate(CARD_IDS)}
CARD_PRICE = tuple([c[3] for c in data.DESTINATION_CARDS] + [c[3] for c in data.LINK_CARDS])
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
_WAREHOUSE_VIEW = tuple({"seat": code >> 1, "color": "neutral" if code & 1 else "main"} for code in range(10))

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

# turn steps
PRE, POST, SETTLE, CHOOSE, OVER = "pre_action", "post_action", "settle", "choose_start", "over"


class ECState:
    """Mutable state of one El Capitán game; see the module docstring for the encodings."""

    __slots__ = (
        "n", "rng", "phase", "round", "start", "cur", "step", "carded", "moved", "first_turn",
        "money", "loc", "harbor", "hand", "sup_wh", "sup_neu", "sup_fort", "loan_owner", "loan_ext",
        "bonus", "bonus_left", "sites", "pictured", "forts", "harb", "pending1", "built", "reverse",
        "disp_d", "disp_l", "draw_d", "draw_l", "disc_d", "disc_l", "phase_end_pending", "settle",
        "chooser", "version", "cache", "shut", "history", "maxocc", "obs_cache", "need_cache",
    )

    def copy(self) -> "ECState":
        s = ECState.__new__(ECState)
        s.n, s.phase, s.round, s.start, s.cur, s.step = self.n, self.phase, self.round, self.start, self.cur, self.step
        s.rng = random.Random()
        s.rng.setstate(self.rng.getstate())
        s.carded, s.moved, s.first_turn = self.carded, self.moved, list(self.first_turn)
        s.money, s.loc, s.harbor = list(self.money), list(self.loc), list(self.harbor)
        s.hand = [list(h) for h in self.hand]
        s.sup_wh, s.sup_neu, s.sup_fort = list(self.sup_wh), list(self.sup_neu), list(self.sup_fort)
        s.loan_owner, s.loan_ext = list(self.loan_owner), list(self.loan_ext)
        s.bonus, s.bonus_left = list(self.bonus), list(self.bonus_left)
        s.sites = [list(x) for x in self.sites]
        s.pictured = [list(x) for x in self.pictured]
        s.forts = [list(x) for x in self.forts]
        s.harb = [list(x) for x in self.harb]
        s.pending1, s.built, s.reverse = list(self.pending1), list(self.built), list(self.reverse)
        s.disp_d, s.disp_l = list(self.disp_d), list(self.disp_l)
        s.draw_d, s.draw_l, s.disc_d, s.disc_l = list(self.draw_d), list(self.draw_l), list(self.disc_d), list(self.disc_l)
        s.phase_end_pending = self.phase_end_pending
        s.settle = list(self.settle)
        s.chooser, s.version, s.cache, s.shut = self.chooser, self.version, None, self.shut
        s.history = list(self.history)
        s.maxocc = list(self.maxocc)
        s.obs_cache = None
        s.need_cache = None
        return s


# --- board helpers ---------------------------------------------------------------------------

def city_value(st: ECState, c: int) -> int:
    """V_c: the number on the track space right after the last occupied site (§5.1)."""
    return TRACK[c][st.maxocc[c]]


def next_sites(st: ECState, c: int) -> tuple[int, ...]:
    """Where the next warehouse in city c may go (§4.5.2); empty when the city is full."""
    row = st.sites[c]
    if not st.built[c]:
        return (1, 2)
    if st.pending1[c]:
        return (1,)
    if st.reverse[c]:
        for k in range(12, 0, -1):
            if row[k] < 0:
                return (k,)
        return ()
    m = st.maxocc[c]
    return (m + 1,) if m < 12 else ()


def row_ok(st: ECState, c: int, site: int, code: int) -> bool:
    """Row limit (§4.5.3, §6.2.4): at most 3 of one colour in a row; 2 players also at most 4 of
    one player's two colours. Measured with the new warehouse on ``site``, before any shut-down."""
    row = st.sites[c]
    run = 1
    k = site - 1
    while k >= 1 and row[k] == code:
        run += 1
        k -= 1
    k = site + 1
    while k <= 12 and row[k] == code:
        run += 1
        k += 1
    if run > 3:
        return False
    if st.n == 2:
        seat = code >> 1
        run = 1
        k = site - 1
        while k >= 1 and row[k] >= 0 and row[k] >> 1 == seat:
            run += 1
            k -= 1
        k = site + 1
        while k <= 12 and row[k] >= 0 and row[k] >> 1 == seat:
            run += 1
            k += 1
        if run > 4:
            return False
    return True


def colour_supply_ok(st: ECState, p: int, neutral: int) -> bool:
    """Supply rule (§6.2.3): a built warehouse must leave main > neutral in supply, or no warehouses."""
    wh, neu = st.sup_wh[p], st.sup_neu[p]
    if neutral:
        if neu <= 0:
            return False
        neu -= 1
    else:
        if wh <= 0:
            return False
        wh -= 1
    if st.n != 2:
        return True
    return wh + neu == 0 or wh > neu


def warehouse_options(st: ECState, p: int, c: int) -> list[tuple[int, int]]:
    """Legal (site, neutral) pairs for a new warehouse of seat p in city c, ignoring money."""
    out = []
    sites = next_sites(st, c)
    if not sites:
        return out
    for neutral in ((0, 1) if st.n == 2 else (0,)):
        if not colour_supply_ok(st, p, neutral):
            continue
        code = p * 2 + neutral
        for site in sites:
            if row_ok(st, c, site, code):
                out.append((site, neutral))
    return out


def reopen_options(st: ECState, p: int, c: int) -> list[int]:
    """Colour codes of seat p's shut-down warehouses in city c that may be reopened now (§4.6)."""
    pic = st.pictured[c]
    if not pic:
        return []
    codes = sorted({code for code in pic if code >> 1 == p})
    if not codes:
        return []
    sites = next_sites(st, c)
    # An empty city or a pending site 1 cannot have shut-down warehouses, so N is unique here.
    if len(sites) != 1:
        return []
    return [code for code in codes if row_ok(st, c, sites[0], code)]


def fortress_price(st: ECState, p: int, c: int) -> int:
    """Price of seat p's fortress in city c, or INF if it cannot build one there (§4.7)."""
    if st.sup_fort[p] <= 0:
        return INF
    f = st.forts[c]
    if f[0] == p or f[1] == p:
        return INF
    if f[0] < 0:
        return FORTRESS_PRICE[c][0]
    if f[1] < 0:
        return FORTRESS_PRICE[c][1]
    return INF


def warehouse_ok(st: ECState, p: int, c: int) -> bool:
    """Whether seat p, with a warehouse in supply, may build one in city c (ignoring money)."""
    if st.built[c] and not st.pending1[c]:
        # fast path of warehouse_options: one site
        sites = next_sites(st, c)
        if sites:
            site = sites[0]
            if st.n > 2:
                return row_ok(st, c, site, p * 2)
            for neutral in (0, 1):
                if colour_supply_ok(st, p, neutral) and row_ok(st, c, site, p * 2 + neutral):
                    return True
        return False
    return bool(warehouse_options(st, p, c))


_FREE_MAIN = (0, 0)


def main_needs(st: ECState, p: int, c: int) -> tuple[int, int]:
    """The least money seat p needs for a main action (A/A'/B) in city c anchored on harbour space
    1 and on 2 (slots 0 and 1): the city's board and p's supply decide, not the harbours."""
    if st.pictured[c] and reopen_options(st, p, c):
        return _FREE_MAIN
    best = fortress_price(st, p, c)
    price0, price1 = HARBOR_PRICE[c]
    if (price0 < best or price1 < best) and (st.sup_wh[p] or st.sup_neu[p]) and warehouse_ok(st, p, c):
        return (price0 if price0 < best else best, price1 if price1 < best else best)
    return (best, best)


def arrival_slot(st: ECState, p: int, c: int) -> int:
    """The harbour space a ship of seat p takes on arriving fresh in city c (-1 if both are taken)."""
    h = st.harb[c]
    if h[0] < 0 or h[0] == p:
        return 0
    if h[1] < 0 or h[1] == p:
        return 1
    return -1


def active_counts(st: ECState, c: int) -> dict[int, list[int]]:
    """Per colour code: [active count, first site] in city c."""
    out: dict[int, list[int]] = {}
    row = st.sites[c]
    for k in range(1, 13):
        code = row[k]
        if code >= 0:
            e = out.get(code)
            if e is None:
                out[code] = [1, k]
            else:
                e[0] += 1
    return out


def main_cities(st: ECState, p: int) -> int:
    """Number of cities where seat p has at least one active main-colour warehouse."""
    code = p * 2
    return sum(1 for c in range(NCITY) if code in st.sites[c])


def payday_income(st: ECState) -> list[dict[str, int]]:
    """Income of every seat at payday as it stands (§5.1, §6.2.6-8)."""
    n = st.n
    inc = [{"proliferation": 0, "majority": 0, "fortresses": 0, "bonus": 0} for _ in range(n)]
    counts = []
    for c in range(NCITY):
        row = st.sites[c]
        counts.append(sum(1 for k in range(1, 13) if row[k] >= 0))
    most = max(counts)
    for c in range(NCITY):
        v = city_value(st, c)
        if counts[c]:
            ac = active_counts(st, c)
            if n == 2:
                # rank colours; only a main colour in 1st place is paid, 2nd place never (§6.2.6)
                ranked = sorted(ac.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
                code = ranked[0][0]
                if code & 1 == 0:
                    inc[code >> 1]["majority"] += v
            else:
                ranked = sorted(ac.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
                inc[ranked[0][0] >> 1]["majority"] += v
                if len(ranked) > 1:
                    inc[ranked[1][0] >> 1]["majority"] += v // 2
        pay = v if counts[c] == most else v // 2
        for owner in st.forts[c]:
            if owner >= 0:
                inc[owner]["fortresses"] += pay
    for p in range(n):
        inc[p]["proliferation"] = data.PROLIFERATION[main_cities(st, p)]
        if st.phase == data.NUM_PHASES:
            inc[p]["bonus"] = st.bonus[p]
    return inc


def net_worth(st: ECState, p: int) -> int:
    """Money minus the current due value of every loan still held (§5.3)."""
    due = 0
    for i in range(NLOAN):
        if st.loan_owner[i] == p:
            due += LOAN_REPAY_EXT[i] if st.loan_ext[i] else LOAN_REPAY[i]
    return st.money[p] - due


# ``st.need_cache`` (made where missing, None after a change that drops it all): per seat its
# ``_Finisher`` with its needs, and under string keys facts derived from the board and the loans,
# dropped by ``apply`` when those change.


def has_pictured(st: ECState, p: int) -> bool:
    """Whether seat p has a shut-down warehouse on any city picture (something to reopen, §4.6)."""
    derived = st.need_cache
    if derived is None:
        derived = st.need_cache = {}
    seats = derived.get("pictured")
    if seats is None:
        seats = 0
        for pic in st.pictured:
            for code in pic:
                seats |= 1 << (code >> 1)
        derived["pictured"] = seats
    return bool(seats >> p & 1)


def loans_left(st: ECState) -> tuple[bool, bool]:
    """Whether a small and whether a large loan card is left in the supply (§4.8)."""
    derived = st.need_cache
    if derived is None:
        derived = st.need_cache = {}
    got = derived.get("loans")
    if got is None:
        owners = st.loan_owner
        got = derived["loans"] = (-1 in owners[:18], -1 in owners[18:])
    return got


# --- the dead-end filter (§9.3) --------------------------------------------------------------

def _search(loc: int, start: int, pool: list[tuple[int, int]], used: int, budget: int,
            need: list[int], min_need: int, visited: int, memo: dict) -> bool:
    """Can the ship reach, from ``loc``, a city whose main action fits in the budget, playing the
    cards of ``pool`` (card, cost; sorted by cost) not yet ``used``? Paths that repeat a city are
    never needed, except a return to the start city (which re-anchors), so they are cut."""
    if used & (used - 1):  # two cards or more played: another order may have come here (none before)
        key = (loc, used, visited)
        seen = memo.get(key)
        if seen is not None and seen >= budget:
            return False
        memo[key] = budget
    lp = loc + 2
    limit = budget - min_need
    bit = 1  # the card's bit in ``used``
    for k, cost in pool:
        if cost > limit:
            break
        if not used & bit:
            left = budget - cost
            for b in MOVES[k][lp]:
                if visited >> b & 1:
                    continue
                if need[b] <= left:
                    return True
                if b == start:
                    continue
                if _search(b, start, pool, used | bit, left, need, min_need, visited | (1 << b), memo):
                    return True
        bit += bit
    return False


#: MOVE_MASK[k][loc + 2]: MOVES as a bit set of cities
MOVE_MASK = tuple(tuple(sum(1 << b for b in moves) for moves in row) for row in MOVES)


def _step_table(k: int) -> list[int]:
    """STEP[k], made on first use (54 tables of 512 would slow every import)."""
    table = [0] * (1 << NCITY)
    for cities in range(1, 1 << NCITY):
        low = cities & -cities
        table[cities] = table[cities ^ low] | MOVE_MASK[k][low.bit_length() + 1]
    STEP[k] = table
    return table


#: STEP[k][cities]: where card k takes the ship from any city of a bit set (None: not made yet)
STEP: list[list[int] | None] = [None] * len(CARD_IDS)
#: BITS[cities]: the cities of a bit set, ascending
BITS = tuple(tuple(b for b in range(NCITY) if cities >> b & 1) for cities in range(1 << NCITY))


def _free_plan(loc: int, cards: list[int], target: int) -> bool:
    """``_search`` when every card is free: can the ship reach a city of ``target`` (a bit set)
    from ``loc`` playing each card at most once?"""
    lp = loc + 2
    reach = 0
    steps = []
    for k in cards:
        reach |= MOVE_MASK[k][lp]
        steps.append(STEP[k] or _step_table(k))
    while not reach & target:  # lower bound first: cards played any number of times
        more = reach
        for step in steps:
            more |= step[reach]
        if more == reach:
            return False
        reach = more
    masks = []
    bit = 1
    for k in cards:
        masks.append((bit, MOVE_MASK[k]))
        bit += bit
    return _free_search(lp, 1 << loc if loc >= 0 else 0, masks, 0, target, 0, set())


def _free_search(lp: int, start_bit: int, masks: list[tuple[int, tuple[int, ...]]], used: int,
                 target: int, visited: int, seen: set) -> bool:
    """Depth-first over unused cards (``masks``: the bit of each card in ``used`` and its MOVE_MASK),
    every one-move finish tried before going deeper; as in ``_search``, no city twice and no move
    on from the start."""
    if used & (used - 1):  # two cards or more played: another order may have come here (none before)
        key = (lp, used, visited)
        if key in seen:
            return False
        seen.add(key)
    deeper = []
    for bit, mask in masks:
        if used & bit:
            continue
        to = mask[lp] & ~visited
        if to & target:
            return True
        to &= ~start_bit
        if to:
            deeper.append((bit, to))
    for bit, to in deeper:
        after = used | bit
        for b in BITS[to]:
            if _free_search(b + 2, start_bit, masks, after, target, visited | 1 << b, seen):
                return True
    return False


_COST = itemgetter(1)


def _relaxed_possible(loc: int, pool: list[tuple[int, int]], budget: int, need: list[int]) -> bool:
    """Lower bound ignoring that each card is used once: False proves no plan exists. ``pool``
    (card, cost) is sorted by cost."""
    dist = [INF] * (NCITY + 2)  # by location + 2; the start is never reached again
    dist[loc + 2] = 0
    arrive = [INF] * NCITY  # arriving by at least one move
    frontier = [(0, loc)]
    while frontier:
        d, u = heappop(frontier)
        up = u + 2
        if dist[up] < d:
            continue
        left = budget - d
        for k, cost in pool:
            if cost > left:
                break
            nd = d + cost
            for b in MOVES[k][up]:
                if nd < arrive[b]:
                    arrive[b] = nd
                    if nd + need[b] <= budget:
                        return True
                    if nd < dist[b + 2]:
                        dist[b + 2] = nd
                        heappush(frontier, (nd, b))
    return False


#: actions that change no seat's needs (main_needs): not the board, the harbours nor a supply
_KEEP_NEEDS = frozenset({"buy", "pass", "end_turn", "repay", "extend"})
#: actions that change the harbours only (of the cities the ship leaves and reaches): the needs of
#: other seats are patched there (``_harbours_changed``)
_SHIP_ONLY = frozenset({"sail", "loan"})


def _harbours_changed(needs: dict, seat: int, cities: int) -> None:
    """The ship of ``seat`` left or reached the cities of the bit set ``cities``: every other seat's
    needs there are stale (a seat's own harbour space counts as free on arrival, so its own stay)."""
    for key, got in needs.items():
        if key != seat and key.__class__ is int:
            got.stale |= cities


#: main actions: they change the board of the ship's city and the acting seat's supply only
_MAIN = frozenset({"build_warehouse", "reopen", "build_fortress"})


def supply_key(st: ECState, p: int) -> int:
    """What main_needs reads of seat p's supply: whether a fortress, a main and a neutral warehouse
    may be built (with 3-5 players there are no neutral ones and no colour rule)."""
    if st.n == 2:
        return (st.sup_fort[p] > 0) * 4 + colour_supply_ok(st, p, 0) * 2 + colour_supply_ok(st, p, 1)
    return (st.sup_fort[p] > 0) * 4 + (st.sup_wh[p] > 0) * 2


def _city_built(st: ECState, needs: dict, seat: int, c: int) -> None:
    """``seat`` took a main action in city c: every seat's needs in c are stale; the acting seat's
    needs go if what main_needs reads of its supply changed. A warehouse may have been shut down or
    reopened, so the seats with something to reopen go too."""
    needs.pop("pictured", None)
    own = needs.get(seat)
    if own is not None and own.supply != supply_key(st, seat):
        del needs[seat]
    for key, got in needs.items():
        if key.__class__ is int:
            got.stale |= 1 << c
            got.by_slot[c] = None

#: needs (one per city) -> ([location + 2] -> [card] -> the least need among the card's moves from
#: there (None: not computed yet; rows made when first asked), money -> bit set of the cities whose
#: need it affords)
_REACH: dict[tuple[int, ...], tuple[list[list[int | None] | None], dict[int, int]]] = {}
NCARD = len(CARD_IDS)


def _reach_for(need: list[int]) -> tuple[list[list[int | None] | None], dict[int, int]]:
    """The least need card by card and the cities affordable (``_REACH``) for these needs: shared by
    every turn with them."""
    key = tuple(need)
    reach = _REACH.get(key)
    if reach is None:
        if len(_REACH) > 2_000:  # a few MB at most
            _REACH.clear()
        reach = _REACH[key] = ([None] * (NCITY + 2), {})
    return reach


def _finisher(st: ECState, p: int, disp: list[int]) -> "_Finisher":
    """Seat p's ``_Finisher`` for this decision (``disp``: both displays), kept in ``st.need_cache``
    with its needs while they stay valid (see ``_Finisher.__init__``)."""
    needs = st.need_cache
    if needs is None:
        needs = st.need_cache = {}
    fin = needs.get(p)
    if fin is None:
        fin = needs[p] = _Finisher(st, p)
    elif fin.stale:
        fin.patch()
    fin.hand = st.hand[p]
    fin.disp = disp
    fin.cheapest = None
    return fin


class _Finisher:
    """Answers "can this turn still be finished with a main action?" for one seat: its needs (the
    least money for a main action on arriving in each city), kept from decision to decision while
    valid, and the hand and display of the current decision."""

    __slots__ = ("st", "p", "need", "min_need", "reach", "targets", "by_slot", "stale", "supply",
                 "hand", "disp", "cheapest")

    def __init__(self, st: ECState, p: int):
        # A seat's needs depend on the board, the harbours and its supply only: buying, passing,
        # ending a turn and settling loans change none of them, and a seat's own harbour space
        # counts as free on arrival, so its own sails keep its needs too (see ``apply``). Another
        # ship's sail or loan changes the harbours of two cities at most: those are looked up again
        # in main_needs by harbour space (``by_slot``, None: stale), which is kept until a main
        # action in the city.
        self.st, self.p = st, p
        by_slot = []
        need = []
        for c in range(NCITY):
            pair = main_needs(st, p, c)
            by_slot.append(pair)
            slot = arrival_slot(st, p, c)
            need.append(pair[slot] if slot >= 0 else INF)
        self.need, self.min_need, self.by_slot = need, min(need), by_slot
        self.reach, self.targets = _reach_for(need)
        self.stale = 0  # bit set of the cities whose need is stale
        self.supply = supply_key(st, p)
        self.hand: list[int] = []
        self.disp: list[int] = []
        self.cheapest: tuple[int, int, int] | None = None  # see plan

    def patch(self) -> None:
        """Recompute the stale needs."""
        st, p, need, by_slot = self.st, self.p, self.need, self.by_slot
        patched = list(need)
        for c in BITS[self.stale]:
            slot = arrival_slot(st, p, c)
            if slot < 0:
                patched[c] = INF
            else:
                pair = by_slot[c]
                if pair is None:
                    pair = by_slot[c] = main_needs(st, p, c)
                patched[c] = pair[slot]
        self.stale = 0
        if patched != need:
            self.need, self.min_need = patched, min(patched)
            self.reach, self.targets = _reach_for(patched)

    def stay_need(self, loc: int, slot: int) -> int:
        """The least money for a main action where the ship lies (city loc, harbour slot; -1: none)."""
        if slot < 0:
            return INF
        pair = self.by_slot[loc]
        if pair is None:
            pair = self.by_slot[loc] = main_needs(self.st, self.p, loc)
        return pair[slot]

    def reach_row(self, loc: int, cards: list[int]) -> list[int | None]:
        """[card] -> the least need among the card's moves from ``loc`` (INF: no move; None: not
        asked yet), filled in for ``cards``; kept for these needs."""
        lp = loc + 2
        row = self.reach[lp]
        if row is None:
            row = self.reach[lp] = [None] * NCARD
        need = self.need
        for k in cards:
            if row[k] is None:
                m = INF
                for b in MOVES[k][lp]:
                    if need[b] < m:
                        m = need[b]
                row[k] = m
        return row

    def can(self, loc: int, money: int, skip_hand: int = -1, bought: int = -1) -> bool:
        """From ``loc`` with ``money``: hand minus ``skip_hand`` is free; ``bought`` moved to the hand."""
        if self.min_need > money:
            return False
        # one more move is the usual answer (reach_row's work inlined: this is the hot loop)
        lp = loc + 2
        row = self.reach[lp]
        if row is None:
            row = self.reach[lp] = [None] * NCARD
        need = self.need
        for k in self.hand:
            m = row[k]
            if m is None:
                m = INF
                for b in MOVES[k][lp]:
                    if need[b] < m:
                        m = need[b]
                row[k] = m
            if m <= money and k != skip_hand:
                return True
        for k in self.disp:
            m = row[k]
            if m is None:
                m = INF
                for b in MOVES[k][lp]:
                    if need[b] < m:
                        m = need[b]
                row[k] = m
            if m + CARD_PRICE[k] <= money and k != bought:
                return True
        if bought >= 0 and row[bought] <= money:
            return True
        return self.plan(loc, money, skip_hand, bought)

    def then_hand(self, loc: int, k: int, money: int) -> bool:
        """Whether card k, then one hand card, takes the ship from ``loc`` where ``money`` affords a
        main action (a two-move plan: a quick answer for a card just bought)."""
        hand = self.hand
        for b in MOVES[k][loc + 2]:
            row = self.reach_row(b, hand)
            for h in hand:
                if row[h] <= money:
                    return True
        return False

    def plan(self, loc: int, money: int, skip_hand: int = -1, bought: int = -1) -> bool:
        """``can`` without its one-move answers: the search over every card that may be played."""
        limit = money - self.min_need
        need = self.need
        cheapest = self.cheapest
        if cheapest is None:  # the two cheapest display cards: (price, card, second price)
            first = second = INF
            first_card = -1
            for k in self.disp:
                price = CARD_PRICE[k]
                if price < second:
                    if price < first:
                        first, second, first_card = price, first, k
                    else:
                        second = price
            cheapest = self.cheapest = (first, first_card, second)
        first, first_card, second = cheapest
        if first > limit or (first_card == bought and second > limit):
            # the commonest case: only free cards, so only the cities matter
            cards = []
            for k in self.hand:
                if k != skip_hand:
                    cards.append(k)
            if bought >= 0:
                cards.append(bought)
            if not cards:
                return False
            target = self.targets.get(money)
            if target is None:
                target = 0
                for c in range(NCITY):
                    if need[c] <= money:
                        target |= 1 << c
                self.targets[money] = target
            return _free_plan(loc, cards, target)
        pool = []
        for k in self.hand:
            if k != skip_hand:
                pool.append((k, 0))
        if bought >= 0:
            pool.append((bought, 0))
        priced = []
        for k in self.disp:
            price = CARD_PRICE[k]
            if price <= limit and k != bought:
                priced.append((k, price))
        priced.sort(key=_COST)  # the pool by cost, the free cards first
        pool += priced
        if not _relaxed_possible(loc, pool, money, need):
            return False
        return _search(loc, loc if loc >= 0 else -1, pool, 0, money, need, self.min_need, 0, {})


# --- the game --------------------------------------------------------------------------------

class ElCapitan(Game):
    """El Capitán for 2-5 players (el_capitan.md)."""

    id = "el_capitan"
    name = "El Capitán"
    min_players = 2
    max_players = 5
    observation_fields = F.OBSERVATION_FIELDS
    action_fields = F.ACTION_FIELDS
    table_fields = F.TABLE_FIELDS
    field_samples = F.FIELD_SAMPLES
    rules_brief = F.RULES_BRIEF
    # No options. 2 players play with neutral warehouses (§6.2): a preset of their own.
    rated_presets = {"standard": {}, "two_players": {}}
    rated_preset_players = {"standard": (3, 4, 5), "two_players": (2,)}

    # --- setup -----------------------------------------------------------------------------
    def setup(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> ECState:
        """A new game (§3): 20 Fl each, ships off the board, shuffled decks, random start player."""
        self.check_players(num_players)
        self.options(options)
        n = num_players
        st = ECState()
        st.n = n
        st.rng = rng = random.Random(seed)
        st.phase, st.round = 1, 1
        st.step, st.carded, st.moved = PRE, False, False
        st.first_turn = [True] * n
        st.money = [data.STARTING_MONEY] * n
        st.loc = [OFFBOARD] * n
        st.harbor = [-1] * n
        st.hand = [[] for _ in range(n)]
        st.sup_wh = [data.PHASE_WAREHOUSES] * n
        st.sup_neu = [data.PHASE_NEUTRAL_2P if n == 2 else 0] * n
        st.sup_fort = [data.PHASE_FORTRESSES] * n
        st.loan_owner = [-1] * NLOAN
        st.loan_ext = [False] * NLOAN
        st.bonus = [0] * n
        st.bonus_left = list(data.BONUS_CARDS)
        st.sites = [[-1] * 13 for _ in range(NCITY)]
        st.pictured = [[] for _ in range(NCITY)]
        st.forts = [[-1, -1] for _ in range(NCITY)]
        st.harb = [[-1, -1] for _ in range(NCITY)]
        st.pending1 = [False] * NCITY
        st.built = [False] * NCITY
        st.reverse = [False] * NCITY
        st.draw_d = list(range(NDEST))
        st.draw_l = list(range(NDEST, len(CARD_IDS)))
        rng.shuffle(st.draw_d)
        rng.shuffle(st.draw_l)
        st.disc_d, st.disc_l = [], []
        st.disp_d = [st.draw_d.pop() for _ in range(data.DISPLAY_DESTINATION)]
        st.disp_l = [st.draw_l.pop() for _ in range(data.DISPLAY_LINK)]
        st.start = rng.randrange(n)  # stands for "the youngest player" (§3, §10 #15)
        st.cur = st.start
        st.phase_end_pending = False
        st.settle = []
        st.chooser = -1
        st.version = 0
        st.cache = None
        st.shut = SHUT_SITES[n]
        st.history = []
        st.maxocc = [0] * NCITY
        st.obs_cache = None
        st.need_cache = None
        return st

    def clone(self, state: ECState) -> ECState:
        return state.copy()

    def to_move(self, state: ECState) -> int | None:
        step = state.step
        if step == PRE or step == POST:
            return state.cur
        if step == SETTLE:
            return state.settle[0][0]
        if step == CHOOSE:
            return state.chooser
        return None

    # --- legal actions -----------------------------------------------------------------------
    def legal_actions(self, state: ECState, seat: int) -> list[Action]:
        """Every legal action of ``seat`` in canonical order (empty if it is not to move)."""
        st = state
        cache = st.cache
        if cache is not None and cache[0] == st.version and cache[1] == seat:
            return list(cache[2])
        acts = self._legal(st, seat)
        st.cache = (st.version, seat, acts)
        return list(acts)

    def _legal(self, st: ECState, seat: int) -> list[Action]:
        step = st.step
        if step != PRE and step != POST:  # to_move's other cases
            if step == SETTLE:
                p, li = st.settle[0]
                return self._settle_acts(st, li) if p == seat else []
            if step == CHOOSE and st.chooser == seat:
                return list(CHOOSE_ACTS[:st.n])
            return []
        if st.cur != seat:
            return []
        p = seat
        money = st.money[p]
        acts: list[Action] = []
        if step == POST:
            cands = []
            for k in st.disp_d + st.disp_l:
                if CARD_PRICE[k] <= money:
                    cands.append(k)
            cands.sort()  # card order (the ids sort as the indexes do)
            for k in cands:
                acts.append(BUY[k])
            acts.append(END_TURN_ACT)
            return acts
        # pre-action: buys and sails only if the turn can still be finished afterwards (§9.3)
        loc = st.loc[p]
        if money < MIN_PRICE and not has_pictured(st, p):
            # Every main action but reopening costs >= MIN_PRICE and nothing is there to reopen, so
            # no buy, sail or main action can be played: only a loan, else pass (§6.4). The same
            # list as the full path below gives (the commonest case of a random game's late turns).
            if not st.first_turn[p] and not st.carded:
                small, large = loans_left(st)
                if small:
                    acts.append(LOAN_ACTS[0])
                if large:
                    acts.append(LOAN_ACTS[1])
            return acts or [PASS_ACT]
        hand = st.hand[p]
        disp = st.disp_d + st.disp_l
        cands = []
        for k in disp:
            if CARD_PRICE[k] <= money:
                cands.append(k)
        fin = None
        if cands or hand:
            fin = _finisher(st, p, disp)
            need = fin.need
        lp = loc + 2
        if cands:
            # can()'s quick answers first: no main action affordable at all, or a main action
            # where the ship lies, or one more move affords one (with a hand card, another display
            # card or the card bought); reach_row's work inlined
            row = fin.reach[lp]
            if row is None:
                row = fin.reach[lp] = [None] * NCARD
            quick = fin.stay_need(loc, st.harbor[p]) if loc >= 0 else INF
            for k in hand:
                m = row[k]
                if m is None:
                    m = INF
                    for b in MOVES[k][lp]:
                        if need[b] < m:
                            m = need[b]
                    row[k] = m
                if m < quick:
                    quick = m
            floor = fin.min_need
            best_display = second_display = INF  # the two least price + need by a display card
            best_card = -1
            for k in disp:
                m = row[k]
                if m is None:
                    m = INF
                    for b in MOVES[k][lp]:
                        if need[b] < m:
                            m = need[b]
                    row[k] = m
                tot = m + CARD_PRICE[k]
                if tot < second_display:
                    if tot < best_display:
                        best_display, second_display, best_card = tot, best_display, k
                    else:
                        second_display = tot
            cands.sort()  # card order (the ids sort as the indexes do)
            for k in cands:
                left = money - CARD_PRICE[k]
                if (quick <= left or (floor <= left and (
                        (best_display if k != best_card else second_display) <= left
                        or row[k] <= left or fin.then_hand(loc, k, left) or fin.plan(loc, left, -1, k)))):
                    acts.append(BUY[k])
        for k in hand:
            if k < NDEST:
                x = DEST_CITY[k]
                if x != loc and (need[x] <= money or fin.can(x, money, k)):
                    acts.append(SAIL[k])
                if loc >= 0:
                    route = SAIL_ROUTE[k]
                    for b in ROUTES[k][loc]:
                        if need[b] <= money or fin.can(b, money, k):
                            acts.append(route[b])
            else:
                moves = MOVES[k][lp]  # an interconnection card: one move at most
                if moves:
                    b = moves[0]
                    if need[b] <= money or fin.can(b, money, k):
                        acts.append(SAIL[k])
        if loc >= 0 and st.harbor[p] >= 0:
            # The stay need is the least price of a main action here (0: a free reopen, listed even
            # with negative money): above the money, there is none to list.
            stay = fin.stay_need(loc, st.harbor[p]) if fin is not None else 0
            if stay == 0 or stay <= money:
                acts += self._main_actions(st, p, loc)
        if not st.first_turn[p] and not st.carded:
            small, large = loans_left(st)
            if small:
                acts.append(LOAN_ACTS[0])
            if large:
                acts.append(LOAN_ACTS[1])
        if not acts:
            acts.append(PASS_ACT)  # §6.4 safeguard
        return acts

    def _main_actions(self, st: ECState, p: int, c: int) -> list[Action]:
        acts: list[Action] = []
        money = st.money[p]
        two = st.n == 2
        price = HARBOR_PRICE[c][st.harbor[p]]
        if price <= money and (st.sup_wh[p] or st.sup_neu[p]):
            empty = not st.built[c]
            for site, neutral in warehouse_options(st, p, c):
                acts.append(WAREHOUSE_ACTS[site if empty else 0][1 + neutral if two else 0])
        codes = reopen_options(st, p, c)
        if codes:
            if two and len({code for code in st.pictured[c] if code >> 1 == p}) == 2:
                for code in codes:
                    acts.append(REOPEN_ACTS[1 + (code & 1)])
            else:
                acts.append(REOPEN_ACTS[0])
        if fortress_price(st, p, c) <= money:
            acts.append(FORTRESS_ACT)
        return acts

    def _settle_acts(self, st: ECState, li: int) -> list[Action]:
        """§5.2: repay or extend at paydays 1-2; repay only if extended or at payday 3."""
        repay, extend = SETTLE_ACTS[0][li], SETTLE_ACTS[1][li]
        if st.phase == data.NUM_PHASES or st.loan_ext[li]:
            return [repay]
        p = st.loan_owner[li]
        if st.money[p] >= LOAN_REPAY[li]:
            return [repay, extend]
        return [extend]

    # --- apply ---------------------------------------------------------------------------------
    def apply(self, state: ECState, seat: int, action: Action) -> list[Event]:
        """Validate ``action`` against the legal list (refusals name the rule) and play it."""
        st = state
        cache = st.cache
        if cache is not None and cache[0] == st.version and cache[1] == seat:
            ok = action in cache[2]
        else:
            ok = self._is_legal(st, seat, action)  # replays: no need to build the whole list
        if not ok:
            rule, msg = self._diagnose(st, seat, action)
            raise IllegalAction(rule, msg)
        st.version += 1
        st.cache = None
        t = action["type"]
        needs = st.need_cache
        if needs is not None:
            if t in _KEEP_NEEDS:  # the commonest case
                if t == "repay":
                    needs.pop("loans", None)
            elif t in _SHIP_ONLY:  # the harbours change where the ship leaves and arrives
                loc = st.loc[seat]
                if loc >= 0 and st.harbor[seat] >= 0:
                    _harbours_changed(needs, seat, 1 << loc)  # the arrival: below
                if t == "loan":
                    needs.pop("loans", None)
            elif t not in _MAIN:  # a main action: see _after_main
                st.need_cache = None
        p = seat
        ev: list[Event] = []
        if t == "pass":  # the commonest action of random self-play once the loan cards are gone
            ev.append({"type": "pass", "seat": p})
            self._end_turn(st, ev)
        elif t == "buy":
            k = CARD_INDEX[action["card"]]
            if k < NDEST:
                st.disp_d.remove(k)
            else:
                st.disp_l.remove(k)
            st.money[p] -= CARD_PRICE[k]
            st.hand[p].append(k)
            st.hand[p].sort()
            if st.step == PRE:
                st.carded = True
            ev.append({"type": "buy", "seat": p, "card": action["card"], "price": CARD_PRICE[k]})
        elif t == "sail":
            k = CARD_INDEX[action["card"]]
            loc = st.loc[p]
            if k < NDEST:
                to = DEST_CITY[k] if action["mode"] == "destination" else CITY_INDEX[action["to"]]
                st.disc_d.append(k)
            else:
                a, b = LINK_PAIR[k - NDEST]
                to = b if loc == a else a
                st.disc_l.append(k)
            st.hand[p].remove(k)
            self._leave(st, p)
            st.loc[p] = to
            slot = arrival_slot(st, p, to)
            if slot >= 0:
                st.harb[to][slot] = p
                if needs is not None:
                    _harbours_changed(needs, p, 1 << to)
            st.harbor[p] = slot
            st.moved = st.carded = True
            ev.append({"type": "sail", "seat": p, "card": action["card"], "to": CITY_IDS[to],
                       "harbor": slot + 1 if slot >= 0 else None})
        elif t == "build_warehouse":
            c = st.loc[p]
            neutral = 1 if action.get("color") == "neutral" else 0
            site = action.get("site") or next_sites(st, c)[0]
            price = HARBOR_PRICE[c][st.harbor[p]]
            st.money[p] -= price
            if neutral:
                st.sup_neu[p] -= 1
            else:
                st.sup_wh[p] -= 1
            ev.append({"type": "build_warehouse", "seat": p, "city": CITY_IDS[c], "site": site,
                       "color": "neutral" if neutral else "main", "price": price})
            self._place(st, p, c, site, p * 2 + neutral, ev)
            self._after_main(st, p)
        elif t == "reopen":
            c = st.loc[p]
            codes = reopen_options(st, p, c)
            code = codes[0]
            if "color" in action:
                code = p * 2 + (1 if action["color"] == "neutral" else 0)
            st.pictured[c].remove(code)
            site = next_sites(st, c)[0]
            ev.append({"type": "reopen", "seat": p, "city": CITY_IDS[c], "site": site,
                       "color": "neutral" if code & 1 else "main"})
            self._place(st, p, c, site, code, ev)
            self._after_main(st, p)
        elif t == "build_fortress":
            c = st.loc[p]
            f = st.forts[c]
            slot = 0 if f[0] < 0 else 1
            price = FORTRESS_PRICE[c][slot]
            st.money[p] -= price
            f[slot] = p
            st.sup_fort[p] -= 1
            ev.append({"type": "build_fortress", "seat": p, "city": CITY_IDS[c], "fortress_site": slot + 1,
                       "price": price})
            self._after_main(st, p)
        elif t == "loan":
            ids = LOAN_SMALL if action["size"] == "small" else LOAN_LARGE
            li = next(i for i in ids if st.loan_owner[i] < 0)
            self._leave(st, p)
            st.loc[p] = BANK
            st.harbor[p] = -1
            st.loan_owner[li] = p
            st.loan_ext[li] = False
            st.money[p] += LOAN_AMOUNT[li]
            ev.append({"type": "loan", "seat": p, "loan": data.LOAN_IDS[li], "amount": LOAN_AMOUNT[li]})
            self._end_turn(st, ev)
        elif t == "end_turn":
            self._end_turn(st, ev)
        elif t in ("repay", "extend"):
            _, li = st.settle.pop(0)
            if t == "repay":
                due = LOAN_REPAY_EXT[li] if st.loan_ext[li] else LOAN_REPAY[li]
                st.money[p] -= due  # may go negative when compulsory (§5.2, §10 #8)
                st.loan_owner[li] = -1
                st.loan_ext[li] = False
                ev.append({"type": "repay", "seat": p, "loan": data.LOAN_IDS[li], "paid": due})
            else:
                st.loan_ext[li] = True
                ev.append({"type": "extend", "seat": p, "loan": data.LOAN_IDS[li]})
            if not st.settle:
                self._after_settle(st, ev)
        elif t == "choose_start":
            ev.append({"type": "choose_start", "seat": p, "start_player": action["seat"]})
            self._next_phase(st, action["seat"], ev)
        return ev

    def _is_legal(self, st: ECState, seat: int, a: Any) -> bool:
        """Exactly ``a in legal_actions(st, seat)``, checking only the one action."""
        if self.to_move(st) != seat or not isinstance(a, dict):
            return False
        if st.step != PRE and st.step != POST:
            return a in self._legal(st, seat)
        t = a.get("type")
        p = seat
        money = st.money[p]
        if t == "buy" or t == "sail":
            card = a.get("card")
            if not isinstance(card, str) or card not in CARD_INDEX:
                return False
            k = CARD_INDEX[card]
            if t == "buy":
                if a != BUY[k] or CARD_PRICE[k] > money:
                    return False
                if k not in st.disp_d and k not in st.disp_l:
                    return False
                if st.step == POST:
                    return True
            elif st.step == POST or k not in st.hand[p]:
                return False
            if money < MIN_PRICE and not has_pictured(st, p):
                return False
            loc = st.loc[p]
            fin = _finisher(st, p, st.disp_d + st.disp_l)
            if t == "buy":
                left = money - CARD_PRICE[k]
                stay_need = fin.stay_need(loc, st.harbor[p]) if loc >= 0 else INF
                return stay_need <= left or fin.can(loc, left, bought=k)
            if k < NDEST:
                mode = a.get("mode")
                if mode == "destination":
                    if a != SAIL[k]:
                        return False
                    b = DEST_CITY[k]
                    if b == loc:
                        return False
                elif mode == "route":
                    to = a.get("to")
                    if loc < 0 or not isinstance(to, str) or to not in CITY_INDEX:
                        return False
                    b = CITY_INDEX[to]
                    if a != SAIL_ROUTE[k][b] or b not in ROUTES[k][loc]:
                        return False
                else:
                    return False
            else:
                targets = MOVES[k][loc + 2]
                if not targets or a != SAIL[k]:
                    return False
                b = targets[0]
            return fin.need[b] <= money or fin.can(b, money, skip_hand=k)
        if st.step == POST:
            return a == END_TURN_ACT
        if t in ("build_warehouse", "reopen", "build_fortress"):
            loc = st.loc[p]
            return loc >= 0 and st.harbor[p] >= 0 and a in self._main_actions(st, p, loc)
        if t == "loan":
            if st.first_turn[p] or st.carded:
                return False
            if a == LOAN_ACTS[0]:
                return loans_left(st)[0]
            if a == LOAN_ACTS[1]:
                return loans_left(st)[1]
            return False
        if t == "pass":
            return a == PASS_ACT and self._legal(st, seat) == [a]
        return False

    def _diagnose(self, st: ECState, seat: int, action: Any) -> tuple[str, str]:
        """The rule an illegal action breaks, for the error message."""
        if not isinstance(action, dict) or "type" not in action:
            return "§9.2 actions", f"not an action: {action!r}"
        t = action["type"]
        if self.to_move(st) != seat:
            return "§4.1 turn order", f"seat {seat} is not to move"
        if st.step == SETTLE:
            return "§5.2 loans after payday", f"{t} is not a choice for the loan settled now"
        if st.step == CHOOSE:
            return "§5.3 financial check", f"choose a start seat 0..{st.n - 1}"
        p = seat
        if t == "loan":
            if st.first_turn[p]:
                return "§4.8 take a loan", "no loan in a player's first turn"
            if st.step == POST or st.carded:
                return "§4.8 take a loan", "a loan excludes buying, sailing and building in the same turn"
            return "§6.4 loan supply", "no loan card of that size is left"
        if t == "buy":
            k = CARD_INDEX.get(action.get("card"), -1)
            if k < 0 or k not in st.disp_d + st.disp_l:
                return "§4.3 buying sailing cards", "that card is not in the face-up display"
            if CARD_PRICE[k] > st.money[p]:
                return "§4.3 buying sailing cards", "not enough money for that card"
            return "§9.3 dead-end filter", "after this buy the turn could not be finished"
        if t == "sail":
            if st.step == POST:
                return "§4.4 sailing", "sailing is only allowed before the main action"
            k = CARD_INDEX.get(action.get("card"), -1)
            if k < 0 or k not in st.hand[p]:
                return "§4.4 sailing", "that card is not in the hand"
            if k >= NDEST and st.loc[p] not in LINK_PAIR[k - NDEST]:
                return "§4.4.1 card uses", "an interconnection card is played only from one of its cities"
            if k < NDEST and action.get("mode") == "route" and st.loc[p] < 0:
                return "§4.4.1 card uses", "from the bank or off the board only a destination card as destination"
            return "§4.4.1 card uses / §9.3 dead-end filter", "that sailing move is not allowed here"
        if t in ("build_warehouse", "reopen", "build_fortress"):
            if st.step == POST:
                return "§4.2 turn structure", "exactly one main action per turn"
            if st.loc[p] < 0 or st.harbor[p] < 0:
                return "§4.4.2 harbour spaces", "the ship is not anchored in a city"
            c = st.loc[p]
            if t == "build_fortress":
                return "§4.7 build a fortress", "no fortress site, supply, money, or one already in this city"
            if t == "reopen":
                return "§4.6 reopen", "no shut-down warehouse of yours can be reopened here"
            if not (st.sup_wh[p] or st.sup_neu[p]):
                return "§4.5 build a warehouse", "no warehouse left in supply"
            if HARBOR_PRICE[c][st.harbor[p]] > st.money[p]:
                return "§4.5 build a warehouse", "not enough money for the harbour price"
            if not next_sites(st, c):
                return "§4.5.2 next site", "every site of this city is taken"
            if st.n == 2 and action.get("color") in ("main", "neutral"):
                if not colour_supply_ok(st, p, 1 if action["color"] == "neutral" else 0):
                    return "§6.2.3 colour choice", "main warehouses in supply must outnumber neutral ones"
            if not warehouse_options(st, p, c):
                return "§4.5.3 row limit", "no more than three warehouses of one colour in a row"
            return "§4.5.2 next site", "give site 1 or 2 only in an empty city (and color with 2 players)"
        if t == "end_turn":
            return "§4.2 turn structure", "a turn ends only after its main action"
        if t == "pass":
            return "§6.4 no legal turn", "pass only when no turn can be finished"
        return "§9.2 actions", f"unknown or malformed action {action!r}"

    # --- effects ------------------------------------------------------------------------------
    def _leave(self, st: ECState, p: int) -> None:
        """The ship leaves its harbour space, which is free at once (§4.4.2)."""
        loc, slot = st.loc[p], st.harbor[p]
        if loc >= 0 and slot >= 0 and st.harb[loc][slot] == p:
            st.harb[loc][slot] = -1
        st.harbor[p] = -1

    def _place(self, st: ECState, p: int, c: int, site: int, code: int, ev: list[Event]) -> None:
        """Put a warehouse on ``site``; shut-down, bonus card (§4.5 effects 2-4)."""
        row = st.sites[c]
        if not st.built[c]:
            st.built[c] = True
            st.pending1[c] = site == 2
        elif st.pending1[c]:
            st.pending1[c] = False
        row[site] = code
        if site > st.maxocc[c]:
            st.maxocc[c] = site
        if site in st.shut[c]:
            assert not st.reverse[c], "data constraint: reverse building never lands on a shut-down site"
            for k in range(1, 13):
                if k != site and row[k] >= 0:
                    victim = row[k]
                    row[k] = -1
                    st.pictured[c].append(victim)
                    ev.append({"type": "shut_down", "city": CITY_IDS[c], "site": k, "seat": victim >> 1,
                               "color": "neutral" if victim & 1 else "main"})
                    break
        if row[12] >= 0:
            st.reverse[c] = True
        if st.bonus[p] == 0 and st.bonus_left and main_cities(st, p) == NCITY:
            st.bonus[p] = st.bonus_left.pop(0)
            ev.append({"type": "bonus_card", "seat": p, "value": st.bonus[p]})

    def _after_main(self, st: ECState, p: int) -> None:
        needs = st.need_cache
        if needs is not None:
            _city_built(st, needs, p, st.loc[p])
        st.step = POST
        if st.sup_wh[p] + st.sup_neu[p] + st.sup_fort[p] == 0:
            st.phase_end_pending = True  # §4.11: the round is finished first

    def _refill(self, st: ECState, ev: list[Event]) -> None:
        """Refill both displays from the draw piles, reshuffling a discard pile when needed (§4.9)."""
        if len(st.disp_d) == data.DISPLAY_DESTINATION and len(st.disp_l) == data.DISPLAY_LINK:
            return
        for disp, draw, disc, size, kind in ((st.disp_d, st.draw_d, st.disc_d, data.DISPLAY_DESTINATION, "destination"),
                                             (st.disp_l, st.draw_l, st.disc_l, data.DISPLAY_LINK, "link")):
            drawn = []
            while len(disp) < size:
                if not draw:
                    if not disc:
                        break
                    draw.extend(disc)
                    disc.clear()
                    st.rng.shuffle(draw)
                    ev.append({"type": "reshuffle", "pile": kind, "cards": len(draw)})
                k = draw.pop()
                disp.append(k)
                drawn.append(CARD_IDS[k])
            if drawn:
                ev.append({"type": "refill", "pile": kind, "cards": drawn})

    def _end_turn(self, st: ECState, ev: list[Event]) -> None:
        p = st.cur
        if len(st.disp_d) != DISPLAY_DESTINATION or len(st.disp_l) != DISPLAY_LINK:
            self._refill(st, ev)
        st.first_turn[p] = False
        st.carded = st.moved = False
        last = (st.start - 1) % st.n
        if p == last and (st.phase_end_pending or st.round >= ROUND_CAP):
            self._payday(st, ev)
            return
        st.cur = (p + 1) % st.n
        if st.cur == st.start:
            st.round += 1
        st.step = PRE

    def _payday(self, st: ECState, ev: list[Event]) -> None:
        """Pay everyone at once (§5.1), then queue the loan decisions (§5.2)."""
        inc = payday_income(st)
        for p in range(st.n):
            st.money[p] += sum(inc[p].values())
        ev.append({"type": "payday", "phase": st.phase, "income": inc, "money": list(st.money)})
        st.history.append({"phase": st.phase, "income": inc})
        st.settle = []
        for i in range(st.n):
            p = (st.start + i) % st.n
            for li in range(NLOAN):
                if st.loan_owner[li] == p:
                    st.settle.append((p, li))
        st.cur = -1
        if st.settle:
            st.step = SETTLE
        else:
            self._after_settle(st, ev)

    def _after_settle(self, st: ECState, ev: list[Event]) -> None:
        if st.phase == data.NUM_PHASES:
            st.step = OVER
            ev.append({"type": "game_over", "money": list(st.money)})
            return
        # §5.3: the poorest net worth chooses; ties: first clockwise from the start player
        order = [(st.start + i) % st.n for i in range(st.n)]
        worth = {p: net_worth(st, p) for p in order}
        low = min(worth.values())
        st.chooser = next(p for p in order if worth[p] == low)
        ev.append({"type": "financial_check", "net_worth": [worth[p] for p in range(st.n)], "chooser": st.chooser})
        st.step = CHOOSE

    def _next_phase(self, st: ECState, start: int, ev: list[Event]) -> None:
        """§5.4: new pieces, the chosen start player, phase + 1."""
        for p in range(st.n):
            st.sup_wh[p] += data.PHASE_WAREHOUSES
            st.sup_fort[p] += data.PHASE_FORTRESSES
            if st.n == 2:
                st.sup_neu[p] += data.PHASE_NEUTRAL_2P
        st.phase += 1
        st.round = 1
        st.start = st.cur = start
        st.chooser = -1
        st.phase_end_pending = False
        st.step = PRE
        st.carded = st.moved = False
        ev.append({"type": "phase_start", "phase": st.phase, "start_player": start})

    # --- observation and outcome --------------------------------------------------------------
    def tables(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Sailing cards, cities, loans and the proliferation chart (§2), sent once in ``start``."""
        return F.tables(num_players, options)

    def observe(self, state: ECState, seat: int | None) -> Observation:
        """The same public view for every seat (§7, §9.1): only the draw-pile order is hidden.

        Built once per state version and shared between seats (a fresh top-level dict each call);
        callers must not mutate nested parts."""
        st = state
        cached = st.obs_cache
        if cached is None or cached[0] != st.version:
            cached = st.obs_cache = (st.version, self._observe(st))
        return dict(cached[1])

    def _observe(self, st: ECState) -> Observation:
        n = st.n
        to_move = self.to_move(st)
        players = []
        for p in range(n):
            loc = st.loc[p]
            at = "OFFBOARD" if loc == OFFBOARD else "BANK" if loc == BANK else CITY_IDS[loc]
            loans = []
            for li in range(NLOAN):
                if st.loan_owner[li] == p:
                    ext = st.loan_ext[li]
                    loans.append({"id": data.LOAN_IDS[li], "size": data.LOAN_SIZE[li], "extended": ext,
                                  "due": LOAN_REPAY_EXT[li] if ext else LOAN_REPAY[li]})
            players.append({
                "seat": p, "money": st.money[p],
                "ship": {"at": at, "harbor": st.harbor[p] + 1 if loc >= 0 and st.harbor[p] >= 0 else None,
                         "moved_this_turn": bool(st.moved and p == st.cur)},
                "hand": [CARD_IDS[k] for k in st.hand[p]],
                "supply": {"warehouses": st.sup_wh[p], "fortresses": st.sup_fort[p], "neutral": st.sup_neu[p]},
                "loans": loans, "bonus_card": st.bonus[p] or None,
                "first_turn": st.first_turn[p],
            })
        cities = {}
        wh = _WAREHOUSE_VIEW
        for c in range(NCITY):
            cities[CITY_IDS[c]] = {
                "sites": [wh[code] if code >= 0 else None for code in st.sites[c][1:]],
                "pictured": [wh[code] for code in st.pictured[c]],
                "fortresses": [f if f >= 0 else None for f in st.forts[c]],
                "harbor": [h if h >= 0 else None for h in st.harb[c]],
                "site1_pending": st.pending1[c], "reverse": st.reverse[c], "value_now": city_value(st, c),
            }
        obs: Observation = {
            "phase": st.phase, "round": st.round, "start_player": st.start, "to_move": to_move,
            "turn_step": st.step, "phase_end_pending": st.phase_end_pending,
            "first_turn": bool(st.step == PRE and st.first_turn[st.cur]) if st.cur >= 0 else False,
            "acted_with_cards_this_turn": st.carded, "num_players": n,
            "players": players, "cities": cities,
            "display": {"destination": [CARD_IDS[k] for k in st.disp_d], "link": [CARD_IDS[k] for k in st.disp_l]},
            "piles": {"destination_draw": len(st.draw_d), "destination_discard": [CARD_IDS[k] for k in st.disc_d],
                      "link_draw": len(st.draw_l), "link_discard": [CARD_IDS[k] for k in st.disc_l]},
            "loan_supply": {"small": sum(1 for i in LOAN_SMALL if st.loan_owner[i] < 0),
                            "large": sum(1 for i in LOAN_LARGE if st.loan_owner[i] < 0)},
            "bonus_left": list(st.bonus_left),
        }
        if st.step == SETTLE:
            p, li = st.settle[0]
            obs["settling"] = {"seat": p, "loan": data.LOAN_IDS[li]}
        if st.step == CHOOSE:
            obs["chooser"] = st.chooser
        return obs

    def outcome(self, state: ECState) -> Outcome:
        """Final money is the score; ranks by money, ties shared (§5.5)."""
        st = state
        scores = list(st.money)
        return Outcome(ranks_from_keys(scores), [float(s) for s in scores],
                       {"paydays": st.history, "loans_left": sum(1 for o in st.loan_owner if o >= 0)})


GAME = ElCapitan()
