"""The Catan viewer: move descriptions in words over whole seeded matches, and the SVG drawing (view.js).

The drawing runs under node over sampled observations; its element counts must equal
``expected_marks``, computed from the observation in Python.
"""
from __future__ import annotations

import json
import re

import pytest
from svg_views import SVG_NS, count, parse_svg, render_all, text_of

from engines.players import make_bot
from engines.catan import data as D
from engines.catan import view
from engines.games import get_game
from engines.match import play_match, replay_states

HOSTILE = "<script>alert('x')</script> & 'Bob'"
GAME = get_game("catan")
#: (players, bot, options): every board size, both bot kinds, and the Best Friends scenario
MATCHES = [
    (3, "random", {}),
    (4, "heuristic", {}),
    (4, "random", {"scenario": "best_friends"}),
    (5, "heuristic", {}),
    (6, "random", {}),
]
RAW_ID = re.compile(r"\b(vertex|edge|hex|slot|id)\b\s*[=:]?\s*\d|[{}=]|\bNone\b")
COLORS = ["#e53935", "#1e88e5", "#f5f5f5", "#fb8c00", "#43a047", "#8d6e63"]


def _match(n: int, bot: str, options: dict, seed: int = 11):
    return play_match("catan", [make_bot(bot, "catan", seed + i) for i in range(n)], seed, options)


def _moves(log):
    """(observation before, seat, action, events) for every move, replayed from the log."""
    for state, seat, action in replay_states(log):
        if action is None:
            return
        obs = GAME.observe(state, None)
        events = GAME.apply(GAME.clone(state), seat, action)
        yield obs, seat, action, events


@pytest.fixture(scope="module")
def logs():
    return {(n, bot, json.dumps(opts)): _match(n, bot, opts) for n, bot, opts in MATCHES}


@pytest.mark.parametrize("n,bot,options", MATCHES)
def test_every_move_and_event_is_described_in_words(logs, n, bot, options):
    log = logs[(n, bot, json.dumps(options))]
    kinds = set()
    for obs, _seat, action, events in _moves(log):
        kinds.add(action["type"])
        text = view.describe_action(action, obs)
        assert text and not RAW_ID.search(text), (action, text)
        assert text != action["type"].replace("_", " "), action  # not the fallback for unknown actions
        for line in view.describe_events(events):
            assert line and not RAW_ID.search(line), (events, line)
    assert {"place_settlement", "place_road", "roll", "end_turn"} <= kinds


def test_places_are_named_by_the_land_around_them():
    log = _match(4, "heuristic", {}, seed=1)
    moves = list(_moves(log))
    obs, seat, action, events = moves[0]
    assert action == {"type": "place_settlement", "vertex": 22}
    # checked on the drawing of seed 1: corner 22 joins the grain 10 (above), brick 9 and lumber 5 hexes
    assert view.describe_action(action, obs) == "places a settlement at the corner of grain 10 / brick 9 / lumber 5"
    obs, seat, action, events = moves[1]
    assert view.describe_action(action, obs) == "places a road on the path between brick 9 and lumber 5"
    obs, seat, action, events = moves[8]
    assert view.describe_events(events) == ["seat 3 takes 1 brick + 2 wool as starting resources"]
    obs, seat, action, events = moves[16]
    assert view.describe_action(action, obs) == "rolls the dice"
    assert view.describe_events(events) == ["rolled 12 (6 + 6)", "production: seat 0 gets 1 wool"]
    # a coastal corner with one land hex and a harbour, and a coastal path
    assert view.vertex_name(obs, 0) == "the N corner of lumber 8 (coast) (3:1 harbour)"
    assert view.edge_name(obs, 0) == "the NW side of lumber 8 (coast)"


def test_trades_name_cards_and_seats():
    obs = {"trade": {"kind": "proposal", "from": 2, "give": {"brick": 1}, "get": {"wool": 2}}}
    assert view.describe_action({"type": "propose_trade", "give": {"brick": 1}, "get": {"wool": 2}}, obs) \
        == "offers 1 brick for 2 wool to everyone"
    assert view.describe_action({"type": "accept_trade"}, obs) == "accepts seat 2's offer of 1 brick for 2 wool"
    assert view.describe_action({"type": "confirm_trade", "seat": 3}, obs) == "trades 1 brick to seat 3 for 2 wool"
    obs["trade"]["answers"] = {"3": {"answer": "counter", "give": {"ore": 1}, "get": {"brick": 1}}}
    assert view.describe_action({"type": "accept_counter", "seat": 3}, obs) \
        == "accepts seat 3's counter-offer: gives 1 brick for 1 ore"
    assert view.describe_action({"type": "maritime_trade", "give": "grain", "rate": 4, "get": "ore"}, obs) \
        == "trades 4 grain with the bank for 1 ore"


