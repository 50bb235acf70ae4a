"""The built-in heuristic Catan bot: greedy builder that values production (pips) and trades a little.

It sees only its observation and the legal actions (plus the static board geometry of data.py).
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from engines.bots import Bot
from engines.catan import data as D

RES = D.RESOURCES
COSTS = {"city": D.COST_CITY, "settlement": D.COST_SETTLEMENT, "dev": D.COST_DEV, "road": D.COST_ROAD}


class HeuristicBot(Bot):
    """Builds cities, then settlements, then roads toward good spots, then development cards.

    Trades with the bank when it completes a build, proposes 1:1 trades for a missing card once
    per turn, accepts offers that give it a card it needs for one it can spare.
    """

    name = "heuristic"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self._turn_proposed = -1

    # --- reading the observation
    def _prepare(self, obs: dict[str, Any]) -> None:
        self.board = D.BOARD_LARGE if obs["num_players"] >= 5 else D.BOARD_SMALL
        hexes = obs["board"]["hexes"]
        self.hex_pips = [D.PIPS.get(h["number"] or 0, 0) for h in hexes]
        self.hex_res = [D.TERRAIN_RESOURCE[h["terrain"]] for h in hexes]
        self.robber = obs["board"]["robber_hex"]
        self.owner = {b["vertex"]: (b["seat"], 2 if b["kind"] == "city" else 1) for b in obs["buildings"]}
        self.hand = [obs["you"]["resources"].get(r, 0) for r in RES]
        self.seat = obs["seat"]
        blocked = set()
        for v in self.owner:
            blocked.add(v)
            blocked.update(self.board.vertex_neighbours[v])
        self.blocked = blocked
        self.my_income = [0.0] * 5
        for v, (s, k) in self.owner.items():
            if s == self.seat:
                for h in self.board.vertex_hexes[v]:
                    if self.hex_res[h] >= 0:
                        self.my_income[self.hex_res[h]] += k * self.hex_pips[h]

    def vertex_value(self, v: int) -> float:
        """A site's worth: its hexes' pips (times 1.3 for a resource it earns little of) plus 1.5 per resource type."""
        value = 0.0
        kinds = set()
        for h in self.board.vertex_hexes[v]:
            r = self.hex_res[h]
            if r >= 0:
                pips = self.hex_pips[h]
                # scarce resources in our income are worth more
                value += pips * (1.3 if self.my_income[r] < 3 else 1.0)
                kinds.add(r)
        return value + 1.5 * len(kinds)

    def site_value(self, v: int, depth: int = 1) -> float:
        """The worth of site ``v`` if it is free, else 0.6 of its best neighbour's, searched ``depth`` steps deep
        (0 at an opponent's building)."""
        if v not in self.blocked:
            return self.vertex_value(v)
        if depth <= 0 or (v in self.owner and self.owner[v][0] != self.seat):
            return 0.0
        return 0.6 * max((self.site_value(w, depth - 1) for w in self.board.vertex_neighbours[v]), default=0.0)

    def edge_value(self, e: int) -> float:
        """A road's worth: the better site value of its two ends."""
        a, b = self.board.edge_vertices[e]
        return max(self.site_value(a, 1), self.site_value(b, 1))

    def missing(self, cost) -> list[int]:
        """Per resource, the cards the hand lacks to pay ``cost``."""
        return [max(0, cost[r] - self.hand[r]) for r in range(5)]

    def target(self, obs) -> tuple[str, tuple[int, ...]]:
        """What the bot saves for: a city if it has a settlement, else a settlement, else a card."""
        me = obs["players"][self.seat]
        has_settlement = any(s == self.seat and k == 1 for s, k in self.owner.values())
        if has_settlement and me["supply"]["cities"] and sum(self.missing(D.COST_CITY)) <= 2:
            return "city", D.COST_CITY
        if me["supply"]["settlements"]:
            return "settlement", D.COST_SETTLEMENT
        if has_settlement and me["supply"]["cities"]:
            return "city", D.COST_CITY
        return "dev", D.COST_DEV

    # --- the decision
    def act(self, observation: dict[str, Any], legal_actions: Sequence[dict[str, Any]],
            time_left_ms: int | None = None) -> int:
        """The choice of the phase's heuristic (``_phase_<phase>``), or a random legal action where it has none."""
        obs = observation
        if len(legal_actions) == 1:
            return 0
        self._prepare(obs)
        by_type: dict[str, list[int]] = {}
        for i, a in enumerate(legal_actions):
            by_type.setdefault(a["type"], []).append(i)
        phase = obs["phase"]
        pick = getattr(self, "_phase_" + phase.lower(), None)
        choice = pick(obs, legal_actions, by_type) if pick else None
        if choice is None:
            choice = self.rng.randrange(len(legal_actions))
        return choice

    def _best(self, legal, indices, score) -> int:
        return max(indices, key=lambda i: (score(legal[i]), -i))

    def _phase_setup(self, obs, legal, by_type):
        if "place_settlement" in by_type:
            return self._best(legal, by_type["place_settlement"], lambda a: self.vertex_value(a["vertex"]))
        return self._best(legal, by_type["place_road"], lambda a: self.edge_value(a["edge"]))

    def _phase_pre_roll(self, obs, legal, by_type):
        if "play_knight" in by_type and self._robber_hurts_me():
            return by_type["play_knight"][0]
        return by_type["roll"][0]

    def _robber_hurts_me(self) -> bool:
        return any(self.owner.get(v, (-1,))[0] == self.seat for v in self.board.hex_vertices[self.robber])

    def _phase_discard(self, obs, legal, by_type):
        _name, cost = self.target(obs)
        # discard what the target needs least, the largest pile first
        return self._best(legal, by_type["discard"],
                          lambda a: self.hand[D.RES_INDEX[a["resource"]]] - 2 * cost[D.RES_INDEX[a["resource"]]])

    def _phase_move_robber(self, obs, legal, by_type):
        players = obs["players"]

        def score(a):
            h = a["hex"]
            value = 0.0
            for v in self.board.hex_vertices[h]:
                if v in self.owner:
                    s, k = self.owner[v]
                    if s == self.seat:
                        value -= 10 * k * (self.hex_pips[h] + 1)
                    else:
                        value += k * self.hex_pips[h] * (1 + players[s]["public_vp"] / 5)
            if a["victim"] is not None:
                value += 2 + players[a["victim"]]["resource_cards"] / 4
            return value

        return self._best(legal, by_type["move_robber"], score)

    def _phase_trade(self, obs, legal, by_type):
        return self._turn_choice(obs, legal, by_type, can_trade=True)

    def _phase_build(self, obs, legal, by_type):
        return self._turn_choice(obs, legal, by_type, can_trade=False)

    def _phase_special_build(self, obs, legal, by_type):
        choice = self._build_choice(obs, legal, by_type)
        return choice if choice is not None else by_type["end_special_build"][0]

    def _build_choice(self, obs, legal, by_type):
        if "build_city" in by_type:
            return self._best(legal, by_type["build_city"], lambda a: self.vertex_value(a["vertex"]))
        if "build_settlement" in by_type:
            return self._best(legal, by_type["build_settlement"], lambda a: self.vertex_value(a["vertex"]))
        me = obs["players"][self.seat]
        name, _cost = self.target(obs)
        if "build_road" in by_type and name == "settlement":
            # roads only while no free site is reachable, and toward the best one
            best = self._best(legal, by_type["build_road"], lambda a: self.edge_value(a["edge"]))
            if self.edge_value(legal[best]["edge"]) > 0 and me["supply"]["roads"] > 2:
                return best
        if "buy_dev_card" in by_type and (name != "city" or self.hand[4] > 3):
            return by_type["buy_dev_card"][0]
        return None

    def _turn_choice(self, obs, legal, by_type, can_trade):
        for kind in ("play_monopoly", "play_year_of_plenty"):
            if kind in by_type:
                return self._progress_choice(obs, legal, by_type[kind], kind)
        if "play_knight" in by_type and self._robber_hurts_me():
            return by_type["play_knight"][0]
        if "play_road_building" in by_type and self.target(obs)[0] == "settlement":
            return by_type["play_road_building"][0]
        choice = self._build_choice(obs, legal, by_type)
        if choice is not None:
            return choice
        name, cost = self.target(obs)
        missing = self.missing(cost)
        if "maritime_trade" in by_type and sum(missing):
            spare = [max(0, self.hand[r] - cost[r]) for r in range(5)]
            for i in by_type["maritime_trade"]:
                a = legal[i]
                g, t = D.RES_INDEX[a["give"]], D.RES_INDEX[a["get"]]
                if missing[t] and spare[g] >= a["rate"]:
                    return i
        if "propose_trade" in by_type and sum(missing) == 1 and self._turn_proposed != obs["turn"]:
            want = missing.index(1)
            spare = [max(0, self.hand[r] - cost[r]) for r in range(5)]
            give = max(range(5), key=lambda r: spare[r])
            if spare[give]:
                for i in by_type["propose_trade"]:
                    a = legal[i]
                    if a["give"] == {RES[give]: 1} and a["get"] == {RES[want]: 1}:
                        self._turn_proposed = obs["turn"]
                        return i
        return by_type["end_turn"][0]

    def _progress_choice(self, obs, legal, indices, kind):
        _name, cost = self.target(obs)
        missing = self.missing(cost)
        if kind == "play_monopoly":
            # the resource the target needs most; ore/grain late, brick/lumber early
            return self._best(legal, indices, lambda a: missing[D.RES_INDEX[a["resource"]]])

        def score(a):
            need = list(missing)
            value = 0
            for r in a["resources"]:
                i = D.RES_INDEX[r]
                if need[i]:
                    need[i] -= 1
                    value += 2
                else:
                    value += 0.1
            return value

        return self._best(legal, indices, score)

    def _phase_trade_respond(self, obs, legal, by_type):
        trade = obs["trade"]
        if trade["kind"] != "proposal" or "accept_trade" not in by_type:
            return by_type.get("reject_trade", by_type.get("pass", [0]))[0]
        _name, cost = self.target(obs)
        missing = self.missing(cost)
        # they give trade["give"] (we receive), they want trade["get"] (we pay)
        receive_useful = sum(min(n, missing[D.RES_INDEX[r]]) for r, n in trade["give"].items())
        pay_hurts = sum(max(0, n - max(0, self.hand[D.RES_INDEX[r]] - cost[D.RES_INDEX[r]]))
                        for r, n in trade["get"].items())
        leader = obs["players"][trade["from"]]["public_vp"] >= 8
        if receive_useful and not pay_hurts and not leader:
            return by_type["accept_trade"][0]
        return by_type["reject_trade"][0]

    def _phase_trade_decide(self, obs, legal, by_type):
        if "confirm_trade" in by_type:
            return by_type["confirm_trade"][0]
        return by_type["cancel_trade"][0]

    def _phase_road_building(self, obs, legal, by_type):
        if "free_road" in by_type:
            return self._best(legal, by_type["free_road"], lambda a: self.edge_value(a["edge"]))
        return by_type["end_road_building"][0]

    def _phase_gift_answer(self, obs, legal, by_type):
        return by_type["accept_gift"][0]

    def _phase_favor_merchant(self, obs, legal, by_type):
        return by_type.get("end_favor", [0])[0]

    def _phase_favor_return(self, obs, legal, by_type):
        return 0
