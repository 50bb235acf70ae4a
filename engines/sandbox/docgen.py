"""Regenerate the per-game example exchanges of docs/bot-protocol.md from the real engines.

    python -m engines.sandbox.docgen [docs/bot-protocol.md]

Rewrites the text between the ``<!-- examples:start -->`` and ``<!-- examples:end -->`` markers;
games whose engine is missing are listed as such.
"""
from __future__ import annotations

import sys
from pathlib import Path

from engines.games import GAME_IDS, available_games, get_game
from engines.protocol import example_exchange, render_exchange

START, END = "<!-- examples:start -->", "<!-- examples:end -->"
DOC = Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.md"


def examples_markdown(decisions: int = 1, skip: int = 3, seed: int = 1) -> str:
    """One complete exchange (start, ready, act, answer, end) per game, from seeded real games."""
    present = set(available_games())
    parts = []
    for game_id in GAME_IDS:
        if game_id not in present:
            parts.append(f"### {game_id}\n\n(no engine yet: the example appears when it lands)\n")
            continue
        game = get_game(game_id)
        lines = example_exchange(game_id, seed=seed, decisions=decisions, skip=skip)
        players = lines[0][1]["num_players"]
        parts.append(f"### {game_id} ({game.name})\n\nSeat 0 of a {players}-player game (seed {seed}); its "
                     f"{skip + 1}th decision is shown; each line is exactly as sent.\n\n"
                     + render_exchange(lines, width=1_000_000))
    return "\n".join(parts)


def update(path: Path = DOC) -> None:
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _old, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n\n{examples_markdown()}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    update(Path(sys.argv[1]) if len(sys.argv) > 1 else DOC)
