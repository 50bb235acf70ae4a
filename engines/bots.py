"""The bot interface, shared by built-in bots (in-process) and uploaded bots (sandboxed).

A bot sees exactly what the protocol sends: the observation of its seat and the list of legal
actions; it answers with an index into that list.
"""
from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any, Mapping, Sequence

from engines.core import Action, Observation, Outcome


class BotFault(Exception):
    """A bot misbehaved: crashed, timed out, printed garbage or answered out of range.

    ``kind`` is one of: crash, timeout, garbage, illegal, protocol.
    ``stderr_tail`` is what the bot last wrote on stderr, shown only to its owner.
    """

    def __init__(self, kind: str, detail: str, stderr_tail: str = ""):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.stderr_tail = stderr_tail


class Bot(ABC):
    """A player. ``start`` once, ``act`` at every decision of its seat, ``end`` with the outcome."""

    name: str = "bot"

    def start(self, game_id: str, seat: int, num_players: int, options: Mapping[str, Any]) -> None:
        """Called once before the first decision."""
        self.game_id, self.seat, self.num_players, self.options = game_id, seat, num_players, options

    def launch(self, game_id: str, seat: int, num_players: int, options: Mapping[str, Any],
               match_ms: int | None = None) -> None:
        """``start`` in two steps, this one and ``ready``, so that a match's bots can start at once (a program
        is launched here and awaited in ``ready``). A bot that starts in one step does it all here.
        ``match_ms`` is the seat's time bank for the whole match (None: none), told to programs in ``start``."""
        self.start(game_id, seat, num_players, options)

    def ready(self) -> None:
        """The second step of ``launch``: return once the bot is ready for its first decision."""

    @abstractmethod
    def act(self, observation: Observation, legal_actions: Sequence[Action], time_left_ms: int | None = None) -> int:
        """Index into ``legal_actions`` of the chosen action."""

    def end(self, outcome: Outcome) -> None:
        """Called once when the match is over."""

    def close(self) -> None:
        """Release anything the bot holds (processes, files); called even after a fault."""

    def stderr_tail(self) -> str:
        """The tail of what the bot wrote on stderr (sandboxed bots only)."""
        return ""


class RandomBot(Bot):
    """Uniformly random legal actions from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, observation: Observation, legal_actions: Sequence[Action], time_left_ms: int | None = None) -> int:
        """A uniformly random legal action."""
        return self.rng.randrange(len(legal_actions))
