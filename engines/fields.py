"""Declared observation, action and table fields: what a bot receives, declared once per game.

Each game declares every field of its observations (``Game.observation_fields``), of its legal
actions (``Game.action_fields``) and of the static tables sent once in the protocol's ``start``
message (``Game.table_fields``), the way options are declared in ``Game.option_specs``. The generated
page docs/games/<game>.md lists them; a test walks seeded playouts and checks that every key a bot can
receive is declared, every declared field occurs, and types and nullability hold (``check``).

A field's ``path`` names where it sits: ``players[].coins`` is the ``coins`` key of every item of the
list ``players``; ``cities{}.sites`` the ``sites`` key of every value of the map ``cities`` (a map is
an object whose keys are data, e.g. city ids, not field names). Action paths start with the action
type: ``take.card`` is the ``card`` key of ``{"type": "take", "card": 96}``; the path ``take`` itself
declares the action.
"""
from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, Sequence

#: JSON types a field may have; a union is written ``"int|list"``.
TYPES = ("int", "number", "str", "bool", "list", "object", "map")
_NO_EXAMPLE = object()


@dataclass(frozen=True)
class Field:
    """One field a bot receives.

    ``type`` is one of ``TYPES`` (or a union ``"a|b"``); ``nullable``: it may be ``null`` (``doc`` says
    what null means); ``optional``: the key may be absent (``doc`` says when); ``rare``: random
    playouts hardly ever reach it, so the coverage check does not require it. ``example`` overrides
    the example the docs take from a seeded game.
    """

    path: str
    type: str
    doc: str
    nullable: bool = False
    optional: bool = False
    rare: bool = False
    example: Any = _NO_EXAMPLE

    def __post_init__(self) -> None:
        for part in self.type.split("|"):
            if part not in TYPES:
                raise TypeError(f"field {self.path!r}: unknown type {part!r}")

    @property
    def types(self) -> tuple[str, ...]:
        """The field's JSON types (one, or each of a union)."""
        return tuple(self.type.split("|"))

    @property
    def has_example(self) -> bool:
        """True when the field declares its own ``example`` (else the docs take one from a seeded game)."""
        return self.example is not _NO_EXAMPLE


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,), "number": (int, float), "str": (str,), "bool": (bool,), "list": (list,),
    "object": (dict,), "map": (dict,),
}
_TYPE_NAMES = {bool: "bool", int: "int", float: "number", str: "str", list: "list", dict: "object"}


