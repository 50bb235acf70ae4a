"""Catan's trade (§4.4): maritime trade at bank and harbour rates, and domestic proposals, offers and answers.

Each ``a_<action>(st, seat, action, events)`` handles one action type for ``rules.Catan.apply``: it
checks the action against the rules (raising ``IllegalAction``), changes ``st`` and appends the events.
"""
from __future__ import annotations

from typing import Any, Mapping

from engines.catan import data as D
from engines.catan.state import (BUILD, PHASE_NAMES, RES, TRADE, TRADE_DECIDE, TRADE_RESPOND, CatanState, can_pay,
                                 illegal, need_phase)

A_REQUEST = {"type": "request_offers"}
A_ACCEPT = {"type": "accept_trade"}
A_REJECT = {"type": "reject_trade"}
A_PASS = {"type": "pass"}
A_CANCEL = {"type": "cancel_trade"}
A_CONFIRM = tuple({"type": "confirm_trade", "seat": s} for s in range(6))
A_ACCEPT_COUNTER = tuple({"type": "accept_counter", "seat": s} for s in range(6))
#: (give, rate, get) -> action
A_MARITIME = {(g, rate, t): {"type": "maritime_trade", "give": RES[g], "rate": rate, "get": RES[t]}
              for g in range(5) for rate in (2, 3, 4) for t in range(5) if t != g}


def side_vec(side: Mapping[str, int]) -> tuple[int, ...]:
    """A resource map of a trade side as a vector of 5 counts."""
    return tuple(side.get(r, 0) for r in RES)


def side_dict(vec) -> dict[str, int]:
    """A vector of 5 resource counts as a map of the non-zero ones."""
    return {RES[i]: n for i, n in enumerate(vec) if n}


_SIDE_DICTS: dict[tuple[int, ...], dict[str, int]] = {}


def shared_side(vec: tuple[int, ...]) -> dict[str, int]:
    """A canonical resource map for a trade side, shared (never mutate it)."""
    found = _SIDE_DICTS.get(vec)
    if found is None:
        found = _SIDE_DICTS[vec] = side_dict(vec)
    return found


def answers_view(answers: dict) -> dict[str, Any]:
    """The public form of the answers to a trade (seat -> answer and, for counters and offers, the sides)."""
    return {str(s): ({"answer": a[0], "give": shared_side(a[1]), "get": shared_side(a[2])} if a[1]
                     else {"answer": a[0]}) for s, a in answers.items()}



_TRADE_TABLES: dict[int, tuple] = {}


def trade_table(max_cards: int) -> tuple:
    """Every (give, get) pair of §4.4 grouped by give side.

    Returns ``(groups, index)``: groups are ``(give_vec, {kind: [actions]})`` for the kinds
    propose_trade, counter_trade and offer; ``index`` maps a canonical key of the two sides to the
    vectors, so that validating a trade action is one dict lookup.
    """
    table = _TRADE_TABLES.get(max_cards)
    if table is not None:
        return table
    sides: list[tuple[int, ...]] = []

    def gen(start: int, left: int, vec: list[int]):
        if sum(vec):
            sides.append(tuple(vec))
        if left == 0:
            return
        for r in range(start, 5):
            vec[r] += 1
            gen(r, left - 1, vec)
            vec[r] -= 1

    gen(0, max_cards, [0] * 5)
    sides.sort(key=lambda v: (sum(v), [-x for x in v]))
    groups = []
    index: dict = {}
    for give in sides:
        by_kind: dict[str, list] = {"propose_trade": [], "counter_trade": [], "offer": []}
        for get in sides:
            if any(give[i] and get[i] for i in range(5)):
                continue
            g, t = side_dict(give), side_dict(get)
            index[(tuple(g.items()), tuple(t.items()))] = (give, get)
            for kind, acts in by_kind.items():
                acts.append({"type": kind, "give": g, "get": t})
        groups.append((give, by_kind))
    ids = {id(act): (give, get) for give, by_kind in groups for acts in by_kind.values() for act in acts
           for get in [side_vec(act["get"])]}
    table = (tuple(groups), index, {}, ids)
    _TRADE_TABLES[max_cards] = table
    return table


def trade_list(table: tuple, hand: list[int], kind: str) -> list[dict]:
    """The trade actions of ``kind`` whose give side ``hand`` covers (cached by the capped hand)."""
    cache = table[2]
    key = (kind, min(hand[0], 2), min(hand[1], 2), min(hand[2], 2), min(hand[3], 2), min(hand[4], 2))
    found = cache.get(key)
    if found is None:
        found = []
        for give, by_kind in table[0]:
            if hand[0] >= give[0] and hand[1] >= give[1] and hand[2] >= give[2] and hand[3] >= give[3] \
                    and hand[4] >= give[4]:
                found.extend(by_kind[kind])
        if max(sum(g) for g, _ in table[0]) <= 2:  # the cap of 2 per type is exact only for sides of <= 2
            cache[key] = found
    return found



