"""Registry of the games: ids are the same in code, command line, API and URLs."""
from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engines.core import Game

GAME_IDS: tuple[str, ...] = ("el_capitan", "alhambra", "port_royal", "catan", "top_race")


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return f"unknown game {self.args[0]!r}; games: {', '.join(GAME_IDS)}"


@cache
def get_game(game_id: str) -> "Game":
    """The ``Game`` object of ``game_id`` (each game package exports ``GAME``)."""
    if game_id not in GAME_IDS:
        raise UnknownGame(game_id)
    return importlib.import_module(f"engines.{game_id}").GAME


@cache
def builtin_bots(game_id: str) -> dict[str, type]:
    """Built-in bot classes of a game by name (each game package exports ``BOTS``)."""
    get_game(game_id)
    return dict(importlib.import_module(f"engines.{game_id}").BOTS)


def available_games() -> list[str]:
    """Ids of the games whose engine package is present."""
    found = []
    for game_id in GAME_IDS:
        try:
            get_game(game_id)
        except ModuleNotFoundError as exc:
            if exc.name != f"engines.{game_id}":
                raise
        else:
            found.append(game_id)
    return found
