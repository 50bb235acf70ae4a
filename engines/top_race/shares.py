"""Top Race's Shares variant (§6.3): the share trades of a share round, written canonically (§9 #14),
from a table of every trade built once, and carried out together at the round's end."""
from __future__ import annotations

from typing import Any

from engines.core import Action, Event
from engines.top_race import data as D
from engines.top_race.data import CAR_INDEX, CARS
from engines.top_race.state import NCARS, TopRaceState


def canonical_trade(st: TopRaceState, seat: int, action: Any) -> Action | None:
    """The legal trade with the same result as a valid trade written in another order (§9 #14)."""
    if not isinstance(action, dict) or action.get("type") != "trade":
        return None
    sell, buy = action.get("sell"), action.get("buy")
    if not (isinstance(sell, list) and isinstance(buy, list) and len(sell) == 2 and len(buy) == 2
            and all(isinstance(c, str) and c in CAR_INDEX for c in sell + buy)):
        return None
    h = list(st.holdings[seat])
    for c in sell:
        h[CAR_INDEX[c]] -= 1
        if h[CAR_INDEX[c]] < 0:
            return None
    for c in buy:
        h[CAR_INDEX[c]] += 1
    if max(h) > D.SHARES_MAX:
        return None
    old = st.holdings[seat]
    for a in st.legal:
        g = list(old)
        for c in a["sell"]:
            g[CAR_INDEX[c]] -= 1
        for c in a["buy"]:
            g[CAR_INDEX[c]] += 1
        if g == h:
            return a
    return None


def apply_trades(st: TopRaceState, ev: list[Event]) -> None:
    """Carry out the share round's trades together, once every seat has chosen (§6.3)."""
    for seat, (sell, buy) in sorted(st.trades.items()):
        h = st.holdings[seat]
        for c in sell:
            h[CAR_INDEX[c]] -= 1
        for c in buy:
            h[CAR_INDEX[c]] += 1
    st.trades = {}
    ev.append({"type": "share_round_done"})


def _trade_table() -> list[list[tuple[tuple[tuple[int, int, int], ...], dict[str, Any]]]]:
    """Every (sell pair, buy pair) grouped by its net change, each group in canonical order, with the
    holding bounds that make it valid: per car (car, lowest holding, highest holding)."""
    pairs = [(i, j) for i in range(NCARS) for j in range(i, NCARS)]
    groups: dict[tuple[int, ...], list] = {}
    for si, sj in pairs:
        for bi, bj in pairs:
            sold = [0] * NCARS
            bought = [0] * NCARS
            sold[si] += 1
            sold[sj] += 1
            bought[bi] += 1
            bought[bj] += 1
            delta = tuple(bought[c] - sold[c] for c in range(NCARS))
            bounds = tuple((c, sold[c], D.SHARES_MAX - bought[c] + sold[c])
                           for c in range(NCARS) if sold[c] or bought[c])
            action = {"type": "trade", "sell": [CARS[si], CARS[sj]], "buy": [CARS[bi], CARS[bj]]}
            groups.setdefault(delta, []).append((bounds, action))
    return list(groups.values())


_TRADES = _trade_table()
_TRADE_CACHE: dict[tuple[int, ...], list[dict[str, Any]]] = {}


def trade_options(holdings: tuple[int, ...]) -> list[dict[str, Any]]:
    """Every distinct share trade (§6.3, §9 #14): sell 2 held shares, then buy 2, every car 0..15.

    One canonical action per resulting holding: the smallest sell list, then the smallest buy list
    (colour order). The action dicts are shared; callers must not mutate them."""
    got = _TRADE_CACHE.get(holdings)
    if got is not None:
        return got
    out = []
    h = holdings
    for group in _TRADES:
        for bounds, action in group:
            for c, lo, hi in bounds:
                if not lo <= h[c] <= hi:
                    break
            else:
                out.append(action)
                break
    if len(_TRADE_CACHE) > 50000:
        _TRADE_CACHE.clear()
    _TRADE_CACHE[holdings] = out
    return out
