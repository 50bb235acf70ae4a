"""Every document generated from the real engines, in one place.

    python -m engines.docgen           # rewrite docs/games/<game>.md and the examples of docs/bot-protocol.md
    python -m engines.docgen --check   # list the committed files that differ from the engines (exit 1)

A game's page is its title followed by ``GAME_SECTIONS``, each a function ``game -> markdown``: to add a
section to every page, write such a function and append it there. In docs/bot-protocol.md only the text
between the ``<!-- examples:start -->`` and ``<!-- examples:end -->`` markers is generated.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from engines.core import Game, Option
from engines.games import GAME_IDS, available_games, get_game
from engines.protocol import example_exchange, render_exchange

DOCS = Path(__file__).resolve().parents[1] / "docs"
START, END = "<!-- examples:start -->", "<!-- examples:end -->"
COMMAND = "python -m engines.docgen"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _allowed(spec: Option) -> str:
    if spec.kind == "bool":
        text = "`true`, `false`"
    elif spec.kind == "int":
        text = f"{spec.minimum} to {spec.maximum}"
    elif spec.kind == "choice":
        text = ", ".join(f"`{_json(c)}`" for c in spec.choices)
    else:
        text = f"a list of {spec.minimum} to {spec.maximum} of " + ", ".join(f"`{_json(c)}`" for c in spec.choices)
    return text + (", or `null`" if spec.nullable else "")


def options_section(game: Game) -> str:
    """The options table (from ``Game.option_specs``) and the JSON Schema the API uses."""
    if not game.option_specs:
        return "## Options\n\nThis game has no options: every game is played by the published rules.\n"
    rows = [f"| `{s.name}` | {s.kind} | {_allowed(s)} | `{_json(s.default)}` | {_cell(s.doc)} |"
            for s in game.option_specs]
    schema = json.dumps(game.options_schema(), indent=2, ensure_ascii=False)
    return ("## Options\n\n"
            "Anything else is refused at set-up with `BadOptions` naming the option; [HOUSE] marks our own "
            "rules, not the publisher's. Some options also depend on each other or on the player count "
            "(the meaning says which).\n\n"
            "| option | type | allowed | default | meaning |\n| --- | --- | --- | --- | --- |\n"
            + "\n".join(rows)
            + f"\n\nAs JSON Schema (what the API accepts):\n\n```json\n{schema}\n```\n")


def presets_section(game: Game) -> str:
    """The rated presets: which set-ups count for the ratings."""
    rows = []
    for name, overrides in game.rated_presets.items():
        players = ", ".join(str(n) for n in game.preset_players(name))
        options = ", ".join(f"`{k}`: `{_json(v)}`" for k, v in overrides.items()) or "the defaults"
        rows.append(f"| `{name}` | {players} | {options} |")
    return ("## Rated presets\n\n"
            "A match is rated under a preset when its player count is one the preset names and its options, "
            "every one of them, equal the defaults with the preset's changes; any other set-up is unrated.\n\n"
            "| preset | players | options |\n| --- | --- | --- |\n" + "\n".join(rows) + "\n")


GAME_SECTIONS: list[Callable[[Game], str]] = [options_section, presets_section]


def game_page(game: Game) -> str:
    """The whole of docs/games/<game>.md."""
    head = (f"# {game.name}\n\n"
            f"Game id `{game.id}`, {game.min_players}-{game.max_players} players. Generated from the engine by "
            f"`{COMMAND}`: do not edit by hand.\n")
    return "\n".join([head, *(section(game) for section in GAME_SECTIONS)])


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


def protocol_page(current: str) -> str:
    """docs/bot-protocol.md with its examples regenerated."""
    head, rest = current.split(START, 1)
    _old, tail = rest.split(END, 1)
    return f"{head}{START}\n\n{examples_markdown()}\n{END}{tail}"


def generated(docs: Path = DOCS, games: bool = True, protocol: bool = True) -> dict[Path, str]:
    """Every generated file and its content."""
    files: dict[Path, str] = {}
    if games:
        for game_id in available_games():
            files[docs / "games" / f"{game_id}.md"] = game_page(get_game(game_id))
    if protocol:
        path = docs / "bot-protocol.md"
        files[path] = protocol_page(path.read_text(encoding="utf-8"))
    return files


def stale(docs: Path = DOCS, games: bool = True, protocol: bool = True) -> list[Path]:
    """Generated files whose committed content differs from the engines' (or that are missing)."""
    return [path for path, text in generated(docs, games, protocol).items()
            if not path.exists() or path.read_text(encoding="utf-8") != text]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only list the files that differ; exit 1 if any")
    args = parser.parse_args(argv)
    if args.check:
        paths = stale()
        for path in paths:
            print(f"stale: {path.relative_to(DOCS.parent)} (run {COMMAND})")
        return 1 if paths else 0
    for path, text in generated().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
