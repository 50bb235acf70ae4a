"""The match viewer's data and offline page (engines.view): frames decode to the replayed
observations, the move list is in words, stderr never appears, the HTML file needs no network."""
import json
import re

import pytest
from hypothesis import example, given, settings, strategies as st

from engines.cli import main
from engines.games import GAME_IDS, builtin_bots, get_game
from engines.match import MatchLog, play_match, replay_states
from engines.view import delta, match_data, render_html, seat_frames
from engines.view.frames import decode_frames
from engines.view.games import expected_marks

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=4),
    max_leaves=20,
)


def same_json(a, b) -> bool:
    """Equal as JSON: True is not 1 (as ``==`` would have it); the order of an object's keys is free."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(deadline=None)  # a busy machine is no failure
@given(json_values, json_values)
@example({"score": 0.0}, {"score": -0.0})  # equal in Python, apart in JSON
def test_a_delta_turns_the_old_value_into_the_new_one(old, new):
    before = json.dumps(old)
    ops = delta.diff(old, new)
    assert delta.apply(old, ops) == new
    assert same_json(delta.apply(old, ops), new)
    assert json.dumps(old) == before  # the old value is left alone
    assert json.loads(json.dumps(ops)) == ops  # operations are plain JSON


def test_an_unchanged_value_has_an_empty_delta():
    value = {"a": [1, {"b": True}], "c": None}
    assert delta.diff(value, json.loads(json.dumps(value))) == []
    assert delta.diff({"x": 1}, {"x": True}) == [[["x"], True]]


def small_match(game: str, seed: int = 1) -> MatchLog:
    bots = builtin_bots(game)
    seats = [bots["heuristic"](seed=seed), bots["random"](seed=seed + 1), bots["random"](seed=seed + 2)]
    return play_match(game, seats, seed)


@pytest.mark.parametrize("game", GAME_IDS)
def test_frames_decode_to_every_replayed_observation(game):
    log = small_match(game)
    engine = get_game(game)
    spectator, seat1 = [], []
    for state, _seat, _action in replay_states(log):
        spectator.append(json.loads(json.dumps(engine.observe(state, None))))
        seat1.append(json.loads(json.dumps(engine.observe(state, 1))))
    data = match_data(log, keyframe_every=50, seat_views=[1])
    assert decode_frames(data["views"]["spectator"]) == spectator
    assert decode_frames(data["views"]["1"]) == seat1
    assert set(data["views"]) == {"spectator", "1"}
    assert "k" in data["views"]["spectator"][50] and "d" in data["views"]["spectator"][51]
    assert decode_frames(seat_frames(log, 1, keyframe_every=50)["frames"]) == seat1
    assert len(data["moves"]) == len(log.moves) and all(m["t"] for m in data["moves"])
    if data["scores"] is not None:
        assert len(data["scores"]) == len(log.moves) + 1 and all(len(row) == 3 for row in data["scores"])
    marks = expected_marks(game, spectator[-1])
    assert marks and all(isinstance(v, int) and v >= 0 for v in marks.values())


def test_faults_are_marked_without_stderr():
    log = small_match("port_royal")
    log.faults = [{"seat": 0, "move": 4, "kind": "crash", "detail": "exit 1", "stderr_tail": "SECRET-TRACE"}]
    log.stderr = {0: "SECRET-TRACE and more"}
    data = match_data(log)
    assert data["faults"] == [{"seat": 0, "move": 4, "kind": "crash", "detail": "exit 1"}]
    assert "SECRET" not in json.dumps(data)
    assert "SECRET" not in render_html(log)


def test_a_seat_that_does_not_exist_is_refused():
    with pytest.raises(ValueError, match="no seat 5"):
        seat_frames(small_match("top_race"), 5)


def test_the_view_command_writes_one_self_contained_page(tmp_path, capsys):
    log = small_match("alhambra")
    (tmp_path / "m.json").write_text(json.dumps(log.to_dict()))
    assert main(["view", str(tmp_path / "m.json"), "-o", str(tmp_path / "m.html")]) == 0
    page = (tmp_path / "m.html").read_text()
    assert page.startswith("<!doctype html>") and "ArenaViewer.mount" in page
    # No network: nothing is loaded from elsewhere.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "fetch(" not in page.split("ArenaViewer.mount")[-1]
    config = json.loads(re.search(r'id="arena-viewer-config">(.*?)</script>', page, re.S).group(1))
    assert config["data"]["game"] == "alhambra" and config["allowedSeats"] == [0, 1, 2]
    assert set(config["data"]["views"]) == {"spectator", "0", "1", "2"}
    assert "m.html" in capsys.readouterr().out
    assert main(["view", str(tmp_path / "missing.json")]) == 1


@settings(deadline=None)
@given(st.dictionaries(st.text(max_size=2), json_values, max_size=5),
       st.dictionaries(st.text(max_size=2), json_values, max_size=5))
@example({"a": [0.0]}, {"a": [-0.0]})
def test_the_object_delta_skips_unchanged_members_and_still_turns_old_into_new(old, new):
    ops = delta.diff_objects(old, new)
    assert same_json(delta.apply(old, ops), new)
    assert delta.diff_objects(old, old) == []


@pytest.mark.parametrize("game", GAME_IDS)
def test_seat_views_are_public_exactly_where_they_show_nothing_more(game):
    """SEAT_VIEWS_PUBLIC opens every seat's view to every visitor: right only if a seat's view differs
    from the spectator's in naming who looks (a key holding the seat where the spectator has None)."""
    from engines.view.games import seat_views_public

    log = small_match(game, seed=2)
    engine = get_game(game)
    more = set()
    for state, _seat, _action in replay_states(log):
        spectator = json.loads(json.dumps(engine.observe(state, None)))
        for seat in range(3):
            view = json.loads(json.dumps(engine.observe(state, seat)))
            more |= {key for key in set(view) | set(spectator) if view.get(key) != spectator.get(key)
                     and not (view.get(key) == seat and spectator.get(key) is None)}
    assert seat_views_public(game) == (not more), f"seat views show more in: {sorted(more)}"
