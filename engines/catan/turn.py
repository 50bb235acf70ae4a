"""Catan's turn flow: the set-up phase, rolling and production, discards, the robber, and the end of a turn.

Each ``a_<action>(st, seat, action, events)`` handles one action type for ``rules.Catan.apply``: it
checks the action against the rules (raising ``IllegalAction``), changes ``st`` and appends the events.
"""
from __future__ import annotations

from engines.catan import data as D
from engines.catan.bestfriends import bf_draw, bf_update_contacts
from engines.catan.building import put_settlement
from engines.catan.roads import put_road, road_length
from engines.catan.state import (BUILD, DISCARD, GAME_OVER, MOVE_ROBBER, PRE_ROLL, RES, SETUP, SPECIAL_BUILD, TRADE,
                                 VPC, CatanState, illegal, need_phase, vp)
from engines.catan.trade import side_dict

A_ROLL = {"type": "roll"}
A_END_TURN = {"type": "end_turn"}
A_END_SPECIAL = {"type": "end_special_build"}
A_DISCARD = tuple({"type": "discard", "resource": r} for r in RES)


def a_place_settlement(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Set-up: a settlement on a free vertex clear of the distance rule; the second one yields its resources (§3.4)."""
    need_phase(st, (SETUP,), "§3.4 set-up phase", "place_settlement")
    if st.setup_vertex >= 0:
        raise illegal("§3.4 set-up phase", "place the road next to your new settlement first")
    v = action["vertex"]
    if not isinstance(v, int) or not 0 <= v < st.board.num_vertices:
        raise illegal("§2.5 vertices", f"no vertex {v!r}")
    if st.blocked[v]:
        raise illegal("§4.5 distance rule", f"vertex {v} is occupied or next to a settlement")
    put_settlement(st, seat, v)
    st.setup_vertex = v
    events.append({"type": "place_settlement", "seat": seat, "vertex": v})
    if st.setup_idx >= st.n:  # the second settlement yields its resources
        got = [0] * 5
        for h in st.board.vertex_hexes[v]:
            r = st.hex_res[h]
            if r >= 0 and st.bank[r]:
                got[r] += 1
                st.bank[r] -= 1
                st.hands[seat][r] += 1
        events.append({"type": "starting_resources", "seat": seat, "resources": side_dict(got)})
    if st.bf:
        bf_update_contacts(st, seat, None, events, award=False)


def a_place_road(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Set-up: a road on a free edge at the new settlement; after the last one the first turn begins (§3.4)."""
    need_phase(st, (SETUP,), "§3.4 set-up phase", "place_road")
    if st.setup_vertex < 0:
        raise illegal("§3.4 set-up phase", "place a settlement first")
    e = action["edge"]
    if not isinstance(e, int) or not 0 <= e < st.board.num_edges or st.road_owner[e] >= 0 \
            or st.setup_vertex not in st.board.edge_vertices[e]:
        raise illegal("§3.4 set-up phase", f"edge {e!r} is not a free path at your new settlement")
    put_road(st, seat, e)
    st.road_len[seat] = road_length(st, seat)
    events.append({"type": "place_road", "seat": seat, "edge": e})
    if st.bf:
        bf_update_contacts(st, seat, e, events, award=False)
    st.setup_vertex = -1
    st.setup_idx += 1
    if st.setup_idx >= len(st.setup_order):
        st.phase = PRE_ROLL
        st.active = st.to_act = 0
        start_turn(st, events)
    else:
        st.to_act = st.setup_order[st.setup_idx]


def start_turn(st: CatanState, events: list) -> None:
    """Begin the active seat's turn (phase PRE_ROLL, per-turn counters reset)."""
    st.phase = PRE_ROLL
    st.to_act = st.active
    st.dev_played = st.built = False
    st.proposals_left = int(st.opts["max_trade_proposals_per_turn"])
    st.donated = st.favour_used = False
    st.gift_asked = []
    st.dice = []
    events.append({"type": "turn", "seat": st.active, "turn": st.turn})


def a_roll(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Roll the dice (§4.2): each hex of the number but the robber's produces, a resource only if the bank covers
    all of it; a 7 sends the seats with more than 7 cards to discard half, then the robber moves (§4.3)."""
    need_phase(st, (PRE_ROLL,), "§4.2 rolling", "roll")
    rng = st.rng
    d1 = rng.randint(1, 6)
    d2 = rng.randint(1, 6)
    k = d1 + d2
    st.dice = [d1, d2]
    events.append({"type": "roll", "seat": seat, "dice": [d1, d2]})
    if k == 7:
        queue, owed = [], {}
        n = st.n
        for i in range(n):
            s = (seat + i) % n
            total = sum(st.hands[s])
            if total > 7:
                queue.append(s)
                owed[s] = total // 2
        st.discard_log = []
        st.return_phase = TRADE
        if queue:
            st.discard_queue, st.discard_owed = queue, owed
            st.phase = DISCARD
            st.to_act = queue[0]
            events.append({"type": "discards_owed", "owed": {str(s): c for s, c in owed.items()}})
        else:
            st.phase = MOVE_ROBBER
        return
    hexes = st.num_hexes.get(k, ())
    board = st.board
    bo, bk, hv, hr = st.bld_owner, st.bld_kind, board.hex_vertices, st.hex_res
    owed = None
    robber = st.robber
    for h in hexes:
        if h == robber:
            continue
        r = hr[h]
        for v in hv[h]:
            o = bo[v]
            if o >= 0:
                if owed is None:
                    owed = {}
                key = (r, o)
                owed[key] = owed.get(key, 0) + bk[v]
    st.phase = TRADE
    if owed:
        totals = [0] * 5
        for (r, o), c in owed.items():
            totals[r] += c
        bank, hands = st.bank, st.hands
        got = {}
        for (r, o), c in owed.items():
            if totals[r] <= bank[r]:
                hands[o][r] += c
                got.setdefault(str(o), {})[RES[r]] = c
        for r in range(5):
            if totals[r] and totals[r] <= bank[r]:
                bank[r] -= totals[r]
        events.append({"type": "production", "resources": got})


def a_discard(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Discard one card after a 7 (§4.3); after the last card owed, the discards go public and the robber moves."""
    need_phase(st, (DISCARD,), "§4.3 discard", "discard")
    r = D.RES_INDEX.get(action["resource"], -1)
    if r < 0 or not st.hands[seat][r]:
        raise illegal("§4.3 discard", f"seat {seat} holds no {action['resource']!r} to discard")
    st.hands[seat][r] -= 1
    st.bank[r] += 1
    st.discard_log.append((seat, r))
    events.append({"type": "discard", "seat": seat})  # the type stays hidden until all are done
    st.discard_owed[seat] -= 1
    if st.discard_owed[seat] == 0:
        del st.discard_owed[seat]
        st.discard_queue.pop(0)
        if st.discard_queue:
            st.to_act = st.discard_queue[0]
        else:
            done: dict[str, dict[str, int]] = {}
            for s, res in st.discard_log:
                d = done.setdefault(str(s), {})
                d[RES[res]] = d.get(RES[res], 0) + 1
            events.append({"type": "discards", "discarded": done})
            st.discard_log = []
            st.phase = MOVE_ROBBER
            st.to_act = st.active


def a_move_robber(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Move the robber to another hex and rob the chosen victim there of a random card (§4.3); Best Friends: a
    move with no victim onto the desert or a hex without buildings earns a favour token (§6.5)."""
    need_phase(st, (MOVE_ROBBER,), "§4.3 robber", "move_robber")
    h = action["hex"]
    victim = action.get("victim")
    if action not in robber_actions(st, seat):
        if not isinstance(h, int) or not 0 <= h < st.board.num_hexes or h == st.robber:
            raise illegal("§4.3 robber", f"the robber must move to another land hex, not {h!r}")
        raise illegal("§4.3 steal", f"victim {victim!r} is not an opponent with cards at hex {h}")
    st.robber = h
    events.append({"type": "move_robber", "seat": seat, "hex": h, "victim": victim})
    if victim is not None:
        hand = st.hands[victim]
        idx = st.rng.randrange(sum(hand))
        for r in range(5):
            if idx < hand[r]:
                break
            idx -= hand[r]
        hand[r] -= 1
        st.hands[seat][r] += 1
        st.last_steal = (seat, victim, r)
        events.append({"type": "steal", "seat": seat, "victim": victim})
    elif st.bf:
        harmless = not any(st.bld_owner[v] >= 0 for v in st.board.hex_vertices[h]) or st.hex_res[h] < 0
        if harmless:
            bf_draw(st, seat, 1, events)
    st.phase = st.return_phase
    st.to_act = st.active


def robber_actions(st: CatanState, seat: int) -> list[dict]:
    """Every move of the robber to another hex, with each opponent there who holds cards (§4.3)."""
    board, bo, hands, acts = st.board, st.bld_owner, st.hands, st.acts
    out = []
    for h in range(board.num_hexes):
        if h == st.robber:
            continue
        victims = set()
        for v in board.hex_vertices[h]:
            o = bo[v]
            if o >= 0 and o != seat and sum(hands[o]):
                victims.add(o)
        if not victims:
            out.append(acts.move_robber(h, None))
        else:
            if st.bf and st.hex_res[h] < 0:
                out.append(acts.move_robber(h, None))  # §6.5: harmless robber on the desert
            for o in sorted(victims):
                out.append(acts.move_robber(h, o))
    return out


def a_end_turn(st: CatanState, seat: int, action: dict, events: list) -> None:
    """End the turn (§4.9); with 5-6 players the others' special building phase comes first (§6.2)."""
    need_phase(st, (TRADE, BUILD), "§4.9 end of turn", "end_turn")
    events.append({"type": "end_turn", "seat": seat})
    if st.n >= 5:
        st.special_queue = [(seat + i) % st.n for i in range(1, st.n)]
        st.phase = SPECIAL_BUILD
        st.to_act = st.special_queue[0]
        return
    next_turn(st, events)


def a_end_special(st: CatanState, seat: int, action: dict, events: list) -> None:
    """End this seat's special building phase; after the last seat's the turn passes on (§6.2)."""
    need_phase(st, (SPECIAL_BUILD,), "§6.2 special building phase", "end_special_build")
    st.special_queue.pop(0)
    if st.special_queue:
        st.to_act = st.special_queue[0]
    else:
        next_turn(st, events)


def next_turn(st, events):
    """Pass the turn on (or end the game after ``max_turns``)."""
    for new in st.devs_new:
        new[:] = (0, 0, 0, 0, 0)
    if st.bf:
        for new in st.favours_new:
            new[:] = (0, 0, 0, 0, 0)
    st.turn += 1
    if st.turn >= st.max_turns:
        finish(st, -1, events)
        return
    st.active = (st.active + 1) % st.n
    start_turn(st, events)
    # win check at the start of the turn happens in apply()


def finish(st: CatanState, winner: int, events: list) -> None:
    """End the game with ``winner`` (-1: none) and the final VP event."""
    st.phase = GAME_OVER
    st.winner = winner
    events.append({"type": "game_over", "winner": None if winner < 0 else winner,
                   "vp": [vp(st, s) for s in range(st.n)],
                   "vp_cards": [st.devs[s][VPC] for s in range(st.n)]})
