"""Top Race: the worked examples of §11, movement on every track, auction, modules, errors, leaks."""
from __future__ import annotations

import json
import random

import pytest

from engines.core import BadOptions, IllegalAction
from engines.top_race import GAME
from engines.top_race import data as D
from engines.top_race.movement import move_options, return_spaces
from engines.top_race.shares import apply_trades, trade_options
from engines.top_race.state import NCARS, RACE

CI = D.CAR_INDEX
GRID = ["r0l0", "r0l1", "r0l2", "r1l0", "r1l1", "r1l2"]


# --- helpers that build positions by hand ------------------------------------------------------
def race_state(n=4, pos=None, owners=None, hands=None, track="speed_street", order=None, **options):
    """A state in the race phase with the cars on ``pos`` (car -> space id; unlisted cars fill the grid)."""
    options.setdefault("races", 1)
    options.setdefault("tracks", [track] * options["races"])
    st = GAME.setup(n, 7, options)
    tr = D.get_track(track)
    pos = dict(pos or {})
    free_grid = [g for g in GRID if g not in pos.values()]
    st.pos = [-1] * NCARS
    for c in D.CARS:
        st.pos[CI[c]] = tr.index[pos[c] if c in pos else free_grid.pop(0)]
    owners = owners or {c: i % n for i, c in enumerate(D.CARS)}
    st.owner = [owners[c] for c in D.CARS]
    st.ncars = [sum(1 for c in D.CARS if owners[c] == p) for p in range(n)]
    st.sold = NCARS
    st.phase = RACE
    st.order = order or list(range(n))
    st.start_player = st.order[0]
    st.turn_i = 0
    st.hands = [sorted(h) for h in hands] if hands else [[] for _ in range(n)]
    st.pending = None
    st.legal = None
    st.box, st.discard, st.offer = [], [], []
    return st


def start(st):
    GAME._advance(st, [])
    return st


def finish_car(st, car, place):
    st.place[CI[car]] = place
    st.pos[CI[car]] = -1
    st.finished = max(st.finished, place)


def space(st, car):
    return st.track.ids[st.pos[CI[car]]]


def dests(st):
    return {a["to"] for a in GAME.legal_actions(st, GAME.to_move(st))}


def move_ids(st, car, steps):
    res = move_options(st, CI[car], steps)
    return None if res is None else {st.track.ids[s] for s in res}


def play(st, seat, card, mode=None):
    action = {"type": "play", "card": card}
    if mode:
        action["mode"] = mode
    return GAME.apply(st, seat, action)


# --- tracks and data -----------------------------------------------------------------------------
@pytest.mark.parametrize("track_id,spaces,finish,fewest", [
    ("speed_street", 174, 64, 53), ("lake_lane", 172, 72, 55), ("desert_drive", 184, 71, 59), ("turbo_town", 193, 82, 66),
])
def test_track_expansion_matches_the_rules_table(track_id, spaces, finish, fewest):
    tr = D.get_track(track_id)
    assert (len(tr.ids), tr.finish) == (spaces, finish)
    dist = {s: 0 for s in tr.start_spaces.values()}
    frontier = list(dist)
    while frontier:  # breadth-first from the grid
        nxt = []
        for s in frontier:
            if s == tr.FINISH:
                continue
            for t in tr.succ[s]:
                if t not in dist:
                    dist[t] = dist[s] + 1
                    nxt.append(t)
        frontier = nxt
    assert dist[tr.FINISH] == fewest
    assert all(tr.succ[s] for s in range(len(tr.ids)))  # no dead ends
    assert all(s in dist for s in range(len(tr.ids)) if tr.back[s] >= 2)  # everything reachable from the grid
    assert sorted(tr.start_spaces) == [1, 2, 3, 4, 5, 6]


def test_deck_is_balanced_and_contains_the_seed_cards():
    assert D.card_slots(19) == (("red", 6), ("yellow", 4), ("black", 2), ("blue", 1))
    assert D.card_slots(29) == (("purple", 6), ("yellow", 4), ("joker", 2), ("blue", 1))
    assert D.card_slots(38) == (("yellow", 6), ("red", 4), ("black", 2))
    assert D.card_slots(32) == (("yellow", 6), ("joker", 4), ("red", 2), ("green", 1))
    totals = {c: 0 for c in D.CARS}
    joker = 0
    for card in range(1, 46):
        for car, n in D.card_slots(card):
            if car == "joker":
                joker += n
            else:
                totals[car] += n
    assert set(totals.values()) == {78} and joker == 81
    for n, (each, out) in D.DEAL_BASIC.items():
        assert n * each + out == 48
    for n, (each, box) in D.DEAL_PITSTOP.items():
        assert n * each + box == 48
    for n, (each, extra, out) in D.DEAL_SHARES.items():
        assert n * each + extra + out == 45


