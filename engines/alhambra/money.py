"""Alhambra's money: taking money cards (§4.2) and paying for tiles (§4.3, §9.3).

The take-money and buy parts of the action-phase list (shared action dicts, never mutated), a hand's
purse (its values in each slot's currency), the search for payments, and the memos of all of them.
"""
from __future__ import annotations

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
# the take_picks key of a market -> (the positions taken alone, None for all; the picks of 2+ cards)
_TAKE_RECIPES: dict[int, tuple[tuple[int, ...] | None, tuple[tuple[int, ...], ...]]] = {}
_PAY_MEMO: dict[tuple[Any, ...], tuple[tuple[int, ...], ...]] = {}  # tuples: the collector stops tracking them
# [every][slot][price]: values (an int of a purse_of) -> buy actions (nested by the small parts: no key tuple to build)
_BUY_MEMO: tuple[tuple[tuple[dict[int, list[Action]], ...], ...], ...] = tuple(
    tuple(tuple({} for _price in range(max(TILE_PRICE) + 1)) for _slot in range(5)) for _every in (False, True))
_BUY_MEMO_SIZE = [0]  # the entries in all of _BUY_MEMO
# (slot, payment) -> the action, shared by the memo's lists: fewer objects for the garbage collector to scan
_BUY_ONE: dict[tuple[int, tuple[int, ...]], Action] = {}


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
        recipe = (None if len(singles) == len(money_market) else singles, tuple(p for p in picks if len(p) > 1))
        _TAKE_RECIPES[key] = recipe  # 4 bits a card of a 4-card market: bounded, no cap needed
    singles, several = recipe
    if singles is None:  # no two equal cards: each card alone, in market order
        takes = []
        for c in money_market:
            takes.append(_TAKE_ONE[c])
    else:
        takes = [_TAKE_ONE[money_market[i]] for i in singles]
    for pick in several:
        cards = tuple([money_market[i] for i in pick])
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
    desc = []  # the values, descending: the last digits first
    rest = values
    while rest:
        desc.append(rest % 10)
        rest //= 10
    desc.sort(reverse=True)  # a hand that is not sorted (tests build such hands) gives digits in any order
    acts = []
    if sum(desc) >= price:
        for pay in payment_sets(desc, price, every):
            act = _BUY_ONE.get((slot, pay))
            if act is None:
                act = _BUY_ONE[(slot, pay)] = {"type": "buy", "slot": slot, "pay": list(pay)}
            acts.append(act)
    if _BUY_MEMO_SIZE[0] > 200_000:
        for by_slot in _BUY_MEMO:
            for by_price in by_slot:
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
    for pick in _subsets(len(classes)):
        if sum(values[i] for i in pick) <= TAKE_MONEY_LIMIT and all(
                i == 0 or classes[i] != classes[i - 1] or i - 1 in pick for i in pick):
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
    key = (tuple(values), price, every)
    found = _PAY_MEMO.get(key)
    if found is None:
        found = tuple(_payments(values, price, every))
        if len(_PAY_MEMO) > 200_000:
            _PAY_MEMO.clear()
        _PAY_MEMO[key] = found
    return found


def _payments(values: list[int], price: int, every: bool) -> list[tuple[int, ...]]:
    distinct: list[int] = []
    left: list[int] = []  # the cards of each distinct value not in the payment being built
    for v in values:  # descending: equal values side by side
        if distinct and distinct[-1] == v:
            left[-1] += 1
        else:
            distinct.append(v)
            left.append(1)
    reach = [0] * (len(distinct) + 1)  # reach[k]: all the cards from the k-th distinct value on
    for k in range(len(distinct) - 1, -1, -1):
        reach[k] = reach[k + 1] + distinct[k] * left[k]
    out: list[tuple[int, ...]] = []
    _walk(distinct, left, reach, price, every, 0, 0, [], out)
    return out


def _walk(distinct: list[int], left: list[int], reach: list[int], price: int, every: bool, start: int, total: int,
          chosen: list[int], out: list[tuple[int, ...]]) -> None:
    """The depth-first search of ``_payments`` (a module function: a nested one would make a reference
    cycle per call, left for the garbage collector). A branch stops where even every card left cannot
    reach the price: it would find no payment, so the order of the others stays."""
    for k in range(start, len(distinct)):
        if total + reach[k] < price:  # reach only falls with k
            return
        if left[k]:
            v = distinct[k]
            left[k] -= 1
            chosen.append(v)
            if total + v >= price:
                out.append(tuple(chosen))
                if every:
                    _walk(distinct, left, reach, price, every, k, total + v, chosen, out)
            else:
                _walk(distinct, left, reach, price, every, k, total + v, chosen, out)
            chosen.pop()
            left[k] += 1