@pytest.mark.parametrize("n,bot,options", MATCHES)
def test_scores_at_the_end_are_the_outcome(logs, n, bot, options):
    log = logs[(n, bot, json.dumps(options))]
    state = None
    for state, _seat, _action in replay_states(log):
        pass
    assert view.scores(GAME.observe(state, None)) == log.outcome["scores"]


def test_static_tables_fit_both_boards():
    for n, board in ((4, D.BOARD_SMALL), (6, D.BOARD_LARGE)):
        static = view.static_info(n, {})
        json.dumps(static)
        assert len(static["hexes"]) == board.num_hexes
        assert len(static["vertices"]) == board.num_vertices and len(static["edges"]) == board.num_edges
        assert len(static["harbours"]) == len(board.harbour_slots)
        xs = [p[0] for p in static["vertices"]]
        ys = [p[1] for p in static["vertices"]]
        assert 0 < min(xs) and max(xs) < static["width"] and 0 < min(ys) and max(ys) < static["height"]
    assert len(view.static_info(3, {})["sea"]) == 18 and len(view.static_info(5, {})["hexes"]) == 30


def _sample(log, every: int):
    """Observations of every ``every``-th state and the last, as (move, spectator obs, seat obs list)."""
    states = []
    total = len(log.moves)
    for i, (state, _seat, _action) in enumerate(replay_states(log)):
        if i % every == 0 or i == total:
            states.append((i, GAME.observe(state, None), [GAME.observe(state, s) for s in range(len(log.seats))]))
    return states


@pytest.mark.parametrize("n,bot,options", MATCHES)
def test_the_drawing_has_what_the_observation_holds(logs, n, bot, options):
    log = logs[(n, bot, json.dumps(options))]
    static = view.static_info(n, options)
    seats = [HOSTILE] + [f"bot {s}" for s in range(1, n)]
    cases = []
    every = max(1, len(log.moves) // 12)
    for move, spectator, seat_views in _sample(log, every):
        base = {"static": static, "seats": seats, "colors": COLORS[:n], "move": move}
        cases.append({"obs": spectator, "ctx": dict(base, viewer=None)})
        cases.extend({"obs": o, "ctx": dict(base, viewer=s)} for s, o in enumerate(seat_views))
    svgs = render_all("catan", cases)
    assert len(svgs) == len(cases)
    for case, svg in zip(cases, svgs):
        root = parse_svg(svg)
        marks = view.expected_marks(case["obs"])
        got = {selector: count(root, selector) for selector in marks}
        assert got == marks, (case["ctx"]["move"], case["ctx"]["viewer"])
        assert count(root, ".hex") == (19 if n < 5 else 30)
        assert HOSTILE not in svg and HOSTILE[:20] in text_of(root)  # the name is shown, escaped
        assert not list(root.iter(SVG_NS + "script"))
        obs = case["obs"]
        if case["ctx"]["viewer"] is not None and obs["phase"] != "GAME_OVER":
            s = case["ctx"]["viewer"]
            own = obs["you"]["resources"]
            for r, c in own.items():  # the seat sees its own cards face up, the others' as backs
                assert count(root, f".face[data-seat='{s}'][data-card='{r}'][data-count='{c}']") == 1
            assert count(root, f".back[data-seat='{s}']") == 0
            assert count(root, ".back") == 2 * (n - 1)
        elif obs["phase"] != "GAME_OVER":
            for p in obs["players"]:
                assert count(root, f".back[data-seat='{p['seat']}'][data-kind='resources']"
                                   f"[data-count='{p['resource_cards']}']") == 1


def test_expected_marks_of_a_known_position():
    log = _match(4, "heuristic", {}, seed=1)
    for i, (state, _seat, _action) in enumerate(replay_states(log)):
        if i == 16:  # set-up done: 8 settlements and 8 roads, the robber on the desert
            break
    marks = view.expected_marks(GAME.observe(state, None))
    assert marks[".hex"] == 19 and marks[".token"] == 18 and marks[".harbour"] == 9
    assert marks[".settlement"] == 8 and marks[".road"] == 8 and marks[".city"] == 0
    assert all(marks[f".settlement[data-seat='{s}']"] == 2 for s in range(4))
    assert marks[".robber[data-hex='4']"] == 1 and marks[".back"] == 8 and marks[".token.red"] == 4
    assert marks[".last-move"] == 1  # the last set-up road
