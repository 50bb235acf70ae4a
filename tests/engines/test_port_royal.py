"""Port Royal: the worked examples of rules §11, rule details, illegal actions, information, bots."""
from __future__ import annotations

import json
import random

import pytest

from engines.core import BadOptions, IllegalAction
from engines.port_royal import BOTS, GAME
from engines.port_royal import data as D
from engines.port_royal.rules import DISCOVER, OVER, REPEL, TRADE
from engines.versus import versus


# --- building positions by hand ---------------------------------------------------------------
def fresh(n: int = 4, seed: int = 0, **options):
    """A game at the start of seat 0's turn with every coin back in the draw pile."""
    st = GAME.setup(n, seed, options)
    for stack in st.coins:
        st.draw.extend(stack)
        stack.clear()
    return st


def take_out(st, cid: int) -> None:
    st.draw.remove(cid)


def give_person(st, seat: int, *cids: int) -> None:
    for cid in cids:
        take_out(st, cid)
        GAME._add_person(st, seat, cid)


def give_coins(st, seat: int, count: int, avoid=()) -> None:
    """Give coins from the bottom of the draw pile (never the top cards a test has placed)."""
    for _ in range(count):
        i = next(i for i, c in enumerate(st.draw) if c not in avoid)
        st.coins[seat].append(st.draw.pop(i))


def to_harbour(st, *cids: int) -> None:
    for cid in cids:
        take_out(st, cid)
        st.harbour.append(cid)
        if D.KIND[cid] == D.SHIP:
            st.hmask |= 1 << D.COLOUR[cid]


def on_top(st, *cids: int) -> None:
    """Put cards on top of the draw pile; the first one given is drawn first."""
    for cid in reversed(cids):
        take_out(st, cid)
        st.draw.append(cid)


def to_expedition_area(st, *cids: int) -> None:
    for cid in cids:
        take_out(st, cid)
        st.expedition_area.append(cid)


def types(st, seat=None):
    seat = GAME.to_move(st) if seat is None else seat
    return [a["type"] for a in GAME.legal_actions(st, seat)]


def conserved(st) -> bool:
    return GAME.card_count(st) == (120 if st.n == 5 else 119)


def enter_trade(st) -> None:
    """The active player stops after having revealed the harbour by hand."""
    st.revealed = max(st.revealed, 1)
    GAME.apply(st, st.active, {"type": "stop"})


# --- §11 worked examples ----------------------------------------------------------------------
def test_w1_repelling_a_ship():
    st = fresh(3)
    give_person(st, 0, 29, 39)  # Sailor (1 sword) + Pirate (2 swords)
    to_harbour(st, 16)
    st.revealed = 1
    on_top(st, 75)  # Flute, 2 coins, 2 swords
    give_coins(st, 0, 3, avoid={75})
    assert st.swords[0] == 3
    GAME.apply(st, 0, {"type": "draw"})
    assert st.phase == REPEL and GAME.observe(st, 0)["state"] == "REPEL"
    assert GAME.legal_actions(st, 0) == [{"type": "repel"}, {"type": "dock"}]
    assert GAME.observe(st, 1)["pending_ship"]["id"] == 75
    GAME.apply(st, 0, {"type": "repel"})
    assert st.discard[-1] == 75
    assert st.harbour == [16]
    assert st.phase == DISCOVER and "stop" in types(st)
    assert st.persons[0] == [29, 39]
    assert conserved(st)


