"""Catan: the worked examples of §11 of the rules, board tables, Longest Road, illegal actions, leaks."""
from __future__ import annotations

import json
import random

import pytest

from engines.catan import GAME, data as D
from engines.catan.rules import (BUILD, DISCARD, GAME_OVER, KN, MOVE_ROBBER, PHASE_NAMES, PRE_ROLL, SPECIAL_BUILD,
                                 TRADE, TRADE_DECIDE, TRADE_RESPOND, VPC)
from engines.core import BadOptions, IllegalAction

RES = D.RESOURCES
RED, BLUE, WHITE, ORANGE = 0, 1, 2, 3


class Dice(random.Random):
    """An RNG whose die rolls are given; everything else stays seeded."""

    def __init__(self, dice, seed=0):
        super().__init__(seed)
        self.dice = list(dice)

    def randint(self, a, b):
        return self.dice.pop(0) if self.dice else super().randint(a, b)


def preset(n=4):
    return GAME.setup(n, 1, {"board": "beginner", "start_positions": "beginner_preset"})


def empty(n=4, phase=BUILD, seat=0, **options):
    """A beginner board after set-up with nothing built: seat ``seat`` on turn in ``phase``."""
    opts = {"board": "beginner"} if n <= 4 and "scenario" not in options else {}
    opts.update(options)
    st = GAME.setup(n, 1, opts)
    st.phase, st.active, st.to_act = phase, seat, seat
    st.built = phase == BUILD
    return st


def put(st, seat, settlements=(), roads=(), cities=()):
    for v in settlements:
        GAME._put_settlement(st, seat, v)
    for v in cities:
        GAME._put_settlement(st, seat, v)
        st.bld_kind[v] = 2
        st.supply[seat][0] += 1
        st.supply[seat][1] -= 1
    for e in roads:
        GAME._put_road(st, seat, e)
    for s in range(st.n):
        st.road_len[s] = GAME.road_length(st, s)


def give(st, seat, **cards):
    for r, c in cards.items():
        i = D.RES_INDEX[r]
        st.hands[seat][i] += c
        st.bank[i] -= c


def hand(st, seat):
    return {RES[i]: c for i, c in enumerate(st.hands[seat]) if c}


def bank(st):
    return dict(zip(RES, st.bank))


def roll(st, d1, d2):
    st.rng = Dice([d1, d2])
    return GAME.apply(st, st.active, {"type": "roll"})


def types(st, seat=None):
    seat = st.to_act if seat is None else seat
    return {a["type"] for a in GAME.legal_actions(st, seat)}


def legal_of(st, kind, key, seat=None):
    seat = st.to_act if seat is None else seat
    return sorted(a[key] for a in GAME.legal_actions(st, seat) if a["type"] == kind)


# --- board tables (§2.5-§2.12) ---------------------------------------------------------------------
def test_board_sizes_and_sample_ids():
    b = D.BOARD_SMALL
    assert (b.num_hexes, b.num_vertices, b.num_edges) == (19, 54, 72)
    assert b.hex_vertices[0] == (0, 4, 8, 12, 7, 3) and b.hex_edges[0] == (1, 7, 12, 11, 6, 0)
    assert b.hex_vertices[18] == (41, 46, 50, 53, 49, 45) and b.hex_edges[18] == (60, 65, 71, 70, 64, 59)
    assert b.edge_vertices[24] == (16, 22) and b.edge_vertices[71] == (50, 53)
    assert b.vertex_hexes[23] == (4, 8, 9)
    assert [s[3] for s in b.harbour_slots] == [(1, 5), (10, 15), (26, 32), (42, 46), (49, 52), (47, 51),
                                               (33, 38), (11, 16), (0, 3)]
    assert b.spiral_orders[11] == (11, 6, 2, 1, 0, 3, 7, 12, 16, 17, 18, 15, 10, 5, 4, 8, 13, 14, 9)
    big = D.BOARD_LARGE
    assert (big.num_hexes, big.num_vertices, big.num_edges) == (30, 80, 109)
    assert [s[3] for s in big.harbour_slots][2:6] == [(39, 46), (58, 63), (68, 72), (75, 78)]


