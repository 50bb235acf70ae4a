"""Test helpers for the board drawings (``engines/<game>/view.js``) and move texts (``view.py``).

``render`` runs a game's view.js in node, the way the browser would (a bare ``window``, no DOM), and
returns the SVG strings; ``count`` counts the elements of an SVG matching a simple CSS selector, so a
test can hold the drawing against ``view.expected_marks``.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import pytest

from engines.games import builtin_bots, get_game

ENGINES = Path(__file__).resolve().parents[2] / "engines"
COLORS = ["#d7263d", "#1b998b", "#2e86de", "#f49d37", "#7d5ba6", "#3f3f3f"]
HOSTILE = '<script>alert("x")</script> & \'Bob\''

# Reads one JSON document {source, game, frames: [{obs, ctx}]} on stdin, prints a JSON list of SVGs.
_NODE_MAIN = r"""
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const job = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const window = {};
  new Function("window", job.source)(window);
  const viewer = window.ArenaViewers[job.game];
  const out = job.frames.map((f) => viewer.render(f.obs, f.ctx));
  process.stdout.write(JSON.stringify(out));
});
"""


def node() -> str:
    """The node executable; skips the test (fails in CI) where there is none."""
    found = shutil.which("node")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is required in CI to test the board drawings")
        pytest.skip("node is not installed: the board drawings (view.js) cannot be run")
    return found


def render(game_id: str, frames: Sequence[Mapping[str, Any]]) -> list[str]:
    """The SVG of each frame ``{"obs": ..., "ctx": ...}`` drawn by ``engines/<game_id>/view.js``."""
    source = (ENGINES / game_id / "view.js").read_text(encoding="utf-8")
    job = json.dumps({"source": source, "game": game_id, "frames": list(frames)})
    done = subprocess.run([node(), "-e", _NODE_MAIN], input=job.encode(), capture_output=True, timeout=120)
    if done.returncode != 0:
        raise AssertionError(f"view.js of {game_id} failed:\n{done.stderr.decode()[-3000:]}")
    return json.loads(done.stdout)


_SELECTOR = re.compile(r"([a-zA-Z]+)?((?:\.[\w-]+|\[[\w-]+(?:='[^']*')?\])*)$")
_PART = re.compile(r"\.([\w-]+)|\[([\w-]+)(='([^']*)')?\]")


def _matcher(selector: str):
    m = _SELECTOR.fullmatch(selector)
    if not m:
        raise ValueError(f"unsupported selector {selector!r}")
    tag = m.group(1)
    classes, attrs = [], []
    for cls, attr, has_value, value in _PART.findall(m.group(2)):
        if cls:
            classes.append(cls)
        else:
            attrs.append((attr, value if has_value else None))

    def matches(el: ET.Element) -> bool:
        if tag and el.tag.rsplit("}", 1)[-1] != tag:
            return False
        have = set((el.get("class") or "").split())
        if not all(c in have for c in classes):
            return False
        return all(el.get(a) is not None and (v is None or el.get(a) == v) for a, v in attrs)

    return matches


def parse(svg: str) -> ET.Element:
    """The SVG as XML (it must be well-formed)."""
    return ET.fromstring(svg)


def count(root: ET.Element, selector: str) -> int:
    """Elements under (and including) ``root`` matching a selector like ``.card.harbour[data-seat='1']``."""
    matches = _matcher(selector)
    return sum(1 for el in root.iter() if matches(el))


def mismatches(svg: str, marks: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    """selector -> (expected, drawn) for every mark the SVG does not meet."""
    root = parse(svg)
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
        spectator = game.observe(state, None)
        seat_obs = [game.observe(state, s) for s in range(players)] if every and move % every == 0 else None
        action = legal[seat_bots[seat].act(game.observe(state, seat), legal)]
        events = game.apply(state, seat, action)
        yield {"move": move, "seat": seat, "obs": spectator, "action": action, "events": events, "state": state,
               "seat_obs": seat_obs}
        move += 1
    yield {"move": move, "seat": None, "obs": game.observe(state, None), "action": None, "events": [],
           "state": state, "seat_obs": [game.observe(state, s) for s in range(players)] if every else None}


def context(view: Any, players: int, options: Mapping[str, Any], move: int, viewer: int | None = None,
            seats: Sequence[str] | None = None) -> dict[str, Any]:
    """The ``ctx`` the viewer shell passes to ``render``."""
    return {"static": view.static_info(players, dict(options)), "seats": list(seats or [f"bot {s}" for s in range(players)]),
            "colors": COLORS[:players], "viewer": viewer, "move": move}


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