@pytest.mark.parametrize("where", ["DISCOVER", "TRADE"])
def test_w2_expedition_with_a_jack(where):
    st = fresh(3)
    st.active = st.taker = 1
    give_person(st, 1, 21, 26)  # Priest + Jack of all Trades
    to_expedition_area(st, 115)
    give_coins(st, 1, 3)
    assert st.ip[1] == 2
    if where == "TRADE":
        to_harbour(st, 61)
        enter_trade(st)
        assert st.phase == TRADE and st.taker == 1
    action = {"type": "expedition", "card": 115}
    assert action in GAME.legal_actions(st, 1)
    GAME.apply(st, 1, action)
    assert st.discard[:2] == [21, 26]
    assert st.expeditions[1] == [115] and 115 not in st.expedition_area
    assert st.persons[1] == []
    assert len(st.coins[1]) == 5
    assert st.ip[1] == 4
    assert conserved(st)


def test_w3_trading_a_ship():
    st = fresh(3)
    to_harbour(st, 74)
    give_coins(st, 0, 1)
    enter_trade(st)
    obs = GAME.observe(st, 0)
    assert obs["phase2"] == {"base_allowance": 1, "taker": 0, "takes_used": 0, "allowance": 1}
    GAME.apply(st, 0, {"type": "take", "card": 74})
    assert 74 in st.discard
    assert len(st.coins[0]) == 3
    assert conserved(st)


def test_w4_full_trade_and_hire_phase():
    st = fresh(3)
    to_harbour(st, 61, 74, 84, 94, 16)  # Pinnace, Flute, Skiff, Frigate, Captain
    give_coins(st, 0, 2)
    give_coins(st, 1, 3)
    give_coins(st, 2, 4)
    enter_trade(st)
    assert st.base_allowance == 2
    assert len(st.coins[0]) == 2  # no Admiral payout although the harbour has 5 cards
    assert GAME.legal_actions(st, 0) == [{"type": "take", "card": c} for c in (61, 74, 84, 94)] + [{"type": "done"}]
    GAME.apply(st, 0, {"type": "take", "card": 74})
    assert len(st.coins[0]) == 4
    assert {"type": "take", "card": 16} in GAME.legal_actions(st, 0)
    GAME.apply(st, 0, {"type": "take", "card": 16})
    assert len(st.coins[0]) == 0 and st.persons[0] == [16]
    # allowance used, no expedition: Adam's step ended by itself
    assert GAME.to_move(st) == 1 and st.taker == 1
    GAME.apply(st, 1, {"type": "take", "card": 84})
    assert len(st.coins[1]) == 4 and len(st.coins[0]) == 1
    assert GAME.to_move(st) == 2
    assert GAME.legal_actions(st, 2) == [{"type": "take", "card": 61}, {"type": "take", "card": 94}, {"type": "done"}]
    GAME.apply(st, 2, {"type": "done"})
    assert st.discard[-2:] == [61, 94]
    assert st.active == 1 and st.phase == DISCOVER and st.harbour == []
    assert len(st.coins[2]) == 4
    assert conserved(st)


def test_w5_hiring_a_person():
    st = fresh(3)
    st.active = st.taker = 1
    to_harbour(st, 30)
    give_coins(st, 1, 5)
    enter_trade(st)
    ip_before = st.ip[1]
    GAME.apply(st, 1, {"type": "take", "card": 30})
    assert len(st.coins[1]) == 2
    assert st.persons[1] == [30]
    assert st.swords[1] == 1 and GAME.observe(st, None)["players"][1]["swords"] == 1
    assert st.ip[1] == ip_before + 1


@pytest.mark.parametrize("coins", [5, 4])
def test_w6_mademoiselle_discounts_stack(coins):
    st = fresh(3)
    give_person(st, 0, 42, 43)
    to_harbour(st, 52, 61)  # Admiral (cost 7) and a ship so that the step does not end by itself
    give_coins(st, 0, coins)
    enter_trade(st)
    take = {"type": "take", "card": 52}
    if coins == 4:
        assert take not in GAME.legal_actions(st, 0)
        with pytest.raises(IllegalAction) as err:
            GAME.apply(st, 0, take)
        assert err.value.rule.startswith("§4.6")
        return
    assert take in GAME.legal_actions(st, 0)
    GAME.apply(st, 0, take)
    assert len(st.coins[0]) == 0
    assert st.persons[0] == [42, 43, 52]
    assert st.admirals[0] == 1


