"""Port Royal for people: move texts over whole matches, and the board drawing checked in node."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from board_views import HOSTILE, RAW_ID, context, drawing_jobs, frames_of_match, mismatches
from svg_views import parse_svg, render_all

from engines.port_royal import GAME
from engines.port_royal import view

OPTIONS = [{}, {"explicit_jack_allocation": True}, {"end_condition": "expedition_required"}]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: next(iter(o), "standard"))
def test_every_move_and_event_is_described_with_names(players, options):
    types = set()
    for seed in range(3):
        for frame in frames_of_match("port_royal", players, seed, options):
            lines = view.describe_events(frame["events"])
            if frame["action"] is not None:
                types.add(frame["action"]["type"])
                lines.append(view.describe_action(frame["action"], frame["obs"]))
            for line in lines:
                assert line and not RAW_ID.search(line) and "None" not in line and "{" not in line, line
        final = frame["obs"]
        assert view.scores(final) == GAME.outcome(frame["state"]).scores
    assert {"draw", "stop", "take", "done"} <= types


def _moves(players, seed, options=None):
    return {f["move"]: f for f in frames_of_match("port_royal", players, seed, options or {})}


def test_hand_checked_texts():
    moves = _moves(3, 1)
    # seat 2 hires the black Trader in seat 1's turn: 3 coins for the card and 1 to the active seat
    assert view.describe_action(moves[10]["action"], moves[10]["obs"]) == \
        "hires black Trader (3 coins, 1 IP) + 1 coin to seat 1"
    assert view.describe_events(moves[10]["events"]) == [
        "seat 2 hires the black Trader for 3 coins + 1 coin fee", "seat 2 has nothing (more) to take",
        "round 1: seat 2's turn"]
    assert view.describe_action(moves[25]["action"], moves[25]["obs"]) == \
        "trades the red frigate (4 coins, skull: cannot be repelled)"
    assert view.describe_action(moves[26]["action"], moves[26]["obs"]) == \
        "trades the green skiff (2 coins, 3 swords), paying 1 coin to seat 0"
    assert view.describe_action(moves[0]["action"], moves[0]["obs"]) == "reveals a card (110 in the draw pile)"
    assert view.describe_events(moves[6]["events"]) == [
        "seat 0 reveals the red frigate (2 coins, 3 swords)",
        "a second red frigate: seat 0's turn busts, the harbour is discarded", "round 1: seat 1's turn"]


def test_mademoiselles_lower_the_price_named_in_the_text():
    obs = GAME.observe(GAME.setup(2, 0), None)
    obs["to_act"], obs["active"] = 0, 0
    obs["players"][0]["persons"] = [42]  # one Mademoiselle: every hire costs 1 less
    assert view.describe_action({"type": "take", "card": 29}, obs) == \
        "hires Sailor (3 coins, 1 IP, 1 sword) for 2 coins"
    assert view.describe_action({"type": "expedition", "card": 118, "jacks_for": {"anchor": 1, "house": 0}}, obs) == \
        "fulfils the expedition 2 anchors + 1 house (6 IP, 3 coins), Jacks of all Trades standing in for 1 anchor"


def test_static_info_names_every_card_and_is_json():
    info = view.static_info(4, {})
    json.dumps(info)
    assert len(info["cards"]) == 120
    assert info["cards"]["29"]["text"] == "Sailor (3 coins, 1 IP, 1 sword)"
    assert info["cards"]["115"]["text"] == "expedition 2 crosses (4 IP, 2 coins)"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_drawing_matches_the_expected_marks(players):
    options = {"end_condition": "expedition_required"} if players == 3 else {}
    frames = list(frames_of_match("port_royal", players, 11, options, every=30))
    jobs, marks = drawing_jobs(view, frames, players, options, 40)
    svgs = render_all("port_royal", jobs)
    assert len(svgs) == len(jobs) > 40
    for svg, mark, job in zip(svgs, marks, jobs):
        assert mismatches(svg, mark) == {}, (job["ctx"]["move"], job["ctx"]["viewer"])
        assert parse_svg(svg).get("viewBox", "").startswith("0 0 ")
    seat_views = [m for m, job in zip(marks, jobs) if job["ctx"]["viewer"] is not None]
    assert seat_views and all(m[".player.you"] == 1 for m in seat_views)


def test_seat_names_are_escaped():
    state = GAME.setup(3, 4)
    obs = GAME.observe(state, None)
    ctx = context(view, 3, {}, 0, None, seats=[HOSTILE, "b", "c"])
    (svg,) = render_all("port_royal", [{"obs": obs, "ctx": ctx}])
    assert "<script>" not in svg
    texts = [el.text for el in ET.fromstring(svg).iter() if el.text]
    assert any(HOSTILE in text for text in texts)
