"""The heuristic Alhambra bot: buys exactly when it can, chases majorities, builds long walls.

It sees only its observation and the legal actions, like any uploaded bot; the static tables
(tiles, money cards) come from data.py, the geometry from geometry.py.
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from engines.alhambra import geometry as geo
from engines.alhambra.data import CARD_CURRENCY, CARD_VALUE, POINTS, SLOT_CURRENCY, TILE_PRICE, TILE_TYPE
from engines.bots import Bot
from engines.core import Action, Observation


def _exact_possible(values: list[int], price: int) -> bool:
    """Can some of ``values`` add up to exactly ``price``? (subset sum over a bit set)"""
    reach = 1
    for v in values:
        reach |= reach << v
    return bool(reach >> price & 1)


class HeuristicBot(Bot):
    """Greedy one-step evaluation of every legal action (ties broken by a seeded generator)."""

    name = "heuristic"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, observation: Observation, legal_actions: Sequence[Action], time_left_ms: int | None = None) -> int:
        """The legal action of highest ``value`` (ties broken by a small seeded random term)."""
        obs = observation
        me = obs["players"][obs["seat"]]
        alhambra = {geo.cell(p["x"], p["y"]): p["tile"] for p in me["alhambra"]}
        wall_now = me["longest_wall"]
        hand = me.get("hand", [])
        context = (obs, me, alhambra, wall_now, hand)
        best, best_value = 0, float("-inf")
        for i, action in enumerate(legal_actions):
            value = self.value(action, context) + self.rng.random() * 1e-3
            if value > best_value:
                best, best_value = i, value
        return best

    # ------------------------------------------------------------------------------------------
    def tile_worth(self, tile: int, obs: dict[str, Any], me: dict[str, Any]) -> float:
        """How much one more building of this tile's type is worth to us in the majorities."""
        t = TILE_TYPE[tile]
        mine = me["type_counts"][t - 1]
        others = [p["type_counts"][t - 1] for p in obs["players"] if p["seat"] != me["seat"]]
        if "dirk" in obs:
            others.append(obs["dirk"]["type_counts"][t - 1])
        best_other = max(others) if others else 0
        top = POINTS[t][2][0]
        if mine + 1 > best_other:
            return 2.0 + top / 6  # take or extend the lead
        if mine + 1 == best_other:
            return 1.5 + top / 8  # draw level
        if mine + 3 >= best_other:
            return 1.0 + top / 12
        return 0.4  # hopeless majority; still a tile for walls and second places

    def value(self, action: Action, context: tuple) -> float:
        """A greedy score for ``action``: tiles placed by the wall they add, buys by majority and an exact payment,
        money by the exact buys it allows; removals and swaps at -10."""
        obs, me, alhambra, wall_now, hand = context
        kind = action["type"]
        if kind == "place":
            if action["to"] == "alhambra":
                trial = dict(alhambra)
                trial[geo.cell(action["x"], action["y"])] = action["tile"]
                return 10.0 + 1.5 * (geo.longest_wall(trial) - wall_now)
            return 0.0 if action["to"] == "reserve" else -5.0
        if kind == "buy":
            tile = obs["building_market"][str(action["slot"])]
            over = sum(action["pay"]) - TILE_PRICE[tile]
            fits = any(geo.can_place(alhambra, c, tile) for c, _o, _r in geo.frontier(alhambra))
            value = 3.0 * self.tile_worth(tile, obs, me) + (0.0 if fits else -2.0)
            return value + (4.0 if over == 0 else -1.5 * over) - 0.05 * sum(action["pay"])
        if kind == "take_money":
            cards = action["cards"]
            gain = sum(CARD_VALUE[c] for c in cards)
            value = 1.0 + 0.5 * gain
            new_hand = hand + cards
            for slot, tile in obs["building_market"].items():
                if tile is None:
                    continue
                currency = SLOT_CURRENCY[int(slot)]
                if not any(CARD_CURRENCY[c] == currency for c in cards):
                    continue
                before = [CARD_VALUE[c] for c in hand if CARD_CURRENCY[c] == currency]
                after = [CARD_VALUE[c] for c in new_hand if CARD_CURRENCY[c] == currency]
                if _exact_possible(after, TILE_PRICE[tile]) and not _exact_possible(before, TILE_PRICE[tile]):
                    value += 1.0 * self.tile_worth(tile, obs, me)
            return value
        if kind == "redesign_place":
            trial = dict(alhambra)
            trial[geo.cell(action["x"], action["y"])] = action["tile"]
            value = 2.0 + 1.5 * (geo.longest_wall(trial) - wall_now)
            return value + (1.5 * self.tile_worth(action["tile"], obs, me) if len(hand) >= 6 else 0.0)
        if kind == "pass":
            return 0.5
        return -10.0  # removing or swapping tiles rarely helps a greedy player