# --- more rules ---------------------------------------------------------------------------------
def test_setup_counts_and_five_player_expedition():
    for n, left in ((2, 113), (3, 110), (4, 107), (5, 104)):
        st = GAME.setup(n, 3)
        assert len(st.draw) == left
        assert all(len(c) == 3 for c in st.coins)
        assert st.expedition_area == ([120] if n == 5 else [])
        assert 120 not in st.draw
        assert conserved(st)
        assert GAME.legal_actions(st, 0) == [{"type": "draw"}]
    with pytest.raises(BadOptions):
        GAME.setup(6, 0)
    with pytest.raises(BadOptions):
        GAME.setup(4, 0, {"end_condition": "sudden"})
    with pytest.raises(BadOptions):
        GAME.setup(4, 0, {"colour": "red"})


def test_default_options_cover_the_rules_file():
    assert GAME.default_options == {"end_condition": "standard", "max_rounds": 100, "start_seat": 0,
                                    "explicit_jack_allocation": False}
    seats = {GAME.setup(4, seed, {"start_seat": "random"}).start_seat for seed in range(40)}
    assert seats == {0, 1, 2, 3}
    st = GAME.setup(4, 1, {"start_seat": 2})
    assert st.active == 2 and st.last_seat == 1


def test_same_seed_same_game_and_clone_is_independent():
    a, b = GAME.setup(4, 99), GAME.setup(4, 99)
    rng = random.Random(5)
    for _ in range(150):
        seat = GAME.to_move(a)
        if seat is None:
            break
        action = rng.choice(GAME.legal_actions(a, seat))
        assert GAME.apply(a, seat, action) == GAME.apply(b, seat, action)
    c = GAME.clone(a)
    assert GAME.observe(c, None) == GAME.observe(a, None)
    seat = GAME.to_move(c)
    if seat is not None:
        GAME.apply(c, seat, GAME.legal_actions(c, seat)[0])
        assert GAME.observe(b, None) == GAME.observe(a, None)


def test_dock_of_a_repellable_duplicate_busts_and_jesters_pay_everyone():
    st = fresh(3)
    give_person(st, 0, 29)  # 1 sword
    give_person(st, 0, 46)  # Jester for the active player
    give_person(st, 2, 47, 48)  # two Jesters for seat 2
    to_harbour(st, 71, 16)  # a blue Flute and a Captain
    st.revealed = 2
    on_top(st, 72)  # another blue Flute, 1 sword: repellable
    GAME.apply(st, 0, {"type": "draw"})
    assert st.phase == REPEL
    events = GAME.apply(st, 0, {"type": "dock"})
    assert any(e["type"] == "bust" for e in events)
    assert st.discard[-3:] == [71, 16, 72]
    assert [len(c) for c in st.coins] == [1, 0, 2]
    assert st.active == 1 and st.phase == DISCOVER and st.harbour == []
    assert conserved(st)


def test_unrepellable_duplicate_docks_automatically_and_busts():
    st = fresh(3)
    to_harbour(st, 99)  # red Frigate with a skull
    st.revealed = 1
    on_top(st, 100)  # another skull Frigate
    GAME.apply(st, 0, {"type": "draw"})
    assert st.discard[-2:] == [99, 100] and st.active == 1


def test_non_duplicate_ship_may_be_repelled_and_expedition_goes_to_the_area():
    st = fresh(3)
    give_person(st, 0, 39)
    on_top(st, 118, 61)
    GAME.apply(st, 0, {"type": "draw"})
    assert st.expedition_area == [118] and st.harbour == [] and types(st) == ["draw", "stop"]
    GAME.apply(st, 0, {"type": "draw"})
    assert st.phase == REPEL
    GAME.apply(st, 0, {"type": "dock"})
    assert st.harbour == [61]