def test_variable_board_is_seeded_and_spiral_has_no_adjacent_reds():
    for seed in range(30):
        st = GAME.setup(4, seed)
        assert sorted(k for k in st.hex_num if k) == sorted(D.TOKENS_SMALL)
        assert st.hex_res[st.robber] == -1 and st.hex_num[st.robber] == 0
        for h in range(19):
            for g in D.BOARD_SMALL.hex_neighbours[h]:
                assert not (st.hex_num[h] in (6, 8) and st.hex_num[g] in (6, 8))
        assert sorted(st.harbour_types) == sorted(D.HARBOUR_TYPES_SMALL)
        again = GAME.setup(4, seed)
        assert again.hex_num == st.hex_num and again.deck == st.deck
    st = GAME.setup(6, 3, {"numbers": "random"})
    assert sorted(k for k in st.hex_num if k) == sorted(D.TOKENS_LARGE) and len(st.deck) == 34
    assert st.bank == [24] * 5


def test_bad_options_refused():
    with pytest.raises(BadOptions):
        GAME.setup(2, 0)
    with pytest.raises(BadOptions):
        GAME.setup(5, 0, {"board": "beginner"})
    with pytest.raises(BadOptions):
        GAME.setup(4, 0, {"start_positions": "beginner_preset"})
    with pytest.raises(BadOptions):
        GAME.setup(4, 0, {"scenario": "helpers"})


# --- §11 worked examples ---------------------------------------------------------------------------
def test_11_1_roll_of_3():
    st = preset()
    assert bank(st) == {"lumber": 15, "brick": 18, "wool": 18, "grain": 16, "ore": 16}
    assert st.robber == 9 and st.phase == PRE_ROLL and st.to_act == RED
    before = [dict(hand(st, s)) for s in range(4)]
    roll(st, 1, 2)
    assert hand(st, WHITE) == {"lumber": 2, "wool": 1, "ore": 1}
    assert hand(st, BLUE) == {"lumber": 1, "brick": 1, "ore": 2}
    assert hand(st, ORANGE) == {"grain": 2, "ore": 2}
    assert hand(st, RED) == before[RED]
    assert st.bank[0] == 14 and st.bank[4] == 14
    assert PHASE_NAMES[st.phase] == "TRADE"


def test_11_2a_preset_starting_resources():
    st = preset()
    assert hand(st, BLUE) == {"lumber": 1, "brick": 1, "ore": 1}
    assert hand(st, ORANGE) == {"grain": 2, "ore": 1}
    three = preset(3)  # red stays in the box: seats are blue, white, orange
    assert three.colours == ["blue", "white", "orange"] and hand(three, 0) == {"lumber": 1, "brick": 1, "ore": 1}


def test_11_2b_second_settlement_resources_in_setup_phase():
    st = GAME.setup(4, 5, {"board": "beginner"})
    plan = {0: [0, 53], 1: [2, 39], 2: [10, 47], 3: [20, 40]}
    placed = {s: 0 for s in range(4)}
    while st.phase == 0:
        seat = st.to_act
        v = plan[seat][placed[seat]]
        placed[seat] += 1
        GAME.apply(st, seat, {"type": "place_settlement", "vertex": v})
        if placed[seat] == 1:
            assert sum(st.hands[seat]) == 0  # the first settlement gives nothing
        GAME.apply(st, seat, GAME.legal_actions(st, seat)[0])
    assert hand(st, BLUE) == {"lumber": 1, "brick": 1, "ore": 1}
    assert hand(st, ORANGE) == {"grain": 2, "ore": 1}
    assert st.phase == PRE_ROLL and st.to_act == 0


def _fixture_11_3():
    st = empty(phase=PRE_ROLL)
    st.hex_num[6], st.hex_num[15] = st.hex_num[15], st.hex_num[6]
    assert (st.hex_num[6], st.hex_num[15]) == (5, 10)
    st.num_hexes = {}
    for h, k in enumerate(st.hex_num):
        if k:
            st.num_hexes[k] = st.num_hexes.get(k, ()) + (h,)
    put(st, RED, settlements=[20, 32])
    put(st, WHITE, settlements=[31])
    return st


def test_11_3a_roll_8_two_settlements_on_one_hex():
    st = _fixture_11_3()
    roll(st, 4, 4)
    assert hand(st, RED) == {"ore": 2} and hand(st, WHITE) == {"ore": 1}


def test_11_3b_roll_10():
    st = _fixture_11_3()
    roll(st, 5, 5)
    assert hand(st, WHITE) == {"wool": 1} and hand(st, RED) == {}


