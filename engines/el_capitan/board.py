"""El Capitán's board helpers: what the state says of cities, sites, harbours, supplies and money.

City values (§5.1), the next site and the row limit (§4.5.2-3, §6.2.4), the colour supply rule
(§6.2.3), the warehouse, reopen (§4.6) and fortress (§4.7) options, the least money for a main action
in a city, the harbour space taken on arrival (§4.4.2), payday income (§5.1, §6.2.6-8), net worth
(§5.3), and whether a seat has something to reopen and which loan sizes are left (§4.8).
"""
from __future__ import annotations

from . import data
from .state import ECState
from .tables import FORTRESS_PRICE, HARBOR_PRICE, INF, LOAN_REPAY, LOAN_REPAY_EXT, NCITY, NLOAN, TRACK


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
# ``deadend.Finisher`` with its needs, and under string keys facts derived from the board and the
# loans, dropped by ``apply`` when those change.


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