def test_tax_halves_first_then_fewest_ip_bonus_to_all_tied():
    st = fresh(3)
    st.active = 1
    give_person(st, 2, 29)  # seat 2 has 1 IP; seats 0 and 1 have 0
    give_coins(st, 0, 13)
    give_coins(st, 1, 12)
    give_coins(st, 2, 11)
    on_top(st, 113)  # fewest IP
    GAME.apply(st, 1, {"type": "draw"})
    assert [len(c) for c in st.coins] == [7 + 1, 6 + 1, 11]
    assert st.discard[-1] == 113
    assert types(st, 1) == ["draw", "stop"]
    assert conserved(st)


def test_tax_most_swords_pays_everyone_at_zero():
    st = fresh(4)
    on_top(st, 111)
    GAME.apply(st, 0, {"type": "draw"})
    assert [len(c) for c in st.coins] == [1, 1, 1, 1]


def test_admiral_pays_non_active_taker_and_jester_pays_on_empty_harbour():
    st = fresh(3)
    give_person(st, 1, 52)  # Admiral for seat 1
    give_person(st, 2, 47)  # Jester for seat 2
    to_harbour(st, 61, 71, 81, 30, 31)  # 3 ships + 2 Sailors: 5 cards
    give_coins(st, 0, 1)
    enter_trade(st)
    GAME.apply(st, 0, {"type": "take", "card": 61})
    # seat 1's step: the harbour still has 4 cards, so no Admiral payout
    assert st.taker == 1 and len(st.coins[1]) == 0
    GAME.apply(st, 1, {"type": "take", "card": 71})
    assert len(st.coins[1]) == 0  # gained 1 and paid the fee with it
    assert len(st.coins[0]) == 1 + 1 + 1  # own coin, ship 61, the fee
    # seat 2 has cards left to take: no Jester coin
    assert st.taker == 2
    GAME.apply(st, 2, {"type": "done"})
    assert len(st.coins[2]) == 0


def test_admiral_counts_five_cards_and_jester_when_nothing_is_left():
    st = fresh(3)
    give_person(st, 1, 52, 53)  # two Admirals
    give_person(st, 2, 47)
    to_harbour(st, 61)
    give_coins(st, 0, 1)
    enter_trade(st)
    GAME.apply(st, 0, {"type": "take", "card": 61})
    # harbour empty: seat 1 gets nothing, seat 2 gets 1 Jester coin; the turn passes on
    assert [len(c) for c in st.coins] == [2, 0, 1]
    assert st.active == 1 and st.phase == DISCOVER
    st2 = fresh(3)
    give_person(st2, 1, 52, 53)
    to_harbour(st2, 61, 71, 81, 91, 101, 29)  # six cards: after one take five remain
    enter_trade(st2)
    assert st2.base_allowance == 3
    GAME.apply(st2, 0, {"type": "take", "card": 61})
    GAME.apply(st2, 0, {"type": "done"})
    assert st2.taker == 1 and len(st2.coins[1]) == 4  # 2 Admirals x 2 coins


def test_governor_allowance_and_fee_per_card():
    st = fresh(3)
    to_harbour(st, 57, 61, 71)  # Governor (cost 8), two ships
    give_coins(st, 0, 2)
    give_coins(st, 1, 9)
    enter_trade(st)
    GAME.apply(st, 0, {"type": "take", "card": 61})  # allowance 1: step ends
    assert st.taker == 1
    GAME.apply(st, 1, {"type": "take", "card": 57})  # pays 8 + 1 fee, then may take one more card
    assert len(st.coins[1]) == 0 and st.governors[1] == 1
    assert st.taker == 1 and GAME.observe(st, 1)["phase2"]["allowance"] == 2
    GAME.apply(st, 1, {"type": "take", "card": 71})
    assert len(st.coins[1]) == 0  # 1 coin from the ship, paid as the fee
    assert len(st.coins[0]) == 2 + 1 + 1 + 1  # own coins, ship 61, two fees