def test_11_3c_city_gets_two():
    st = _fixture_11_3()
    st.bld_kind[31] = 2
    roll(st, 6, 4)
    assert hand(st, WHITE) == {"wool": 2}


def test_11_4_only_adjacent_buildings_produce():
    st = preset()
    before = [list(h) for h in st.hands]
    roll(st, 3, 5)
    gained = [[st.hands[s][r] - before[s][r] for r in range(5)] for s in range(4)]
    assert gained[WHITE] == [0, 0, 0, 0, 1]
    assert gained[RED] == [1, 0, 0, 0, 0]
    assert gained[BLUE] == [1, 0, 0, 0, 0]
    assert gained[ORANGE] == [0] * 5


def test_11_5_discarding_on_a_7():
    st = empty(phase=PRE_ROLL)
    give(st, 0, lumber=3)
    give(st, 1, brick=5, ore=4)
    give(st, 2, wool=7)
    st.devs[2][KN] = 2
    give(st, 3, grain=8)
    bank_before = list(st.bank)
    roll(st, 3, 4)
    assert st.phase == DISCARD and st.discard_owed == {1: 4, 3: 4} and st.bank == bank_before
    assert st.to_act == 1 and types(st) == {"discard"}
    for _ in range(4):
        GAME.apply(st, 1, {"type": "discard", "resource": "brick"})
    assert st.to_act == 3
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, 3, {"type": "discard", "resource": "ore"})
    assert "§4.3" in err.value.rule
    for _ in range(4):
        GAME.apply(st, 3, {"type": "discard", "resource": "grain"})
    assert sum(st.hands[1]) == 5 and sum(st.hands[3]) == 4 and sum(st.hands[2]) == 7
    assert st.phase == MOVE_ROBBER and st.to_act == 0 and types(st) == {"move_robber"}


def test_11_6_robber_blocks_production():
    st = preset()
    st.robber = 13
    before = [list(h) for h in st.hands]
    roll(st, 2, 1)
    assert st.hands[WHITE][0] == before[WHITE][0] + 1
    assert st.hands[BLUE] == before[BLUE] and st.hands[ORANGE] == before[ORANGE]


def test_11_7_moving_the_robber_and_stealing():
    st = preset()
    st.hands = [[0, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0] * 5, [0, 0, 0, 0, 1]]
    roll(st, 3, 4)
    assert st.phase == MOVE_ROBBER
    moves = {(a["hex"], a["victim"]) for a in GAME.legal_actions(st, RED)}
    assert {(13, BLUE), (13, ORANGE), (16, BLUE), (0, None)} <= moves
    assert not any(h == 9 for h, _ in moves) and (13, None) not in moves
    assert (16, WHITE) not in moves
    GAME.apply(st, RED, {"type": "move_robber", "hex": 13, "victim": ORANGE})
    assert sum(st.hands[ORANGE]) == 0 and hand(st, RED) == {"ore": 1}
    assert st.robber == 13 and st.phase == TRADE


def test_11_8_maritime_trade_rates():
    st = empty(phase=TRADE)
    put(st, RED, settlements=[1, 26])
    give(st, RED, grain=2, ore=3, wool=3)
    legal = [a for a in GAME.legal_actions(st, RED) if a["type"] == "maritime_trade"]
    assert len(legal) == 12
    assert {(a["give"], a["rate"]) for a in legal} == {("grain", 2), ("ore", 3), ("wool", 3)}
    GAME.apply(st, RED, {"type": "maritime_trade", "give": "ore", "rate": 3, "get": "brick"})
    assert st.hands[RED][4] == 0 and st.hands[RED][1] == 1
    without = empty(phase=TRADE)
    put(without, RED, settlements=[1])
    give(without, RED, grain=2, ore=3, wool=3)
    legal = [a for a in GAME.legal_actions(without, RED) if a["type"] == "maritime_trade"]
    assert {a["give"] for a in legal} == {"grain"}
    with pytest.raises(IllegalAction) as err:
        GAME.apply(without, RED, {"type": "maritime_trade", "give": "ore", "rate": 3, "get": "brick"})
    assert "§4.4" in err.value.rule