# --- §11 worked examples -------------------------------------------------------------------------
def win_auction(st, winner, car=None):
    """Drive the current auction so that ``winner`` wins it at the lowest price, then take a car."""
    while GAME.to_move(st) is not None and st.pending[0] == "bid":
        seat = GAME.to_move(st)
        legal = GAME.legal_actions(st, seat)
        if seat == winner or {"type": "pass"} not in legal:
            GAME.apply(st, seat, legal[0])
        else:
            GAME.apply(st, seat, {"type": "pass"})
    if st.pending and st.pending[0] == "take_car":
        seat = GAME.to_move(st)
        assert seat == winner
        legal = GAME.legal_actions(st, seat)
        choice = next(a for a in legal if car is None or a["car"] == car)
        GAME.apply(st, seat, choice)


def test_e1_auction_eligibility_branch_a():
    st = GAME.setup(4, 3, {"races": 1})
    st.first_opener = 0
    st.pending = None
    GAME._advance(st, [])
    win_auction(st, 0)
    win_auction(st, 0)
    assert st.ncars == [2, 0, 0, 0]
    assert st.auc_elig == [True, True, True, True]  # auction 3: R = 4 > N0 = 3
    win_auction(st, 0)
    assert st.auc_elig == [False, True, True, True]  # auction 4: R = 3 = N0
    assert GAME.to_move(st) == 1  # left of the winner, who has a right to bid


def test_e1_auction_eligibility_branch_b():
    st = GAME.setup(4, 3, {"races": 1})
    st.first_opener = 0
    st.pending = None
    GAME._advance(st, [])
    win_auction(st, 0)
    win_auction(st, 0)
    win_auction(st, 1)
    assert st.auc_elig == [True, True, True, True]  # auction 4: R = 3 > N0 = 2
    win_auction(st, 1)
    assert st.auc_elig == [False, False, True, True]  # auction 5: R = 2 = N0
    assert GAME.to_move(st) == 2
    cash3 = st.cash[3]
    win_auction(st, 2)
    # auction 6: R = 1, N0 = 1: P3 pays 30 000 and takes the last car on the last free space
    assert st.phase == RACE
    assert st.ncars == [2, 2, 1, 1]
    assert st.cash[3] == cash3 - D.LAST_CAR_FIXED_PRICE
    assert st.start_player == 0


def test_e2_cars_move_in_card_order():
    st = start(race_state(pos={"red": "r1l2", "yellow": "r1l1", "black": "r1l0", "blue": "r0l2",
                               "purple": "r0l1", "green": "r0l0"}, hands=[[19, 45], [1, 5], [2, 6], [3, 7]]))
    play(st, 0, 19)
    assert dests(st) == {"r7l0", "r7l1", "r7l2"}
    GAME.apply(st, 0, {"type": "move", "to": "r7l1"})
    assert dests(st) == {"r5l0", "r5l1", "r5l2"}
    GAME.apply(st, 0, {"type": "move", "to": "r5l1"})
    assert dests(st) == {"r3l0", "r3l1", "r3l2"}
    GAME.apply(st, 0, {"type": "move", "to": "r3l1"})
    assert dests(st) == {"r1l1", "r1l2"}  # r1l0 is not adjacent to lane 2


def test_e3_curve_exception():
    st = race_state(pos={"yellow": "r10l1"})
    tr = st.track
    assert {tr.ids[t] for t in tr.succ[tr.index["r10l1"]]} == {"r11l0", "r11l1", "r10l2"}
    assert {tr.ids[t] for t in tr.succ[tr.index["r12l2"]]} == {"r14l1", "r14l2"}
    assert move_ids(st, "yellow", 5) == {"r14l2", "r15l0", "r15l1", "r16l0", "r16l1", "r16l2", "r17l0", "r17l1", "r17l2"}


def test_e4_blocked_car_loses_the_rest():
    st = race_state(pos={"purple": "r19l1", "blue": "r23l1"})
    assert move_ids(st, "purple", 5) == {"r22l1"}
    # through a card: 16 moves black 6, then purple 5 (only destination: applied automatically)
    st = start(race_state(pos={"purple": "r19l1", "blue": "r23l1", "black": "r40l1"}, hands=[[16, 45], [1, 5], [2, 6], [3, 7]]))
    play(st, 0, 16)
    while st.pending[0] == "move" and st.pending[2][0] != CI["purple"]:
        GAME.apply(st, 0, GAME.legal_actions(st, 0)[0])
    assert space(st, "purple") == "r22l1"


def test_e5_diagonal_yes_sideways_no_full_move_compulsory():
    st = race_state(pos={"blue": "r16l0", "red": "r19l0", "yellow": "r19l1"})
    tr = st.track
    assert {tr.ids[t] for t in tr.succ[tr.index["r16l0"]]} == {"r17l0", "r17l1"}
    assert move_ids(st, "blue", 4) == {"r20l1", "r20l2"}