def test_trader_bonus_and_duplicate_kinds_give_one_action():
    st = fresh(3)
    give_person(st, 0, 5, 6)  # two green Traders
    to_harbour(st, 29, 30, 81, 31)
    give_coins(st, 0, 3)
    enter_trade(st)
    assert GAME.legal_actions(st, 0) == [{"type": "take", "card": 29}, {"type": "take", "card": 81},
                                         {"type": "done"}]
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, 0, {"type": "take", "card": 30})
    assert err.value.rule == "§9 take"
    GAME.apply(st, 0, {"type": "take", "card": 81})
    assert len(st.coins[0]) == 3 + 1 + 2


def test_traded_ship_can_be_reshuffled_for_its_own_coins():
    st = fresh(2)
    to_harbour(st, 80)  # Flute worth 4 coins
    give_coins(st, 0, len(st.draw))  # everything else is in seat 0's coin stack
    assert st.draw == [] and st.discard == []
    enter_trade(st)
    GAME.apply(st, 0, {"type": "take", "card": 80})
    # only the ship itself could be drawn: 1 coin gained, the other 3 forfeited [HOUSE]
    assert len(st.coins[0]) == 118 + 1
    assert conserved(st)


def test_both_piles_empty_forbids_draw():
    st = fresh(2)
    give_coins(st, 1, len(st.draw))
    st.revealed = 1
    assert types(st) == ["stop"]
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, 0, {"type": "draw"})
    assert err.value.rule.startswith("§4.8")


def test_both_piles_empty_ends_by_the_round_cap():
    st = fresh(2, max_rounds=3)
    give_coins(st, 1, len(st.draw))
    st.revealed = 1
    GAME.apply(st, 0, {"type": "stop"})  # the following turns pass with no decision
    assert GAME.to_move(st) is None and st.end_reason == "max_rounds" and st.round == 3
    assert GAME.outcome(st).ranks == [1, 0]


def test_lazy_reshuffle_uses_the_seeded_generator():
    states = []
    for _ in range(2):
        st = fresh(2, seed=8)
        on_top(st, 29)
        st.discard = st.draw[:-1]
        st.draw = st.draw[-1:]
        GAME.apply(st, 0, {"type": "draw"})  # the last card of the draw pile
        assert st.draw == [] and len(st.discard) == 118  # not reshuffled yet (lazy)
        old = list(st.discard)
        GAME.apply(st, 0, {"type": "draw"})  # needs a card: the discard pile becomes the draw pile
        assert set(st.draw) < set(old) and len(st.draw) >= 110
        assert st.draw != old[::-1][1:]  # shuffled, not just turned over
        assert conserved(st)
        states.append(st)
    assert states[0].draw == states[1].draw


def test_end_triggers_at_12_and_the_round_is_finished():
    st = fresh(3)
    st.active = st.taker = 1
    give_person(st, 1, 55, 56, 44)  # Admirals and a Mademoiselle: 9 IP
    assert st.ip[1] == 9
    to_harbour(st, 50)  # Jester 9 -> 3 IP
    give_coins(st, 1, 9)
    enter_trade(st)
    events = GAME.apply(st, 1, {"type": "take", "card": 50})
    assert st.ip[1] == 12 and st.end_triggered
    assert any(e["type"] == "end_triggered" for e in events)
    # seat 2 (the start player's right neighbour) still has its turn
    assert st.active == 2 and GAME.to_move(st) == 2
    on_top(st, 99, 100)
    GAME.apply(st, 2, {"type": "draw"})
    GAME.apply(st, 2, {"type": "draw"})  # bust ends seat 2's turn and the game
    assert GAME.to_move(st) is None and st.phase == OVER
    assert GAME.observe(st, None)["state"] == "OVER"
    outcome = GAME.outcome(st)
    assert outcome.ranks[1] == 0 and outcome.scores[1] == 12.0
    assert outcome.detail["end"] == "end_ip"
    json.dumps(outcome.to_dict())


