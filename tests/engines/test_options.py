"""Options are declared once per game (``Game.option_specs``) and anything else is refused.

For every game: wrong types, out-of-range values, nested lists, strings, huge numbers and "no" are
refused with ``BadOptions`` naming the option; the defaults and every rated preset set up; the JSON
Schema agrees with the checks; and arbitrary JSON thrown at options + setup gives ``BadOptions`` or a
game that plays to its outcome, never another exception.
"""
from __future__ import annotations

import random

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.core import BadOptions, Option
from engines.games import GAME_IDS, get_game

GAMES = [get_game(g) for g in GAME_IDS]
SPECS = [(game, spec) for game in GAMES for spec in game.option_specs]
SPEC_IDS = [f"{game.id}.{spec.name}" for game, spec in SPECS]


def refused(game, options, option: str | None, num_players: int | None = None) -> BadOptions:
    """Setup (and ``options()``) refuse ``options`` with BadOptions naming ``option``."""
    with pytest.raises(BadOptions) as err:
        game.options(options)
    with pytest.raises(BadOptions):
        game.setup(num_players or game.max_players, 1, options)
    if option is not None:
        assert err.value.option == option and repr(option) in str(err.value) and game.id in str(err.value)
    return err.value


def bad_values(spec: Option) -> list:
    """Values of the wrong type or out of range for ``spec``, chosen by its declared kind."""
    values = ["no", "", 10**18, -(10**18), 10**5000, [[1, [2]]], {"a": 1}, 2.5]
    if not spec.nullable:
        values.append(None)
    if spec.kind == "bool":
        return values + [0, 1, "true", "false", [True]]
    if spec.kind == "int":
        return values + [True, False, float(spec.minimum), str(spec.minimum), spec.minimum - 1, spec.maximum + 1,
                         [spec.minimum]]
    if spec.kind == "choice":
        first = spec.choices[0]
        return values + [True, [first], str(first).upper() + "x", (first,)]
    return values + [spec.choices[0], [spec.choices[0]] * (spec.maximum + 1), [], ["nowhere"],
                     [spec.choices[0], 1], tuple(spec.choices[:1])]


@pytest.mark.parametrize("game,spec", SPECS, ids=SPEC_IDS)
def test_wrong_values_are_refused_naming_the_option(game, spec):
    for value in bad_values(spec):
        error = refused(game, {spec.name: value}, spec.name)
        assert spec.allowed() in str(error)


@pytest.mark.parametrize("game,options,option", [
    (get_game("catan"), {"vp_to_win": -3}, "vp_to_win"),
    (get_game("catan"), {"trade_max_cards_per_side": 8}, "trade_max_cards_per_side"),
    (get_game("catan"), {"max_turns": 10**18}, "max_turns"),
    (get_game("catan"), {"combined_trade_build": "no"}, "combined_trade_build"),
    (get_game("alhambra"), {"max_turns": -5}, "max_turns"),
    (get_game("alhambra"), {"open_money": "no"}, "open_money"),
    (get_game("alhambra"), {"all_payments": [[True]]}, "all_payments"),
    (get_game("port_royal"), {"start_seat": True}, "start_seat"),
    (get_game("port_royal"), {"max_rounds": "100"}, "max_rounds"),
    (get_game("top_race"), {"tracks": "speed_street"}, "tracks"),
    (get_game("top_race"), {"races": 10**18}, "races"),
])
def test_the_reported_cases_are_refused(game, options, option):
    refused(game, options, option)


@pytest.mark.parametrize("game", GAMES, ids=GAME_IDS)
def test_options_must_be_a_mapping_of_known_names(game):
    for options in ([], [["max_turns", 5]], "max_turns", 5, True):
        with pytest.raises(BadOptions, match="options must be an object"):
            game.options(options)
    error = refused(game, {"no_such_option": 1}, "no_such_option")
    assert "unknown option" in str(error)
    assert refused(game, {3: 1}, None).option == "3"


def test_options_that_depend_on_each_other_or_the_player_count_are_refused_by_setup():
    port_royal, top_race, catan = get_game("port_royal"), get_game("top_race"), get_game("catan")
    for game, num_players, options, option in [
        (port_royal, 3, {"start_seat": 3}, "start_seat"),
        (top_race, 4, {"tips": True, "shares": True}, "shares"),
        (top_race, 4, {"races": 2, "tracks": ["lake_lane"]}, "tracks"),
    ]:
        game.options(options)  # each value alone is fine
        with pytest.raises(BadOptions) as err:
            game.setup(num_players, 1, options)
        assert err.value.option == option
    for num_players, options, option in [(5, {"board": "beginner"}, "board"), (2, {}, "allow_two_players"),
                                         (4, {"numbers": "beginner"}, "numbers"),
                                         (4, {"start_positions": "beginner_preset"}, "start_positions")]:
        with pytest.raises(BadOptions) as err:
            catan.setup(num_players, 1, options)
        assert err.value.option == option