def test_e6_joker_choices():
    st = start(race_state(pos={"purple": "r20l1", "yellow": "r10l1", "blue": "r5l1", "red": "r30l1",
                               "green": "r30l0", "black": "r30l2"}, hands=[[29, 45], [1, 5], [2, 6], [3, 7]]))
    play(st, 0, 29)
    while st.pending[0] == "move":
        GAME.apply(st, 0, GAME.legal_actions(st, 0)[0])
    assert st.pending[0] == "joker"
    assert {a["car"] for a in GAME.legal_actions(st, 0)} == {"red", "green", "black"}
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(st, 0, {"type": "joker", "car": "blue"})
    assert exc.value.rule.startswith("§4.5")
    GAME.apply(st, 0, {"type": "joker", "car": "green"})
    assert st.pending[0] == "move" and st.pending[2][0] == CI["green"]
    assert dests(st) == {"r32l0", "r32l1", "r32l2"}  # r32l2: the inner curve space via r31l1


def test_e7_joker_on_finished_car():
    st = start(race_state(pos={"purple": "r20l1", "yellow": "r10l1", "blue": "r5l1", "green": "r30l0",
                               "black": "r30l2"}, hands=[[29, 45], [1, 5], [2, 6], [3, 7]]))
    finish_car(st, "red", 1)
    play(st, 0, 29)
    while st.pending[0] == "move":
        GAME.apply(st, 0, GAME.legal_actions(st, 0)[0])
    before = list(st.pos)
    events = GAME.apply(st, 0, {"type": "joker", "car": "red"})
    assert {"type": "lost", "car": "red", "spaces": 2} in events
    assert st.pos[CI["red"]] == -1 and st.place[CI["red"]] == 1
    # then blue moves 1; nothing else moves for the joker slot
    changed = [D.CARS[c] for c in range(NCARS) if st.pos[c] != before[c]]
    assert changed in (["blue"], []) and (changed or st.pending[0] == "move")


def test_e8_spurt():
    st = start(race_state(pos={"red": "r30l1", "blue": "r25l1"}, hands=[[46, 45], [1, 5], [2, 6], [3, 7]]))
    play(st, 0, 46, "spurt")
    assert st.pending[0] == "move" and st.pending[2][0] == CI["blue"]
    assert dests(st) == {"r30l0", "r30l2"}
    assert space(st, "red") == "r30l1"


def test_e9_spurt_stopped_by_cars():
    st = start(race_state(pos={"red": "r26l1", "purple": "r23l1", "green": "r24l1", "blue": "r18l1"},
                          hands=[[46, 45], [1, 5], [2, 6], [3, 7]]))
    play(st, 0, 46, "spurt")
    assert space(st, "blue") == "r22l1"  # the only destination: applied automatically
    st = start(race_state(pos={"red": "r26l1", "purple": "r23l1", "green": "r24l1", "blue": "r18l1",
                               "black": "r22l1"}, hands=[[46, 45], [1, 5], [2, 6], [3, 7]]))
    play(st, 0, 46, "spurt")
    assert dests(st) == {"r21l0", "r21l1", "r21l2"}


def breakdown_state(**extra):
    pos = {"red": "r30l1", "blue": "r25l1", **extra}
    owners = {"red": 1, "blue": 0, "yellow": 2, "black": 3, "purple": 0, "green": 1}
    st = start(race_state(pos=pos, owners=owners, hands=[[46, 43, 44], [1, 5], [2, 6], [4, 7]]))
    play(st, 0, 46, "breakdown")
    return st


def test_e10_breakdown_and_return():
    st = breakdown_state()
    assert st.broken[CI["red"]] == st.track.index["r30l1"] and st.pos[CI["red"]] == -1
    assert GAME.observe(st, None)["cars"]["red"] == {"broken": "r30l1"}
    assert GAME.to_move(st) == 1
    events = play(st, 1, 1)  # red 10: lost while broken
    assert {"type": "lost", "car": "red", "spaces": 10} in events
    assert st.broken[CI["red"]] >= 0
    GAME.apply(st, 2, {"type": "play", "card": 2})
    while GAME.to_move(st) == 2:
        GAME.apply(st, 2, GAME.legal_actions(st, 2)[0])
    GAME.apply(st, 3, {"type": "play", "card": 4})
    while GAME.to_move(st) == 3:
        GAME.apply(st, 3, GAME.legal_actions(st, 3)[0])
    play(st, 0, 43)
    GAME.apply(st, 0, {"type": "joker", "car": "blue"})
    assert "r30l1" in dests(st)
    GAME.apply(st, 0, {"type": "move", "to": "r30l1"})
    # front 31 >= 31: red returns at once, its owner P1 chooses
    assert st.pending[0] == "return" and GAME.to_move(st) == 1
    assert dests(st) == {"r30l0", "r30l2"}
    GAME.apply(st, 1, {"type": "return", "to": "r30l2"})
    assert space(st, "red") == "r30l2" and st.broken[CI["red"]] == -1