def trade_actions(st: CatanState, seat: int, out: list) -> None:
    """Maritime trades at ``seat``'s rates, and (while proposals are left) domestic proposals (§4.4)."""
    hand, bank, rates = st.hands[seat], st.bank, st.rates[seat]
    for g in range(5):
        rate = rates[g]
        if hand[g] >= rate:
            for t in range(5):
                if t != g and bank[t]:
                    out.append(A_MARITIME[(g, rate, t)])
    if st.proposals_left > 0 and st.n > 1:
        out.extend(trade_list(st.trade_table, hand, "propose_trade"))
        out.append(A_REQUEST)


def side_actions(st: CatanState, seat: int, kind: str, out: list) -> None:
    """The counter-offers or offers (``kind``) whose give side ``seat`` holds."""
    out.extend(trade_list(st.trade_table, st.hands[seat], kind))


def a_maritime(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Trade with the bank (§4.4): ``rate`` cards of one resource (the seat's rate: 4, 3 or 2) for 1 other."""
    check_trade_phase(st, "maritime_trade")
    g = D.RES_INDEX.get(action["give"], -1)
    t = D.RES_INDEX.get(action["get"], -1)
    rate = action["rate"]
    if g < 0 or t < 0 or g == t:
        raise illegal("§4.4 maritime trade", "give and get must be two different resources")
    if rate != st.rates[seat][g]:
        raise illegal("§4.4 maritime trade", f"your rate for {RES[g]} is {st.rates[seat][g]}:1, not {rate!r}")
    if st.hands[seat][g] < rate:
        raise illegal("§4.4 maritime trade", f"you need {rate} {RES[g]}")
    if not st.bank[t]:
        raise illegal("§4.4 maritime trade", f"the bank has no {RES[t]}")
    st.hands[seat][g] -= rate
    st.bank[g] += rate
    st.hands[seat][t] += 1
    st.bank[t] -= 1
    events.append({"type": "maritime_trade", "seat": seat, "give": RES[g], "rate": rate, "get": RES[t]})


def check_trade_phase(st, what):
    """Raise unless trading is allowed now (trade phase, before building unless combined, §4.1)."""
    if st.phase == BUILD:
        raise illegal("§4.1 strict order", f"no {what} after building this turn (trade comes before build)")
    if st.phase != TRADE:
        raise illegal("§4.1 phases of a turn", f"{what} only in the trade phase, not {PHASE_NAMES[st.phase]}")
    if st.built and not st.combined:
        raise illegal("§4.1 strict order", f"no {what} after building this turn (trade comes before build)")


def parse_side(st, side, rule: str) -> tuple[int, ...]:
    """A resource map of one trade side as a vector, checked against §4.4 and the card limit."""
    if not isinstance(side, dict) or any(k not in D.RES_INDEX for k in side) \
            or any(not isinstance(c, int) or c < 1 for c in side.values()):
        raise illegal(rule, f"bad resource map {side!r}")
    vec = side_vec(side)
    if not 1 <= sum(vec) <= int(st.opts["trade_max_cards_per_side"]):
        raise illegal(rule, f"each side holds 1..{st.opts['trade_max_cards_per_side']} cards")
    return vec


def parse_trade(st, action, rule):
    """The (give, get) vectors of a trade action; a shared action dict is looked up, others parsed."""
    found = st.trade_table[3].get(id(action))  # one of our own shared action dicts
    if found is not None:
        return found
    try:
        found = st.trade_table[1].get((tuple(action["give"].items()), tuple(action["get"].items())))
    except (AttributeError, TypeError):
        found = None
    if found is not None:
        return found
    give = parse_side(st, action["give"], rule)
    get = parse_side(st, action["get"], rule)
    if any(give[i] and get[i] for i in range(5)):
        raise illegal("§4.4 domestic trade", "no resource type may appear on both sides")
    return give, get


def a_propose(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Propose a trade to every other seat, who answer in turn order (§4.4); it uses one of the turn's proposals."""
    check_trade_phase(st, "propose_trade")
    if st.proposals_left <= 0:
        raise illegal("§4.4 bot protocol", "no trade proposals left this turn")
    give, get = parse_trade(st, action, "§4.4 bot protocol")
    if not can_pay(st.hands[seat], give):
        raise illegal("§4.4 domestic trade", "you must hold what you offer")
    open_trade(st, seat, "proposal", give, get, events)


def a_request(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Ask every other seat for offers (§4.4); it uses one of the turn's proposals."""
    check_trade_phase(st, "request_offers")
    if st.proposals_left <= 0:
        raise illegal("§4.4 bot protocol", "no trade proposals left this turn")
    open_trade(st, seat, "request", None, None, events)


def open_trade(st, seat, kind, give, get, events):
    """Start a proposal or request for offers; the other seats answer in turn order."""
    st.proposals_left -= 1
    order = [(seat + i) % st.n for i in range(1, st.n)]
    st.trade = {"kind": kind, "give": give, "get": get, "order": order, "queue": list(order), "answers": {}}
    ev = {"type": "propose_trade" if kind == "proposal" else "request_offers", "seat": seat}
    if kind == "proposal":
        ev["give"], ev["get"] = shared_side(give), shared_side(get)
    events.append(ev)
    st.phase = TRADE_RESPOND
    st.to_act = order[0]


def answer(st, seat, answer, events):
    """Record ``seat``'s answer; when all answered, the answers go public and the active seat decides."""
    tr = st.trade
    tr["answers"][seat] = answer
    tr["queue"].pop(0)
    events.append({"type": "answer", "seat": seat})  # contents public once everyone answered
    if tr["queue"]:
        st.to_act = tr["queue"][0]
    else:
        events.append({"type": "answers", "answers": answers_view(tr["answers"])})
        st.phase = TRADE_DECIDE
        st.to_act = st.active


def a_accept_trade(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Accept the active seat's proposal, holding the cards it asks for (§4.4)."""
    need_phase(st, (TRADE_RESPOND,), "§4.4 bot protocol", "accept_trade")
    if st.trade["kind"] != "proposal":
        raise illegal("§4.4 bot protocol", "accept_trade answers a proposal, not a request")
    if not can_pay(st.hands[seat], st.trade["get"]):
        raise illegal("§4.4 domestic trade", "you do not hold the cards asked for")
    answer(st, seat, ("accept", None, None), events)


def a_reject_trade(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Reject the active seat's proposal (§4.4)."""
    need_phase(st, (TRADE_RESPOND,), "§4.4 bot protocol", "reject_trade")
    if st.trade["kind"] != "proposal":
        raise illegal("§4.4 bot protocol", "answer a request with offer or pass")
    answer(st, seat, ("reject", None, None), events)


def a_pass(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Answer a request for offers with no offer (§4.4)."""
    need_phase(st, (TRADE_RESPOND,), "§4.4 bot protocol", "pass")
    if st.trade["kind"] != "request":
        raise illegal("§4.4 bot protocol", "answer a proposal with accept_trade, reject_trade or counter_trade")
    answer(st, seat, ("pass", None, None), events)


def a_counter(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Answer a proposal with a counter (``counter_trade``) or a request with an offer (``offer``) (§4.4)."""
    need_phase(st, (TRADE_RESPOND,), "§4.4 bot protocol", action["type"])
    want = "proposal" if action["type"] == "counter_trade" else "request"
    if st.trade["kind"] != want:
        raise illegal("§4.4 bot protocol", f"{action['type']} does not answer a {st.trade['kind']}")
    give, get = parse_trade(st, action, "§4.4 bot protocol")
    if not can_pay(st.hands[seat], give):
        raise illegal("§4.4 domestic trade", "you must hold what you offer")
    answer(st, seat, ("counter" if want == "proposal" else "offer", give, get), events)


def exchange(st, a, b, a_gives, b_gives):
    """Swap cards between seats ``a`` and ``b``."""
    ha, hb = st.hands[a], st.hands[b]
    for r in range(5):
        ha[r] += b_gives[r] - a_gives[r]
        hb[r] += a_gives[r] - b_gives[r]


def a_confirm(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Carry out the proposal with a seat that accepted it (§4.4)."""
    need_phase(st, (TRADE_DECIDE,), "§4.4 bot protocol", "confirm_trade")
    s = action["seat"]
    tr = st.trade
    if tr["answers"].get(s, ("",))[0] != "accept":
        raise illegal("§4.4 bot protocol", f"seat {s!r} did not accept the proposal")
    exchange(st, seat, s, tr["give"], tr["get"])
    events.append({"type": "trade", "seat": seat, "with": s, "give": shared_side(tr["give"]),
                   "get": shared_side(tr["get"])})
    close_trade(st)


def a_accept_counter(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Carry out a seat's counter or offer (§4.4)."""
    need_phase(st, (TRADE_DECIDE,), "§4.4 bot protocol", "accept_counter")
    s = action["seat"]
    ans = st.trade["answers"].get(s)
    if not ans or ans[0] not in ("counter", "offer"):
        raise illegal("§4.4 bot protocol", f"seat {s!r} made no counter-offer")
    if not can_pay(st.hands[seat], ans[2]):
        raise illegal("§4.4 domestic trade", "you do not hold what the counter-offer asks for")
    exchange(st, s, seat, ans[1], ans[2])
    events.append({"type": "trade", "seat": seat, "with": s, "give": shared_side(ans[2]),
                   "get": shared_side(ans[1])})
    close_trade(st)


def a_cancel(st: CatanState, seat: int, action: dict, events: list) -> None:
    """End the trade without an exchange (§4.4)."""
    need_phase(st, (TRADE_DECIDE,), "§4.4 bot protocol", "cancel_trade")
    events.append({"type": "cancel_trade", "seat": seat})
    close_trade(st)


def close_trade(st):
    """End the domestic trade and return to the trade phase."""
    st.trade = None
    st.phase = TRADE
    st.to_act = st.active