@pytest.mark.parametrize("game", GAMES, ids=GAME_IDS)
def test_defaults_and_every_rated_preset_set_up(game):
    assert game.default_options == {spec.name: spec.default for spec in game.option_specs}
    assert "standard" in game.rated_presets
    covered = set()
    for name, overrides in game.rated_presets.items():
        options = {**game.default_options, **overrides}
        for num_players in game.preset_players(name):
            assert game.min_players <= num_players <= game.max_players
            assert num_players not in covered, "two presets claim one player count"
            covered.add(num_players)
            state = game.setup(num_players, 7, overrides)
            assert game.to_move(state) is not None
            assert game.rated_preset(num_players, overrides) == name
            assert game.rated_preset(num_players, options) == name  # the full options name it too
    outside = set(range(game.min_players, game.max_players + 2)) - covered
    assert all(game.rated_preset(n, {}) is None for n in outside)


@pytest.mark.parametrize("game,num_players,options", [
    (get_game("catan"), 4, {"combined_trade_build": True}),
    (get_game("catan"), 4, {"vp_to_win": 10}),  # the same target, but not the declared defaults
    (get_game("catan"), 2, {"allow_two_players": True}),
    (get_game("alhambra"), 4, {"open_money": True}),
    (get_game("port_royal"), 4, {"start_seat": "random"}),
    (get_game("port_royal"), 4, {"end_condition": "expedition_required"}),
    (get_game("top_race"), 4, {"tips": True}),
    (get_game("top_race"), 4, {"max_turns": 5}),  # refused options are never a preset
    (get_game("el_capitan"), 4, [1]),
])
def test_house_options_and_variants_are_not_rated(game, num_players, options):
    assert game.rated_preset(num_players, options) is None


@pytest.mark.parametrize("game", GAMES, ids=GAME_IDS)
def test_the_schema_and_the_checks_agree(game):
    schema = game.options_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert schema["additionalProperties"] is False and set(schema["properties"]) == set(game.default_options)
    assert validator.is_valid(game.default_options) and validator.is_valid({})
    for spec in game.option_specs:
        prop = schema["properties"][spec.name]
        assert prop["default"] == spec.default and prop["description"] == spec.doc
        for value in bad_values(spec):
            if isinstance(value, (float, tuple)) or value == 10**5000:
                continue  # JSON has no tuples nor such ints, and JSON Schema counts 2.0 as an integer
            assert not validator.is_valid({spec.name: value}), (spec.name, value)
    assert not validator.is_valid({"no_such_option": 1})


# --- arbitrary JSON -------------------------------------------------------------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)


def valid_value(spec: Option) -> st.SearchStrategy:
    if spec.kind == "bool":
        values = st.booleans()
    elif spec.kind == "int":
        values = st.integers(spec.minimum, spec.maximum)
    elif spec.kind == "choice":
        values = st.sampled_from(spec.choices)
    else:
        values = st.lists(st.sampled_from(spec.choices), min_size=spec.minimum, max_size=spec.maximum)
    return values | st.none() if spec.nullable else values


def option_dicts(game) -> st.SearchStrategy:
    """Arbitrary JSON, or options built from the game's real names with valid values or arbitrary JSON."""
    return JSON | st.fixed_dictionaries({}, optional={spec.name: valid_value(spec) | JSON
                                                      for spec in game.option_specs})


def declared_values(game) -> st.SearchStrategy:
    """Options of the game's real names, each value one its declaration allows."""
    return st.fixed_dictionaries({}, optional={spec.name: valid_value(spec) for spec in game.option_specs})


MOVE_CAP = 200_000  # far above the longest random game the bounded options allow (Catan: ~95,000)


def plays_to_an_outcome(game, num_players: int, seed: int, options) -> None:
    try:
        state = game.setup(num_players, seed, options)
    except BadOptions:
        return
    rng = random.Random(seed)
    for _ in range(MOVE_CAP):
        seat = game.to_move(state)
        if seat is None:
            outcome = game.outcome(state)
            assert len(outcome.ranks) == num_players and min(outcome.ranks) == 0
            return
        legal = game.legal_actions(state, seat)
        game.apply(state, seat, legal[rng.randrange(len(legal))])
    raise AssertionError(f"{game.id}: no outcome after {MOVE_CAP} moves with {options}")


@pytest.mark.parametrize("strategy", [option_dicts, declared_values])
@pytest.mark.parametrize("game", GAMES, ids=GAME_IDS)
def test_arbitrary_json_gives_bad_options_or_a_game_that_ends(game, strategy):
    @settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(options=strategy(game), num_players=st.integers(game.min_players, game.max_players),
           seed=st.integers(0, 2**32))
    def check(options, num_players, seed):
        if strategy is declared_values:
            game.options(options)  # every declared value passes; only setup's joint checks may refuse
        plays_to_an_outcome(game, num_players, seed, options)

    check()
