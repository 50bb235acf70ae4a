"""Catan's building (§4.5): settlements (and the harbours they reach), roads and cities, with their costs.

Each ``a_<action>(st, seat, action, events)`` handles one action type for ``rules.Catan.apply``: it
checks the action against the rules (raising ``IllegalAction``), changes ``st`` and appends the events.
"""
from __future__ import annotations

from engines.catan import data as D
from engines.catan.bestfriends import bf_update_contacts
from engines.catan.roads import put_road, road_edges, road_length, settlement_spots, update_longest_road
from engines.catan.state import (BUILD, GENERIC_HARBOUR, PHASE_NAMES, SPECIAL_BUILD, TRADE, CatanState, can_pay,
                                 illegal, pay)

A_BUY_DEV = {"type": "buy_dev_card"}  # offered with the builds (§4.5); bought in development.a_buy_dev


def put_settlement(st: CatanState, seat: int, v: int) -> None:
    """Place a settlement of ``seat`` on ``v`` (no checks): distance rule and harbour rates (§4.4)."""
    st.bld_owner[v] = seat
    st.bld_kind[v] = 1
    st.seat_buildings[seat].append(v)
    st.supply[seat][0] -= 1
    blocked = st.blocked
    blocked[v] = 1
    for w in st.board.vertex_neighbours[v]:
        blocked[w] = 1
    kind = st.vert_harbour[v]
    if kind >= 0:
        rates = st.rates[seat]
        if kind == GENERIC_HARBOUR:
            for r in range(5):
                if rates[r] > 3:
                    rates[r] = 3
        else:
            rates[kind] = 2


def build_actions(st: CatanState, seat: int, out: list) -> None:
    """The §4.5 builds ``seat`` can pay for and place, and buying a development card."""
    hand, sup, acts = st.hands[seat], st.supply[seat], st.acts
    if hand[0] and hand[1] and sup[2]:
        out.extend([acts.build_road[e] for e in road_edges(st, seat)])
    if hand[0] and hand[1] and hand[2] and hand[3] and sup[0]:
        out.extend([acts.build_settlement[v] for v in settlement_spots(st, seat)])
    if hand[3] >= 2 and hand[4] >= 3 and sup[1]:
        bk = st.bld_kind
        out.extend([acts.build_city[v] for v in sorted(st.seat_buildings[seat]) if bk[v] == 1])
    if hand[2] and hand[3] and hand[4] and st.deck:
        out.append(A_BUY_DEV)


def build_phase(st, seat, what):
    """Enter the build phase (strict order, §4.1) or raise if building is not allowed now."""
    ph = st.phase
    if ph == TRADE:
        if not st.combined:
            st.phase = BUILD
    elif ph not in (BUILD, SPECIAL_BUILD):
        raise illegal("§4.1 phases of a turn", f"{what} is not allowed in phase {PHASE_NAMES[ph]}")
    st.built = True


def a_build_road(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Build a road (§4.5): 1 lumber + 1 brick, on a free edge connected to the seat's network."""
    if st.phase not in (TRADE, BUILD, SPECIAL_BUILD):
        raise illegal("§4.1 phases of a turn", f"build_road is not allowed in phase {PHASE_NAMES[st.phase]}")
    e = action["edge"]
    if not can_pay(st.hands[seat], D.COST_ROAD):
        raise illegal("§2.3 costs", "a road costs 1 lumber + 1 brick")
    if not st.supply[seat][2]:
        raise illegal("§4.5 piece limits", "no road left in your supply")
    if e not in road_edges(st, seat):
        raise illegal("§4.5 building", f"edge {e!r} is not free or not connected to your network")
    build_phase(st, seat, "build_road")
    pay(st, seat, D.COST_ROAD)
    road_placed(st, seat, e, events, "build_road")


def road_placed(st, seat, e, events, kind):
    """After a road on ``e``: road length, Longest Road and (Best Friends) network contacts."""
    put_road(st, seat, e)
    events.append({"type": kind, "seat": seat, "edge": e})
    st.road_len[seat] = road_length(st, seat)
    update_longest_road(st, events)
    if st.bf:
        bf_update_contacts(st, seat, e, events, award=True)


def a_build_settlement(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Build a settlement (§4.5): brick, lumber, wool and grain, at the end of an own road and clear of the
    distance rule; it may cut opponents' roads (§4.7)."""
    if st.phase not in (TRADE, BUILD, SPECIAL_BUILD):
        raise illegal("§4.1 phases of a turn", f"build_settlement is not allowed in phase {PHASE_NAMES[st.phase]}")
    v = action["vertex"]
    if not can_pay(st.hands[seat], D.COST_SETTLEMENT):
        raise illegal("§2.3 costs", "a settlement costs brick, lumber, wool and grain")
    if not st.supply[seat][0]:
        raise illegal("§4.5 piece limits", "no settlement left in your supply (max 5)")
    if not isinstance(v, int) or not 0 <= v < st.board.num_vertices:
        raise illegal("§2.5 vertices", f"no vertex {v!r}")
    if st.blocked[v]:
        raise illegal("§4.5 distance rule", f"vertex {v} is occupied or next to a settlement or city")
    if v not in settlement_spots(st, seat):
        raise illegal("§4.5 building", f"no own road leads to vertex {v}")
    build_phase(st, seat, "build_settlement")
    pay(st, seat, D.COST_SETTLEMENT)
    put_settlement(st, seat, v)
    events.append({"type": "build_settlement", "seat": seat, "vertex": v})
    # a settlement may break opponents' roads through v (§4.7)
    changed = False
    ro = st.road_owner
    for e in st.board.vertex_edges[v]:
        o = ro[e]
        if o >= 0 and o != seat:
            st.road_len[o] = road_length(st, o)
            changed = True
    if changed:
        update_longest_road(st, events)


def a_build_city(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Upgrade an own settlement to a city (§4.5): 3 ore + 2 grain; the settlement goes back to the supply."""
    if st.phase not in (TRADE, BUILD, SPECIAL_BUILD):
        raise illegal("§4.1 phases of a turn", f"build_city is not allowed in phase {PHASE_NAMES[st.phase]}")
    v = action["vertex"]
    if not can_pay(st.hands[seat], D.COST_CITY):
        raise illegal("§2.3 costs", "a city costs 3 ore + 2 grain")
    if not st.supply[seat][1]:
        raise illegal("§4.5 piece limits", "no city left in your supply (max 4)")
    if not isinstance(v, int) or not 0 <= v < st.board.num_vertices or st.bld_owner[v] != seat \
            or st.bld_kind[v] != 1:
        raise illegal("§4.5 city", f"a city only replaces your own settlement (vertex {v!r})")
    build_phase(st, seat, "build_city")
    pay(st, seat, D.COST_CITY)
    st.bld_kind[v] = 2
    st.supply[seat][0] += 1
    st.supply[seat][1] -= 1
    events.append({"type": "build_city", "seat": seat, "vertex": v})
