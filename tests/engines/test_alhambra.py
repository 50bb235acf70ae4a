"""Alhambra: the worked examples of rules §11, placement and wall geometry, refusals, secrecy."""
from __future__ import annotations

import json
import random

import pytest

from engines.alhambra import BOTS, GAME
from engines.alhambra import geometry as geo
from engines.alhambra.data import (
    CARD_CURRENCY, CARD_VALUE, SCORING_A, SCORING_B, TILE_PRICE, TILE_TYPE, TILE_WALLS, card_id, money_deck,
)
from engines.alhambra.scoring import score_round
from engines.alhambra.preparation import choose_start_player, deal_start_money, insert_scoring_cards
from engines.alhambra.state import ACTION, FINAL_PLACEMENT, OVER, PLACEMENT
from engines.core import IllegalAction

Y, G, B, O = 0, 1, 2, 3


def card(currency: int, value: int, copy: int = 0) -> int:
    return card_id(currency, value, copy)


def alhambra(*placed: tuple[int, int, int]) -> dict[int, int]:
    """An Alhambra from (tile, x, y) triples plus the fountain."""
    a = geo.new_alhambra()
    for tile, x, y in placed:
        a[geo.cell(x, y)] = tile
    return a


def blank_state(n: int = 3, seed: int = 0):
    """A freshly set-up state emptied out, to be filled by hand: active seat 0, empty hands/markets."""
    s = GAME.setup(n, seed)
    s.active = 0
    s.hands = [[] for _ in range(n)]
    s.market = [None, None, None, None]
    s.money_market = []
    s.discard = []
    return s


def tiles_of(s, seat: int) -> dict[tuple[int, int], int]:
    return {geo.xy(c): t for c, t in s.alhambras[seat].items()}


def play(s, action: dict) -> list[dict]:
    return GAME.apply(s, GAME.to_move(s), action)


# ---------------------------------------------------------------------------------- data
def test_tile_table_counts_prices_and_wall_symmetry():
    assert len(TILE_TYPE) == 55 and TILE_TYPE[0] == 0
    counts = {t: sum(1 for i in range(1, 55) if TILE_TYPE[i] == t) for t in range(1, 7)}
    assert counts == {1: 7, 2: 7, 3: 9, 4: 9, 5: 11, 6: 11}
    for t in range(1, 7):
        prices = [TILE_PRICE[i] for i in range(1, 55) if TILE_TYPE[i] == t]
        assert min(prices) == t + 1 and max(prices) == t + 7
    masks = [TILE_WALLS[i] for i in range(1, 55)]
    assert masks.count(0) == 10
    for single in (1, 2, 4, 8):
        assert masks.count(single) == 4
    for corner in (3, 6, 12, 9):
        assert masks.count(corner) == 5
    for three in (7, 14, 13, 11):
        assert masks.count(three) == 2
    assert TILE_WALLS[21] == 2  # rules §10 #1: tile 21 has its wall in the east


def test_money_cards_decode():
    assert len(money_deck(4)) == 108 and len(set(money_deck(4))) == 108
    for c in range(4):
        for v in range(1, 10):
            for k in range(3):
                i = card_id(c, v, k)
                assert (CARD_CURRENCY[i], CARD_VALUE[i]) == (c, v)


