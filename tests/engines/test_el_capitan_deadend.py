"""El Capitán's dead-end filter (§9.3): its quick answers never differ from the exact searches.

The digests (test_el_capitan_digests.py) pin the legal lists of whole games; these pin the shortcuts
themselves on seeded random boards of cards, costs, budgets and needs, far from what random play meets,
and the buys of one price, decided together, against each buy's own plan in seeded games.
"""
from __future__ import annotations

import random

from engines.el_capitan.deadend import (MOVE_MASK, _free_plan, _free_search, _relaxed_plan, _search, _two_moves,
                                        seat_finisher)
from engines.el_capitan.rules import GAME
from engines.el_capitan.state import PRE
from engines.el_capitan.tables import CARD_IDS, CARD_PRICE, INF, NCITY

LOCATIONS = range(-2, NCITY)  # OFFBOARD, BANK, the cities


def exact_free(loc: int, cards: list[int], target: int) -> bool:
    """The exact search over free cards, without the lower bound or the two-move shortcut."""
    masks = [(1 << i, MOVE_MASK[k]) for i, k in enumerate(cards)]
    return _free_search(loc + 2, 1 << loc if loc >= 0 else 0, masks, 0, target, 0, set())


def test_the_free_plan_and_its_two_move_shortcut_answer_as_the_exact_search():
    rng = random.Random(7)
    shortcuts = 0
    for _ in range(4000):
        loc = rng.choice(LOCATIONS)
        cards = rng.sample(range(len(CARD_IDS)), rng.randint(1, 6))
        target = rng.randrange(1, 1 << NCITY)
        exact = exact_free(loc, cards, target)
        assert _free_plan(loc, cards, target) == exact, (loc, cards, target)
        if _two_moves(loc + 2, cards, target):
            shortcuts += 1
            assert exact, (loc, cards, target)
    assert shortcuts > 200  # the shortcut is taken, not only never wrong


def test_the_relaxed_path_is_a_plan_only_where_the_exact_search_finds_one():
    rng = random.Random(11)
    answers = {0: 0, 1: 0, 2: 0}
    for _ in range(4000):
        loc = rng.choice(LOCATIONS)
        pool = sorted(((k, rng.choice((0, 0, 0, 1, 2, 3, 5))) for k in rng.sample(range(len(CARD_IDS)), rng.randint(1, 6))),
                      key=lambda card: card[1])
        need = [rng.choice((0, 1, 2, 3, 4, 6, 8, INF)) for _ in range(NCITY)]
        budget = rng.randint(0, 12)
        exact = _search(loc, loc if loc >= 0 else -1, pool, 0, budget, need, min(need), 0, {})
        found = _relaxed_plan(loc, pool, budget, need)
        answers[found] += 1
        if found == 2:
            assert exact, (loc, pool, budget, need)
        elif found == 0:
            assert not exact, (loc, pool, budget, need)
    assert min(answers.values()) > 100, answers  # every answer is met


def test_the_buys_of_one_price_are_decided_as_each_buy_alone_would_be():
    """``Finisher.buy_plan`` (what the buys of one price share, answered once) against ``plan`` for each
    affordable display card, at the pre-action decisions of seeded random games."""
    shared = {True: 0, False: 0}
    for seed in range(12):
        rng = random.Random(seed)
        st = GAME.setup(2 + seed % 4, seed)
        while (seat := GAME.to_move(st)) is not None:
            loc = st.loc[seat]
            if st.step == PRE and st.cur == seat and st.hand[seat]:
                disp = st.disp_d + st.disp_l
                fin = seat_finisher(st, seat, disp)
                for k in disp:
                    left = st.money[seat] - CARD_PRICE[k]
                    if left >= 0:
                        alone = fin.plan(loc, left, -1, k)
                        assert fin.buy_plan(loc, left, k) == alone, (seed, seat, k, left)
                        shared[alone] += 1
            legal = GAME.legal_actions(st, seat)
            GAME.apply(st, seat, legal[rng.randrange(len(legal))])
    assert min(shared.values()) > 50, shared  # both answers are met
