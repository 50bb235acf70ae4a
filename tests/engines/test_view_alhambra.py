"""Alhambra for people: move texts over whole matches, and the board drawing checked in node."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from board_views import HOSTILE, RAW_ID, context, drawing_jobs, frames_of_match, mismatches
from svg_views import parse_svg, render_all

from engines.alhambra import GAME
from engines.alhambra import view

OPTIONS = [{}, {"open_money": True}, {"all_payments": True}]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: next(iter(o), "standard"))
def test_every_move_and_event_is_described_with_names(players, options):
    types = set()
    for seed in range(2):
        for frame in frames_of_match("alhambra", players, seed, options):
            lines = view.describe_events(frame["events"])
            if frame["action"] is not None:
                types.add(frame["action"]["type"])
                lines.append(view.describe_action(frame["action"], frame["obs"]))
            for line in lines:
                assert line and not RAW_ID.search(line) and "None" not in line and "{" not in line, line
        assert view.scores(frame["obs"]) == GAME.outcome(frame["state"]).scores
    assert {"take_money", "buy", "place"} <= types


def test_hand_checked_texts():
    moves = {f["move"]: f for f in frames_of_match("alhambra", 3, 1)}

    def said(move):
        return view.describe_action(moves[move]["action"], moves[move]["obs"])

    assert said(0) == "takes 7 ducat"
    assert said(1) == "buys the green Garden (price 10, walls N) with 5 + 5 dirham (exact: another action)"
    assert said(3) == "builds the blue Pavilion (price 4, walls E S) 1 south of the fountain"
    assert said(6) == "takes 3 gulden and 2 denar"
    assert said(10) == "puts the brown Arcades (price 8, walls N) in the reserve"
    assert said(15) == "builds the brown Arcades (price 8, walls N) from the reserve, 1 south, 1 east of the fountain"
    assert said(18) == "takes the brown Arcades (price 8, walls N) out of the Alhambra into the reserve"
    assert view.describe_events(moves[7]["events"]) == [
        "seat 0 places the red Seraglio 1 west of the fountain",
        "market refilled: money 5 denar, 7 gulden; buildings brown Arcades (denar)"]


def test_scoring_and_dirk_in_words():
    events = [{"type": "scoring", "round": 1, "points": [22, 4], "walls": [8, 0], "dirk": 3,
               "dirk_tiles": [42, 12, 4, 18, 16, 11]}]
    assert view.describe_events(events) == [
        "scoring round 1: seat 0 +22 (8 for walls), seat 1 +4, Dirk +3", "Dirk gets 6 tiles from the bag"]
    assert view.describe_action({"type": "place", "tile": 49, "to": "dirk"}, {}) == \
        "gives the purple Tower (price 10, walls W) to Dirk"


def test_static_info_is_json_and_names_tiles():
    info = view.static_info(2, {})
    json.dumps(info)
    assert len(info["tiles"]) == 55 and info["tiles"]["0"]["text"] == "Lion Fountain"
    assert info["tiles"]["1"]["text"] == "blue Pavilion (price 2, walls N E W)"
    assert info["money"]["57"] == [2, 2] and info["dirk"] is True


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_drawing_matches_the_expected_marks(players):
    options = {"open_money": True} if players == 4 else {}
    frames = list(frames_of_match("alhambra", players, 11, options, every=25))
    jobs, marks = drawing_jobs(view, frames, players, options, 30)
    svgs = render_all("alhambra", jobs)
    assert len(svgs) == len(jobs) > 30
    for svg, mark, job in zip(svgs, marks, jobs):
        assert mismatches(svg, mark) == {}, (job["ctx"]["move"], job["ctx"]["viewer"])
        assert parse_svg(svg).get("viewBox", "").startswith("0 0 ")
    seat_views = [m for m, job in zip(marks, jobs) if job["ctx"]["viewer"] is not None]
    assert seat_views and all(m[".player.you"] == 1 for m in seat_views)
    if not options:  # a seat sees its own money and the backs of the others'
        hidden = [m for m, job in zip(marks, jobs) if job["ctx"]["viewer"] == 0]
        assert any(m[".money.hand[data-seat='0']"] for m in hidden)
        assert any(m[".money.back[data-seat='1']"] for m in hidden)


def test_seat_names_are_escaped():
    obs = GAME.observe(GAME.setup(3, 4), None)
    ctx = context(view, 3, {}, 0, None, seats=[HOSTILE, "b", "c"])
    (svg,) = render_all("alhambra", [{"obs": obs, "ctx": ctx}])
    assert "<script>" not in svg
    assert any(HOSTILE in el.text for el in ET.fromstring(svg).iter() if el.text)
