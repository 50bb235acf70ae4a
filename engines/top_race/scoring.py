"""Top Race's scoring: the end of a race, its places, prizes, tips and share payouts, then the next
race or the end of the game (§4.8-§4.10, §6.2, §6.3), and the final ranking with its ties (§5)."""
from __future__ import annotations

from typing import Any

from engines.core import Event
from engines.top_race import data as D
from engines.top_race.data import CARS
from engines.top_race.state import NCARS, OVER, TopRaceState, start_race


def end_race(st: TopRaceState, ev: list[Event], why: str) -> None:
    """End the race (§4.8-§4.10): place the cars still out, pay prizes, tips (§6.2) and shares (§6.3),
    then start the next race or end the game."""
    tr = st.track
    rest = []
    for c in range(NCARS):
        if st.place[c]:
            continue
        if st.pos[c] >= 0:
            s, on_track = st.pos[c], 1
        else:
            s, on_track = st.broken[c], 0  # [HOUSE] A13: loses ties to on-track cars
        rest.append(((tr.front[s], on_track, tr.innerness(s)), c))
    rest.sort(reverse=True)
    for _key, c in rest:
        st.finished += 1
        st.place[c] = st.finished
        if not st.shares:
            prize = D.PRIZE[st.place[c] - 1]
            st.cash[st.owner[c]] += prize
    places = {CARS[c]: st.place[c] for c in range(NCARS)}
    result: dict[str, Any] = {"race": st.race + 1, "track": tr.id, "end": why, "places": places}
    if not st.shares:
        result["owners"] = {CARS[c]: st.owner[c] for c in range(NCARS)}
    if st.tips:
        nets = []
        for seat in range(st.n):
            net = sum(D.TIP[k][st.place[c] - 1] for k, c in enumerate(st.tip_marks[seat]) if c >= 0)
            st.cash[seat] = max(0, st.cash[seat] + net)  # [HOUSE] A24: floored at 0
            nets.append(net)
        result["tips"] = [[CARS[c] if c >= 0 else None for c in marks] for marks in st.tip_marks]
        result["tip_net"] = nets
    if st.shares:
        payouts = []
        for seat in range(st.n):
            pay = sum(st.holdings[seat][c] * D.PRIZE[st.place[c] - 1] for c in range(NCARS))
            st.cash[seat] += pay
            payouts.append(pay)
        result["holdings"] = [{CARS[c]: h[c] for c in range(NCARS)} for h in st.holdings]
        result["share_payout"] = payouts
        st.last_holdings = [list(h) for h in st.holdings]
    result["cash"] = list(st.cash)
    st.results.append(result)
    st.last_order = list(st.order)
    ev.append({"type": "race_end", **result})
    st.pending = None
    st.legal = None
    st.claim_queue = []
    st.tip_queue = []
    st.trade_queue = []
    st.trades = {}
    st.turn_done = False
    st.race += 1
    if st.race < st.races:
        start_race(st)
    else:
        st.phase = OVER


def ranking_keys(st: TopRaceState) -> list[tuple]:
    """Each seat's ranking key after the last race, a larger key ranking higher (§5): its cash, then the
    places of its cars in the last race (Shares: its shares of the cars in order of place, then its
    position in the last seating order)."""
    last = st.results[-1]
    places = last["places"]
    if st.shares:
        by_place = sorted(range(NCARS), key=lambda c: places[CARS[c]])
        keys = [(st.cash[s], tuple(st.last_holdings[s][c] for c in by_place), st.last_order.index(s))
                for s in range(st.n)]
    else:
        owners = last["owners"]
        keys = [(st.cash[s], tuple(sorted((-places[c] for c in CARS if owners[c] == s), reverse=True)))
                for s in range(st.n)]
    return keys