def test_11_9_domestic_trade_only_with_the_player_on_turn():
    st = preset()
    roll(st, 6, 6)  # 12: fields on hex 3, nobody there
    assert hand(st, RED) == {"lumber": 2, "grain": 1}
    proposals = [a for a in GAME.legal_actions(st, RED) if a["type"] == "propose_trade"]
    assert all(a["give"] and a["get"] and not set(a["give"]) & set(a["get"]) for a in proposals)
    GAME.apply(st, RED, {"type": "propose_trade", "give": {"lumber": 1}, "get": {"brick": 1}})
    assert st.phase == TRADE_RESPOND and st.to_act == BLUE
    assert "accept_trade" in types(st)
    for a in GAME.legal_actions(st, BLUE):
        assert set(a) <= {"type", "give", "get"}  # no action names another seat
    GAME.apply(st, BLUE, {"type": "accept_trade"})
    for seat in (WHITE, ORANGE):
        assert st.to_act == seat
        assert "accept_trade" not in types(st) and {"reject_trade", "counter_trade"} <= types(st)
        GAME.apply(st, seat, {"type": "reject_trade"})
    assert st.phase == TRADE_DECIDE and st.to_act == RED
    GAME.apply(st, RED, {"type": "confirm_trade", "seat": BLUE})
    assert hand(st, RED) == {"lumber": 1, "brick": 1, "grain": 1}
    assert hand(st, BLUE) == {"lumber": 2, "ore": 1}
    assert st.phase == TRADE


def test_11_10_longest_road_broken_by_a_settlement():
    st = empty(phase=BUILD)
    put(st, ORANGE, settlements=[16, 51], roads=[24, 34, 41, 50, 56, 63, 67])
    put(st, RED, settlements=[4], roads=[7, 12, 19, 26, 35, 42, 27])
    GAME._update_longest_road(st, [])
    assert st.road_len[ORANGE] == 7 and st.road_len[RED] == 6 and st.lr_holder == ORANGE
    vp_red, vp_orange = GAME.vp(st, RED), GAME.vp(st, ORANGE)
    give(st, RED, lumber=1, brick=1, wool=1, grain=1)
    GAME.apply(st, RED, {"type": "build_settlement", "vertex": 34})
    assert st.road_len[ORANGE] == 4 and st.road_len[RED] == 6
    assert st.lr_holder == RED
    assert GAME.vp(st, RED) == vp_red + 1 + 2 and GAME.vp(st, ORANGE) == vp_orange - 2


def test_11_11_road_next_to_an_opponent_settlement():
    st = empty(phase=BUILD, seat=ORANGE)
    put(st, ORANGE, settlements=[16], roads=[24, 34])
    put(st, BLUE, settlements=[28], roads=[41])
    give(st, ORANGE, lumber=1, brick=1)
    assert legal_of(st, "build_road", "edge") == [18, 23, 25]
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, ORANGE, {"type": "build_road", "edge": 40})
    assert "§4.5" in err.value.rule


def test_11_12_distance_rule_own_settlements_too():
    st = empty(phase=BUILD, seat=ORANGE)
    put(st, ORANGE, settlements=[16], roads=[24, 34, 41])
    put(st, WHITE, settlements=[39], roads=[55])
    give(st, ORANGE, lumber=1, brick=1, wool=1, grain=1)
    assert legal_of(st, "build_settlement", "vertex") == [28]
    for v in (22, 34):
        with pytest.raises(IllegalAction) as err:
            GAME.apply(st, ORANGE, {"type": "build_settlement", "vertex": v})
        assert err.value.rule == "§4.5 distance rule"


def test_11_13_city_upgrade():
    st = empty(phase=BUILD)
    put(st, RED, settlements=[0, 10, 27])
    give(st, RED, ore=3, grain=2)
    bank_before, vp_before = list(st.bank), GAME.vp(st, RED)
    assert st.supply[RED][:2] == [2, 4]
    GAME.apply(st, RED, {"type": "build_city", "vertex": 10})
    assert st.supply[RED][:2] == [3, 3] and GAME.vp(st, RED) == vp_before + 1
    assert sum(st.hands[RED]) == 0 and st.bank[4] == bank_before[4] + 3 and st.bank[3] == bank_before[3] + 2
    assert st.bld_kind[10] == 2