def test_e10_return_behind_when_beside_is_full():
    st = breakdown_state(yellow="r30l0", black="r30l2")
    tr = st.track
    a = CI["red"]
    st.pos[CI["blue"]] = tr.index["r30l1"]
    assert {tr.ids[t] for t in return_spaces(st, st.broken[a])} == {"r29l0", "r29l1", "r29l2"}


def test_e11_spurt_breakdown_does_nothing_after_a_finish():
    for mode in ("spurt", "breakdown"):
        st = start(race_state(pos={"black": "r30l1"}, hands=[[47, 45], [1, 5], [2, 6], [3, 8]]))
        finish_car(st, "yellow", 1)
        before = list(st.pos)
        events = play(st, 0, 47, mode)
        assert st.pos == before and all(b == -1 for b in st.broken)
        assert st.discard == [47] and any(e["type"] == "no_effect" for e in events)


def test_e12_finishing_order_is_move_order():
    owners = {"yellow": 0, "red": 1, "black": 2, "blue": 3, "purple": 0, "green": 1}
    st = start(race_state(pos={"yellow": "r59l1", "red": "r62l0", "black": "r58l2"}, owners=owners,
                          hands=[[38, 45], [1, 5], [2, 6], [3, 7]]))
    cash = list(st.cash)
    play(st, 0, 38)
    assert st.place[CI["yellow"]] == 1 and st.place[CI["red"]] == 2
    assert st.cash[0] == cash[0] + 200_000 and st.cash[1] == cash[1] + 150_000
    assert st.pending[0] == "move" and dests(st) == {"r60l0", "r60l1", "r60l2"}


def test_e13_end_of_race_by_position_and_inner_edge():
    owners = {"red": 3, "yellow": 3, "purple": 3, "black": 0, "blue": 1, "green": 2}
    st = race_state(pos={"black": "r41l1", "blue": "r39l2", "green": "r39l0"}, owners=owners)
    for car, place in (("red", 1), ("yellow", 2), ("purple", 3)):
        finish_car(st, car, place)
    cash = list(st.cash)
    start(st)  # nobody has cards: the race (and this 1-race game) ends
    assert GAME.to_move(st) is None
    places = st.results[-1]["places"]
    assert (places["black"], places["blue"], places["green"]) == (4, 5, 6)
    assert [st.cash[p] - cash[p] for p in range(3)] == [60_000, 30_000, 10_000]


def pit_state(**kw):
    owners = {"red": 0, "yellow": 0, "blue": 1, "black": 1, "purple": 2, "green": 2}
    pos = {"red": "r10l0", "yellow": "r20l0", "blue": "r30l0", "black": "r40l0", "purple": "r47l0", "green": "r5l1"}
    return race_state(n=3, pos=pos, owners=owners, pitstop=True, **kw)


def test_e14_pitstop_case_1_claim():
    st = start(pit_state(hands=[[19, 1], [2, 3], [4, 5]]))
    st.box = [44]
    play(st, 0, 19)
    while st.pending[0] == "move":
        GAME.apply(st, 0, GAME.legal_actions(st, 0)[0])
    assert st.pending[0] == "claim" and GAME.to_move(st) == 1
    GAME.apply(st, 1, {"type": "decline"})
    assert st.pending[0] == "claim" and GAME.to_move(st) == 2
    GAME.apply(st, 2, {"type": "pitstop_claim"})
    assert st.reserved[2] == [19] and st.free_pit[2] == 2 and 19 not in st.discard
    assert GAME.to_move(st) == 1 and st.pending[0] == "turn"
    GAME.apply(st, 1, {"type": "play", "card": 2})
    while st.pending[0] == "move":
        GAME.apply(st, 1, GAME.legal_actions(st, 1)[0])
    while st.pending[0] == "claim":
        GAME.apply(st, GAME.to_move(st), {"type": "decline"})
    assert GAME.to_move(st) == 2
    legal = GAME.legal_actions(st, 2)
    assert {"type": "take_reserved", "card": 19} in legal
    assert {"type": "pitstop", "from": "box", "card": 44} in legal
    assert {"type": "pitstop", "from": "discard"} in legal
    assert not any(a["type"] == "play" for a in legal)
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(st, 2, {"type": "play", "card": 4})
    assert exc.value.rule.startswith("§6.1")
    before = list(st.pos)
    GAME.apply(st, 2, {"type": "take_reserved", "card": 19})
    assert 19 in st.hands[2] and st.reserved[2] == [] and st.free_pit[2] == 2
    assert st.pos == before and GAME.to_move(st) == 0


def test_e15_pitstop_case_2_from_the_box():
    st = start(pit_state(hands=[[1, 5], [2, 6], [4, 7]], order=[1, 2, 0]))
    st.box, st.discard = [3, 44, 47], [25]
    st.pending = None
    start(st)
    assert GAME.to_move(st) == 1
    GAME.apply(st, 1, {"type": "pitstop", "from": "box", "card": 44})
    assert 44 in st.hands[1] and st.box == [3, 47] and st.free_pit[1] == 2
    assert st.discard == [25] and st.pending[0] == "turn" and GAME.to_move(st) == 2


