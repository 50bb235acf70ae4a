"""Built-in Port Royal bot: a push-your-luck heuristic that only reads its observation.

Values are in influence points (IP). A coin is worth about COIN IP (a hire costs ~3.5 coins per IP
plus a take, and a ship take brings ~2 coins); abilities fade as the game nears its end.
"""
from __future__ import annotations

from typing import Any, Sequence

from engines.bots import Bot
from engines.core import Action, Observation
from engines.port_royal import data as D

COIN = 0.2  # IP value of one coin while the game is running (HeuristicBot.COIN)
SYMBOL_OF = {"priest": "cross", "captain": "anchor", "settler": "house", "jack_of_all_trades": "any"}
#: ability value (IP) of each person type at the start of the game, before fading
ABILITY = {"governor": 1.6, "mademoiselle": 1.0, "admiral": 0.5, "jester": 0.4, "trader": 0.4,
           "sailor": 0.35, "pirate": 0.7}
_DECK = frozenset(D.DECK_IDS)


class HeuristicBot(Bot):
    """Draws while the expected gain beats the bust risk; takes the best-valued card; always expedites."""

    name = "heuristic"

    # Tunable weights, in IP; the defaults won self-play duels against nearby values.
    COIN = COIN  # one coin
    ABILITY_SCALE = 0.5  # factor on ABILITY (0.5 and 0 tie; 1.0 and more play weaker)
    DRAW_GAIN = 0.12  # the gain of one more reveal (a wider choice)
    COLOUR_GAIN = 0.5  # a 4th/5th ship colour adds a take

    def __init__(self, seed: int = 0, **weights: float):
        """``seed`` is accepted for the bot contract; the bot is deterministic. ``weights`` override the above."""
        self.seed = seed
        for key, value in weights.items():
            if not hasattr(self, key):
                raise TypeError(f"unknown weight {key!r}")
            setattr(self, key, value)

    def act(self, observation: Observation, legal_actions: Sequence[Action], time_left_ms: int | None = None) -> int:
        """An expedition whenever one is legal (§4.5); repel a ship of a colour already in the harbour (§4.2);
        draw while the gain beats the bust risk (§4.3); then take the best-valued card, if any is worth it (§4.6)."""
        if len(legal_actions) == 1:
            return 0
        obs = observation
        me = obs["you"]
        types = [a["type"] for a in legal_actions]
        # An expedition is always worth it: net +2/+3 IP and coins (§4.5).
        exps = [i for i, a in enumerate(legal_actions) if a["type"] == "expedition"]
        if exps:
            return max(exps, key=lambda i: (D.IP[legal_actions[i]["card"]], -i))
        if obs["state"] == "REPEL":
            ship = obs["pending_ship"]
            present = {c["colour"] for c in obs["harbour"] if c["kind"] == "ship"}
            return types.index("repel" if ship["colour"] in present else "dock")
        if obs["state"] == "DISCOVER":
            if "stop" not in types:
                return types.index("draw")
            if "draw" not in types:
                return types.index("stop")
            return types.index("stop" if self._should_stop(obs, me) else "draw")
        return self._trade(obs, me, legal_actions)

    # --- valuation ---------------------------------------------------------------------------
    def _fade(self, obs: Observation) -> float:
        """1 at the start of the game, 0 once the end is near."""
        if obs["end_triggered"]:
            return 0.0
        lead = max(p["ip"] for p in obs["players"])
        return max(0.0, 1.0 - lead / D.END_IP)

    def _coin(self, obs: Observation) -> float:
        # In the last round coins only break ties.
        return 0.01 if obs["end_triggered"] else self.COIN

    def _symbol_need(self, obs: Observation, me: int) -> dict[str, float]:
        """How much one more symbol helps towards the expeditions on the table."""
        have = {"cross": 0, "anchor": 0, "house": 0, "any": 0}
        for cid in obs["players"][me]["persons"]:
            sym = D.SYMBOL[cid]
            if sym:
                have[sym] += 1
        gain = {"cross": 0.0, "anchor": 0.0, "house": 0.0, "any": 0.0}
        for eid in obs["expedition_area"]:
            req = D.REQUIRES[eid]
            short = {s: max(0, k - have[s]) for s, k in req.items()}
            missing = max(0, sum(short.values()) - have["any"])
            if missing == 0:
                continue
            reward = D.IP[eid] - sum(req.values()) + D.COINS[eid] * COIN
            value = reward if missing == 1 else reward * 0.35 if missing == 2 else 0.1
            for s in req:
                if short[s] > 0:
                    gain[s] = max(gain[s], value)
            gain["any"] = max(gain["any"], value)
        return gain

    def _person_value(self, obs: Observation, me: int, card: dict[str, Any], fade: float, coin: float,
                      need: dict[str, float]) -> float:
        cid = card["id"]
        mine = obs["players"][me]
        madm = sum(1 for p in mine["persons"] if D.PERSON_TYPE[p] == "mademoiselle")
        fee = 0 if obs["active"] == me else 1
        cost = max(0, D.COST[cid] - madm) + fee
        ptype = D.PERSON_TYPE[cid]
        value = D.IP[cid] + ABILITY.get(ptype, 0.0) * self.ABILITY_SCALE * fade - cost * coin
        if ptype in SYMBOL_OF:
            value += need[SYMBOL_OF[ptype]] + 0.15 * fade
        return value

    def _ship_value(self, obs: Observation, me: int, card: dict[str, Any], coin: float) -> float:
        traders = sum(1 for p in obs["players"][me]["persons"]
                      if D.PERSON_TYPE[p] == "trader" and D.COLOUR[p] == D.COLOURS.index(card["colour"]))
        fee = 0 if obs["active"] == me else 1
        return (card["coins"] + traders - fee) * coin - (0.5 * coin if fee else 0.0)

    def _card_value(self, obs: Observation, me: int, card: dict[str, Any]) -> float:
        fade, coin = self._fade(obs), self._coin(obs)
        if card["kind"] == "ship":
            return self._ship_value(obs, me, card, coin)
        return self._person_value(obs, me, card, fade, coin, self._symbol_need(obs, me))

    # --- Phase 2 -----------------------------------------------------------------------------
    def _trade(self, obs: Observation, me: int, legal: Sequence[Action]) -> int:
        by_id = {c["id"]: c for c in obs["harbour"]}
        fade, coin = self._fade(obs), self._coin(obs)
        need = self._symbol_need(obs, me)
        best, best_value = None, 0.0
        for i, a in enumerate(legal):
            if a["type"] != "take":
                continue
            card = by_id[a["card"]]
            if card["kind"] == "ship":
                value = self._ship_value(obs, me, card, coin)
            else:
                value = self._person_value(obs, me, card, fade, coin, need)
            if value > best_value:
                best, best_value = i, value
        if best is None:
            return [a["type"] for a in legal].index("done")
        return best

    # --- Phase 1 -----------------------------------------------------------------------------
    def _should_stop(self, obs: Observation, me: int) -> bool:
        harbour = obs["harbour"]
        mine = obs["players"][me]
        known = set(obs["discard_pile"])
        known.update(c["id"] for c in harbour)
        known.update(obs["expedition_area"])
        for p in obs["players"]:
            known.update(p["persons"])
            known.update(p["expeditions"])
        unknown = [c for c in _DECK if c not in known]
        if not unknown:
            return True
        colours = {D.COLOUR[c["id"]] for c in harbour if c["kind"] == "ship"}
        swords = mine["swords"]
        bust = new_colour = 0
        for c in unknown:
            if D.KIND[c] != D.SHIP:
                continue
            if D.COLOUR[c] in colours:
                if D.SWORDS[c] == D.SKULL or D.SWORDS[c] > swords:
                    bust += 1
            else:
                new_colour += 1
        p_bust = bust / len(unknown)
        values = sorted((self._card_value(obs, me, c) for c in harbour), reverse=True)
        allowance = D.BASE_ALLOWANCE[len(colours)] + sum(1 for p in mine["persons"] if D.PERSON_TYPE[p] == "governor")
        at_stake = sum(v for v in values[:allowance] if v > 0)
        # Another card widens the choice a little; a 4th or 5th colour adds a whole take.
        gain = self.DRAW_GAIN
        if len(colours) >= 3:
            gain += (new_colour / len(unknown)) * self.COLOUR_GAIN
        return p_bust * at_stake > (1 - p_bust) * gain
