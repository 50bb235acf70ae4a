"""Top Race's tempo cards resolved on the track (§4.3-§4.8): the cards' slots, moving a car (§4.4), the
joker (§4.5), Spurt and Breakdown (§4.6, §4.7), a broken-down car's return (§4.7), finishing (§4.8),
and after the card the Pitstop claims (§6.1) and the tip rounds (§6.2) it opens."""
from __future__ import annotations

from engines.core import Event
from engines.top_race import data as D
from engines.top_race.data import CAR_INDEX, CARS
from engines.top_race.scoring import end_race
from engines.top_race.state import NCARS, SPURT, TopRaceState, is_participant

# Each tempo card's slots as (car, spaces), car -1 for the joker, and the cars it names (§2.4, §4.3)
SLOTS = {c: tuple((-1 if car == D.JOKER else CAR_INDEX[car], n) for car, n in D.card_slots(c)) for c in D.ALL_CARDS}
CARDS_ON = {c: frozenset(CAR_INDEX[x] for x in SPURT[c]) if c in SPURT else frozenset(i for i, _ in SLOTS[c] if i >= 0)
            for c in D.ALL_CARDS}


def play_card(st: TopRaceState, seat: int, card: int, mode: str | None, ev: list[Event]) -> None:
    """Play ``card`` from ``seat``'s hand (``mode`` for a Spurt/Breakdown card) and resolve it (§4.3)."""
    st.hands[seat].remove(card)
    st.passed.clear()
    st.card = card
    st.play_seat = seat
    st.slot_i = 0
    st.joker = -1
    e: Event = {"type": "play", "seat": seat, "card": card}
    if mode:
        e["mode"] = mode
    ev.append(e)
    if card in SPURT:
        st.slots = ()
        if spurt_breakdown(st, card, mode, ev):
            return
    else:
        st.slots = SLOTS[card]
    continue_card(st, ev)


def spurt_breakdown(st: TopRaceState, card: int, mode: str, ev: list[Event]) -> bool:
    """Resolve a Spurt/Breakdown card; True if a decision is now pending (or the race ended)."""
    x, y = (CAR_INDEX[c] for c in SPURT[card])
    pos, tr = st.pos, st.track
    if pos[x] < 0 or pos[y] < 0:
        ev.append({"type": "no_effect", "reason": "a named car has finished or broken down"})  # §4.3, A23
        return False
    a, b = (x, y) if tr.key[pos[x]] > tr.key[pos[y]] else (y, x)
    if mode == "spurt":
        target = tr.front[pos[a]]
        occ = set(p for p in pos if p >= 0)
        front, succ = tr.front, tr.succ
        seen = {pos[b]}
        stack = [pos[b]]
        while stack:
            s = stack.pop()
            for t in succ[s]:
                if t not in seen and t != tr.FINISH and t not in occ and front[t] <= target:
                    seen.add(t)
                    stack.append(t)
        best = max(front[s] for s in seen)
        if best == front[pos[b]]:
            ev.append({"type": "no_effect", "reason": "the rear car cannot advance"})  # A29
            return False
        dests = sorted(s for s in seen if front[s] == best)
        st.pending = ("move", st.play_seat, (b, dests))
        return True
    s = pos[a]
    pos[a] = -1
    st.broken[a] = s
    st.partner[a] = b
    ev.append({"type": "breakdown", "car": CARS[a], "space": tr.ids[s]})
    return check_return(st, b, ev)


def continue_card(st: TopRaceState, ev: list[Event]) -> None:
    """Resolve the card's slots from ``slot_i`` on until a decision is needed or the card is done."""
    slots = st.slots
    while st.slot_i < len(slots):
        car, steps = slots[st.slot_i]
        if car < 0:
            if st.joker < 0:
                st.pending = ("joker", st.play_seat, None)
                return
            car = st.joker
            st.joker = -1
        st.slot_i += 1
        if st.pos[car] < 0:
            ev.append({"type": "lost", "car": CARS[car], "spaces": steps})  # finished or broken down
            continue
        dests = move_options(st, car, steps)
        if dests is None:
            if finish_car(st, car, ev):
                return
            if check_return(st, car, ev):
                return
            continue
        if not dests:
            ev.append({"type": "blocked", "car": CARS[car], "spaces": steps})
            continue
        if len(dests) > 1:
            st.pending = ("move", st.play_seat, (car, dests))
            return
        place_car(st, car, dests[0], ev, "move")
        if check_return(st, car, ev):
            return
    end_card(st, ev)


