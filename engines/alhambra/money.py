"""Alhambra's money: taking money cards (§4.2) and paying for tiles (§4.3, §9.3).

The take-money and buy parts of the action-phase list (shared action dicts, never mutated), a hand's
purse (its values in each slot's currency), the search for payments, and the memos of all of them.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any

from engines.alhambra.data import CARD_CURRENCY, CARD_VALUE, MARKET_SLOTS, SLOT_CURRENCY, TAKE_MONEY_LIMIT, TILE_PRICE
from engines.alhambra.state import AlhambraState
from engines.core import Action

_TAKE_MEMO: dict[int, list[tuple[int, ...]]] = {}
_CAPPED_VALUE: tuple[int, ...] = tuple(min(CARD_VALUE[c], TAKE_MONEY_LIMIT) for c in range(108))
_TAKE_KEY_BITS: tuple[int, ...] = tuple(v << 1 for v in _CAPPED_VALUE)  # a card's bits in a take_picks key
_CARD_CLASS: tuple[int, ...] = tuple(c // 3 for c in range(108))  # (currency, value): equal cards share it
_TAKE_ONE: tuple[Action, ...] = tuple({"type": "take_money", "cards": [c]} for c in range(108))
_TAKE_SOME: dict[tuple[int, ...], Action] = {}  # 2+ cards worth at most 5 (a few thousand) -> the action
# the take_picks key of a market -> (the positions taken alone, None for all; itemgetters of the picks of 2+ cards)
_TAKE_RECIPES: dict[int, tuple[tuple[int, ...] | None, tuple[itemgetter, ...]]] = {}
_PAY_MEMO: dict[tuple[Any, ...], tuple[tuple[int, ...], ...]] = {}  # tuples: the collector stops tracking them
# [every][slot][price]: values (an int of a purse_of) -> buy actions (nested by the small parts: no key tuple to build)
_BUY_MEMO: tuple[tuple[tuple[dict[int, list[Action]], ...], ...], ...] = tuple(
    tuple(tuple({} for _price in range(max(TILE_PRICE) + 1)) for _slot in range(5)) for _every in (False, True))
_BUY_MEMO_SIZE = [0]  # the entries in all of _BUY_MEMO
# [slot]: payment -> the action, shared by the memo's lists: fewer objects for the garbage collector to scan
_BUY_ONE: tuple[dict[tuple[int, ...], Action], ...] = tuple({} for _slot in range(5))
# [every][price]: values (an int of a purse_of) -> its payment sets (payment_sets), shared by the slots
_PAYS_OF: tuple[tuple[dict[int, tuple[tuple[int, ...], ...]], ...], ...] = tuple(
    tuple({} for _price in range(max(TILE_PRICE) + 1)) for _every in (False, True))


def take_actions(money_market: list[int]) -> list[Action]:
    """The take-money part of the action-phase list, a new list of the shared action dicts (§4.2/§9.3): one
    card, or 2+ cards summing to at most 5; equal cards give one action. ``money_market`` is sorted; among
    equal (currency, value) cards the lowest ids are taken."""
    key = 0  # the take_picks key (plain loops: map objects cost more on 4 cards)
    prev = -1
    bits = _TAKE_KEY_BITS
    classes = _CARD_CLASS
    for c in money_market:
        k = classes[c]
        key = key * 16 + bits[c]  # key << 4 | capped value << 1, by the operators Python 3.11 specializes
        if k == prev:
            key += 1
        prev = k
    recipe = _TAKE_RECIPES.get(key)
    if recipe is None:
        picks = take_picks(money_market)
        singles = tuple(p[0] for p in picks if len(p) == 1)
        recipe = (None if len(singles) == len(money_market) else singles,
                  tuple(itemgetter(*p) for p in picks if len(p) > 1))
        _TAKE_RECIPES[key] = recipe  # 4 bits a card of a 4-card market: bounded, no cap needed
    singles, several = recipe
    takes = []
    if singles is None:  # no two equal cards: each card alone, in market order
        for c in money_market:
            takes.append(_TAKE_ONE[c])
    else:
        for i in singles:
            takes.append(_TAKE_ONE[money_market[i]])
    # the cards of a pick by an itemgetter: a comprehension would make a new function object per pick
    for pick in several:
        cards = pick(money_market)  # 2+ positions: a tuple
        act = _TAKE_SOME.get(cards)
        if act is None:
            act = _TAKE_SOME[cards] = {"type": "take_money", "cards": list(cards)}
        takes.append(act)
    return takes


def buy_actions(s: AlhambraState, purse: tuple[int, ...]) -> list[Action]:
    """The buy part of the action-phase list for a hand's purse (``purse_of``) and the building market."""
    acts: list[Action] = []
    every = s.all_payments
    memos = _BUY_MEMO[every]
    slot = 0
    for tile in s.market:  # slots 1-4; a zip of three would cost more than it saves
        values = purse[slot]
        slot += 1
        if tile is not None and values:
            buys = memos[slot][TILE_PRICE[tile]].get(values)
            if buys is None:
                buys = _slot_buy_actions(slot, values, TILE_PRICE[tile], every)
            if buys:
                acts += buys
    return acts


