"""Helpers of the sandbox tests (imported by name: pytest puts this folder on sys.path)."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

from engines.core import Game, Option, Outcome, ranks_from_keys


class CountGame(Game):
    """A tiny test game: seats alternately add 1, 2 or 3 to a total; the game ends after ``moves`` moves.

    The score of a seat is what it added; keeps the sandbox tests independent of the real games.
    """

    id = "count"
    name = "Count"
    min_players = 1
    max_players = 6
    option_specs = (Option("moves", 8, "int", "moves in a game", minimum=1, maximum=1000),)

    class State:
        __slots__ = ("n", "moves", "total", "added", "played")

    def setup(self, num_players, seed, options=None):
        s = self.State()
        s.n, s.moves, s.total, s.added, s.played = num_players, self.options(options)["moves"], 0, [0] * num_players, 0
        return s

    def to_move(self, state):
        return None if state.played >= state.moves else state.played % state.n

    def legal_actions(self, state, seat):
        return [{"type": "add", "n": k} for k in (1, 2, 3)]

    def apply(self, state, seat, action):
        state.total += action["n"]
        state.added[seat] += action["n"]
        state.played += 1
        return [{"type": "added", "seat": seat, "n": action["n"]}]

    def observe(self, state, seat):
        return {"total": state.total, "added": list(state.added), "you": seat}

    def outcome(self, state):
        return Outcome(ranks_from_keys(state.added), [float(a) for a in state.added])


COUNT_GAME = CountGame()


def write_bot(folder: Path, source: str, name: str = "main.py") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def processes_of(uids: set[int], marker: str | None = None) -> list[str]:
    """Host processes whose real uid is in ``uids`` or whose command line holds ``marker``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        uid = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("Uid:")), -1)
        if uid in uids or (marker and marker in cmdline):
            if "State:\tZ" in status:
                found.append(f"zombie {pid} uid {uid}: {cmdline[:100]}")
            else:
                found.append(f"{pid} uid {uid}: {cmdline[:100]}")
    return found


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))