# ---------------------------------------------------------------------------------- §11 examples
def test_e1_starting_money_and_start_player():
    values = [9, 8, 4, 2, 3, 7, 1, 9, 6, 7, 9, 5, 5]
    deck = [card(i % 4, v, i // 4 % 3) for i, v in enumerate(values)]
    assert len(set(deck)) == len(deck)
    hands, dealt = deal_start_money(deck, 3)
    assert dealt == 11
    assert [sorted(CARD_VALUE[c] for c in h) for h in hands] == [[4, 8, 9], [1, 2, 3, 7, 9], [6, 7, 9]]
    assert choose_start_player(hands, random.Random(0)) == 0
    for seed in range(200):  # every real deal stays within 20-28
        s = GAME.setup(3 + seed % 4, seed)
        for h in s.hands:
            assert 20 <= sum(CARD_VALUE[c] for c in h) <= 28


def test_e1_start_player_ties_fall_to_the_seeded_draw():
    hands = [[card(Y, 9), card(Y, 8), card(Y, 4)], [card(G, 9), card(G, 8), card(G, 4)]]
    starts = {choose_start_player(hands, random.Random(seed)) for seed in range(40)}
    assert starts == {0, 1}


def test_e2_scoring_cards_in_piles_two_and_four():
    rest = list(range(93))
    before_a, before_b = set(), set()
    for seed in range(2000):
        deck = insert_scoring_cards(rest, random.Random(seed))
        a, b = deck.index(SCORING_A), deck.index(SCORING_B)
        assert a < b and len(deck) == 95
        assert [c for c in deck if c < 108] == rest
        before_a.add(a)
        before_b.add(b - 1)
    assert before_a == set(range(18, 38)) and before_b == set(range(55, 75))
    for seed in range(100):  # real set-ups: the same ranges from N = cards left after deal + market
        s = GAME.setup(3, seed)
        n_rest = len(s.deck) - 2
        a, b = s.deck.index(SCORING_A), s.deck.index(SCORING_B)
        assert n_rest // 5 <= a <= 2 * n_rest // 5
        assert 3 * n_rest // 5 <= b - 1 <= 4 * n_rest // 5


def test_e3_taking_money():
    s = blank_state()
    y7, g9, b2, o3 = card(Y, 7), card(G, 9), card(B, 2), card(O, 3)
    s.money_market = sorted([y7, g9, b2, o3])
    takes = [a["cards"] for a in GAME.legal_actions(s, 0) if a["type"] == "take_money"]
    assert sorted(map(sorted, takes)) == sorted([[y7], [g9], [b2], [o3], sorted([b2, o3])])
    for bad in ([b2, y7], [b2, o3, y7]):
        with pytest.raises(IllegalAction) as err:
            GAME.apply(s, 0, {"type": "take_money", "cards": sorted(bad)})
        assert err.value.rule.startswith("§4.2")
    play(s, {"type": "take_money", "cards": sorted([b2, o3])})
    assert sorted(s.hands[0]) == sorted([b2, o3]) and s.active == 1  # the turn ended


def test_e3_equal_cards_give_one_action_with_the_lowest_ids():
    s = blank_state()
    s.money_market = [card(Y, 2, 0), card(Y, 2, 1), card(G, 9)]
    takes = [a["cards"] for a in GAME.legal_actions(s, 0) if a["type"] == "take_money"]
    assert takes == [[card(Y, 2, 0)], [card(G, 9)], [card(Y, 2, 0), card(Y, 2, 1)]]


def test_e4_overpaying_no_change():
    s = blank_state()
    s.market = [None, None, 41, None]
    s.money_market = [card(Y, 1)]
    s.hands[0] = [card(B, 4), card(B, 7)]
    buys = [a for a in GAME.legal_actions(s, 0) if a["type"] == "buy"]
    assert buys == [{"type": "buy", "slot": 3, "pay": [7, 4]}]
    play(s, buys[0])
    assert s.hands[0] == [] and sorted(s.discard) == sorted([card(B, 4), card(B, 7)])
    assert s.held == [41] and s.phase == PLACEMENT
    assert all(a["type"] == "place" for a in GAME.legal_actions(s, 0))


def test_e4_other_currencies_are_never_offered():
    s = blank_state()
    s.market = [None, None, 41, None]
    s.money_market = [card(Y, 1)]
    s.hands[0] = [card(Y, 9), card(G, 9), card(O, 9), card(B, 4)]
    assert not [a for a in GAME.legal_actions(s, 0) if a["type"] == "buy"]


def test_e5_at_most_five_actions():
    s = blank_state()
    s.market = [1, 8, 15, 24]
    s.hands[0] = sorted([card(Y, 2), card(G, 3), card(B, 4), card(O, 5)])
    s.money_market = sorted([card(Y, 9), card(G, 8), card(B, 7), card(O, 6)])
    s.bag = [30, 31, 32, 33, 34]
    for slot, value in ((1, 2), (2, 3), (3, 4), (4, 5)):
        play(s, {"type": "buy", "slot": slot, "pay": [value]})
        assert s.phase == ACTION and s.active == 0
    assert s.market == [None] * 4 and s.hands[0] == []
    legal = GAME.legal_actions(s, 0)
    assert legal and all(a["type"] == "take_money" for a in legal)
    play(s, legal[0])
    assert s.phase == PLACEMENT and sorted(s.held) == [1, 8, 15, 24]
    for tile in (1, 8, 15, 24):
        play(s, {"type": "place", "tile": tile, "to": "reserve"})
    assert s.market == [30, 31, 32, 33] and s.active == 1 and s.phase == ACTION


def test_e6_illegal_placements():
    # (b) only contact wall against wall: unreachable
    a = alhambra((6, 1, 0))
    assert not geo.can_place(a, geo.cell(2, 0), 49)
    # (c) a wall against the fountain's open side
    assert not geo.can_place(geo.new_alhambra(), geo.cell(0, -1), 45)
    # (d) corner contact only
    assert not any(geo.can_place(geo.new_alhambra(), geo.cell(1, 1), t) for t in range(1, 55))
    # (e) a hole
    a = alhambra((7, 0, 1), (14, 0, 2), (31, 1, 2), (41, 2, 2), (52, 2, 1), (42, 2, 0))
    assert geo.is_legal(a)
    assert not geo.can_place(a, geo.cell(1, 0), 22)
    assert geo.can_place(a, geo.cell(1, 1), 22)


def test_e6_engine_offers_only_legal_cells():
    s = blank_state()
    s.alhambras[0] = alhambra((7, 0, 1), (14, 0, 2), (31, 1, 2), (41, 2, 2), (52, 2, 1), (42, 2, 0))
    s.phase, s.held = PLACEMENT, [22]
    cells = {(a["x"], a["y"]) for a in GAME.legal_actions(s, 0) if a["to"] == "alhambra"}
    assert (1, 1) in cells and (1, 0) not in cells
    with pytest.raises(IllegalAction) as err:
        play(s, {"type": "place", "tile": 22, "to": "alhambra", "x": 1, "y": 0})
    assert err.value.rule == "§4.6 placing"
    with pytest.raises(IllegalAction):  # (1, 1) again, written with an aliasing coordinate
        play(s, {"type": "place", "tile": 22, "to": "alhambra", "x": 0, "y": 1 + geo.STRIDE})
    for x, y in cells:
        trial = dict(s.alhambras[0])
        trial[geo.cell(x, y)] = 22
        assert geo.is_legal(trial)


def test_e7_redesign_during_a_turn_with_exact_purchases():
    s = blank_state()
    s.alhambras[0] = alhambra((22, 1, 0))
    s.reserves[0] = [53]
    s.hands[0] = sorted([card(Y, 3), card(Y, 4), card(G, 6), card(G, 2), card(B, 9)])
    s.market = [6, 13, 43, 24]
    s.money_market = sorted([card(O, 9), card(O, 8), card(O, 7), card(O, 6)])
    s.bag = [2, 3, 4]
    play(s, {"type": "buy", "slot": 1, "pay": [4, 3]})
    for action in GAME.legal_actions(s, 0):
        assert action.get("tile") not in (6, 13) and action.get("replaces") not in (6, 13)
    play(s, {"type": "buy", "slot": 2, "pay": [6, 2]})
    legal = GAME.legal_actions(s, 0)
    for action in legal:
        assert action.get("tile") not in (6, 13) and action.get("replaces") not in (6, 13)
    assert {"type": "redesign_swap", "tile": 53, "replaces": 22} in legal
    play(s, {"type": "redesign_swap", "tile": 53, "replaces": 22})
    assert s.phase == PLACEMENT
    play(s, {"type": "place", "tile": 6, "to": "alhambra", "x": 0, "y": 1})
    play(s, {"type": "place", "tile": 13, "to": "alhambra", "x": -1, "y": 0})
    assert tiles_of(s, 0) == {(0, 0): 0, (1, 0): 53, (0, 1): 6, (-1, 0): 13}
    assert s.reserves[0] == [22] and s.hands[0] == [card(B, 9)]
    assert s.market == [2, 3, 43, 24] and s.active == 1


def test_e8_market_refill_order():
    s = blank_state()
    s.market = [44, 1, 45, 2]
    s.hands[0] = sorted([card(G, 2), card(O, 5)])
    s.money_market = [card(Y, 9)]
    s.bag = [30, 31, 32]
    play(s, {"type": "buy", "slot": 2, "pay": [2]})  # exact: another action
    play(s, {"type": "buy", "slot": 4, "pay": [5]})  # overpaid (price 3): placement
    play(s, {"type": "place", "tile": 1, "to": "reserve"})
    play(s, {"type": "place", "tile": 2, "to": "reserve"})
    assert s.market == [44, 30, 45, 31] and s.bag == [32]


def test_e9_to_e13_majorities():
    def towers(*counts):
        return [[0, 0, 0, 0, 0, 0, c] for c in counts]

    assert score_round(2, towers(3, 2, 0), None, [0, 0, 0])[0] == [13, 6, 0]  # E9
    assert score_round(2, towers(4, 4, 0), None, [0, 0, 0])[0] == [9, 9, 0]  # E10
    pavilions = [[0, c, 0, 0, 0, 0, 0] for c in (3, 2, 1)]
    assert score_round(3, pavilions, None, [0, 0, 0])[0] == [16, 8, 1]  # E11
    chambers = [[0, 0, 0, 0, c, 0, 0] for c in (1, 0, 0)]
    assert score_round(3, chambers, None, [0, 0, 0])[0] == [19, 0, 0]  # E13
    # round 1 pays only the first place; a three-way tie in round 3 shares 16+8+1
    assert score_round(1, towers(2, 1, 1), None, [0, 0, 0])[0] == [6, 0, 0]
    assert score_round(3, pavilions[:1] * 3, None, [0, 0, 0])[0] == [8, 8, 8]
    # walls are added for every seat
    assert score_round(1, towers(0, 0, 0), None, [4, 0, 2])[0] == [4, 0, 2]


def test_e12_reserve_does_not_count():
    s = blank_state(3)
    s.alhambras[0] = alhambra((41, 1, 0), (42, -1, 0))
    s.reserves[0] = [39, 40]
    s.alhambras[1] = alhambra((33, 0, -1), (38, 0, 1), (35, 1, 0))
    assert GAME.type_counts(s.alhambras[1])[5] == 3
    events = []
    walls = [GAME.longest_wall(s, i) for i in range(3)]
    GAME._score(s, 1, events)
    assert events[-1]["points"][0] == walls[0] == 0  # A counts 2 gardens, not 4
    assert events[-1]["points"][1] == 5 + walls[1]


def test_e14_longest_wall():
    a = alhambra((28, 0, 1), (47, 1, 1), (3, 1, 0), (4, -1, 0), (13, 0, -1), (9, 1, -1))
    assert geo.is_legal(a)
    assert geo.wall_lengths(a) == [8, 1]
    assert geo.longest_wall(a) == 8
    segments = {(geo.xy(c), bit) for c, bit in geo.outer_walls(a)}
    assert ((1, 0), 4) not in segments and ((1, -1), 1) not in segments  # the inner wall


def test_e15_scoring_card_drawn_while_refilling():
    s = blank_state(3)
    g4, b6 = card(G, 4), card(B, 6)
    s.market = [44, 45, 46, 47]
    s.money_market = sorted([card(Y, 9), card(Y, 8), card(O, 1)])
    s.alhambras[1] = alhambra((52, 1, 0))  # seat 1 leads the towers
    rest = [card(O, 7), card(O, 8)]
    s.deck = [g4, SCORING_A, b6] + rest
    events = play(s, {"type": "take_money", "cards": [card(O, 1)]})
    assert s.money_market == sorted([card(Y, 9), card(Y, 8), g4, b6])
    assert s.deck == rest and s.scoring_done == [1]
    assert s.scores == [0, 6, 0] and s.active == 1
    kinds = [e["type"] for e in events]
    assert kinds.index("scoring_card") < kinds.index("refill") < kinds.index("scoring")


def test_e16_end_of_game_distribution():
    s = blank_state(3)
    s.market = [1, 44, 2, 45]
    s.bag = [30]
    s.money_market = [card(O, 9)]
    s.deck = [card(O, 8, 1)]
    s.hands = [sorted([card(Y, 5), card(G, 6), card(Y, 2), card(B, 4)]),
               sorted([card(Y, 9), card(G, 6, 1)]),
               sorted([card(G, 2), card(O, 3)])]
    play(s, {"type": "buy", "slot": 1, "pay": [2]})  # exact (tile 1 costs 2)
    play(s, {"type": "buy", "slot": 3, "pay": [4]})  # overpaid (tile 2 costs 3)
    play(s, {"type": "place", "tile": 1, "to": "reserve"})
    play(s, {"type": "place", "tile": 2, "to": "reserve"})
    assert s.phase == FINAL_PLACEMENT
    assert s.market == [None, 44, None, None]  # slot 2 stays (A and B tie on green)
    assert s.awards == [[1, [30]], [2, [45]]]
    assert GAME.to_move(s) == 1
    legal = GAME.legal_actions(s, 1)
    assert {"type": "place", "tile": 30, "to": "reserve"} in legal
    assert not [a for a in legal if a["to"] == "dirk"]
    play(s, {"type": "place", "tile": 30, "to": "alhambra", "x": 1, "y": 0})
    assert GAME.to_move(s) == 2
    play(s, {"type": "place", "tile": 45, "to": "reserve"})
    assert s.phase == OVER and s.scoring_done == [3] and GAME.to_move(s) is None
    assert s.scores[1] == 19 + 1  # the only chambers (tile 30) in round 3, and its S wall


def test_e17_final_tie_is_a_draw():
    s = blank_state(3)
    s.phase = OVER
    s.scores = [120, 120, 98]
    assert GAME.outcome(s).ranks == [0, 0, 2]


def test_e18_two_player_money_deck():
    s = GAME.setup(2, 7)
    cards = [c for h in s.hands for c in h] + s.money_market + s.deck
    money = sorted(c for c in cards if c < 108)
    assert money == money_deck(2) and len(money) == 72
    assert all(c % 3 <= 1 for c in money)
    assert cards.count(SCORING_A) == 1 and cards.count(SCORING_B) == 1


def test_e19_dirks_tiles():
    s = GAME.setup(2, 3)
    assert len(s.dirk) == 6 and len(s.bag) == 44
    GAME._score(s, 1, [])
    assert len(s.dirk) == 12 and len(s.bag) == 38
    s.bag = s.bag[:20]
    GAME._score(s, 2, [])
    assert len(s.dirk) == 18 and len(s.bag) == 14
    GAME._score(s, 3, [])
    assert len(s.dirk) == 18


def test_e20_giving_a_bought_tile_to_dirk():
    s = blank_state(2)
    s.dirk = [44]  # one tower already
    s.alhambras[0] = alhambra((52, 1, 0))
    s.phase, s.held = PLACEMENT, [50]
    s.money_market, s.bag = [card(Y, 1)], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert {"type": "place", "tile": 50, "to": "dirk"} in GAME.legal_actions(s, 0)
    play(s, {"type": "place", "tile": 50, "to": "dirk"})
    assert 50 in s.dirk
    events = []
    GAME._score(s, 1, events)
    assert events[-1]["dirk"] == 6 and events[-1]["points"][0] == 0  # 2 towers beat 1


def test_e21_dirk_scores_majorities_but_no_wall():
    s = blank_state(2)
    s.dirk = [33, 34, 44, 45, 1, 8]  # 2 gardens, many walls
    s.alhambras[0] = alhambra((41, 1, 0))
    events = []
    GAME._score(s, 1, events)
    assert events[-1]["dirk"] == 5 + 6 + 1 + 2  # gardens, towers, pavilion, seraglio: no walls
    assert events[-1]["points"] == [0, 0]


def test_e22_the_fountain_is_fixed():
    rng = random.Random(5)
    for seed in range(30):
        s = GAME.setup(3, seed)
        while (seat := GAME.to_move(s)) is not None:
            legal = GAME.legal_actions(s, seat)
            for a in legal:
                if a["type"] in ("redesign_remove", "redesign_swap"):
                    assert a.get("tile") != 0 and a.get("replaces") != 0
            GAME.apply(s, seat, rng.choice(legal))
    s = blank_state()
    s.money_market = [card(Y, 1)]
    with pytest.raises(IllegalAction) as err:
        play(s, {"type": "redesign_remove", "tile": 0})
    assert err.value.rule == "§4.6 removing"


def test_e23_deck_runs_out():
    s = blank_state(3)
    s.market = [44, 45, 46, 47]
    s.money_market = sorted([card(Y, 9), card(Y, 8), card(O, 1)])
    s.deck = [card(G, 5)]
    s.discard = [card(B, v) for v in range(1, 10)] + [card(G, 1)]
    events = play(s, {"type": "take_money", "cards": [card(O, 1)]})
    assert len(s.deck) == 9 and s.discard == [] and len(s.money_market) == 4
    assert card(G, 5) in s.money_market
    assert any(e["type"] == "reshuffle" and e["cards"] == 10 for e in events)


# ---------------------------------------------------------------------------------- geometry
def test_placement_needs_edge_contact_matching_sides_and_an_opening():
    a = geo.new_alhambra()
    assert geo.can_place(a, geo.cell(1, 0), 7)  # no walls, next to the fountain
    assert not geo.can_place(a, geo.cell(0, 0), 7)  # occupied
    assert not geo.can_place(a, geo.cell(2, 0), 7)  # no contact
    assert not geo.can_place(a, geo.cell(1, 0), 12)  # W wall against the open fountain
    assert geo.can_place(a, geo.cell(-1, 0), 12)  # W wall faces away
    a = alhambra((44, 0, 1))  # tower N E W above the fountain
    assert not geo.can_place(a, geo.cell(1, 1), 7)  # open W side against the tower's E wall
    assert not geo.can_place(a, geo.cell(1, 1), 49)  # wall meets wall only: unreachable (P3)
    assert not geo.can_place(a, geo.cell(1, 1), 40)  # walls match but no way in
    assert not geo.is_legal({**a, geo.cell(1, 1): 40})
    a = alhambra((44, 0, 1), (7, 1, 0))
    assert geo.can_place(a, geo.cell(1, 1), 40)  # W wall meets the tower's E wall, open to the south
    assert geo.is_legal({**a, geo.cell(1, 1): 40})


def test_hole_detection_with_larger_enclosed_area():
    # a U open to the south: closing it encloses the three cells of its top row
    ring = [(7, -1, 0), (14, -1, 1), (22, -1, 2), (23, 0, 2), (31, 1, 2), (32, 2, 2), (41, 3, 2),
            (42, 3, 1), (52, 3, 0)]
    a = alhambra(*ring)
    assert geo.is_legal(a)
    assert geo.can_place(a, geo.cell(1, 0), 53) and geo.can_place(a, geo.cell(2, 0), 53)
    a[geo.cell(1, 0)] = 53
    assert geo.is_legal(a)
    assert not geo.can_place(a, geo.cell(2, 0), 7)  # (0,1), (1,1), (2,1) would be enclosed
    assert not geo.is_legal({**a, geo.cell(2, 0): 7})
    assert not geo.can_place(a, geo.cell(2, 1), 7)  # would enclose (0,1) and (1,1)
    assert geo.can_place(a, geo.cell(0, 1), 7)  # the rest still opens to the south via (2,0)


def test_removal_keeps_reachability_and_makes_no_hole():
    # a chain F - (1,0) - (2,0): the middle tile carries the end tile
    a = alhambra((7, 1, 0), (14, 2, 0))
    assert [geo.xy(c) for c in geo.removable(a)] == [(2, 0)]
    # a plus around (1,0): its removal would leave a hole
    a = alhambra((7, 1, 0), (14, 2, 0), (22, 1, 1), (23, 1, -1), (31, 0, 1), (32, 2, 1), (41, 0, -1), (42, 2, -1))
    assert geo.is_legal(a)
    assert geo.cell(1, 0) not in geo.removable(a)
    assert not geo.can_remove(a, geo.ORIGIN)
    # walls matter for reachability: (1,1) is reached only through (1,0)... or through (0,1)
    a = alhambra((7, 1, 0), (14, 0, 1), (22, 1, 1))
    assert sorted(geo.xy(c) for c in geo.removable(a)) == [(0, 1), (1, 0), (1, 1)]
    for c in geo.removable(a):
        b = dict(a)
        del b[c]
        assert geo.is_legal(b)


def test_swaps_must_match_every_neighbour():
    a = alhambra((7, 1, 0))  # no walls at (1,0), only the fountain as neighbour
    assert geo.can_swap(a, geo.cell(1, 0), 6)  # E wall faces outward: fine
    assert not geo.can_swap(a, geo.cell(1, 0), 12)  # W wall against the fountain
    assert not geo.can_swap(a, geo.ORIGIN, 7)
    s = blank_state()
    s.alhambras[0] = a
    s.reserves[0] = [6, 12, 41, 42]
    s.money_market = [card(Y, 1)]
    swaps = [a for a in GAME.legal_actions(s, 0) if a["type"] == "redesign_swap"]
    assert swaps == [{"type": "redesign_swap", "tile": 6, "replaces": 7},
                     {"type": "redesign_swap", "tile": 41, "replaces": 7}]  # 42 is 41's twin
    with pytest.raises(IllegalAction) as err:
        play(s, {"type": "redesign_swap", "tile": 12, "replaces": 7})
    assert err.value.rule == "§4.6 swapping"
    play(s, {"type": "redesign_swap", "tile": 6, "replaces": 7})
    assert tiles_of(s, 0) == {(0, 0): 0, (1, 0): 6} and s.reserves[0] == [7, 12, 41, 42]


def test_outer_wall_shapes():
    assert geo.longest_wall(geo.new_alhambra()) == 0
    assert geo.longest_wall(alhambra((44, 0, 1))) == 3  # N E W around one tile
    assert geo.wall_lengths(alhambra((5, 1, 0), (20, 2, 0), (39, 3, 0))) == [3]  # a straight run
    # two runs on opposite sides do not join
    assert geo.wall_lengths(alhambra((5, 1, 0), (13, -1, 0))) == [1, 1]
    # a concave corner continues a wall: (1,0) E wall and (1,1)... S wall of (2,1) meet at (2,1)
    a = alhambra((6, 1, 0), (7, 1, 1), (13, 2, 1))
    assert geo.is_legal(a)
    assert geo.wall_lengths(a) == [2]


def test_fully_walled_ring_counts_every_segment():
    ring = alhambra((4, -1, 1), (5, 0, 1), (9, 1, 1), (6, 1, 0), (3, 1, -1), (13, 0, -1), (2, -1, -1), (12, -1, 0))
    assert geo.is_legal(ring)
    assert geo.wall_lengths(ring) == [12]
    assert geo.longest_wall(ring) == 12


# ---------------------------------------------------------------------------------- refusals
def test_illegal_actions_name_the_rule():
    s = blank_state()
    s.market = [1, None, None, None]
    s.money_market = [card(O, 9)]
    s.hands[0] = sorted([card(Y, 1), card(Y, 2), card(Y, 5)])
    cases = [
        ({"type": "buy", "slot": 1, "pay": [5, 2]}, "§4.3"),  # not minimal
        ({"type": "buy", "slot": 2, "pay": [5]}, "§4.3"),  # empty slot
        ({"type": "pass"}, "§4.5"),
        ({"type": "place", "tile": 1, "to": "reserve"}, "§4.1"),
        ({"type": "redesign_place", "tile": 7, "x": 1, "y": 0}, "§4.4"),
        ({"type": "fly"}, "§9.2"),
        ({"type": "take_money", "cards": [card(O, 8)]}, "§4.2"),
    ]
    for action, rule in cases:
        with pytest.raises(IllegalAction) as err:
            GAME.apply(s, 0, action)
        assert err.value.rule.startswith(rule), (action, err.value.rule)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 1, {"type": "take_money", "cards": [card(O, 9)]})
    assert err.value.rule == "§4.1 turn order"
    assert GAME.legal_actions(s, 0) == [{"type": "take_money", "cards": [card(O, 9)]},
                                        {"type": "buy", "slot": 1, "pay": [5]},
                                        {"type": "buy", "slot": 1, "pay": [2]}]


def test_apply_check_agrees_with_the_legal_list():
    """The engine validates without building the list: same answer as membership, legal or not."""
    rng = random.Random(11)
    for seed in range(25):
        s = GAME.setup(2 + seed % 5, seed)
        while (seat := GAME.to_move(s)) is not None:
            legal = GAME.legal_actions(s, seat)
            for a in legal:
                assert GAME._is_legal(s, seat, a)
            for i in range(s.n):  # the incrementally kept frontier and removable tiles equal fresh ones
                if s.cache[i] is not None:
                    assert s.front(i) == geo.frontier(s.alhambras[i])
                    tiles = s.alhambras[i]
                    assert GAME._removable_tiles(s, i) == [tiles[c] for c in geo.removable(tiles)]
            for a in rng.sample(legal, min(4, len(legal))):
                for key, delta in (("x", 1), ("y", -1), ("tile", 1), ("slot", 1), ("replaces", 1)):
                    if key in a:
                        bent = dict(a, **{key: a[key] + delta})
                        assert GAME._is_legal(s, seat, bent) == (bent in legal), bent
                if a["type"] == "buy":
                    bent = dict(a, pay=a["pay"] + [1])
                    assert GAME._is_legal(s, seat, bent) == (bent in legal)
                assert not GAME._is_legal(s, seat, dict(a, extra=1))
            GAME.apply(s, seat, rng.choice(legal))


# ---------------------------------------------------------------------------------- information
def _scramble_hidden(s, viewer: int, rng: random.Random):
    """A copy differing only in what ``viewer`` may not see: other hands, deck and bag order."""
    t = GAME.clone(s)
    others = [i for i in range(t.n) if i != viewer]
    pool = [c for i in others for c in t.hands[i]] + [c for c in t.deck if c < 108]
    rng.shuffle(pool)
    for i in others:
        k = len(t.hands[i])
        t.hands[i], pool = sorted(pool[:k]), pool[k:]
    specials = [c for c in t.deck if c >= 108]
    t.deck = pool
    for c in specials:
        t.deck.insert(rng.randrange(len(t.deck) + 1), c)
    rng.shuffle(t.bag)
    return t


def test_no_observation_shows_hidden_information():
    rng = random.Random(3)
    checked = 0
    for seed in range(12):
        n = 2 + seed % 5
        s = GAME.setup(n, seed)
        step = 0
        while (seat := GAME.to_move(s)) is not None:
            if step % 7 == 0:
                for viewer in [None, *range(n)]:
                    obs = GAME.observe(s, viewer)
                    json.dumps(obs)
                    for p in obs["players"]:
                        assert ("hand" in p) == (p["seat"] == viewer)
                    other = _scramble_hidden(s, -1 if viewer is None else viewer, rng)
                    assert GAME.observe(other, viewer) == obs
                    checked += 1
            GAME.apply(s, seat, rng.choice(GAME.legal_actions(s, seat)))
            step += 1
    assert checked > 500


def test_open_money_shows_every_hand():
    s = GAME.setup(3, 1, {"open_money": True})
    assert all("hand" in p for p in GAME.observe(s, 0)["players"])
    assert all("hand" in p for p in GAME.observe(s, None)["players"])


def test_same_seed_same_game_and_clone_is_independent():
    a, b = GAME.setup(4, 99), GAME.setup(4, 99)
    rng = random.Random(1)
    for _ in range(60):
        seat = GAME.to_move(a)
        legal = GAME.legal_actions(a, seat)
        assert legal == GAME.legal_actions(b, seat)
        act = rng.choice(legal)
        GAME.apply(a, seat, act)
        GAME.apply(b, seat, act)
    c = GAME.clone(a)
    assert GAME.observe(c, 0) == GAME.observe(a, 0)
    seat = GAME.to_move(c)
    GAME.apply(c, seat, GAME.legal_actions(c, seat)[0])
    assert GAME.observe(b, 0) == GAME.observe(a, 0) != GAME.observe(c, 0)


def test_max_turns_ends_the_game():
    s = GAME.setup(3, 4, {"max_turns": 5})
    rng = random.Random(0)
    while (seat := GAME.to_move(s)) is not None:
        GAME.apply(s, seat, rng.choice(GAME.legal_actions(s, seat)))
    assert s.turn == 5 and GAME.outcome(s).detail["ended_by"] == "max_turns"
    assert 3 in s.scoring_done


def test_all_payments_option_lists_overpayments():
    s = blank_state()
    s.market = [1, None, None, None]
    s.money_market = [card(O, 9)]
    s.hands[0] = sorted([card(Y, 1), card(Y, 2), card(Y, 5)])
    s.all_payments = True
    pays = [a["pay"] for a in GAME.legal_actions(s, 0) if a["type"] == "buy"]
    assert sorted(pays) == sorted([[2], [5], [2, 1], [5, 1], [5, 2], [5, 2, 1]])


# ---------------------------------------------------------------------------------- bots
def test_heuristic_beats_random():
    from engines.versus import versus

    result = versus("alhambra", ["heuristic", "random", "random", "random"], games=40, seed=5)
    assert result["bots"]["heuristic"]["average_place"] < 1.6
    assert result["bots"]["random"]["average_place"] > 2.6
    assert set(BOTS) >= {"random", "heuristic"}


def test_cli_play_and_replay(tmp_path, capsys):
    from engines.cli import main

    log = tmp_path / "game.json"
    assert main(["play", "--game", "alhambra", "--bots", "heuristic", "random", "--seed", "3",
                 "--log", str(log)]) == 0
    assert main(["replay", str(log)]) == 0
    data = json.loads(log.read_text())
    assert data["game"] == "alhambra" and data["outcome"]["ranks"]
