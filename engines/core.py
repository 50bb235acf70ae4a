"""The game contract shared by every engine (see README, "Add a game").

A game is a stateless ``Game`` object; all mutable data lives in the state it creates. ``apply``
mutates the state in place (games are played forward far more often than they are searched, and
copying every state would halve the speed); ``clone`` gives an independent copy for look-ahead.
"""
from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Sequence

Action = dict[str, Any]
Event = dict[str, Any]
Observation = dict[str, Any]


class IllegalAction(ValueError):
    """An action the rules do not allow; ``rule`` names the rule (e.g. ``"§4.2 repel"``)."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{message} [rule: {rule}]")
        self.rule = rule
        self.message = message


class BadOptions(ValueError):
    """Options or player count a game cannot be set up with."""


@dataclass(frozen=True)
class Outcome:
    """Final result: for every seat a rank (0 = best, equal for ties) and a score."""

    ranks: list[int]
    scores: list[float]
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ranks": list(self.ranks), "scores": list(self.scores)}
        if self.detail:
            data["detail"] = self.detail
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Outcome":
        return cls(list(data["ranks"]), list(data["scores"]), dict(data.get("detail") or {}))


def ranks_from_keys(keys: Sequence[Any]) -> list[int]:
    """Competition ranks (0 = best) from per-seat sort keys where a larger key is better.

    Seats with equal keys share a rank and the next rank skips: keys (5, 9, 5) give ranks (1, 0, 1).
    """
    order = sorted(range(len(keys)), key=lambda s: keys[s], reverse=True)
    ranks = [0] * len(keys)
    for position, seat in enumerate(order):
        if position and keys[seat] == keys[order[position - 1]]:
            ranks[seat] = ranks[order[position - 1]]
        else:
            ranks[seat] = position
    return ranks


class Game(ABC):
    """One board game's rules. Subclasses set the class attributes and implement the six calls."""

    id: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: every option the game accepts, with its default; unknown options are refused.
    default_options: ClassVar[dict[str, Any]] = {}

    # --- the contract -------------------------------------------------------------------------
    @abstractmethod
    def setup(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> Any:
        """A new game state; every random choice of the game comes from a generator seeded here."""

    @abstractmethod
    def to_move(self, state: Any) -> int | None:
        """The one seat that decides now, or None when the game is over."""

    @abstractmethod
    def legal_actions(self, state: Any, seat: int) -> list[Action]:
        """Every legal action of ``seat``, in a deterministic order; never empty while it is to move."""

    @abstractmethod
    def apply(self, state: Any, seat: int, action: Action) -> list[Event]:
        """Validate and play ``action`` for ``seat``; raise ``IllegalAction`` naming the rule if refused."""

    @abstractmethod
    def observe(self, state: Any, seat: int | None) -> Observation:
        """JSON view for ``seat`` (None: a spectator) with no other seat's private information."""

    @abstractmethod
    def outcome(self, state: Any) -> Outcome:
        """Ranks and scores of every seat; only valid once ``to_move`` is None."""

    # --- shared helpers -----------------------------------------------------------------------
    def options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The game's defaults overlaid with ``options``; unknown keys raise ``BadOptions``."""
        merged = dict(self.default_options)
        for key, value in (options or {}).items():
            if key not in merged:
                known = ", ".join(sorted(merged)) or "none"
                raise BadOptions(f"{self.id}: unknown option {key!r} (known options: {known})")
            merged[key] = value
        return merged

    def check_players(self, num_players: int) -> None:
        """Raise ``BadOptions`` unless the game supports ``num_players``."""
        if not self.min_players <= num_players <= self.max_players:
            raise BadOptions(
                f"{self.id} is played by {self.min_players}-{self.max_players} players, not {num_players}"
            )

    def is_over(self, state: Any) -> bool:
        return self.to_move(state) is None

    def clone(self, state: Any) -> Any:
        """An independent copy of ``state`` (games with a faster copy override this)."""
        return copy.deepcopy(state)

    def describe_action(self, action: Action) -> str:
        """Short human text for an action, used by logs and viewers."""
        rest = ", ".join(f"{k}={v}" for k, v in action.items() if k != "type")
        return f"{action['type']}({rest})" if rest else action["type"]
