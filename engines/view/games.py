"""Each game's view module (``engines/<game>/view.py`` and ``view.js``), with a fallback for games
that have none: the engine's own action text, no scores, and the generic JSON drawing."""
from __future__ import annotations

import hashlib
import importlib
import json
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from engines.core import Action, Event, Observation
from engines.games import get_game

STATIC = Path(__file__).parent / "static"
ENGINES = Path(__file__).parent.parent


@cache
def view_module(game_id: str) -> ModuleType | None:
    """``engines.<game>.view`` or None when the game has no view module yet."""
    get_game(game_id)
    try:
        return importlib.import_module(f"engines.{game_id}.view")
    except ModuleNotFoundError as exc:
        if exc.name != f"engines.{game_id}.view":
            raise
        return None


def view_js(game_id: str) -> str:
    """The game's drawing (plain browser JS registering ``ArenaViewers[game]``), or '' without one."""
    path = ENGINES / game_id / "view.js"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def describe_action(game_id: str, action: Action, observation: Observation) -> str:
    """Human words for ``action``, given the spectator observation just before it."""
    module = view_module(game_id)
    if module is not None:
        return module.describe_action(action, observation)
    return get_game(game_id).describe_action(action)


def describe_events(game_id: str, events: list[Event]) -> list[str]:
    """Human lines for the events of one move (the fallback: each event's fields in a line)."""
    module = view_module(game_id)
    if module is not None:
        return list(module.describe_events(events))
    lines = []
    for event in events:
        rest = ", ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in event.items() if k != "type")
        lines.append(f"{event.get('type', '?')}({rest})" if rest else str(event.get("type", "?")))
    return lines


def scores(game_id: str, observation: Observation) -> list[float] | None:
    """Each seat's current score, or None where the game has no view module."""
    module = view_module(game_id)
    return [float(s) for s in module.scores(observation)] if module is not None else None


def static_info(game_id: str, num_players: int, options: dict[str, Any]) -> dict[str, Any]:
    """The game's static tables for its drawing (its view module's ``static_info``), or {} without one."""
    module = view_module(game_id)
    return module.static_info(num_players, options) if module is not None else {}


def expected_marks(game_id: str, observation: Observation) -> dict[str, int]:
    """CSS selector -> how many elements the drawing of ``observation`` holds (for the browser tests).

    The generic drawing writes one ``.gk`` line per top-level key of the observation.
    """
    module = view_module(game_id)
    if module is not None and view_js(game_id):
        return dict(module.expected_marks(observation))
    return {"svg.generic .gk": len(observation)}


def seat_views_public(game_id: str) -> bool:
    """True when a seat's view shows nothing the spectator's does not (then anyone may open it)."""
    module = view_module(game_id)
    return bool(getattr(module, "SEAT_VIEWS_PUBLIC", False)) if module is not None else False


@cache
def data_version(game_id: str) -> str:
    """A fingerprint of the code that makes a game's viewer data (its ``view.py``, this package's
    Python): cached frames made by other code are not reused."""
    digest = hashlib.sha1()
    for path in sorted(Path(__file__).parent.glob("*.py")) + [ENGINES / game_id / "view.py"]:
        if path.exists():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
