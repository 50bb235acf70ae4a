"""Top Race's race turns (§4.2): whose turn it is, what he may do (a tempo card, with Pitstop a reserved
card or a pitstop, §6.1), passing (with Tips once one's cars have finished, §6.2), the turn order and,
with Shares, the share round after every full round (§6.3)."""
from __future__ import annotations

from engines.core import Action, Event
from engines.top_race.movement import play_card
from engines.top_race.scoring import end_race
from engines.top_race.state import NCARS, SPURT, TopRaceState, is_participant


def turn_options(st: TopRaceState, seat: int) -> list[Action]:
    """What ``seat`` may do on its turn (§4.2, §6.1, §6.2); empty if nothing."""
    if not is_participant(st, seat):
        return []
    acts: list[Action] = []
    reserved = st.reserved[seat]
    hand = st.hands[seat]
    if reserved:
        acts = [{"type": "take_reserved", "card": c} for c in reserved]
    else:
        for c in hand:
            if c in SPURT:
                acts.append({"type": "play", "card": c, "mode": "spurt"})
                acts.append({"type": "play", "card": c, "mode": "breakdown"})
            else:
                acts.append({"type": "play", "card": c})
    if st.pitstop and st.free_pit[seat] > 0:
        acts.extend({"type": "pitstop", "from": "box", "card": c} for c in st.box)
        if st.discard:
            acts.append({"type": "pitstop", "from": "discard"})
    if acts:
        may_pass = False
        if st.tips and all(st.place[c] for c in range(NCARS) if st.owner[c] == seat):
            may_pass = True  # §6.2: a player whose cars have all finished may pass
        elif st.pitstop and not hand and not reserved:
            may_pass = True  # §6.1 running out: pitstop or pass
        if may_pass:
            acts.append({"type": "pass"})
    return acts


def begin_turn(st: TopRaceState, ev: list[Event]) -> None:
    """Open the turn of the seat at ``turn_i``, skipping seats that can do nothing (§4.2)."""
    while True:
        seat = st.order[st.turn_i]
        opts = turn_options(st, seat)
        if opts:
            st.pending = ("turn", seat, opts)
            return
        if is_participant(st, seat):
            st.passed.add(seat)  # a skip counts as a pass
            if all_passed(st):
                end_race(st, ev, "no cards")
                return
        next_turn_index(st)
        if st.trade_queue:
            return


def all_passed(st: TopRaceState) -> bool:
    """Has every seat still in the race passed (or been skipped) since a card was last played or taken (§4.2)?"""
    passed = st.passed
    return all(p in passed for p in range(st.n) if is_participant(st, p))


def next_turn_index(st: TopRaceState) -> None:
    """On to the next seat; with Shares a share round after every full round of a race (§6.3)."""
    st.turn_i = (st.turn_i + 1) % st.n
    if st.turn_i == 0 and st.shares and st.finished == 0:
        st.trade_queue = list(range(st.n))  # §6.3 share round after a complete race round


def turn_action(st: TopRaceState, seat: int, action: Action, ev: list[Event]) -> None:
    """Carry out a turn: play a card, pass, take back a reserved card or take a pitstop (§4.2, §6.1)."""
    t = action["type"]
    if t == "play":
        play_card(st, seat, action["card"], action.get("mode"), ev)
        return
    if t == "pass":
        st.passed.add(seat)
        ev.append({"type": "pass", "seat": seat})
        if all_passed(st):
            end_race(st, ev, "all passed")
            return
    elif t == "take_reserved":
        card = action["card"]
        st.reserved[seat].remove(card)
        st.hands[seat].append(card)
        st.hands[seat].sort()
        st.passed.clear()
        ev.append({"type": "take_reserved", "seat": seat, "card": card})
    elif t == "pitstop":
        if action["from"] == "box":
            card = action["card"]
            st.box.remove(card)
        else:
            card = st.discard.pop()
        st.hands[seat].append(card)
        st.hands[seat].sort()
        st.free_pit[seat] -= 1
        st.passed.clear()
        ev.append({"type": "pitstop", "seat": seat, "from": action["from"], "card": card})
    st.turn_done = True