def test_e16_pitstop_out_of_cards():
    st = pit_state(order=[1, 2, 0])
    st.free_pit = [0, 1, 0]
    st.discard = [12]
    start(st)
    assert GAME.to_move(st) == 1
    assert GAME.legal_actions(st, 1) == [{"type": "pitstop", "from": "discard"}, {"type": "pass"}]
    GAME.apply(st, 1, {"type": "pass"})
    assert GAME.to_move(st) is None and st.results[-1]["end"] != "5th car finished"
    assert sorted(st.results[-1]["places"].values()) == [1, 2, 3, 4, 5, 6]


def test_e17_tips_settlement():
    owners = {"yellow": 1, "blue": 1, "black": 2, "purple": 3, "red": 2, "green": 0}
    st = race_state(pos={"red": "r50l1", "green": "r40l1"}, owners=owners, tips=True)
    for car, place in (("yellow", 1), ("blue", 2), ("black", 3), ("purple", 4)):
        finish_car(st, car, place)
    st.tip_marks[0] = [CI["blue"], CI["red"], CI["blue"]]
    cash0 = st.cash[0]
    start(st)
    result = st.results[-1]
    assert result["places"]["blue"] == 2 and result["places"]["red"] == 5
    assert result["tip_net"][0] == 60_000 - 20_000 + 20_000 == 60_000
    assert st.cash[0] == cash0 + 10_000 + 60_000  # green 6th, plus the tips


def test_e18_share_trade():
    st = GAME.setup(4, 5, {"shares": True})
    st.trade_queue = []
    st.pending = ("trade", 0, None)
    st.legal = trade_options(tuple(st.holdings[0]))
    GAME.apply(st, 0, {"type": "trade", "sell": ["purple", "black"], "buy": ["blue", "blue"]})
    apply_trades(st, [])
    assert {c: st.holdings[0][CI[c]] for c in D.CARS} == {
        "red": 5, "yellow": 5, "blue": 7, "black": 4, "purple": 4, "green": 5}
    assert sum(st.holdings[0]) == 30 and st.cash[0] == 200_000


def test_e18_trade_limits():
    assert len(trade_options((5,) * 6)) == 271
    legal = trade_options((15, 15, 0, 0, 0, 0))
    assert all(a["sell"][0] in ("red", "yellow") and a["sell"][1] in ("red", "yellow") for a in legal)
    for a in legal:
        h = [15, 15, 0, 0, 0, 0]
        for c in a["sell"]:
            h[CI[c]] -= 1
        for c in a["buy"]:
            h[CI[c]] += 1
        assert max(h) <= 15 and min(h) >= 0


def test_e19_share_payout():
    st = race_state(pos={"green": "r40l1"}, shares=True)
    st.owner = [-1] * NCARS
    for place, car in enumerate(D.CARS[:5], start=1):
        finish_car(st, car, place)
    st.holdings[0] = [8, 3, 7, 4, 4, 4]
    st.cash[0] = 160_000
    start(st)
    assert st.results[-1]["share_payout"][0] == 3_150_000
    assert st.cash[0] == 3_310_000


def test_e20_dealing_at_5_players():
    st = GAME.setup(5, 11, {})
    assert [len(h) for h in st.hands] == [9] * 5
    dealt = {c for h in st.hands for c in h}
    out = set(D.ALL_CARDS) - dealt
    assert len(out) == 3 and st.box == [] and st.discard == []
    rng = random.Random(3)
    while GAME.to_move(st) is not None and st.race == 0:
        seat = GAME.to_move(st)
        for viewer in (None, *range(5)):
            obs = GAME.observe(st, viewer)
            seen = set(obs.get("hand", [])) | set(obs["discard"]) | set(obs["box"])
            assert not seen & out
        legal = GAME.legal_actions(st, seat)
        GAME.apply(st, seat, legal[rng.randrange(len(legal))])
    pit = GAME.setup(5, 11, {"pitstop": True})
    assert [len(h) for h in pit.hands] == [8] * 5 and len(pit.box) == 8


# --- movement and blocking on every track ---------------------------------------------------------
@pytest.mark.parametrize("track_id,car_at,blocker_at,expected", [
    ("speed_street", "r19l1", "r23l1", {"r22l1"}),
    ("lake_lane", "r13l1", "r17l1", {"r16l1"}),
    ("desert_drive", "r9l1", "r13l1", {"r12l1"}),
    ("turbo_town", "r21l1", "r25l1", {"r24l1"}),
])
def test_chicane_blocking_on_every_track(track_id, car_at, blocker_at, expected):
    st = race_state(pos={"purple": car_at, "blue": blocker_at}, track=track_id)
    assert move_ids(st, "purple", 5) == expected
    st.pos[CI["blue"]] = -1  # the blocker gone: the full move goes through the chicane
    full = move_ids(st, "purple", 5)
    assert full and expected.isdisjoint(full)


