"""Catan's development cards (§4.6): buying, the cards a seat may play, and playing them.

Each ``a_<action>(st, seat, action, events)`` handles one action type for ``rules.Catan.apply``: it
checks the action against the rules (raising ``IllegalAction``), changes ``st`` and appends the events.
"""
from __future__ import annotations

from engines.catan import data as D
from engines.catan.building import build_phase, road_placed
from engines.catan.roads import road_edges
from engines.catan.state import (BUILD, DEV_PLAY_PHASES, KN, MONO, MOVE_ROBBER, PHASE_NAMES, RB, RES, ROAD_BUILDING,
                                 SPECIAL_BUILD, TRADE, YOP, CatanState, can_pay, illegal, need_phase, pay, take_dev)

A_KNIGHT = {"type": "play_knight"}
A_ROAD_BUILDING = {"type": "play_road_building"}
A_END_ROAD_BUILDING = {"type": "end_road_building"}
A_MONOPOLY = tuple({"type": "play_monopoly", "resource": r} for r in RES)
A_YOP_PAIRS = tuple((a, b, {"type": "play_year_of_plenty", "resources": [RES[a], RES[b]]})
                    for a in range(5) for b in range(a, 5))
A_YOP_SINGLE = tuple({"type": "play_year_of_plenty", "resources": [r]} for r in RES)


def dev_actions(st: CatanState, seat: int, out: list) -> None:
    """§4.6 playable development cards of the active seat."""
    if st.dev_played:
        return
    devs, new = st.devs[seat], st.devs_new[seat]
    if devs[KN] > new[KN]:
        out.append(A_KNIGHT)
    if devs[RB] > new[RB] and st.supply[seat][2] > 0 and road_edges(st, seat):
        out.append(A_ROAD_BUILDING)
    if devs[YOP] > new[YOP]:
        bank = st.bank
        total = sum(bank)
        if total == 1:
            out.append(A_YOP_SINGLE[bank.index(1)])
        elif total > 1:
            for a, b, act in A_YOP_PAIRS:
                if (bank[a] >= 2) if a == b else (bank[a] and bank[b]):
                    out.append(act)
    if devs[MONO] > new[MONO]:
        out.extend(A_MONOPOLY)


def a_buy_dev(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Buy a development card (§4.5): ore, wool and grain for the deck's top card, not playable this turn (§4.6)."""
    if st.phase not in (TRADE, BUILD, SPECIAL_BUILD):
        raise illegal("§4.1 phases of a turn", f"buy_dev_card is not allowed in phase {PHASE_NAMES[st.phase]}")
    if not can_pay(st.hands[seat], D.COST_DEV):
        raise illegal("§2.3 costs", "a development card costs ore, wool and grain")
    if not st.deck:
        raise illegal("§4.5 building", "the development deck is empty")
    build_phase(st, seat, "buy_dev_card")
    pay(st, seat, D.COST_DEV)
    take_dev(st, seat)
    events.append({"type": "buy_dev_card", "seat": seat})


def check_dev(st, seat, card, what):
    """Raise unless ``seat`` may play a ``card`` now (§4.6: own turn, one per turn, not bought this turn)."""
    if st.phase not in DEV_PLAY_PHASES or seat != st.active:
        raise illegal("§4.6 development cards", f"{what} only on your own turn before/while trading or building")
    if st.dev_played:
        raise illegal("§4.6 development cards", "only one development card per turn")
    if st.devs[seat][card] - st.devs_new[seat][card] <= 0:
        if st.devs[seat][card]:
            raise illegal("§4.6 development cards", "a card bought this turn cannot be played this turn")
        raise illegal("§4.6 development cards", f"you hold no {D.DEV_TYPES[card]} card")


def play(st, seat, card):
    """Spend ``seat``'s ``card`` as this turn's development card."""
    st.devs[seat][card] -= 1
    st.dev_played = True


def a_knight(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Play a knight (§4.6): it counts for Largest Army, then the robber moves (§4.3)."""
    check_dev(st, seat, KN, "play_knight")
    play(st, seat, KN)
    st.knights[seat] += 1
    events.append({"type": "play_knight", "seat": seat})
    k = st.knights[seat]
    holder = st.la_holder
    if k >= D.LARGEST_ARMY_MIN and holder != seat and (holder < 0 or k > st.knights[holder]):
        st.la_holder = seat
        events.append({"type": "largest_army", "seat": seat, "knights": k})
    st.return_phase = st.phase
    st.phase = MOVE_ROBBER


def a_play_road_building(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Play Road Building (§4.6): up to two free roads, as many as the seat's supply holds."""
    check_dev(st, seat, RB, "play_road_building")
    if not st.supply[seat][2] or not road_edges(st, seat):
        raise illegal("§4.6 road building", "no road piece or no legal edge for a free road")
    play(st, seat, RB)
    events.append({"type": "play_road_building", "seat": seat})
    st.free_roads = min(2, st.supply[seat][2])
    st.return_phase = st.phase
    st.phase = ROAD_BUILDING


def a_free_road(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Build one free road (Road Building §4.6, or the road builder's favour §6.5); the phase ends with the
    last free road or when no road can be placed."""
    need_phase(st, (ROAD_BUILDING,), "§4.6 road building", "free_road")
    e = action["edge"]
    if e not in road_edges(st, seat):
        raise illegal("§4.5 building", f"edge {e!r} is not free or not connected to your network")
    road_placed(st, seat, e, events, "free_road")
    st.free_roads -= 1
    if st.free_roads <= 0 or not st.supply[seat][2] or not road_edges(st, seat):
        st.phase = st.return_phase


def a_end_road_building(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Stop building free roads and go back to the phase before (§4.6)."""
    need_phase(st, (ROAD_BUILDING,), "§4.6 road building", "end_road_building")
    st.free_roads = 0
    st.phase = st.return_phase
    events.append({"type": "end_road_building", "seat": seat})


def a_year_of_plenty(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Play Year of Plenty (§4.6): take 2 resource cards from the bank (1 when it holds only 1)."""
    check_dev(st, seat, YOP, "play_year_of_plenty")
    names = action["resources"]
    if not isinstance(names, list) or any(r not in D.RES_INDEX for r in names):
        raise illegal("§4.6 year of plenty", f"bad resources {names!r}")
    want = [0] * 5
    for r in names:
        want[D.RES_INDEX[r]] += 1
    total = sum(st.bank)
    if len(names) != min(2, total) or len(names) == 0 or not can_pay(st.bank, want):
        raise illegal("§4.6 year of plenty", "take 2 cards the bank holds (1 only when the bank holds 1)")
    play(st, seat, YOP)
    for r in range(5):
        st.bank[r] -= want[r]
        st.hands[seat][r] += want[r]
    events.append({"type": "play_year_of_plenty", "seat": seat, "resources": sorted(names, key=D.RES_INDEX.get)})


def a_monopoly(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Play Monopoly (§4.6): take every card of the named resource from the other seats."""
    check_dev(st, seat, MONO, "play_monopoly")
    r = D.RES_INDEX.get(action["resource"], -1)
    if r < 0:
        raise illegal("§4.6 monopoly", f"no resource {action['resource']!r}")
    play(st, seat, MONO)
    taken = {}
    for s in range(st.n):
        if s != seat and st.hands[s][r]:
            taken[str(s)] = st.hands[s][r]
            st.hands[seat][r] += st.hands[s][r]
            st.hands[s][r] = 0
    events.append({"type": "play_monopoly", "seat": seat, "resource": RES[r], "taken": taken})
