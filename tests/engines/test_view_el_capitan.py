"""The El Capitán viewer: move descriptions in words over whole seeded matches, and the SVG map (view.js).

The drawing runs under node over sampled observations; its element counts must equal
``expected_marks``, computed from the observation in Python.
"""
from __future__ import annotations

import re

import pytest
from svg_views import SVG_NS, count, parse_svg, render_all, text_of

from engines.players import make_bot
from engines.el_capitan import view
from engines.games import get_game
from engines.match import play_match, replay_states

HOSTILE = "<script>alert('x')</script> & 'Bob'"
GAME = get_game("el_capitan")
MATCHES = [(2, "random"), (2, "heuristic"), (3, "random"), (4, "heuristic"), (5, "random"), (5, "heuristic")]
#: card ids (D01, L12), loan ids (LS03), city ids (MAR) and raw dict text never reach the move list
RAW_ID = re.compile(r"\b(D\d\d|L\d\d|LS\d\d|LL\d\d|MAR|VEN|CON|VAL|NAP|ATH|TAN|TUN|ALE|BANK|OFFBOARD)\b|[{}=]|None")
COLORS = ["#e53935", "#1e88e5", "#f5f5f5", "#fb8c00", "#43a047"]


def _match(n: int, bot: str, seed: int = 5):
    return play_match("el_capitan", [make_bot(bot, "el_capitan", seed + i) for i in range(n)], seed)


def _moves(log):
    """(observation before, seat, action, events) for every move, replayed from the log."""
    for state, seat, action in replay_states(log):
        if action is None:
            return
        obs = GAME.observe(state, None)
        events = GAME.apply(state.copy(), seat, action)
        yield obs, seat, action, events


@pytest.fixture(scope="module")
def logs():
    return {(n, bot): _match(n, bot) for n, bot in MATCHES}


@pytest.mark.parametrize("n,bot", MATCHES)
def test_every_move_and_event_is_described_in_words(logs, n, bot):
    kinds = set()
    for obs, _seat, action, events in _moves(logs[(n, bot)]):
        kinds.add(action["type"])
        text = view.describe_action(action, obs)
        assert text and not RAW_ID.search(text), (action, text)
        assert text != action["type"].replace("_", " ") or action["type"] == "end_turn", action
        for line in view.describe_events(events):
            assert line and not RAW_ID.search(line), (events, line)
    assert {"buy", "sail", "build_warehouse"} <= kinds


def test_known_moves_in_words():
    moves = list(_moves(_match(4, "heuristic", seed=1)))
    expected = {
        1: ("sails onto the board to Constantinople with the Constantinople card (1 seal)",
            ["seat 0 anchors in Constantinople on harbour space 1"]),
        2: ("builds a warehouse in Constantinople on site 2 for 5 Florins",
            ["seat 0 pays 5 Florins: warehouse on site 2 of Constantinople"]),
        14: ("buys the Marseille–Venezia card for 1 Florin", []),
        15: ("sails from Marseille to Venezia with the Marseille–Venezia card",
             ["seat 3 anchors in Venezia on harbour space 2"]),
        23: ("sails from Venezia to Constantinople on a sea route with the Tanger card (1 seal)",
             ["seat 1 anchors in Constantinople on harbour space 1"]),
        32: ("takes a small loan of 10 Florins (repay 12, or 16 if extended)", []),
    }
    for index, (action_text, event_texts) in expected.items():
        obs, _seat, action, events = moves[index]
        assert view.describe_action(action, obs) == action_text
        assert view.describe_events(events) == event_texts


def test_loans_are_named_by_size_and_what_is_due():
    obs = {"to_move": 1, "players": [{"loans": []}, {"ship": {"at": "BANK", "harbor": None},
                                                     "loans": [{"id": "LL02", "size": "large", "due": 30}]}]}
    assert view.describe_action({"type": "repay", "loan": "LL02"}, obs) == "repays a large loan (16 Florins): 30 Florins"
    assert view.describe_action({"type": "extend", "loan": "LS01"}, obs) \
        == "extends a small loan (10 Florins): 16 Florins due at the next payday"
    assert view.describe_events([{"type": "shut_down", "city": "NAP", "site": 2, "seat": 3, "color": "main"}]) \
        == ["seat 3's warehouse on site 2 of Napoli is shut down"]


@pytest.mark.parametrize("n,bot", MATCHES)
def test_scores_are_money_and_end_as_the_outcome(logs, n, bot):
    log = logs[(n, bot)]
    state = None
    for state, _seat, _action in replay_states(log):
        pass
    assert view.scores(GAME.observe(state, None)) == log.outcome["scores"]


def test_seat_views_are_the_spectator_view():
    log = _match(3, "heuristic")
    for i, (state, _seat, _action) in enumerate(replay_states(log)):
        if i % 25 == 0:
            spectator = GAME.observe(state, None)
            assert all(GAME.observe(state, s) == spectator for s in range(3))
    assert view.SEAT_VIEWS_PUBLIC


def test_static_map():
    static = view.static_info(3, {})
    assert len(static["cities"]) == 9 and len(static["routes"]) == 12
    assert len(static["cards"]) == 54
    marseille = next(c for c in static["cities"] if c["id"] == "MAR")
    assert marseille["harbour_prices"] == [4, 5] and marseille["fortress_prices"] == [8, 10]
    assert marseille["shut_sites"] == [6, 8, 9, 11]  # the triangle site shuts with 2-3 players
    assert next(c for c in view.static_info(4, {})["cities"] if c["id"] == "MAR")["shut_sites"] == [6, 9, 11]


@pytest.mark.parametrize("n,bot", MATCHES)
def test_the_drawing_has_what_the_observation_holds(logs, n, bot):
    log = logs[(n, bot)]
    static = view.static_info(n, {})
    seats = [HOSTILE] + [f"bot {s}" for s in range(1, n)]
    cases = []
    every = max(1, len(log.moves) // 10)
    total = len(log.moves)
    for i, (state, _seat, _action) in enumerate(replay_states(log)):
        if i % every == 0 or i == total:
            obs = GAME.observe(state, None)
            base = {"static": static, "seats": seats, "colors": COLORS[:n], "move": i}
            cases.append({"obs": obs, "ctx": dict(base, viewer=None)})
            cases.append({"obs": GAME.observe(state, i % n), "ctx": dict(base, viewer=i % n)})
    svgs = render_all("el_capitan", cases)
    assert len(svgs) == len(cases)
    for case, svg in zip(cases, svgs):
        root = parse_svg(svg)
        marks = view.expected_marks(case["obs"])
        got = {selector: count(root, selector) for selector in marks}
        assert got == marks, case["ctx"]["move"]
        assert HOSTILE not in svg and HOSTILE[:20] in text_of(root)
        assert not list(root.iter(SVG_NS + "script"))
        for p in case["obs"]["players"]:
            for card in set(p["hand"]):  # hands are public: every card face up by its seat
                assert count(root, f".card.hand[data-seat='{p['seat']}'][data-card='{card}']") == p["hand"].count(card)


def test_expected_marks_of_a_known_position():
    log = _match(4, "heuristic", seed=1)
    for i, (state, _seat, _action) in enumerate(replay_states(log)):
        if i == 18:  # after seat 3's first turn: four warehouses, display full again
            break
    marks = view.expected_marks(GAME.observe(state, None))
    assert marks[".warehouse"] == 4 and marks[".ship"] == 4 and marks[".card.display"] == 10
    assert marks[".warehouse[data-city='VEN']"] == 2 and marks[".fortress"] == 0 and marks[".back"] == 2
