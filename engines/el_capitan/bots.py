"""Built-in El Capitán bots. They see only their observation and the legal actions.

``HeuristicBot`` values every main action by the change in its own payday income it causes
(majority, fortresses, proliferation, computed on the board of the observation with the payday
rules of §5.1), weighted by the paydays still to come, minus its price. Sailing and buying cards
are worth the best main action they lead to; a loan is taken only when nothing worthwhile is
reachable, and loans are repaid at payday whenever a reserve remains.
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from engines.bots import Bot
from engines.core import Action, Observation

from . import data

CITY = {c["id"]: c for c in data.CITIES}
TRACK = {c["id"]: data.TIERS[c["tier"]]["track_values"] for c in data.CITIES}
HARBOR = {c["id"]: data.TIERS[c["tier"]]["harbor_price"] for c in data.CITIES}
FORT = {c["id"]: data.TIERS[c["tier"]]["fortress_price"] for c in data.CITIES}
DEST = {cid: (city, seals, price) for cid, city, seals, price in data.DESTINATION_CARDS}
LINK = {cid: (a, b, price) for cid, a, b, price in data.LINK_CARDS}
PRICE = {**{k: v[2] for k, v in DEST.items()}, **{k: v[2] for k, v in LINK.items()}}
NO_VALUE = -10_000.0


def _max_occ(sites: list) -> int:
    for k in range(12, 0, -1):
        if sites[k - 1] is not None:
            return k
    return 0


def income(cities: dict[str, Any], me: int, n: int) -> float:
    """Seat ``me``'s payday income on this board (§5.1; 2 players §6.2.6-8), bonus cards excluded."""
    total = 0.0
    counts = {cid: sum(1 for s in c["sites"] if s is not None) for cid, c in cities.items()}
    most = max(counts.values())
    present = 0
    for cid, c in cities.items():
        v = TRACK[cid][_max_occ(c["sites"])]
        stats: dict[tuple[int, str], list[int]] = {}
        for k, s in enumerate(c["sites"]):
            if s is not None:
                key = (s["seat"], s["color"])
                e = stats.setdefault(key, [0, k])
                e[0] += 1
        if (me, "main") in stats:
            present += 1
        if stats:
            ranked = sorted(stats.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
            if n == 2:
                if ranked[0][0] == (me, "main"):
                    total += v
            else:
                if ranked[0][0][0] == me:
                    total += v
                elif len(ranked) > 1 and ranked[1][0][0] == me:
                    total += v // 2
        for owner in c["fortresses"]:
            if owner == me:
                total += v if counts[cid] == most else v // 2
    return total + data.PROLIFERATION[present]


def _next_site(c: dict[str, Any]) -> int:
    sites = c["sites"]
    if all(s is None for s in sites) and not c["pictured"]:
        return 2 if c.get("_choose_two", True) else 1
    if c["site1_pending"]:
        return 1
    if c["reverse"]:
        for k in range(12, 0, -1):
            if sites[k - 1] is None:
                return k
        return 0
    m = _max_occ(sites)
    return m + 1 if m < 12 else 0


def shut_sites(city: str, n: int) -> tuple[int, ...]:
    """Shut-down sites of a city: black sites, plus the triangle with 2-3 players (§4.5.5)."""
    c = CITY[city]
    return tuple(c["black_sites"]) + ((c["triangle_site"],) if n <= 3 else ())


def place(c: dict[str, Any], site: int, seat: int, color: str) -> dict[str, Any]:
    """A copy of city ``c`` with a warehouse placed on ``site`` and its shut-down resolved (§4.5.5)."""
    sites = list(c["sites"])
    sites[site - 1] = {"seat": seat, "color": color}
    pictured = list(c["pictured"])
    if site in c["_shut"]:
        for k in range(12):
            if k != site - 1 and sites[k] is not None:
                pictured.append(sites[k])
                sites[k] = None
                break
    out = dict(c)
    out["sites"], out["pictured"] = sites, pictured
    return out


class HeuristicBot(Bot):
    """Greedy on the payday income a main action adds, looking one sail or one buy ahead."""

    name = "heuristic"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    # --- valuation -------------------------------------------------------------------------
    def _weight(self, obs: Observation) -> float:
        # this payday counts fully, later ones less (others keep building)
        return 1.0 + 0.7 * (3 - obs["phase"])

    def _build_values(self, obs: Observation, me: int, city: str, harbor_slot: int | None,
                      money: float) -> dict[str, float]:
        """Value of each main action kind in ``city`` if anchored on ``harbor_slot`` (0/1)."""
        out: dict[str, float] = {}
        if harbor_slot is None:
            return out
        n = obs["num_players"]
        cities = obs["cities"]
        c = dict(cities[city])
        c["_shut"] = shut_sites(city, n)
        player = obs["players"][me]
        base = income(cities, me, n)
        w = self._weight(obs)
        site = _next_site(c)
        sup = player["supply"]
        price = HARBOR[city][harbor_slot]
        if site and (sup["warehouses"] or sup["neutral"]) and price <= money:
            best = NO_VALUE
            for s in ((1, 2) if all(x is None for x in c["sites"]) and not c["pictured"] else (site,)):
                for color in (("main", "neutral") if n == 2 else ("main",)):
                    trial = dict(cities)
                    trial[city] = place(c, s, me, color)
                    gain = income(trial, me, n) - base
                    if n == 2 and color == "neutral":
                        gain += 1.0  # neutrals must be built anyway; they block the opponent
                    best = max(best, gain * w - price)
            out["build_warehouse"] = best
        if site and any(x["seat"] == me for x in c["pictured"]):
            trial = dict(cities)
            trial[city] = place(c, site, me, "main")
            out["reopen"] = (income(trial, me, n) - base) * w + 2
        forts = c["fortresses"]
        if sup["fortresses"] and me not in forts and None in forts:
            fprice = FORT[city][forts.index(None)]
            if fprice <= money:
                v = TRACK[city][_max_occ(c["sites"])]
                out["build_fortress"] = (v * 0.75) * w - fprice + 3
        return out

    def _city_value(self, obs: Observation, me: int, city: str, money: float, arriving: bool) -> float:
        c = obs["cities"][city]
        if arriving:
            harb = c["harbor"]
            slot = 0 if harb[0] in (None, me) else 1 if harb[1] in (None, me) else None
        else:
            slot = obs["players"][me]["ship"]["harbor"]
            slot = None if slot is None else slot - 1
        vals = self._build_values(obs, me, city, slot, money)
        return max(vals.values()) if vals else NO_VALUE

    def _card_targets(self, card: str, at: str) -> list[str]:
        if card in DEST:
            city, seals, _ = DEST[card]
            out = [city] if city != at else []
            if at in CITY:
                r0, c0 = CITY[at]["row"], CITY[at]["col"]
                for cid, c in CITY.items():
                    d = abs(c["row"] - r0) + abs(c["col"] - c0)
                    if 1 <= d <= seals and cid not in out:
                        out.append(cid)
            return out
        a, b, _ = LINK[card]
        return [b] if at == a else [a] if at == b else []

    # --- decisions ---------------------------------------------------------------------------
    def act(self, observation: Observation, legal_actions: Sequence[Action], time_left_ms: int | None = None) -> int:
        """At payday repay a loan if 6 Florins would remain, else extend it (§5.2); pick itself as start player
        (§5.3); otherwise the action of best value (see the module docstring)."""
        obs = observation
        me = obs["to_move"]
        step = obs["turn_step"]
        if len(legal_actions) == 1:
            return 0
        player = obs["players"][me]
        money = player["money"]
        if step == "settle":
            loan = obs["settling"]["loan"]
            due = next(x["due"] for x in player["loans"] if x["id"] == loan)
            for i, a in enumerate(legal_actions):
                if a["type"] == "repay" and money - due >= 6:
                    return i
            return next(i for i, a in enumerate(legal_actions) if a["type"] == "extend")
        if step == "choose_start":
            return next(i for i, a in enumerate(legal_actions) if a.get("seat") == me)
        at = player["ship"]["at"]
        if step == "post_action":
            return self._post(obs, me, legal_actions, money, at)
        cache: dict[str, float] = {}

        def arrive(city: str, budget: float) -> float:
            key = f"{city}:{budget}"
            if key not in cache:
                cache[key] = self._city_value(obs, me, city, budget, True)
            return cache[key]

        best_i, best_v = -1, NO_VALUE
        here = {}
        if at in CITY:
            slot = player["ship"]["harbor"]
            here = self._build_values(obs, me, at, None if slot is None else slot - 1, money)
        for i, a in enumerate(legal_actions):
            t = a["type"]
            if t in here:
                v = here[t]
                if t == "build_warehouse" and "site" in a:
                    v -= 0.1 if a["site"] == 1 else 0  # prefer the dearer start on site 2
                if t == "build_warehouse" and a.get("color") == "neutral":
                    v += 0.5
            elif t == "sail":
                if a.get("mode") == "route":
                    to = a["to"]
                elif a["card"] in DEST:
                    to = DEST[a["card"]][0]
                else:
                    to = self._card_targets(a["card"], at)[0]
                v = arrive(to, money) - 0.5
                if a["card"] in DEST and a.get("mode") == "route" and to == DEST[a["card"]][0]:
                    v -= 0.01
                if t == "sail" and at not in CITY:
                    v += 0.2
            elif t == "buy":
                price = PRICE[a["card"]]
                targets = self._card_targets(a["card"], at)
                v = max((arrive(x, money - price) for x in targets), default=NO_VALUE) - price - 0.5
            elif t == "loan":
                v = -8.0 if a["size"] == "small" else -11.0
                if money >= 8:
                    v -= 6
            else:  # pass
                v = NO_VALUE + 1
            if v > best_v:
                best_i, best_v = i, v
        return best_i

    def _post(self, obs: Observation, me: int, legal: Sequence[Action], money: float, at: str) -> int:
        end = next(i for i, a in enumerate(legal) if a["type"] == "end_turn")
        player = obs["players"][me]
        if player["hand"] or money < 14:
            return end
        best_i, best_v = end, 4.0
        for i, a in enumerate(legal):
            if a["type"] != "buy" or a["card"] not in DEST:
                continue
            city = DEST[a["card"]][0]
            v = self._city_value(obs, me, city, money - PRICE[a["card"]], True) - PRICE[a["card"]]
            if v > best_v:
                best_i, best_v = i, v
        return best_i
