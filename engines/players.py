"""Players from specs: a built-in bot by name, or a bot program on disk (run in the sandbox).

Sits above ``engines.bots`` (the interface and built-in bots) and ``engines.sandbox`` (programs), so
neither of those imports the other's side.
"""
from __future__ import annotations

from typing import Any

from engines.bots import Bot
from engines.games import builtin_bots
from engines.sandbox import ProgramBot


def is_program_spec(spec: str) -> bool:
    """True when a bot spec names a program on disk (a path) rather than a built-in bot."""
    return "/" in spec or spec.endswith((".py", ".zip", ".js"))


def make_bot(spec: str, game_id: str, seed: int, **program_options: Any) -> Bot:
    """A bot from a spec: a built-in name (``random``, ``heuristic``) or a path to a bot program.

    Programs run in the sandbox (``engines.sandbox``); ``program_options`` are passed to it
    (e.g. ``trusted=True`` for a local run without bubblewrap).
    """
    if is_program_spec(spec):
        return ProgramBot.from_path(spec, **program_options)
    bots = builtin_bots(game_id)
    if spec not in bots:
        raise KeyError(f"{game_id} has no built-in bot {spec!r}; built-in bots: {', '.join(sorted(bots))}")
    return bots[spec](seed=seed)
