"""Every game declares what a bot receives (observation, actions, tables), and the declaration holds.

Seeded random playouts of each game's sample set-ups (``Game.field_samples``) are walked field by
field: every key a bot receives is declared, every declared field occurs, and types, nulls and
required keys hold. ``ARENA_FIELD_SEEDS`` (default 1) sets the seeds per set-up.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engines import protocol
from engines.fields import Checker, Field, check_game
from engines.games import GAME_IDS, get_game

SEEDS = int(os.environ.get("ARENA_FIELD_SEEDS", "1"))
SDK = Path(__file__).resolve().parents[2] / "engines" / "sdk"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_declared_fields_match_real_observations_actions_and_tables(game_id):
    game = get_game(game_id)
    assert game.observation_fields and game.action_fields and game.table_fields and game.field_samples
    assert game.rules_brief.count("§") >= 5, "the rules in brief cite the rules' sections"
    for spec in (*game.observation_fields, *game.action_fields, *game.table_fields):
        assert spec.doc.strip(), f"{spec.path}: no meaning"
    observations, actions, tables = check_game(game, seeds=SEEDS)
    for name, checker in (("observation", observations), ("action", actions), ("table", tables)):
        assert checker.errors == [], f"{game_id} {name}s: {checker.errors}"
        assert checker.unseen() == [], f"{game_id}: declared {name} fields no playout reached: {checker.unseen()}"
    # every action type the engine can produce is declared, with at least one real example
    assert {spec.path for spec in game.action_fields if "." not in spec.path and not spec.rare} <= set(actions.examples)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_start_carries_the_game_tables_and_they_are_json(game_id):
    game = get_game(game_id)
    options = game.options(None)
    message = protocol.start_message(game_id, 0, game.min_players, options, 2000)
    assert message["tables"] == game.tables(game.min_players, options) != {}
    assert json.loads(protocol.encode(message))["tables"] == message["tables"]


def test_observation_ids_resolve_in_the_tables():
    """The ids an observation names are rows of the tables sent in start (Port Royal, Alhambra)."""
    pr = get_game("port_royal")
    cards = pr.tables(3, pr.options(None))["cards"]
    assert [c["id"] for c in cards] == list(range(1, 121))
    expedition = cards[119 - 1]
    assert expedition["kind"] == "expedition" and expedition["requires"] == {"cross": 2, "house": 1}
    state = pr.setup(5, 3, None)
    for cid in pr.observe(state, 0)["expedition_area"]:
        assert cards[cid - 1]["kind"] == "expedition"
    al = get_game("alhambra")
    tables = al.tables(3, al.options(None))
    state = al.setup(3, 1, None)
    obs = al.observe(state, 0)
    assert all(tables["tiles"][t]["id"] == t for t in obs["building_market"].values() if t is not None)
    assert all(tables["money"][c]["id"] == c for c in obs["players"][0]["hand"])


def test_start_of_an_unknown_game_has_empty_tables():
    assert protocol.start_message("count", 1, 2, {}, 500)["tables"] == {}


def test_the_checker_catches_undeclared_missing_mistyped_and_null_fields():
    fields = (Field("a", "int", "a"), Field("b", "list", "b"), Field("b[]", "str", "an item"),
              Field("m", "map", "m", optional=True), Field("m{}", "int", "v", nullable=True))
    ok = Checker(fields)
    ok.check_object({"a": 1, "b": ["x"], "m": {"k": None}})
    assert ok.errors == [] and ok.unseen() == []
    bad = Checker(fields)
    bad.check_object({"a": "1", "b": [None], "extra": 0})
    assert bad.errors == ["a: str, declared int", "b[]: null, but not declared nullable", "extra: not declared"]
    missing = Checker(fields)
    missing.check_object({"b": []})
    assert missing.errors == ["a: declared, not optional, but missing"]
    assert set(missing.unseen()) == {"a", "b[]", "m", "m{}"}
    actions = Checker((Field("take", "object", "t"), Field("take.card", "int", "c")))
    actions.check_action({"type": "take", "card": True})
    actions.check_action({"type": "steal"})
    assert actions.errors == ["take.card: bool, declared int", "action type 'steal': not declared"]


def _start_and_end(game_id: str) -> bytes:
    game = get_game(game_id)
    start = protocol.start_message(game_id, 1, 3, game.options(None), 2000)
    return protocol.encode(start) + protocol.encode(protocol.end_message({"ranks": [0, 1, 2], "scores": [1, 0, 0]}, 1))


def test_python_sdk_keeps_the_tables_of_start():
    import importlib.util

    spec = importlib.util.spec_from_file_location("arena_bot_under_test", SDK / "arena_bot.py")
    sdk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sdk)
    seen = {}
    sdk.run(lambda obs, legal: 0, start=lambda match: seen.update(match.tables),
            stdin=io.BytesIO(_start_and_end("port_royal")), stdout=io.BytesIO())
    assert seen["cards"][0]["id"] == 1 and sdk.match.tables["cards"][119]["five_player_only"] is True


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript_sdk_keeps_the_tables_of_start():
    script = ('const arena = require("arena_bot");'
              'arena.run(() => 0, {end: () => console.error(JSON.stringify(arena.match.tables.cards[119]))});')
    done = subprocess.run(["node", "-e", script], input=_start_and_end("port_royal"), capture_output=True,
                          env={**os.environ, "NODE_PATH": str(SDK)}, timeout=60, check=True)
    assert json.loads(done.stderr.decode().strip().splitlines()[-1])["id"] == 120