def test_trigger_during_the_last_seats_turn_ends_at_its_end():
    st = fresh(2)
    st.active = st.taker = 1
    give_person(st, 1, 55, 56, 44)
    to_harbour(st, 50, 61)
    give_coins(st, 1, 9)
    enter_trade(st)
    GAME.apply(st, 1, {"type": "take", "card": 50})
    # seat 0 (non-active) still has its step in this turn, then the game ends
    assert GAME.to_move(st) == 0
    GAME.apply(st, 0, {"type": "done"})
    assert GAME.to_move(st) is None


def test_ranks_tie_break_on_coins_and_true_ties_share():
    st = fresh(4)
    give_person(st, 0, 29)
    give_person(st, 1, 30)
    give_person(st, 2, 31)
    give_coins(st, 0, 2)
    give_coins(st, 1, 5)
    give_coins(st, 2, 2)
    st.phase = OVER
    assert GAME.outcome(st).ranks == [1, 0, 1, 3]


def test_expedition_required_variant():
    st = fresh(3, end_condition="expedition_required")
    st.active = st.taker = 1
    give_person(st, 1, 55, 56, 44, 50)  # 12 IP without an expedition
    to_harbour(st, 61)
    give_coins(st, 1, 1)
    enter_trade(st)
    assert st.ip[1] == 12 and not st.end_triggered
    give_person(st, 0, 21, 22)
    to_expedition_area(st, 115)
    GAME._check_end(st, 1, [])
    assert not st.end_triggered
    st.phase = OVER
    st.expeditions[0].append(st.expedition_area.pop())
    st.ip[0] += 4
    # the expedition holder (6 IP) ranks above the 12-IP seat without one
    assert GAME.outcome(st).ranks == [0, 1, 2]


def test_expedition_trigger_in_the_variant():
    st = fresh(3, end_condition="expedition_required")
    give_person(st, 0, 55, 56, 44, 21, 22)  # 11 IP with two Priests
    to_expedition_area(st, 115)
    GAME.apply(st, 0, {"type": "expedition", "card": 115})
    assert st.ip[0] == 13 and st.end_triggered


def test_explicit_jack_allocation_option():
    st = fresh(3, explicit_jack_allocation=True)
    give_person(st, 0, 21, 22, 26, 27, 11)  # 2 Priests, 2 Jacks, 1 Settler
    to_expedition_area(st, 119)  # cross + cross + house
    acts = [a for a in GAME.legal_actions(st, 0) if a["type"] == "expedition"]
    assert [a["jacks_for"] for a in acts] == [
        {"cross": 0, "house": 0}, {"cross": 0, "house": 1}, {"cross": 1, "house": 0},
        {"cross": 1, "house": 1}, {"cross": 2, "house": 0},
    ]
    GAME.apply(st, 0, {"type": "expedition", "card": 119, "jacks_for": {"cross": 1, "house": 1}})
    assert st.persons[0] == [22, 11]  # one real Priest and two Jacks were spent
    assert sorted(st.discard) == [21, 26, 27]


def test_canonical_allocation_keeps_jacks():
    st = fresh(3)
    give_person(st, 0, 26, 23, 21, 22)
    to_expedition_area(st, 115)
    GAME.apply(st, 0, {"type": "expedition", "card": 115})
    assert st.discard == [21, 22] and st.persons[0] == [26, 23]