def test_11_14_piece_limit():
    st = empty(phase=BUILD)
    put(st, RED, settlements=[0, 2, 20, 38, 53], roads=[22, 21])  # road 15-20-25... gives a free spot
    give(st, RED, lumber=1, brick=1, wool=1, grain=1)
    assert st.supply[RED][0] == 0
    assert GAME._settlement_spots(st, RED)  # the distance rule would allow one
    assert "build_settlement" not in types(st)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, RED, {"type": "build_settlement", "vertex": GAME._settlement_spots(st, RED)[0]})
    assert "§4.5 piece limits" == err.value.rule


def test_11_15_dev_card_not_playable_the_turn_it_is_bought():
    st = empty(phase=BUILD)
    put(st, RED, settlements=[0])
    give(st, RED, wool=1, grain=1, ore=1)
    st.deck[-1] = KN
    GAME.apply(st, RED, {"type": "buy_dev_card"})
    assert st.devs[RED][KN] == 1 and "play_knight" not in types(st)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, RED, {"type": "play_knight"})
    assert "§4.6" in err.value.rule
    GAME.apply(st, RED, {"type": "end_turn"})
    for seat in (1, 2, 3):  # the others roll and end
        st.rng = Dice([1, 1])
        GAME.apply(st, seat, {"type": "roll"})
        GAME.apply(st, seat, {"type": "end_turn"})
    assert st.active == RED and st.phase == PRE_ROLL
    assert "play_knight" in types(st)


def test_11_16_largest_army():
    st = empty(phase=TRADE)
    st.knights[RED] = 2
    st.devs[RED][KN] = 1
    vp = GAME.vp(st, RED)
    GAME.apply(st, RED, {"type": "play_knight"})
    assert st.knights[RED] == 3 and st.la_holder == RED and GAME.vp(st, RED) == vp + 2
    assert st.phase == MOVE_ROBBER
    GAME.apply(st, RED, GAME.legal_actions(st, RED)[0])
    assert st.phase == TRADE  # back to the phase the knight was played in


def test_11_17_winning_with_hidden_vp_cards():
    st = empty(phase=BUILD)
    put(st, RED, settlements=[0, 6, 47, 53])
    st.lr_holder = st.la_holder = RED
    st.devs[RED][VPC] = 1
    assert GAME.vp(st, RED, hidden=False) == 8 and GAME.vp(st, RED) == 9
    give(st, RED, wool=1, grain=1, ore=1)
    st.deck[-1] = VPC
    events = GAME.apply(st, RED, {"type": "buy_dev_card"})
    assert st.phase == GAME_OVER and GAME.to_move(st) is None
    assert events[-1]["type"] == "game_over" and events[-1]["vp_cards"][RED] == 2
    out = GAME.outcome(st)
    assert out.ranks[RED] == 0 and out.scores[RED] == 10 and all(r > 0 for r in out.ranks[1:])
    assert GAME.observe(st, 1)["revealed"]["0"]["dev_cards"] == {"victory_point": 2}


def test_10_9_off_turn_ten_points_wins_at_own_turn_start():
    st = empty(phase=TRADE)
    put(st, BLUE, settlements=[0, 6, 47, 53])
    st.lr_holder = st.la_holder = BLUE  # 8 + 2 VP cards = 10, but it is red's turn
    st.devs[BLUE][VPC] = 2
    GAME.apply(st, RED, {"type": "end_turn"})
    assert st.phase == GAME_OVER and st.winner == BLUE


def test_11_18_special_building_phase():
    st = GAME.setup(5, 2)
    st.phase, st.active, st.to_act = TRADE, 1, 1
    for s in range(5):
        give(st, s, lumber=1, brick=1, wool=1, grain=1, ore=1)
        put(st, s, settlements=[[0, 6, 47, 53, 30][s]])
    GAME.apply(st, 1, {"type": "end_turn"})
    for seat in (2, 3, 4, 0):
        assert st.phase == SPECIAL_BUILD and st.to_act == seat and st.active == 1
        allowed = {"build_road", "build_settlement", "build_city", "buy_dev_card", "end_special_build"}
        assert types(st) <= allowed and {"build_road", "buy_dev_card"} <= types(st)
        if seat == 3:
            GAME.apply(st, seat, {"type": "buy_dev_card"})
            with pytest.raises(IllegalAction):
                GAME.apply(st, seat, {"type": "maritime_trade", "give": "lumber", "rate": 4, "get": "ore"})
        GAME.apply(st, seat, {"type": "end_special_build"})
    assert st.phase == PRE_ROLL and st.active == 2 and st.to_act == 2