def move_options(st: TopRaceState, car: int, steps: int) -> list[int] | None:
    """Destinations of ``car`` moving ``steps`` (§4.4): None if it crosses the finish line,
    else the spaces of the furthest non-empty layer (empty if it cannot move at all).

    Layers are bit masks of spaces; the union of successors of a layer is cached per track."""
    tr = st.track
    union = tr.union
    occ = 0
    for p in st.pos:
        if p >= 0:
            occ |= 1 << p
    free = ~occ
    finbit = 1 << tr.FINISH
    layer = 1 << st.pos[car]
    moved = False
    for _ in range(steps):
        u = union.get(layer)
        if u is None:
            u = tr.successor_union(layer)
        if u & finbit:
            return None
        nxt = u & free
        if not nxt:
            break
        layer = nxt
        moved = True
    if not moved:
        return []
    out = []
    while layer:
        low = layer & -layer
        out.append(low.bit_length() - 1)
        layer ^= low
    return out


def place_car(st: TopRaceState, car: int, space: int, ev: list[Event], how: str) -> None:
    """Put ``car`` on ``space`` (event ``how``: move or return) and count the tip lines crossed (§6.2)."""
    st.pos[car] = space
    ev.append({"type": how, "car": CARS[car], "to": st.track.ids[space]})
    crossed = st.track.tip_count[space]
    if crossed > st.lines:
        st.lines = crossed


def finish_car(st: TopRaceState, car: int, ev: list[Event]) -> bool:
    """The car crosses the line (§4.8); True if that ends the race."""
    st.finished += 1
    st.place[car] = st.finished
    st.pos[car] = -1
    st.lines = len(st.track.tip_lines)
    e: Event = {"type": "finish", "car": CARS[car], "place": st.finished}
    if not st.shares:
        prize = D.PRIZE[st.finished - 1]
        st.cash[st.owner[car]] += prize
        e["seat"], e["prize"] = st.owner[car], prize
    ev.append(e)
    if st.finished == 5:
        end_race(st, ev, "5th car finished")
        return True
    return False


def check_return(st: TopRaceState, moved: int, ev: list[Event]) -> bool:
    """After ``moved`` moved (or finished): does its broken-down partner return (§4.7)? True if a
    return decision is now pending."""
    if moved not in st.partner:
        return False
    tr = st.track
    for a in range(NCARS):
        if st.partner[a] == moved and st.broken[a] >= 0:
            s = st.broken[a]
            if st.place[moved] or tr.front[st.pos[moved]] >= tr.front[s]:
                chooser = st.play_seat if st.shares else st.owner[a]  # [HOUSE] Shares: active player
                st.pending = ("return", chooser, (a, return_spaces(st, s)))
                return True
    return False


def return_spaces(st: TopRaceState, s: int) -> list[int]:
    """Free spaces beside the old space ``s``, else the nearest free ones behind it (§4.7 step 4)."""
    tr = st.track
    back, front = tr.back, tr.front
    occ = set(p for p in st.pos if p >= 0)
    fs, bs = front[s], back[s]
    beside = [t for t in range(tr.FINISH) if back[t] < fs and front[t] > bs and t not in occ]
    if beside:
        return beside
    behind = [t for t in range(tr.FINISH) if front[t] <= bs and t not in occ]
    best = max(front[t] for t in behind)
    return [t for t in behind if front[t] == best]


def end_card(st: TopRaceState, ev: list[Event]) -> None:
    """The card is done: discarded, then the Pitstop claims (§6.1) and tip rounds (§6.2) it opens queued."""
    st.discard.append(st.card)
    st.card = 0
    st.slots = ()
    st.turn_done = True
    seat = st.play_seat
    if st.pitstop:
        k = st.order.index(seat)
        st.claim_queue = [q for q in (st.order[(k + i) % st.n] for i in range(1, st.n))
                          if st.free_pit[q] > 0 and is_participant(st, q)]
    if st.tips and st.lines > st.tips_held:
        for k in range(st.tips_held + 1, st.lines + 1):
            st.tip_queue.extend((k, p) for p in range(st.n))
        st.tips_held = st.lines