def test_legal_action_order():
    st = fresh(5)
    give_person(st, 0, 21, 16, 11)
    to_expedition_area(st, 119)
    give_person(st, 0, 22)
    to_harbour(st, 61, 29, 71)
    give_coins(st, 0, 5)
    st.revealed = 3
    assert GAME.legal_actions(st, 0) == [{"type": "draw"}, {"type": "stop"},
                                         {"type": "expedition", "card": 119}, {"type": "expedition", "card": 120}]
    GAME.apply(st, 0, {"type": "stop"})
    assert GAME.legal_actions(st, 0) == [{"type": "take", "card": 61}, {"type": "take", "card": 29},
                                         {"type": "take", "card": 71}, {"type": "expedition", "card": 119},
                                         {"type": "expedition", "card": 120}, {"type": "done"}]


# --- illegal actions name the rule --------------------------------------------------------------
@pytest.mark.parametrize("make, seat, action, rule", [
    (lambda: fresh(3), 0, {"type": "stop"}, "§4.1 stop"),
    (lambda: fresh(3), 1, {"type": "draw"}, "§9 decision points"),
    (lambda: fresh(3), 0, {"type": "take", "card": 61}, "§9 decision points"),
    (lambda: fresh(3), 0, {"type": "expedition", "card": 115}, "§4.5 expedition"),
    (lambda: fresh(3), 0, {"type": "fly"}, "§9 decision points"),
    (lambda: fresh(3), 0, "draw", "§9 decision points"),
])
def test_illegal_actions_name_the_rule(make, seat, action, rule):
    st = make()
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, seat, action)
    assert err.value.rule == rule
    assert rule in str(err.value)


def test_illegal_actions_in_trade():
    st = fresh(3)
    give_person(st, 1, 21, 22)
    to_expedition_area(st, 115)
    to_harbour(st, 61, 71, 16)
    give_coins(st, 0, 1)
    give_coins(st, 2, 5)
    enter_trade(st)
    with pytest.raises(IllegalAction, match="§4.6 take"):
        GAME.apply(st, 0, {"type": "take", "card": 81})
    with pytest.raises(IllegalAction, match="§4.6 hire"):
        GAME.apply(st, 0, {"type": "take", "card": 16})
    with pytest.raises(IllegalAction, match="§4.2 repel"):
        GAME.apply(fresh_repel(), 0, {"type": "stop"})
    GAME.apply(st, 0, {"type": "take", "card": 61})
    assert st.taker == 1
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, 1, {"type": "expedition", "card": 115})
    assert err.value.rule == "§4.5 expedition"
    GAME.apply(st, 1, {"type": "take", "card": 71})
    assert st.taker == 2
    st.taker = 1  # pretend seat 1 were still taking: its allowance is spent
    st.takes_used = 1
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, 1, {"type": "take", "card": 16})
    assert err.value.rule == "§4.6 allowance"


def fresh_repel():
    st = fresh(3)
    give_person(st, 0, 39)
    on_top(st, 61)
    GAME.apply(st, 0, {"type": "draw"})
    assert st.phase == REPEL
    return st


def test_actions_after_the_end_are_refused():
    st = fresh(2)
    st.phase = OVER
    assert GAME.to_move(st) is None and GAME.legal_actions(st, 0) == []
    with pytest.raises(IllegalAction, match="§5"):
        GAME.apply(st, 0, {"type": "draw"})


# --- information ----------------------------------------------------------------------------------
def scramble_hidden(st, rng: random.Random):
    """The same public position with other coin faces and another draw-pile order."""
    other = GAME.clone(st)
    pool = [c for stack in other.coins for c in stack] + other.draw
    rng.shuffle(pool)
    for stack in other.coins:
        k = len(stack)
        stack[:] = pool[:k]
        del pool[:k]
    other.draw = pool
    other.rng = random.Random(rng.random())
    return other