def _best_friends_fixture():
    st = empty(phase=BUILD, scenario="best_friends", board="beginner")
    put(st, BLUE, settlements=[23], roads=[35, 26, 27])
    put(st, RED, settlements=[44, 9], roads=[56, 50, 14])
    GAME._bf_init_contacts(st)
    give(st, RED, lumber=6, brick=6)
    return st


def _tokens(st):
    return [sum(f) for f in st.favours]


def test_11_19_best_friends_connecting_networks():
    st = _best_friends_fixture()
    supply = len(st.favour_supply)
    assert supply == 8 * 3 + 16 * 2
    GAME.apply(st, RED, {"type": "build_road", "edge": 42})  # (A) red-lower meets blue at 29
    assert _tokens(st) == [3, 1, 0, 0] and len(st.favour_supply) == supply - 4
    for e in (41, 34, 25):  # (B) 25 touches blue at 17: already connected
        GAME.apply(st, RED, {"type": "build_road", "edge": e})
    assert _tokens(st) == [3, 1, 0, 0]
    GAME.apply(st, RED, {"type": "build_road", "edge": 20})  # (C) red-upper meets blue at 18
    assert _tokens(st) == [6, 2, 0, 0]
    assert st.favours_new[RED] == st.favours[RED]  # gained this turn: not usable this turn
    assert not any(a["type"] in ("use_favor", "exchange_favor") for a in GAME.legal_actions(st, RED))


def test_11_20_best_friends_ends_at_11():
    st = empty(phase=TRADE, scenario="best_friends", board="beginner")
    put(st, RED, settlements=[0, 6, 47], cities=[53, 27])
    st.lr_holder = RED
    st.devs[RED][VPC] = 1
    assert GAME.vp(st, RED) == 10 and st.vp_target == 11
    give(st, RED, ore=4)
    GAME.apply(st, RED, {"type": "maritime_trade", "give": "ore", "rate": st.rates[RED][4], "get": "wool"})
    assert st.phase == TRADE  # 10 VP does not win in Best Friends
    st.favours[RED][D.GUILDS.index("architect")] = 2
    assert {"type": "use_favor", "guild": "architect"} in GAME.legal_actions(st, RED)
    GAME.apply(st, RED, {"type": "use_favor", "guild": "architect"})
    assert st.catan_tokens[RED] == 1 and st.phase == GAME_OVER and GAME.outcome(st).ranks[RED] == 0


# --- Longest Road on hand-built networks (§4.7) -------------------------------------------------------
def test_longest_road_branches_do_not_count():
    st = empty()
    put(st, RED, roads=[7, 12, 19, 26, 27, 28, 13])  # 4-8-12-17-23-18-24 with branch 8-13
    assert st.road_len[RED] == 6


def test_longest_road_loop_counts_every_edge():
    st = empty()
    ring = list(D.BOARD_SMALL.hex_edges[9])
    put(st, RED, roads=ring)
    assert st.road_len[RED] == 6
    put(st, RED, roads=[26])  # a tail at vertex 23: 1 + the full ring
    assert st.road_len[RED] == 7


def test_longest_road_own_settlement_does_not_break_but_opponents_does():
    st = empty()
    put(st, RED, settlements=[17], roads=[7, 12, 19, 26, 35])
    assert st.road_len[RED] == 5
    put(st, BLUE, settlements=[12])
    assert GAME.road_length(st, RED) == 3  # 4-8-12 | 12-17-23-29 -> the longer part


def test_longest_road_holder_keeps_card_on_tie():
    st = empty()
    put(st, RED, roads=[7, 12, 19, 26, 35])  # 5
    GAME._update_longest_road(st, [])
    assert st.lr_holder == RED
    put(st, BLUE, roads=[56, 63, 67, 66, 62])  # 5 as well
    GAME._update_longest_road(st, [])
    assert st.lr_holder == RED
    put(st, BLUE, roads=[54])
    GAME._update_longest_road(st, [])
    assert st.road_len[BLUE] == 6 and st.lr_holder == BLUE


