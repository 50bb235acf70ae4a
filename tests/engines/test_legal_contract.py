"""The engine contract, for every game: every action ``legal_actions`` lists is accepted by ``apply``.

Seeded random playouts over several player counts and options; at sampled states every listed action
(a sample of them where the lists are large, as in Catan's trades) is applied to a clone, which must
then either continue with a seat that has legal actions or be over with an outcome for every seat.

``ARENA_CONTRACT_STATES`` (default 2,500: about 40 s here) is the number of states checked per (game, set-up).
"""
from __future__ import annotations

import os
import random

import pytest

from engines.alhambra import GAME as ALHAMBRA
from engines.alhambra.data import card_id
from engines.alhambra.state import ACTION
from engines.games import get_game
from engines.port_royal import GAME as PORT_ROYAL
from engines.port_royal import data as PR
from engines.port_royal.rules import TRADE

STATES = int(os.environ.get("ARENA_CONTRACT_STATES", "2500"))
MAX_CHECKED_ACTIONS = 40  # per state; Catan's trade lists run to hundreds

# (game, players, options) and the usual length of a random game in decisions (spreads the samples)
SETUPS = [
    ("el_capitan", 2, {}, 1300), ("el_capitan", 3, {}, 1300), ("el_capitan", 5, {}, 1300),
    ("alhambra", 2, {}, 250), ("alhambra", 4, {}, 300), ("alhambra", 6, {"all_payments": True}, 330),
    ("port_royal", 2, {}, 300), ("port_royal", 4, {"explicit_jack_allocation": True}, 450),
    ("port_royal", 5, {"end_condition": "expedition_required", "start_seat": "random"}, 500),
    ("catan", 3, {}, 6400), ("catan", 4, {"combined_trade_build": True, "trade_max_cards_per_side": 3}, 6500),
    ("catan", 6, {}, 7400), ("catan", 4, {"scenario": "best_friends"}, 6500),
    ("catan", 4, {"board": "beginner", "start_positions": "beginner_preset"}, 6500),
    ("catan", 2, {"allow_two_players": True, "numbers": "random"}, 6000),
    ("top_race", 2, {}, 250), ("top_race", 4, {"pitstop": True, "tips": True}, 600),
    ("top_race", 6, {"shares": True, "pitstop": True}, 2800),
    ("top_race", 3, {"races": 2, "tracks": ["turbo_town", "lake_lane"], "pitstop": True}, 400),
]


def check_every_listed_action(game, state, seat: int, players: int, rng: random.Random, where: str) -> int:
    """Apply each listed action (or a sample) to a clone; return how many were checked."""
    legal = game.legal_actions(state, seat)
    assert legal, f"{where}: seat {seat} to move with no legal action"
    chosen = legal if len(legal) <= MAX_CHECKED_ACTIONS else rng.sample(legal, MAX_CHECKED_ACTIONS)
    for action in chosen:
        trial = game.clone(state)
        try:
            game.apply(trial, seat, action)
        except Exception as exc:  # noqa: BLE001 - any refusal of a listed action breaks the contract
            raise AssertionError(f"{where}: listed action {action} refused: {exc!r}") from exc
        nxt = game.to_move(trial)
        if nxt is None:
            outcome = game.outcome(trial)
            assert len(outcome.ranks) == len(outcome.scores) == players, where
        else:
            assert game.legal_actions(trial, nxt), f"{where}: after {action} seat {nxt} has no legal action"
    return len(chosen)


@pytest.mark.parametrize("game_id,players,options,length", SETUPS,
                         ids=[f"{g}-{n}p-{'-'.join(o) or 'default'}" for g, n, o, _ in SETUPS])
def test_every_listed_action_is_accepted(game_id, players, options, length):
    game = get_game(game_id)
    rate = min(1.0, STATES / (3 * length))  # about three games' worth of states
    checked_states = seed = 0
    while checked_states < STATES:
        seed += 1
        rng = random.Random(seed)
        state = game.setup(players, seed, options)
        moves = 0
        while (seat := game.to_move(state)) is not None and checked_states < STATES:
            if rng.random() < rate:
                check_every_listed_action(game, state, seat, players, rng, f"{game_id} {players}p {options} seed {seed} "
                                                                   f"move {moves}")
                checked_states += 1
            legal = game.legal_actions(state, seat)
            game.apply(state, seat, legal[rng.randrange(len(legal))])
            moves += 1