@pytest.mark.parametrize("track_id,start_at,successors", [
    ("speed_street", "r32l1", {"r32l2", "r33l0", "r33l1"}),  # curve R: inner lane 2
    ("lake_lane", "r6l1", {"r6l0", "r7l1", "r7l2"}),  # curve L: inner lane 0
    ("desert_drive", "r37l1", {"r37l0", "r38l1", "r38l2"}),  # curve L
    ("turbo_town", "r16l0", {"r16l1", "r17l0"}),  # 2-lane curve R: inner lane 1
    ("lake_lane", "r11l2", {"r12l1"}),  # the track narrows to lanes 0-1
])
def test_curve_and_narrowing_steps_on_every_track(track_id, start_at, successors):
    tr = D.get_track(track_id)
    assert {tr.ids[t] for t in tr.succ[tr.index[start_at]]} == successors


@pytest.mark.parametrize("track_id", D.TRACK_IDS)
def test_finish_and_full_blockade_on_every_track(track_id):
    tr = D.get_track(track_id)
    last_row = tr.finish - 1
    lane = next(tr.lane[s] for s in range(len(tr.ids)) if tr.back[s] == last_row)
    st = race_state(pos={"red": f"r{last_row}l{lane}"}, track=track_id)
    assert move_ids(st, "red", 1) is None  # crossing the line
    # a car whose every successor is occupied cannot move at all
    s = tr.index["r5l1"]
    blockers = [tr.ids[t] for t in tr.succ[s]]
    pos = {"green": "r5l1"}
    pos.update(zip(["red", "yellow", "blue"], blockers))
    st = race_state(pos=pos, track=track_id)
    assert move_ids(st, "green", 3) == set()


def test_narrowing_blockade_lake_lane():
    st = race_state(pos={"red": "r11l2", "blue": "r12l1"}, track="lake_lane")
    assert move_ids(st, "red", 4) == set()


# --- auction, options, turns ----------------------------------------------------------------------
def test_bad_options_are_refused():
    with pytest.raises(BadOptions):
        GAME.setup(4, 1, {"tips": True, "shares": True})
    with pytest.raises(BadOptions):
        GAME.setup(4, 1, {"tracks": ["monza"]})
    with pytest.raises(BadOptions):
        GAME.setup(7, 1, {})
    with pytest.raises(BadOptions):
        GAME.setup(4, 1, {"races": 2, "tracks": ["lake_lane"]})
    st = GAME.setup(3, 1, {"races": 2, "tracks": ["lake_lane", "turbo_town"]})
    assert st.track.id == "lake_lane"


def test_start_player_is_the_first_auction_winner_and_money_carries_over():
    st = GAME.setup(3, 9, {"races": 2})
    first = st.first_opener
    win_auction(st, (first + 1) % 3)
    assert st.start_player == (first + 1) % 3
    rng = random.Random(0)
    while st.race == 0:
        seat = GAME.to_move(st)
        legal = GAME.legal_actions(st, seat)
        GAME.apply(st, seat, legal[rng.randrange(len(legal))])
    assert st.first_opener == (first + 1) % 3  # A17: the opener rotates
    assert st.cash == st.results[0]["cash"]  # no new capital
    assert all(o == -1 for o in st.owner) and st.phase == "auction"


def test_basic_ranking_tie_break_by_best_car():
    st = GAME.setup(2, 1, {"races": 1})
    st.results = [{"places": {"red": 1, "yellow": 2, "blue": 3, "black": 4, "purple": 5, "green": 6},
                   "owners": {"red": 1, "yellow": 0, "blue": 0, "black": 0, "purple": 0, "green": 1}}]
    st.cash = [300_000, 300_000]
    assert GAME.outcome(st).ranks == [1, 0]


def test_shares_ranking_tie_break_by_shares_of_the_winner():
    st = GAME.setup(3, 1, {"shares": True})
    st.results = [{"places": {c: i + 1 for i, c in enumerate(D.CARS)}}]
    st.cash = [500_000, 500_000, 400_000]
    st.last_holdings = [[5, 6, 4, 5, 5, 5], [6, 4, 5, 5, 5, 5], [5] * 6]
    st.last_order = [0, 1, 2]
    assert GAME.outcome(st).ranks == [1, 0, 2]
    st.last_holdings = [[5] * 6] * 3
    assert GAME.outcome(st).ranks[:2] == [1, 0]  # identical: later in turn order ranks higher


def test_shares_offer_auction_sets_turn_order_and_grid():
    st = GAME.setup(4, 2, {"shares": True})
    assert sorted(st.pos) == sorted(st.track.start_spaces.values())  # grid from the car cards
    assert len(st.offer) == 4 and {46, 47, 48} <= set(st.offer)
    assert [len(h) for h in st.hands] == [11] * 4
    rng = random.Random(1)
    while st.phase == "offer_auction":
        seat = GAME.to_move(st)
        legal = GAME.legal_actions(st, seat)
        GAME.apply(st, seat, legal[rng.randrange(len(legal))])
    assert sorted(st.order) == [0, 1, 2, 3] and [len(h) for h in st.hands] == [12] * 4
    assert st.offer == []