def test_longest_road_set_aside_when_the_holder_is_broken_into_a_tie():
    st = empty(phase=BUILD, seat=WHITE)
    put(st, RED, roads=[7, 12, 19, 26, 35, 42])  # 6: 4-8-12-17-23-29-34
    put(st, BLUE, roads=[56, 63, 67, 66, 62])  # 5: 39-44-48-51-47-43
    put(st, ORANGE, roads=[5, 9, 16, 21, 30])  # 5: 2-6-10-14-19-25
    GAME._update_longest_road(st, [])
    assert st.lr_holder == RED
    put(st, WHITE, roads=[25])  # 22-17
    give(st, WHITE, lumber=1, brick=1, wool=1, grain=1)
    GAME.apply(st, WHITE, {"type": "build_settlement", "vertex": 17})  # splits red's road at 17
    assert st.road_len[RED] == 3 and st.lr_holder == -1  # blue and orange tie at 5: set aside
    give(st, WHITE, lumber=1, brick=1)
    st.phase, st.active, st.to_act = BUILD, ORANGE, ORANGE
    give(st, ORANGE, lumber=1, brick=1)
    GAME.apply(st, ORANGE, {"type": "build_road", "edge": 4})  # 5-2-6-10-14-19-25
    assert st.road_len[ORANGE] == 6 and st.lr_holder == ORANGE


def test_longest_road_set_aside_when_nobody_has_five():
    st = empty(phase=BUILD, seat=WHITE)
    put(st, RED, roads=[7, 12, 19, 26, 35])  # 5: 4-8-12-17-23-29
    GAME._update_longest_road(st, [])
    assert st.lr_holder == RED
    put(st, WHITE, roads=[25])
    give(st, WHITE, lumber=1, brick=1, wool=1, grain=1)
    GAME.apply(st, WHITE, {"type": "build_settlement", "vertex": 17})
    assert st.road_len[RED] == 3 and st.lr_holder == -1


# --- illegal actions name the rule ----------------------------------------------------------------
def test_illegal_actions_name_the_rule():
    st = preset()
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, BLUE, {"type": "roll"})
    assert err.value.rule.startswith("§4.1")
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, RED, {"type": "end_turn"})
    assert err.value.rule.startswith("§4.9")
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, RED, {"type": "fly"})
    assert err.value.rule.startswith("§9.2")
    roll(st, 6, 6)
    give(st, RED, brick=2, wool=1)
    GAME.apply(st, RED, {"type": "build_road", "edge": 34})
    assert st.phase == BUILD
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, RED, {"type": "propose_trade", "give": {"lumber": 1}, "get": {"ore": 1}})
    assert err.value.rule == "§4.1 strict order"
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, RED, {"type": "build_settlement", "vertex": 22})
    assert err.value.rule == "§4.5 distance rule"
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, RED, {"type": "build_city", "vertex": 28})
    assert err.value.rule.startswith("§2.3")
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, RED, {"type": "build_road", "edge": 71})
    assert err.value.rule.startswith("§2.3") or err.value.rule.startswith("§4.5")


def test_combined_trade_build_allows_trading_after_building():
    st = GAME.setup(4, 1, {"board": "beginner", "start_positions": "beginner_preset", "combined_trade_build": True})
    roll(st, 6, 6)
    give(st, RED, brick=2, wool=1)
    GAME.apply(st, RED, {"type": "build_road", "edge": 34})
    assert st.phase == TRADE and "propose_trade" in types(st)


def test_proposal_limit_and_trade_sizes():
    st = preset()
    roll(st, 6, 6)
    give(st, RED, ore=2, wool=2)
    proposals = [a for a in GAME.legal_actions(st, RED) if a["type"] == "propose_trade"]
    assert all(1 <= sum(a["give"].values()) <= 2 and 1 <= sum(a["get"].values()) <= 2 for a in proposals)
    for _ in range(3):
        GAME.apply(st, RED, {"type": "request_offers"})
        for seat in (1, 2, 3):
            GAME.apply(st, seat, {"type": "pass"})
        GAME.apply(st, RED, {"type": "cancel_trade"})
    assert not types(st) & {"propose_trade", "request_offers"}
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, RED, {"type": "request_offers"})
    assert "§4.4" in err.value.rule


