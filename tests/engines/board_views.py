"""Test helpers for the board views of Port Royal, Alhambra and Top Race (``engines/<game>/view.py`` and
``view.js``): seeded matches frame by frame, the render jobs of a sample of them, and the check of a
drawing against ``view.expected_marks`` (node and the selector counting live in ``tests/svg_views.py``).
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator, Mapping, Sequence

from svg_views import count, parse_svg

from engines.games import builtin_bots, get_game

COLORS = ["#d7263d", "#1b998b", "#2e86de", "#f49d37", "#7d5ba6", "#3f3f3f"]
HOSTILE = '<script>alert("x")</script> & \'Bob\''


def mismatches(svg: str, marks: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    """selector -> (expected, drawn) for every mark the SVG does not meet."""
    root = parse_svg(svg)
    out = {}
    for selector, expected in marks.items():
        drawn = count(root, selector)
        if drawn != expected:
            out[selector] = (expected, drawn)
    return out


def frames_of_match(game_id: str, players: int, seed: int, options: Mapping[str, Any] | None = None,
                    bots: Sequence[str] = ("heuristic", "random"), every: int = 0) -> Iterator[dict[str, Any]]:
    """Every move of a seeded match of built-in bots: the spectator's observation before it, the mover,
    the action and its events; then the final observation (``seat`` None). Every ``every``-th move (and
    at the end) also carries ``seat_obs``, each seat's own observation. ``state`` is live: it changes."""
    game = get_game(game_id)
    classes = builtin_bots(game_id)
    seat_bots = [classes[bots[s % len(bots)]](seed=seed * 10 + s) for s in range(players)]
    for s, bot in enumerate(seat_bots):
        bot.start(game_id, s, players, game.options(options))
    state = game.setup(players, seed, options)
    move = 0
    while (seat := game.to_move(state)) is not None:
        legal = game.legal_actions(state, seat)
        # through JSON, as the shell sends them (an engine may hand out live lists of its state)
        spectator = _json(game.observe(state, None))
        seat_obs = [_json(game.observe(state, s)) for s in range(players)] if every and move % every == 0 else None
        action = legal[seat_bots[seat].act(game.observe(state, seat), legal)]
        events = game.apply(state, seat, action)
        yield {"move": move, "seat": seat, "obs": spectator, "action": action, "events": events, "state": state,
               "seat_obs": seat_obs}
        move += 1
    yield {"move": move, "seat": None, "obs": _json(game.observe(state, None)), "action": None, "events": [],
           "state": state, "seat_obs": [_json(game.observe(state, s)) for s in range(players)] if every else None}


def _json(data: Any) -> Any:
    return json.loads(json.dumps(data))


def context(view: Any, players: int, options: Mapping[str, Any], move: int, viewer: int | None = None,
            seats: Sequence[str] | None = None) -> dict[str, Any]:
    """The ``ctx`` the viewer shell passes to ``render``."""
    names = list(seats or [f"bot {s}" for s in range(players)])
    return {"static": view.static_info(players, dict(options)), "seats": names, "colors": COLORS[:players],
            "viewer": viewer, "move": move}


def drawing_jobs(view: Any, frames: Sequence[Mapping[str, Any]], players: int, options: Mapping[str, Any],
                 count: int) -> tuple[list[dict[str, Any]], list[dict[str, int]]]:
    """About ``count`` evenly spread frames and the last, each drawn for the spectator and, where the frame
    carries them, for every seat: the render jobs and the expected marks of each."""
    step = max(1, len(frames) // count)
    chosen = list(frames[::step])
    if chosen[-1] is not frames[-1]:
        chosen.append(frames[-1])
    jobs, marks = [], []
    for f in chosen:
        views = [(None, f["obs"])] + list(enumerate(f["seat_obs"] or []))
        for viewer, obs in views:
            jobs.append({"obs": obs, "ctx": context(view, players, options, f["move"], viewer)})
            marks.append(view.expected_marks(obs))
    return jobs, marks


#: an id written the way code writes it ("card=90", "tile: 34") instead of a name
RAW_ID = re.compile(r"\b(card|tile|id|slot|cards|pay|replaces)\s*[=:]\s*\d")