def test_shares_two_players_each_get_two_offer_cards():
    for seed in range(10):
        st = GAME.setup(2, seed, {"shares": True})
        rng = random.Random(seed)
        while st.phase == "offer_auction":
            seat = GAME.to_move(st)
            legal = GAME.legal_actions(st, seat)
            GAME.apply(st, seat, legal[rng.randrange(len(legal))])
        assert [len(h) for h in st.hands] == [24, 24] and st.offer_won.count(2) >= 1


def test_tip_rounds_are_held_after_a_line_is_crossed():
    st = start(race_state(pos={"red": "r24l1"}, hands=[[1, 45], [2, 5], [3, 6], [4, 7]], tips=True))
    play(st, 0, 1)  # red 10 crosses tip line 1 (26)
    while st.pending[0] == "move":
        GAME.apply(st, 0, GAME.legal_actions(st, 0)[0])
    assert st.pending[0] == "tip" and st.pending[2] == 1
    for seat in range(4):
        assert GAME.to_move(st) == seat
        events = GAME.apply(st, seat, {"type": "tip", "car": "red"})
        assert all("car" not in e for e in events if e["type"] == "tip")
    assert st.tip_marks == [[CI["red"], -1, -1]] * 4 and st.pending[0] == "turn"


# --- illegal actions ---------------------------------------------------------------------------
def test_illegal_actions_name_the_rule():
    st = GAME.setup(4, 1, {})
    seat = GAME.to_move(st)
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(st, (seat + 1) % 4, {"type": "bid", "amount": 10_000})
    assert exc.value.rule.startswith("§9")
    for bad in ({"type": "bid", "amount": 15_000}, {"type": "bid", "amount": 10_000_000}):
        with pytest.raises(IllegalAction) as exc:
            GAME.apply(st, seat, bad)
        assert exc.value.rule.startswith("§4.1")
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(st, seat, {"type": "pass"})
    assert "opener" in exc.value.rule
    st = start(race_state(pos={"red": "r1l2"}, hands=[[19, 46], [1], [2], [3]]))
    with pytest.raises(IllegalAction) as exc:
        play(st, 0, 1)
    assert exc.value.rule.startswith("§4.2")
    with pytest.raises(IllegalAction) as exc:
        play(st, 0, 46)
    assert exc.value.rule.startswith("§4.3")
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(st, 0, {"type": "pass"})
    assert exc.value.rule.startswith("§4.2")
    play(st, 0, 19)
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(st, 0, {"type": "move", "to": "r5l1"})  # shorter than the full move
    assert exc.value.rule.startswith("§4.4")
    snapshot = GAME.clone(st)
    with pytest.raises(IllegalAction):
        GAME.apply(st, 0, "move")
    assert st.pos == snapshot.pos and st.pending == snapshot.pending  # a refusal changes nothing


# --- information ------------------------------------------------------------------------------------
def scramble_hidden(st, viewer, rng):
    """A copy that differs from ``st`` only in what ``viewer`` may not know."""
    other = GAME.clone(st)
    seats = [p for p in range(st.n) if p != viewer]
    visible = set(st.discard) | set(st.box) | set(st.offer) | {c for r in st.reserved for c in r} | {st.card}
    if viewer is not None:
        visible |= set(st.hands[viewer])
    pool = [c for c in D.ALL_CARDS if c not in visible]  # others' hands and cards out of the race
    rng.shuffle(pool)
    for p in seats:
        k = len(st.hands[p])
        other.hands[p], pool = sorted(pool[:k]), pool[k:]
        if st.tips:
            other.tip_marks[p] = [rng.randrange(6) if m >= 0 else -1 for m in st.tip_marks[p]]
        if st.shares:
            h = list(st.holdings[p])
            rng.shuffle(h)
            other.holdings[p] = h
        if p in st.trades:
            other.trades[p] = (["red", "red"], ["green", "green"])
    return other


@pytest.mark.parametrize("options", [{}, {"pitstop": True}, {"tips": True}, {"shares": True},
                                     {"shares": True, "pitstop": True}, {"tips": True, "pitstop": True}])
def test_no_observation_leaks_hidden_information(options):
    rng = random.Random(42)
    checked = 0
    for seed in range(6):
        st = GAME.setup(5, seed, dict(options, races=1))
        step = 0
        while GAME.to_move(st) is not None:
            if step % 7 == 0:
                for viewer in (None, *range(st.n)):
                    other = scramble_hidden(st, viewer, rng)
                    assert json.dumps(GAME.observe(st, viewer), sort_keys=True) == \
                        json.dumps(GAME.observe(other, viewer), sort_keys=True)
                    checked += 1
            seat = GAME.to_move(st)
            legal = GAME.legal_actions(st, seat)
            GAME.apply(st, seat, legal[rng.randrange(len(legal))])
            step += 1
    assert checked > 100


