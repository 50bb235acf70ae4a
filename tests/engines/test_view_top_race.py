"""Top Race for people: move texts over whole matches of every variant, and the board drawing in node."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from board_views import HOSTILE, RAW_ID, context, drawing_jobs, frames_of_match, mismatches
from svg_views import parse_svg, render_all

from engines.top_race import GAME
from engines.top_race import view

VARIANTS = {
    "basic": {},
    "pitstop": {"pitstop": True},
    "tips": {"tips": True, "races": 1},
    "pitstop_tips": {"pitstop": True, "tips": True, "tips_flip_consumes_pitstop": True, "races": 1},
    "shares": {"shares": True},
    "shares_pitstop": {"shares": True, "pitstop": True},
    "tracks": {"tracks": ["lake_lane", "desert_drive", "turbo_town"]},
}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_move_and_event_is_described_with_names(players, variant):
    options = VARIANTS[variant]
    types = set()
    for frame in frames_of_match("top_race", players, players * 7, options):
        lines = view.describe_events(frame["events"])
        if frame["action"] is not None:
            types.add(frame["action"]["type"])
            lines.append(view.describe_action(frame["action"], frame["obs"]))
        for line in lines:
            assert line and not RAW_ID.search(line) and "None" not in line and "{" not in line, line
            assert not any(f"r{n}l" in line for n in range(10)), line
    assert view.scores(frame["obs"]) == GAME.outcome(frame["state"]).scores
    assert {"play", "bid" if "shares" not in variant else "trade"} <= types


def test_hand_checked_texts():
    moves = {f["move"]: f for f in frames_of_match("top_race", 3, 1)}

    def said(move):
        return view.describe_action(moves[move]["action"], moves[move]["obs"])

    assert said(1) == "bids 160\u202f000"
    assert view.describe_events(moves[3]["events"]) == ["seat 0 passes", "seat 1 wins the auction for 160\u202f000"]
    assert said(4) == "takes the green car onto start space 6"
    assert said(61) == "plays black 6, joker 4, blue 2, yellow 1"
    assert said(63) == "names the green car for the joker"


def test_texts_of_the_modules():
    obs = {"car": "red", "discard": [46], "claim_card": 37, "tip_round": 2}
    assert view.describe_action({"type": "move", "to": "r12l2"}, obs) == "moves the red car to row 12, right lane"
    assert view.describe_action({"type": "return", "to": "r3l0"}, obs) == "brings back the red car to row 3, left lane"
    assert view.describe_action({"type": "pitstop", "from": "discard"}, obs) == \
        "makes a pitstop, taking the top discard (Spurt/Breakdown blue & red)"
    assert view.describe_action({"type": "pitstop_claim"}, obs) == \
        "claims the card just played (red 6, green 4, blue 2) for a pitstop"
    assert view.describe_action({"type": "tip", "car": "black"}, obs) == "places a secret tip 2 on the black car"
    assert view.describe_action({"type": "play", "card": 47, "mode": "breakdown"}, obs) == \
        "plays Breakdown on yellow & black"
    assert view.describe_action({"type": "trade", "sell": ["black", "black"], "buy": ["red", "green"]}, obs) == \
        "secretly sells black and black shares, buys red and green"
    assert view.describe_events([{"type": "finish", "car": "blue", "place": 2, "seat": 0, "prize": 150000}]) == \
        ["the blue car finishes 2nd, 150\u202f000 to seat 0"]


def test_static_info_is_json_with_every_card_and_track():
    info = view.static_info(4, {})
    json.dumps(info)
    assert len(info["cards"]) == 48 and info["cards"]["46"]["text"] == "Spurt/Breakdown blue & red"
    assert set(info["tracks"]) == {"speed_street", "lake_lane", "desert_drive", "turbo_town"}
    street = info["tracks"]["speed_street"]
    assert street["rows"] == 64 and len(street["row_kinds"]) == 64 and street["start_spaces"]["1"] == "r1l2"


@pytest.mark.parametrize("variant,players", [("basic", 2), ("pitstop_tips", 4), ("shares_pitstop", 6),
                                             ("shares", 3), ("tracks", 5)])
def test_drawing_matches_the_expected_marks(variant, players):
    options = VARIANTS[variant]
    frames = list(frames_of_match("top_race", players, 5, options, every=60))
    jobs, marks = drawing_jobs(view, frames, players, options, 25)
    svgs = render_all("top_race", jobs)
    assert len(svgs) == len(jobs) > 25
    for svg, mark, job in zip(svgs, marks, jobs):
        assert mismatches(svg, mark) == {}, (job["ctx"]["move"], job["ctx"]["viewer"])
        assert parse_svg(svg).get("viewBox", "").startswith("0 0 ")
    seat_views = [m for m, job in zip(marks, jobs) if job["ctx"]["viewer"] == 1]
    assert seat_views and all(m[".player.you"] == 1 for m in seat_views)
    # a seat sees its own cards and the backs of the others'
    assert any(m[".tempo.hand[data-seat='1']"] and m[".tempo.back[data-seat='0']"] for m in seat_views)


def test_seat_names_are_escaped():
    obs = GAME.observe(GAME.setup(3, 4), None)
    ctx = context(view, 3, {}, 0, None, seats=[HOSTILE, "b", "c"])
    (svg,) = render_all("top_race", [{"obs": obs, "ctx": ctx}])
    assert "<script>" not in svg
    assert any(HOSTILE in el.text for el in ET.fromstring(svg).iter() if el.text)