def _slot_buy_actions(slot: int, values: int, price: int, every: bool) -> list[Action]:
    """The buy actions of a tile costing ``price`` on ``slot`` for the values of its currency in hand
    (``purse_of``'s digits), memoized under ``(every, slot, price, values)``."""
    by_values = _PAYS_OF[every][price]
    pays = by_values.get(values)
    if pays is None:  # the same values may have been priced for another slot
        desc = sorted(map(int, str(values)), reverse=True)  # a hand that is not sorted (tests build such hands)
        pays = by_values[values] = payment_sets(desc, price, every) if sum(desc) >= price else ()
    one = _BUY_ONE[slot]
    acts = []
    for pay in pays:
        act = one.get(pay)
        if act is None:
            act = one[pay] = {"type": "buy", "slot": slot, "pay": list(pay)}
        acts.append(act)
    if _BUY_MEMO_SIZE[0] > 200_000:  # _PAYS_OF grows with _BUY_MEMO: the bound holds for both
        for by_slot in _BUY_MEMO:
            for by_price in by_slot:
                for memo in by_price:
                    memo.clear()
        for by_price in _PAYS_OF:
            for memo in by_price:
                memo.clear()
        _BUY_MEMO_SIZE[0] = 0
    _BUY_MEMO[every][slot][price][values] = acts
    _BUY_MEMO_SIZE[0] += 1
    return acts


def purse_of(hand: list[int]) -> tuple[int, ...]:
    """The card values of a hand in the currency of each market slot, as the decimal digits of one int
    each (0: none): ints, unlike tuples, cost nothing to build and hash."""
    by_currency = [0, 0, 0, 0]
    value = CARD_VALUE
    currency = CARD_CURRENCY  # a subscript: Python 3.11 does not specialize //
    for c in hand:
        k = currency[c]
        by_currency[k] = by_currency[k] * 10 + value[c]
    a, b, c, d = _SLOT_CURRENCIES
    return by_currency[a], by_currency[b], by_currency[c], by_currency[d]


_SLOT_CURRENCIES = tuple(SLOT_CURRENCY[slot] for slot in MARKET_SLOTS)  # the currency of each slot, in order


def take_picks(money_market: list[int]) -> list[tuple[int, ...]]:
    """Memoized ``_picks_of_classes`` for a sorted money market.

    The picks depend only on the values (5 and up never join another card) and on which neighbours
    are equal cards, so that is the memo's key: a few hundred keys instead of every market.
    """
    key = 0  # as in take_actions
    prev = -1
    bits = _TAKE_KEY_BITS
    classes = _CARD_CLASS
    for c in money_market:
        k = classes[c]
        key = key * 16 + bits[c]
        if k == prev:
            key += 1
        prev = k
    picks = _TAKE_MEMO.get(key)
    if picks is None:
        picks = _picks_of_classes(tuple([c // 3 for c in money_market]))
        if len(_TAKE_MEMO) > 200_000:
            _TAKE_MEMO.clear()
        _TAKE_MEMO[key] = picks
    return picks


def _picks_of_classes(classes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Market positions of every distinct take (see ``take_actions``) for sorted card classes.

    Equal classes sit side by side; of the picks naming the same classes the listed one takes the
    first positions of each run (the smallest tuple), and the list runs singles, then by (size, pick).
    """
    values = [k % 9 + 1 for k in classes]
    out = [(i,) for i in range(len(classes)) if i == 0 or classes[i] != classes[i - 1]]
    for pick in _subsets(len(classes)):  # plain loops: a generator expression is a new function each time
        total = 0
        for i in pick:
            total += values[i]
        if total > TAKE_MONEY_LIMIT:
            continue
        for i in pick:
            if i and classes[i] == classes[i - 1] and i - 1 not in pick:
                break  # an equal card left of this one is not taken: not the listed pick of these classes
        else:
            out.append(pick)
    return out


_SUBSETS: dict[int, list[tuple[int, ...]]] = {}


def _subsets(m: int) -> list[tuple[int, ...]]:
    """The subsets of range(m) with 2+ elements, as ascending tuples ordered by (size, tuple)."""
    found = _SUBSETS.get(m)
    if found is None:
        found = _SUBSETS[m] = sorted((tuple(j for j in range(m) if mask >> j & 1) for mask in range(1 << m)
                                      if mask & (mask - 1)), key=lambda p: (len(p), p))
    return found


def payment_sets(values: list[int], price: int, every: bool = False) -> tuple[tuple[int, ...], ...]:
    """Multisets of ``values`` (sorted descending) worth at least ``price``, each sorted descending, memoized.

    Minimal ones only (§4.3: ``sum - min < price``) unless ``every``; deterministic order.
    """
    vals = tuple(values)
    found = _PAY_MEMO.get((vals, price, every))
    if found is None:
        found = _payments(vals, price, every)
    return found


def _payments(vals: tuple[int, ...], price: int, every: bool) -> tuple[tuple[int, ...], ...]:
    """``payment_sets`` worked out and memoized: a depth-first search taking each distinct value first
    (descending), then the payments of the rest for the rest of the price. Those are ``payment_sets``
    of a shorter problem, so they come from the memo (or are memoized for the next hand sharing them).

    A payment grows from its largest card down, so its last card is its smallest: the payment is
    minimal iff the price was not reached before that card. A branch stops where even every card
    left cannot reach the price (it would find no payment)."""
    out: list[tuple[int, ...]] = []
    prev = None
    reach = sum(vals)  # the cards from position i on
    for i, v in enumerate(vals):
        if v != prev:  # the first card of each distinct value
            if reach < price:  # reach only falls with i
                break
            prev = v
            if v >= price:
                out.append((v,))
                if every:  # every larger payment too
                    for rest in payment_sets(vals[i + 1:], price - v, True):
                        out.append((v,) + rest)
            else:
                for rest in payment_sets(vals[i + 1:], price - v, every):
                    out.append((v,) + rest)
        reach -= v
    found = tuple(out)
    if len(_PAY_MEMO) > 200_000:
        _PAY_MEMO.clear()
    _PAY_MEMO[(vals, price, every)] = found
    return found
