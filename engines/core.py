"""The game contract shared by every engine (see docs/authors.md, "Add a game").

A game is a stateless ``Game`` object; all mutable data lives in the state it creates. ``apply``
mutates the state in place (games are played forward far more often than they are searched, and
copying every state would halve the speed); ``clone`` gives an independent copy for look-ahead.
"""
from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Mapping, Sequence

from engines.fields import Field

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
    """Options or player count a game cannot be set up with; ``option`` names the option at fault."""

    def __init__(self, message: str, option: str | None = None):
        super().__init__(message)
        self.option = option


OptionKind = Literal["bool", "int", "choice", "list"]


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (error messages echo what was sent, not all of it)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int of more than 4,300 digits, a list nested too deep
        text = f"<a {type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same type: ``True == 1`` and ``1 == 1.0`` in Python, never in an option."""
    return type(a) is type(b) and a == b


@dataclass(frozen=True)
class Option:
    """One option of a game, declared once: setup checks it, and the API, the web form and the
    generated docs read it.

    ``kind`` is ``"bool"`` (a real ``bool``), ``"int"`` (a real ``int`` in ``minimum..maximum``),
    ``"choice"`` (one of ``choices``, type and value) or ``"list"`` (a list of ``minimum..maximum``
    items, each one of ``choices``). ``nullable`` also allows ``None``; ``doc`` then says what it means.
    """

    name: str
    default: Any
    kind: OptionKind
    doc: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[Any, ...] = ()
    nullable: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("bool", "int", "choice", "list"):
            raise TypeError(f"option {self.name!r}: unknown kind {self.kind!r}")
        if self.kind in ("int", "list") and (self.minimum is None or self.maximum is None):
            raise TypeError(f"option {self.name!r}: an {self.kind} option needs minimum and maximum")
        if self.kind in ("choice", "list") and not self.choices:
            raise TypeError(f"option {self.name!r}: a {self.kind} option needs choices")
        if not self.accepts(self.default):
            raise TypeError(f"option {self.name!r}: the default {self.default!r} is not allowed")

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is allowed (exact types: 1 is no bool, True no int, 2.0 no int)."""
        if value is None:
            return self.nullable
        if self.kind == "bool":
            return type(value) is bool
        if self.kind == "int":
            return type(value) is int and self.minimum <= value <= self.maximum
        if self.kind == "choice":
            return any(_same(value, c) for c in self.choices)
        return (type(value) is list and self.minimum <= len(value) <= self.maximum
                and all(any(_same(item, c) for c in self.choices) for item in value))

    def allowed(self) -> str:
        """What is allowed, in words (error messages and docs)."""
        if self.kind == "bool":
            text = "true or false"
        elif self.kind == "int":
            text = f"an integer from {self.minimum} to {self.maximum}"
        elif self.kind == "choice":
            text = "one of " + ", ".join(_json_text(c) for c in self.choices)
        else:
            text = (f"a list of {self.minimum} to {self.maximum} items, each one of "
                    + ", ".join(_json_text(c) for c in self.choices))
        return text + (" or null" if self.nullable else "")

    def check(self, game_id: str, value: Any) -> Any:
        """``value`` if allowed (a list is copied), else ``BadOptions`` naming the game and the option."""
        if not self.accepts(value):
            raise BadOptions(f"{game_id}: option {self.name!r} must be {self.allowed()}, not {_short(value)}",
                             option=self.name)
        return list(value) if type(value) is list else value

    def schema(self) -> dict[str, Any]:
        """This option as a JSON Schema property."""
        if self.kind == "bool":
            prop: dict[str, Any] = {"type": "boolean"}
        elif self.kind == "int":
            prop = {"type": "integer", "minimum": self.minimum, "maximum": self.maximum}
        elif self.kind == "choice":
            prop = {"enum": list(self.choices)}
        else:
            prop = {"type": "array", "minItems": self.minimum, "maxItems": self.maximum,
                    "items": {"enum": list(self.choices)}}
        if self.nullable:
            if "type" in prop:
                prop["type"] = [prop["type"], "null"]
            else:
                prop["enum"] = prop["enum"] + [None]
        prop["default"] = list(self.default) if type(self.default) is list else self.default
        prop["description"] = self.doc
        return prop


def _json_text(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class Outcome:
    """Final result: for every seat a rank (0 = best, equal for ties) and a score."""

    ranks: list[int]
    scores: list[float]
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON data (``detail`` only when not empty)."""
        data: dict[str, Any] = {"ranks": list(self.ranks), "scores": list(self.scores)}
        if self.detail:
            data["detail"] = self.detail
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Outcome":
        """An ``Outcome`` from its ``to_dict`` form."""
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
    #: every option the game accepts, declared once; anything else is refused (``options``).
    option_specs: ClassVar[tuple[Option, ...]] = ()
    #: name -> default of every option; derived from ``option_specs`` (read-only by convention).
    default_options: ClassVar[dict[str, Any]] = {}
    #: rated presets: name -> overrides of the defaults (``{}``: the game's defaults). A match is rated
    #: under a preset when its checked options equal the defaults overlaid by the overrides and its
    #: player count is in ``rated_preset_players`` of that name.
    rated_presets: ClassVar[dict[str, dict[str, Any]]] = {"standard": {}}
    #: name -> the player counts a preset allows; a preset missing here allows every count the game has.
    rated_preset_players: ClassVar[dict[str, tuple[int, ...]]] = {}
    #: every field of ``observe(state, seat)``, of the legal actions and of ``tables()``, declared once
    #: (``engines.fields``); the generated docs list them and a test checks them against playouts.
    observation_fields: ClassVar[tuple[Field, ...]] = ()
    action_fields: ClassVar[tuple[Field, ...]] = ()
    table_fields: ClassVar[tuple[Field, ...]] = ()
    #: (num_players, options) set-ups whose seeded playouts reach every declared field.
    field_samples: ClassVar[tuple[tuple[int, dict[str, Any] | None], ...]] = ()
    #: the rules in brief, markdown with the rules' section numbers (for the generated docs).
    rules_brief: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "default_options" in cls.__dict__:
            raise TypeError(f"{cls.__name__}: declare option_specs; default_options is derived from them")
        names = [spec.name for spec in cls.option_specs]
        if len(set(names)) != len(names):
            raise TypeError(f"{cls.__name__}: an option is declared twice")
        cls.default_options = {spec.name: spec.default for spec in cls.option_specs}
        for preset, overrides in cls.rated_presets.items():
            for key, value in overrides.items():
                spec = next((o for o in cls.option_specs if o.name == key), None)
                if spec is None or not spec.accepts(value):
                    raise TypeError(f"{cls.__name__}: preset {preset!r} sets {key!r} to {value!r}")

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

    def tables(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Static tables (cards, tiles, board) a bot needs to read its observations, sent once in the
        protocol's ``start`` message; ``options`` are the checked options of the match."""
        return {}

    # --- shared helpers -----------------------------------------------------------------------
    def options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The game's defaults overlaid with ``options``, every value checked against its ``Option``.

        Raises ``BadOptions`` naming the option for an unknown key or a value of the wrong type or out
        of range, and for ``options`` that are not a mapping. Checks that involve several options or
        the player count stay in ``setup``.
        """
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise BadOptions(f"{self.id}: options must be an object of option names to values, "
                             f"not {_short(options)}")
        specs = {spec.name: spec for spec in self.option_specs}
        merged = dict(self.default_options)
        for key, value in options.items():
            spec = specs.get(key) if isinstance(key, str) else None
            if spec is None:
                known = ", ".join(sorted(specs)) or "none"
                raise BadOptions(f"{self.id}: unknown option {_short(key)} (known options: {known})",
                                 option=str(key))
            merged[key] = spec.check(self.id, value)
        return merged

    @classmethod
    def options_schema(cls) -> dict[str, Any]:
        """The options as a JSON Schema object (for the API and the docs); nothing else is accepted."""
        return {
            "type": "object",
            "title": f"{cls.name} options",
            "additionalProperties": False,
            "properties": {spec.name: spec.schema() for spec in cls.option_specs},
        }

    def preset_players(self, preset: str) -> tuple[int, ...]:
        """The player counts ``preset`` is rated for."""
        return self.rated_preset_players.get(preset, tuple(range(self.min_players, self.max_players + 1)))

    def rated_preset(self, num_players: int, options: Mapping[str, Any] | None) -> str | None:
        """The name of the rated preset this set-up is, or None (options the game refuses: None too).

        The FULL checked options must equal the defaults overlaid by the preset's overrides, and the
        player count must be one the preset allows.
        """
        try:
            checked = self.options(options)
        except BadOptions:
            return None
        for name, overrides in self.rated_presets.items():
            if num_players in self.preset_players(name) and checked == {**self.default_options, **overrides}:
                return name
        return None

    def check_players(self, num_players: int) -> None:
        """Raise ``BadOptions`` unless the game supports ``num_players``."""
        if not self.min_players <= num_players <= self.max_players:
            raise BadOptions(
                f"{self.id} is played by {self.min_players}-{self.max_players} players, not {num_players}"
            )

    def check_table(self, num_players: int, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The full options of a table of ``num_players``; ``BadOptions`` if the game would refuse it.

        A trial set-up catches what only the game knows (a player count allowed only with an option, a
        start seat beyond the table)."""
        self.check_players(num_players)
        checked = self.options(options)
        self.setup(num_players, 0, checked)
        return checked

    def is_over(self, state: Any) -> bool:
        """True once no seat is to move (``to_move`` is None)."""
        return self.to_move(state) is None

    def clone(self, state: Any) -> Any:
        """An independent copy of ``state`` (games with a faster copy override this)."""
        return copy.deepcopy(state)

    def describe_action(self, action: Action) -> str:
        """Short human text for an action, used by logs and viewers."""
        rest = ", ".join(f"{k}={v}" for k, v in action.items() if k != "type")
        return f"{action['type']}({rest})" if rest else action["type"]