def test_own_private_information_is_shown_to_its_seat():
    st = GAME.setup(4, 1, {"shares": True})
    obs = GAME.observe(st, 2)
    assert obs["hand"] == st.hands[2] and obs["holdings"] == {c: 5 for c in D.CARS}
    assert "hand" not in GAME.observe(st, None) and "holdings" not in GAME.observe(st, None)


# --- built-in bots -----------------------------------------------------------------------------------
def test_heuristic_beats_random_clearly():
    from engines.versus import versus

    result = versus("top_race", ["heuristic", "random", "random", "random"], games=120, seed=5)
    assert result["bots"]["heuristic"]["average_place"] < 1.5
    assert result["bots"]["random"]["average_place"] > 2.6


def test_heuristic_plays_every_variant():
    from engines.versus import versus

    for options in ({"pitstop": True, "races": 1}, {"tips": True, "races": 1}, {"shares": True},
                    {"shares": True, "pitstop": True}):
        result = versus("top_race", ["heuristic", "random", "random"], games=12, seed=1, options=options)
        assert result["bots"]["heuristic"]["average_place"] < result["bots"]["random"]["average_place"]


# --- copies, command line ------------------------------------------------------------------------------
def test_clone_is_independent_and_replays_identically():
    st = GAME.setup(4, 21, {"pitstop": True, "races": 1})
    rng = random.Random(2)
    for _ in range(60):
        seat = GAME.to_move(st)
        legal = GAME.legal_actions(st, seat)
        GAME.apply(st, seat, legal[rng.randrange(len(legal))])
    copy = GAME.clone(st)
    before = json.dumps(GAME.observe(st, None), sort_keys=True)
    r1, r2 = random.Random(9), random.Random(9)
    while GAME.to_move(copy) is not None:
        seat = GAME.to_move(copy)
        legal = GAME.legal_actions(copy, seat)
        GAME.apply(copy, seat, legal[r1.randrange(len(legal))])
    assert json.dumps(GAME.observe(st, None), sort_keys=True) == before  # the original is untouched
    while GAME.to_move(st) is not None:
        seat = GAME.to_move(st)
        legal = GAME.legal_actions(st, seat)
        GAME.apply(st, seat, legal[r2.randrange(len(legal))])
    assert GAME.outcome(st).to_dict() == GAME.outcome(copy).to_dict()


def test_command_line_play_and_replay(tmp_path, capsys):
    from engines.cli import main

    log = tmp_path / "log.json"
    assert main(["play", "--game", "top_race", "--bots", "heuristic", "random", "random", "--seed", "4",
                 "--options", '{"tips": true, "races": 1}', "--log", str(log)]) == 0
    assert main(["replay", str(log)]) == 0
    assert "replay ok" in capsys.readouterr().out


def test_participation_after_all_own_cars_finished():
    owners = {"red": 0, "yellow": 1, "blue": 2, "black": 3, "purple": 1, "green": 2}
    hands = [[1, 5], [2, 6], [3, 7], [4, 8]]
    # basic game: seat 0 (red finished) drops out and is skipped, though it holds cards
    st = race_state(pos={}, owners=owners, hands=hands)
    finish_car(st, "red", 1)
    start(st)
    assert GAME.to_move(st) == 1
    # Tips: seat 0 stays in and may play or pass; seats with cars on the track may not pass
    st = race_state(pos={}, owners=owners, hands=hands, tips=True)
    finish_car(st, "red", 1)
    start(st)
    assert GAME.to_move(st) == 0 and {"type": "pass"} in GAME.legal_actions(st, 0)
    GAME.apply(st, 0, {"type": "pass"})
    assert GAME.to_move(st) == 1 and {"type": "pass"} not in GAME.legal_actions(st, 1)


def test_share_round_follows_each_complete_race_round():
    st = race_state(n=3, pos={}, hands=[[1, 5, 9], [2, 6, 10], [3, 7, 11]], shares=True)
    st.owner = [-1] * NCARS
    start(st)
    for seat in (0, 1, 2):
        assert GAME.to_move(st) == seat and st.pending[0] == "turn"
        GAME.apply(st, seat, GAME.legal_actions(st, seat)[0])
        while st.pending[0] == "move":
            GAME.apply(st, seat, GAME.legal_actions(st, seat)[0])
    for seat in (0, 1, 2):
        assert st.pending[0] == "trade" and GAME.to_move(st) == seat
        GAME.apply(st, seat, {"type": "trade", "sell": ["red", "yellow"], "buy": ["green", "green"]})
    assert all(h == [4, 4, 5, 5, 5, 7] for h in st.holdings)
    assert st.pending[0] == "turn" and GAME.to_move(st) == 0
