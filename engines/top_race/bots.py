"""The built-in heuristic bot for Top Race.

It sees only its observation and the legal actions (plus the public rules data: cards and tracks).
The plan: never overpay in an auction, then play the card that moves the cars it has a stake in
(own cars, tipped cars, cars it holds many shares of) furthest and rivals' cars least, move own
cars to the most advanced space and rivals' cars to the least advanced one, tip the leading car,
and trade shares towards the leading cars.
"""
from __future__ import annotations

import random
from typing import Sequence

from engines.bots import Bot
from engines.core import Action, Observation
from engines.top_race import data as D

#: the most the bot pays for a car (the average prize is about 92 000)
CAR_LIMIT = 70_000
#: the most it pays for an offer card and turn position in Shares
OFFER_LIMIT = 20_000


class HeuristicBot(Bot):
    """Greedy Top Race player; deterministic except for ties, which its seeded generator breaks."""

    name = "heuristic"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    # --- reading the observation ---------------------------------------------------------------
    def _setup(self, obs: Observation) -> None:
        self.obs = obs
        self.me = obs["seat"]
        self.track = D.get_track(obs["track"])
        self.fronts: dict[str, int] = {}
        self.on_track: dict[str, bool] = {}
        finish = self.track.finish
        for car, where in obs["cars"].items():
            if "space" in where:
                self.fronts[car] = self.track.front[self.track.index[where["space"]]]
                self.on_track[car] = True
            elif "broken" in where:
                self.fronts[car] = self.track.front[self.track.index[where["broken"]]]
                self.on_track[car] = False
            elif "place" in where:
                self.fronts[car] = finish + 10 - where["place"]
                self.on_track[car] = False
            else:
                self.fronts[car] = 0
                self.on_track[car] = False
        self.stake = self._stakes(obs)

    def _stakes(self, obs: Observation) -> dict[str, float]:
        """How much moving each car forward is worth to this seat (negative: it helps a rival)."""
        stake = {c: 0.0 for c in D.CARS}
        if obs["modules"]["shares"]:
            for c, h in (obs.get("holdings") or {}).items():
                stake[c] = (h - D.SHARES_START) / 3.0
            return stake
        for c, owner in obs["owners"].items():
            if owner is None:
                continue
            stake[c] = 1.0 if owner == self.me else -0.4
        for c in obs.get("tips") or []:
            if c is not None:
                stake[c] += 0.5
        return stake

    def _ranking(self) -> list[str]:
        """Cars from the (probable) winner down: finished by place, then by progress."""
        return sorted(D.CARS, key=lambda c: -self.fronts[c])

    def _card_value(self, card: int, mode: str | None = None) -> float:
        stake, on_track, fronts = self.stake, self.on_track, self.fronts
        if card in D.SPURT_CARDS:
            x, y = D.SPURT_CARDS[card]
            if not (on_track[x] and on_track[y]):
                return 0.0
            a, b = (x, y) if fronts[x] >= fronts[y] else (y, x)
            if mode == "spurt":
                return stake[b] * max(0, fronts[a] - fronts[b])
            return -stake[a] * 6.0 + (0.5 if stake[a] < 0 else 0.0)
        value = 0.0
        printed = {c for c, _ in D.card_slots(card) if c != D.JOKER}
        for car, steps in D.card_slots(card):
            if car == D.JOKER:
                options = [stake[c] if on_track[c] else 0.0 for c in D.CARS if c not in printed]
                value += max(options) * steps
            elif on_track[car]:
                value += stake[car] * steps
        return value

    # --- decisions ------------------------------------------------------------------------------
    def act(self, observation: Observation, legal_actions: Sequence[Action], time_left_ms: int | None = None) -> int:
        """The best-scored legal action for the observation's decision (see the module docstring), ties at random."""
        obs = observation
        self._setup(obs)
        kind = obs["decision"]
        handler = getattr(self, f"_{kind}", None)
        scores = handler(legal_actions) if handler else [0.0] * len(legal_actions)
        best = max(scores)
        choices = [i for i, s in enumerate(scores) if s == best]
        return choices[self.rng.randrange(len(choices))]

    def _bid(self, legal: Sequence[Action]) -> list[float]:
        limit = OFFER_LIMIT if self.obs["phase"] == "offer_auction" else CAR_LIMIT
        scores = []
        for a in legal:
            if a["type"] == "pass":
                scores.append(0.0)
            else:
                # the cheapest bid within the limit; beyond it only if forced to open
                scores.append(1.0 - a["amount"] / 1e7 if a["amount"] <= limit else -a["amount"] / 1e7)
        return scores

    def _take_car(self, legal: Sequence[Action]) -> list[float]:
        # the front start spaces are worth most; the deck treats every colour alike
        return [-a["start"] for a in legal]

    def _take_offer(self, legal: Sequence[Action]) -> list[float]:
        return [self._card_value(a["card"], "spurt") for a in legal]

    def _turn(self, legal: Sequence[Action]) -> list[float]:
        hand_values = [self._card_value(c) for c in self.obs.get("hand", [])]
        best_hand = max(hand_values, default=0.0)
        scores = []
        for a in legal:
            t = a["type"]
            if t == "play":
                scores.append(self._card_value(a["card"], a.get("mode")))
            elif t == "take_reserved":
                scores.append(self._card_value(a["card"]) + 100.0)
            elif t == "pitstop":
                card = a["card"] if a["from"] == "box" else self.obs["discard"][-1]
                v = self._card_value(card, "spurt")
                # a pitstop costs the turn: worth it when the hand is empty or poor
                scores.append(v - (best_hand if best_hand > 0 else 0.0) - 1.0 if self.obs.get("hand") else v)
            else:  # pass
                scores.append(0.0)
        return scores

    def _joker(self, legal: Sequence[Action]) -> list[float]:
        return [self.stake[a["car"]] if self.on_track[a["car"]] else 0.0 for a in legal]

    def _space_key(self, space: str) -> int:
        return self.track.key[self.track.index[space]]

    def _move(self, legal: Sequence[Action]) -> list[float]:
        sign = 1.0 if self.stake.get(self.obs.get("car"), 0.0) >= 0 else -1.0
        return [sign * self._space_key(a["to"]) for a in legal]

    def _return(self, legal: Sequence[Action]) -> list[float]:
        return self._move(legal)

    def _claim(self, legal: Sequence[Action]) -> list[float]:
        worth = self._card_value(self.obs["claim_card"], "spurt") >= 8.0
        return [1.0 if (a["type"] == "pitstop_claim") == worth else 0.0 for a in legal]

    def _tip(self, legal: Sequence[Action]) -> list[float]:
        order = self._ranking()
        return [-float(order.index(a["car"])) for a in legal]

    def _trade(self, legal: Sequence[Action]) -> list[float]:
        order = self._ranking()
        worth = {c: D.PRIZE[i] for i, c in enumerate(order)}
        holdings = dict(self.obs["holdings"])
        base = sum(holdings[c] * worth[c] for c in D.CARS)
        scores = []
        for a in legal:
            delta = sum(worth[c] for c in a["buy"]) - sum(worth[c] for c in a["sell"])
            scores.append(base + delta)
        return scores