# --- no observation leaks ---------------------------------------------------------------------------
def _perturb(st, viewer, rng):
    """Change every piece of information hidden from ``viewer``, keeping the public counts."""
    other = GAME.clone(st)
    for s in range(st.n):
        if s == viewer:
            continue
        total = sum(other.hands[s])
        cards = [rng.randrange(5) for _ in range(total)]
        other.hands[s] = [cards.count(r) for r in range(5)]
        dev_total = sum(other.devs[s])
        new_total = sum(other.devs_new[s])
        kinds = [rng.randrange(5) for _ in range(dev_total)]
        other.devs[s] = [kinds.count(c) for c in range(5)]
        other.devs_new[s] = [0] * 5
        for c in kinds[:new_total]:
            other.devs_new[s][c] += 1
        if other.bf:
            ftotal = sum(other.favours[s])
            toks = [rng.randrange(5) for _ in range(ftotal)]
            other.favours[s] = [toks.count(g) for g in range(5)]
            other.favours_new[s] = [0] * 5
    rng.shuffle(other.deck)
    rng.shuffle(other.favour_supply)
    other.discard_log = [(s, rng.randrange(5)) for s, _ in other.discard_log]
    if other.trade is not None and other.phase == TRADE_RESPOND:
        other.trade["answers"] = {s: ("reject", None, None) for s in other.trade["answers"]}
    if other.last_steal and viewer not in other.last_steal[:2]:
        other.last_steal = (other.last_steal[0], other.last_steal[1], rng.randrange(5))
    # VP cards are hidden: the perturbation may change them, so the game must not be over
    return other


@pytest.mark.parametrize("num_players,options", [(4, {}), (3, {}), (5, {}), (4, {"scenario": "best_friends"})])
def test_observations_do_not_leak_hidden_information(num_players, options):
    rng = random.Random(7)
    checked = 0
    for seed in range(4):
        st = GAME.setup(num_players, seed, options)
        step = 0
        while GAME.to_move(st) is not None and step < 1500:
            seat = GAME.to_move(st)
            if step % 7 == 0:
                for viewer in [None, *range(num_players)]:
                    other = _perturb(st, viewer, rng)
                    a = json.dumps(GAME.observe(st, viewer), sort_keys=True)
                    b = json.dumps(GAME.observe(other, viewer), sort_keys=True)
                    assert a == b, (seed, step, viewer, PHASE_NAMES[st.phase])
                    checked += 1
            legal = GAME.legal_actions(st, seat)
            GAME.apply(st, seat, legal[rng.randrange(len(legal))])
            step += 1
    assert checked > 500


def test_observation_shows_own_hand_and_counts_only():
    st = preset()
    st.devs[BLUE][VPC] = 1
    obs = GAME.observe(st, RED)
    assert obs["you"]["resources"] == {"lumber": 2, "grain": 1}
    assert obs["players"][BLUE]["resource_cards"] == 3 and obs["players"][BLUE]["dev_cards"] == 1
    text = json.dumps(obs)
    assert "victory_point" not in text
    assert "you" not in GAME.observe(st, None)


def test_clone_is_independent_and_plays_identically():
    st = GAME.setup(4, 11)
    rng = random.Random(2)
    for _ in range(400):
        legal = GAME.legal_actions(st, GAME.to_move(st))
        GAME.apply(st, GAME.to_move(st), legal[rng.randrange(len(legal))])
    copy = GAME.clone(st)
    assert json.dumps(GAME.observe(copy, 0)) == json.dumps(GAME.observe(st, 0))
    for _ in range(300):
        if GAME.to_move(st) is None:
            break
        seat = GAME.to_move(st)
        legal = GAME.legal_actions(st, seat)
        assert legal == GAME.legal_actions(copy, seat)
        action = legal[rng.randrange(len(legal))]
        assert GAME.apply(st, seat, action) == GAME.apply(copy, seat, action)
    assert st.hands == copy.hands and st.bank == copy.bank and st.deck == copy.deck
    copy.hands[0][0] += 5
    assert st.hands[0][0] != copy.hands[0][0]


def test_bank_shortage_nobody_gets_that_resource():
    st = preset()
    st.bank[0] = 1  # two owed lumber on an 8 (red and blue on hex 12), one in the bank
    before = [list(h) for h in st.hands]
    roll(st, 4, 4)
    assert [st.hands[s][0] for s in range(4)] == [before[s][0] for s in range(4)]
    assert st.hands[WHITE][4] == before[WHITE][4] + 1  # ore is paid normally
    assert st.bank[0] == 1