def test_observations_hold_no_hidden_information():
    rng = random.Random(11)
    checked = 0
    for seed in range(60):
        n = 2 + seed % 4
        st = GAME.setup(n, seed)
        step = 0
        while (seat := GAME.to_move(st)) is not None:
            if step % 7 == 0:
                other = scramble_hidden(st, rng)
                for viewer in [None, *range(n)]:
                    view = GAME.observe(st, viewer)
                    assert view == GAME.observe(other, viewer)
                    assert view["you"] == viewer
                    assert json.loads(json.dumps(view)) == view
                checked += 1
            GAME.apply(st, seat, rng.choice(GAME.legal_actions(st, seat)))
            step += 1
    assert checked > 1000


def test_events_show_coin_gains_only_as_counts():
    st = GAME.setup(4, 3)
    rng = random.Random(3)
    hidden_seen = 0
    while (seat := GAME.to_move(st)) is not None:
        for e in GAME.apply(st, seat, rng.choice(GAME.legal_actions(st, seat))):
            if e["type"] == "coins":
                assert set(e) == {"type", "seat", "gain", "why"}
                hidden_seen += 1
    assert hidden_seen > 0


# --- bots ------------------------------------------------------------------------------------------
def test_bots_registry():
    assert set(BOTS) >= {"random", "heuristic"}
    for cls in BOTS.values():
        cls(seed=1)


def test_heuristic_beats_random_clearly():
    result = versus("port_royal", ["heuristic", "random", "random", "random"], games=120, seed=5)
    heuristic = result["bots"]["heuristic"]["average_place"]
    rnd = result["bots"]["random"]["average_place"]
    assert heuristic < 1.5 < 2.5 < rnd


def test_heuristic_plays_every_player_count():
    for n in (2, 3, 5):
        result = versus("port_royal", ["heuristic"] + ["random"] * (n - 1), games=20, seed=n)
        assert result["bots"]["heuristic"]["average_place"] < 1.5


# --- command line ----------------------------------------------------------------------------------
def test_cli_play_log_replay_and_bench(tmp_path, capsys):
    from engines.cli import main

    log = tmp_path / "match.json"
    assert main(["play", "--game", "port_royal", "--bots", "random", "random", "heuristic", "heuristic",
                 "--seed", "7", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "port_royal, seed 7" in out and out.count("place ") == 4
    assert main(["replay", str(log)]) == 0
    assert "replay ok" in capsys.readouterr().out
    assert main(["bench", "--game", "port_royal", "--games", "3"]) == 0
    bench = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert bench["game"] == "port_royal" and bench["games"] == 3 and bench["actions_per_s"] > 0


def test_cli_refuses_a_table_the_game_refuses_before_playing(capsys):
    """A start seat beyond a 3-seat table is an option only the set-up can judge: a clear error, no traceback."""
    from engines.cli import main

    for command in (["play"], ["versus", "--games", "3"]):
        assert main([*command, "--game", "port_royal", "--bots", "random", "random", "heuristic",
                     "--options", '{"start_seat": 4}']) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: port_royal: start_seat must be a seat 0..2") and "Traceback" not in err


def test_invariants_over_random_games():
    """Card conservation (§9), one ship per colour in the harbour, never an empty choice."""
    rng = random.Random(2024)
    for seed in range(80):
        n = 2 + seed % 4
        options = [{}, {"explicit_jack_allocation": True}, {"end_condition": "expedition_required"}][seed % 3]
        st = GAME.setup(n, seed, options)
        while (seat := GAME.to_move(st)) is not None:
            legal = GAME.legal_actions(st, seat)
            assert legal and len(legal) == len({json.dumps(a, sort_keys=True) for a in legal})
            GAME.apply(st, seat, rng.choice(legal))
            assert conserved(st)
            colours = [D.COLOUR[c] for c in st.harbour if D.KIND[c] == D.SHIP]
            assert len(colours) == len(set(colours)) == st.hmask.bit_count()
            assert st.ip == [sum(D.IP[c] for c in st.persons[s] + st.expeditions[s]) for s in range(n)]
        outcome = GAME.outcome(st)
        assert sorted(outcome.ranks)[0] == 0 and len(outcome.ranks) == n