# --- regressions ------------------------------------------------------------------------------
def test_port_royal_discount_beyond_the_cost_does_not_pay_the_fee():
    """§4.0: the Mademoiselle discount floors the cost at 0; a non-active taker still owes the 1-coin fee."""
    st = PORT_ROYAL.setup(3, 0)
    for stack in st.coins:
        st.draw.extend(stack)
        stack.clear()
    for cid in (42, 43, 44, 45):  # four Mademoiselles for seat 1: 4 off a 3-coin Trader
        st.draw.remove(cid)
        PORT_ROYAL._add_person(st, 1, cid)
    for cid in (1, 61, 71):  # Trader (cost 3) and two ships of different colours
        st.draw.remove(cid)
        st.harbour.append(cid)
        if PR.KIND[cid] == PR.SHIP:
            st.hmask |= 1 << PR.COLOUR[cid]
    st.revealed = 1
    PORT_ROYAL.apply(st, 0, {"type": "stop"})
    PORT_ROYAL.apply(st, 0, {"type": "done"})
    assert st.phase == TRADE and PORT_ROYAL.to_move(st) == 1 and st.coins[1] == []
    legal = PORT_ROYAL.legal_actions(st, 1)
    assert {"type": "take", "card": 1} not in legal  # cost 0, but no coin for the fee
    for action in legal:
        PORT_ROYAL.apply(PORT_ROYAL.clone(st), 1, action)
    st.coins[1].append(st.draw.pop())
    assert {"type": "take", "card": 1} in PORT_ROYAL.legal_actions(st, 1)
    events = PORT_ROYAL.apply(st, 1, {"type": "take", "card": 1})
    hire = next(e for e in events if e["type"] == "hire")
    assert hire["paid"] == 0 and hire["fee"] == 1 and st.coins[1] == [] and st.persons[1][-1] == 1


def alhambra_blank():
    s = ALHAMBRA.setup(3, 0)
    s.active = 0
    s.hands = [[] for _ in range(3)]
    s.market = [None, None, None, None]
    s.money_market = []
    s.discard = []
    return s


def test_alhambra_identical_money_cards_are_interchangeable():
    s = alhambra_blank()
    y2a, y2b, g9 = card_id(0, 2, 0), card_id(0, 2, 1), card_id(1, 9, 0)
    s.money_market = [y2a, y2b, g9]
    assert {"type": "take_money", "cards": [y2a]} in ALHAMBRA.legal_actions(s, 0)
    assert {"type": "take_money", "cards": [y2b]} not in ALHAMBRA.legal_actions(s, 0)  # one action per card
    ALHAMBRA.apply(s, 0, {"type": "take_money", "cards": [y2b]})  # the twin is the same card (§9.2)
    assert s.hands[0] == [y2b] and s.money_market[:2] == [y2a, g9]


def test_alhambra_identical_money_cards_twice_or_too_much_are_still_refused():
    s = alhambra_blank()
    y2a, y2b, y4 = card_id(0, 2, 0), card_id(0, 2, 1), card_id(0, 4, 0)
    s.money_market = [y2a, y2b, y4]
    for cards in ([y2b, y2b], [y2b, y4], [y2a, y2b, y4]):
        with pytest.raises(Exception) as err:
            ALHAMBRA.apply(s, 0, {"type": "take_money", "cards": cards})
        assert getattr(err.value, "rule", "").startswith("§4.2"), cards
    ALHAMBRA.apply(s, 0, {"type": "take_money", "cards": [y2b, y2a]})
    assert s.hands[0] == [y2a, y2b]


def test_alhambra_twin_reserve_tiles_are_interchangeable():
    s = alhambra_blank()
    s.reserves[0] = [41, 42]  # same type and walls: the list names 41 only
    s.money_market = [card_id(0, 1, 0)]
    assert s.phase is ACTION
    listed = [a for a in ALHAMBRA.legal_actions(s, 0) if a["type"] == "redesign_place"]
    assert listed and all(a["tile"] == 41 for a in listed)
    twin = dict(listed[0], tile=42)
    ALHAMBRA.apply(s, 0, twin)
    assert s.reserves[0] == [41] and 42 in s.alhambras[0].values()
