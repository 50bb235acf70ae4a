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
from functools import cache
from typing import Any, Callable, Sequence

from engines.core import BadOptions, Game, Option
from engines.fields import Checker, Field, check_game
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


def rules_section(game: Game) -> str:
    """The rules in brief, with the rules file's section numbers (``Game.rules_brief``)."""
    if not game.rules_brief:
        return ""
    return ("## The rules in brief\n\n"
            "A summary for bot authors of the published rules, which the engine implements exactly. § numbers are "
            "the sections of the engine's rules specification: the engine names them when it refuses an illegal "
            "action, and this summary gives each rule a bot needs with its section.\n\n"
            + game.rules_brief)


@cache
def _checked(game_id: str) -> tuple[Checker, Checker, Checker]:
    """The field checkers after one seeded playout of every sample set-up: the examples of the docs."""
    return check_game(get_game(game_id), seeds=1)


EXAMPLE_WIDTH = 60


def _example(spec: Field, checker: Checker) -> str:
    if spec.has_example:
        value = spec.example
    elif spec.path in checker.examples:
        value = checker.examples[spec.path]
    elif spec.path in checker.seen:
        value = None
    else:
        return ""
    text = _json(value)
    if len(text) > EXAMPLE_WIDTH:
        text = text[:EXAMPLE_WIDTH - 1] + "…"
    return f"`{_cell(text)}`"


def _type(spec: Field) -> str:
    names = {"map": "object (map)", "number": "number", "str": "string", "bool": "boolean", "int": "integer",
             "list": "list", "object": "object"}
    text = " or ".join(names[t] for t in spec.types)
    if spec.nullable:
        text += " or null"
    if spec.optional:
        text += ", may be absent"
    return text


def _field_rows(fields: Sequence[Field], checker: Checker, strip: str = "") -> str:
    rows = [f"| `{spec.path[len(strip):] or spec.path}` | {_type(spec)} | {_cell(spec.doc)} | {_example(spec, checker)} |"
            for spec in fields]
    return "| field | type | meaning | example |\n| --- | --- | --- | --- |\n" + "\n".join(rows) + "\n"


FIELD_PATHS = ("A path names where a field sits: `players[].coins` is the `coins` of every item of the list "
               "`players`, `cities{}.sites` the `sites` of every value of the map `cities` (a map is an object "
               "whose keys are data, such as ids). \"may be absent\": the key is left out when it does not "
               "apply (the meaning says when). Examples come from a seeded game.")


def observation_section(game: Game) -> str:
    """Every observation field (``Game.observation_fields``) with its type, meaning and an example."""
    if not game.observation_fields:
        return ""
    observations, _actions, _tables = _checked(game.id)
    return ("## Observation\n\n"
            "What `observe` gives your seat at each decision (the protocol's `act` message, `observation`). "
            + FIELD_PATHS + "\n\n" + _field_rows(game.observation_fields, observations))


def actions_section(game: Game) -> str:
    """Every action type and its fields (``Game.action_fields``)."""
    if not game.action_fields:
        return ""
    _observations, actions, _tables = _checked(game.id)
    parts = ["## Actions\n\nEach legal action is an object with a `type` and the fields of that type; a bot "
             "answers with the index of its choice in `legal_actions`, so it never builds one itself.\n"]
    for spec in game.action_fields:
        if "." in spec.path or spec.path.endswith(("[]", "{}")):
            continue
        own = [f for f in game.action_fields if f.path.startswith(spec.path + ".")]
        parts.append(f"### `{spec.path}`\n\n{spec.doc[:1].upper()}{spec.doc[1:]}. "
                     f"Example: {_example(spec, actions) or '(none)'}\n")
        if own:
            parts.append(_field_rows(own, actions, strip=spec.path + "."))
    return "\n".join(parts)


def _scalar(value: Any) -> str:
    return _cell(value if isinstance(value, str) else _json(value))


def _rows_of_objects(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _render_table(name: str, value: Any) -> list[str]:
    """Markdown for one table: a list of objects as rows, an object as key/value rows (its lists of
    objects and nested objects as tables of their own), anything else as JSON."""
    if _rows_of_objects(value):
        columns = list(dict.fromkeys(k for row in value for k in row))
        lines = [f"#### `{name}`\n", "| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
        lines += ["| " + " | ".join(_scalar(row[c]) if c in row else "" for c in columns) + " |" for row in value]
        return lines + [""]
    if isinstance(value, dict) and value:
        nested = {k: v for k, v in value.items() if _rows_of_objects(v)
                  or (isinstance(v, dict) and any(isinstance(x, (dict, list)) for x in v.values()))}
        flat = {k: v for k, v in value.items() if k not in nested}
        out: list[str] = []
        if flat:
            out += [f"#### `{name}`\n", "| key | value |", "| --- | --- |"]
            out += [f"| `{k}` | {_scalar(v)} |" for k, v in flat.items()] + [""]
        for key, part in nested.items():
            out += _render_table(f"{name}.{key}", part)
        return out
    return [f"#### `{name}`\n", f"`{_scalar(value)}`", ""]


def tables_section(game: Game) -> str:
    """The static tables of ``start`` (``Game.tables``): their fields, then their content."""
    if not game.table_fields:
        return ""
    _observations, _actions, tables = _checked(game.id)
    players = max(game.min_players, min(game.max_players, 3))
    content = game.tables(players, game.options(None))
    lines = ["## Tables\n",
             "Static tables a bot needs to read its observations, sent once in the protocol's `start` message "
             "(`tables`) and kept by the SDKs: `arena_bot.match.tables` in Python, `arena.match.tables` in "
             "JavaScript.\n", _field_rows(game.table_fields, tables),
             f"### Content ({players} players, default options)\n"]
    for name, value in content.items():
        lines += _render_table(name, value)
    return "\n".join(lines)


GAME_SECTIONS: list[Callable[[Game], str]] = [rules_section, observation_section, actions_section, tables_section,
                                              options_section, presets_section]


def players_line(game: Game) -> str:
    """The player counts, and those the default options refuse with the option that allows them."""
    needs = []
    for n in range(game.min_players, game.max_players + 1):
        try:
            game.check_table(n)
        except BadOptions as exc:
            needs.append(f"{n} only with the option `{exc.option}`" if exc.option else f"{n} not with the defaults")
    return f"{game.min_players}-{game.max_players} players" + (f" ({'; '.join(needs)})" if needs else "")


def game_page(game: Game) -> str:
    """The whole of docs/games/<game>.md."""
    head = (f"# {game.name}\n\n"
            f"Game id `{game.id}`, {players_line(game)}. Generated from the engine by "
            f"`{COMMAND}`: do not edit by hand.\n")
    return "\n".join([head, *(text for section in GAME_SECTIONS if (text := section(game)))])


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
        start = dict(lines[0][1])
        start["tables"] = {name: "…" for name in start["tables"]}
        lines[0] = (lines[0][0], start)
        parts.append(f"### {game_id} ({game.name})\n\nSeat 0 of a {players}-player game (seed {seed}); its "
                     f"{skip + 1}th decision is shown; each line is exactly as sent, except that the tables "
                     f"of `start` are listed on [the game's page](games/{game_id}.md#tables).\n\n"
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
    """Rewrite the generated docs, or with ``--check`` list the stale ones; the exit status (1: stale files)."""
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