def _json_type(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _parent(path: str) -> str:
    """The path of the object that holds the key ``path`` ends with ("" for the root)."""
    return path.rsplit(".", 1)[0] if "." in path else ""


def _key(path: str) -> str:
    return path.rsplit(".", 1)[-1]


class Checker:
    """Walks JSON values against a declaration, collecting errors, coverage and examples."""

    def __init__(self, fields: Iterable[Field]):
        self.fields: dict[str, Field] = {}
        for spec in fields:
            if spec.path in self.fields:
                raise TypeError(f"field {spec.path!r} is declared twice")
            self.fields[spec.path] = spec
        #: object path -> its declared keys (the root is "")
        self.keys: dict[str, dict[str, Field]] = defaultdict(dict)
        for spec in self.fields.values():
            if not spec.path.endswith(("[]", "{}")):
                self.keys[_parent(spec.path)][_key(spec.path)] = spec
        #: path -> (spec, allowed Python types, is a map); precomputed because playouts walk millions of values
        self._rules = {path: (spec, frozenset(t for part in spec.types for t in _PY_TYPES[part]), "map" in spec.types)
                       for path, spec in self.fields.items()}
        self._child: dict[tuple[str, str], str] = {}
        self.errors: list[str] = []
        self.seen: set[str] = set()
        self.examples: dict[str, Any] = {}

    def _error(self, message: str) -> None:
        if len(self.errors) < 50 and message not in self.errors:
            self.errors.append(message)

    def check_object(self, value: Any, path: str = "") -> None:
        """Check ``value`` as the object at ``path`` (the root by default)."""
        if type(value) is not dict:
            self._error(f"{path or 'the root'}: expected an object, got {_json_type(value)}")
            return
        child = self._child
        for key, item in value.items():
            sub = child.get((path, key))
            if sub is None:
                sub = child[(path, key)] = f"{path}.{key}" if path else str(key)
            self._walk(item, sub)
        declared = self.keys.get(path)
        if declared and len(declared) != len(value):
            for key, spec in declared.items():
                if key not in value and not spec.optional:
                    self._error(f"{spec.path}: declared, not optional, but missing")

    def _walk(self, value: Any, path: str) -> None:
        rule = self._rules.get(path)
        if rule is None:
            self._error(f"{path}: not declared")
            return
        spec, allowed, is_map = rule
        if path not in self.seen:
            self.seen.add(path)
        if value is None:
            if not spec.nullable:
                self._error(f"{path}: null, but not declared nullable")
            return
        kind = type(value)
        if kind not in allowed:
            self._error(f"{path}: {_json_type(value)}, declared {spec.type}")
            return
        example = self.examples.get(path)
        if example is None or (not example and value):  # prefer a non-empty, non-zero example
            self.examples[path] = value
        if kind is list:
            item_path = path + "[]"
            for item in value:
                self._walk(item, item_path)
        elif kind is dict:
            if is_map:
                item_path = path + "{}"
                for item in value.values():
                    self._walk(item, item_path)
            else:
                self.check_object(value, path)

    def check_action(self, action: Mapping[str, Any]) -> None:
        """Check one legal action: ``type`` names its declaration, the other keys are its fields."""
        kind = action.get("type")
        if not isinstance(kind, str) or kind not in self.fields:
            self._error(f"action type {kind!r}: not declared")
            return
        self.seen.add(kind)
        self.examples.setdefault(kind, dict(action))
        self.check_object({k: v for k, v in action.items() if k != "type"}, kind)

    def unseen(self) -> list[str]:
        """Declared paths (other than rare ones) that no checked value had."""
        return [path for path, spec in self.fields.items() if path not in self.seen and not spec.rare]


def sample_decisions(game: Any, setups: Sequence[tuple[int, Mapping[str, Any] | None]], seeds: int,
                     ) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(observation, legal actions) of every decision of seeded random games, as the protocol sends them.

    ``setups`` are (num_players, options) pairs; each is played with seeds ``0..seeds-1``.
    """
    for num_players, options in setups:
        for seed in range(seeds):
            rng = random.Random(seed)
            state = game.setup(num_players, seed, options)
            while (seat := game.to_move(state)) is not None:
                legal = game.legal_actions(state, seat)
                yield game.observe(state, seat), legal
                game.apply(state, seat, legal[rng.randrange(len(legal))])


def _shape(value: Any) -> Any:
    """What a ``Checker`` looks at in a value (keys, types, nulls), as a hashable: equal shapes check alike."""
    kind = type(value)
    if kind is dict:
        return tuple((k, _shape(v)) for k, v in value.items())
    if kind is list:
        return ("[", frozenset(_shape(v) for v in value))
    return kind


def check_game(game: Any, seeds: int = 2) -> tuple[Checker, Checker, Checker]:
    """Checkers for a game's observations, legal actions and tables, run over seeded playouts of
    every set-up in ``game.field_samples`` (that observations encode as JSON is the playout tests' job)."""
    observations = Checker(game.observation_fields)
    actions = Checker(game.action_fields)
    tables = Checker(game.table_fields)
    for num_players, options in game.field_samples:
        tables.check_object(json.loads(json.dumps(game.tables(num_players, game.options(options)))))
    shapes: set[Any] = set()  # legal lists repeat the same shapes of action: check each shape once
    for observation, legal in sample_decisions(game, game.field_samples, seeds):
        observations.check_object(observation)
        for action in legal:
            shape = (action.get("type"), _shape(action))
            if shape not in shapes:
                shapes.add(shape)
                actions.check_action(action)
    return observations, actions, tables
