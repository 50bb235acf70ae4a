"""Top Race (Wolfgang Kramer, Pegasus 2008): the rules engine.

Section numbers (§) refer to the rules file top_race.md (in brief: docs/games/top_race.md). A game is a
number of races; each race is an auction of the six cars (Shares: an auction of the offer and the seating
order) followed by the race itself, in which every turn a player plays one tempo card that moves one or
more cars.

The engine is a decision machine: ``state.pending`` is the one open decision (kind, seat, data)
and ``state.legal`` its legal actions. ``_advance`` runs every automatic step (skips, forced
moves, decisions with a single option) until a seat has a real choice or the game is over.

This module is the coordinator: the options and set-up, the six contract calls, the decision machine
with its legal lists and the dispatch of actions. The rules themselves live in ``state`` (the state and
the set-up of a race, §3), ``auction`` (§4.1, the Shares offer auction §6.3), ``turns`` (race turns
§4.2, Pitstop §6.1), ``movement`` (tempo cards on the track, §4.3-§4.8), ``shares`` (share trades,
§6.3) and ``scoring`` (end of a race and of the game, §4.8-§4.10, §5).
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from engines.core import (Action, BadOptions, Event, Game, IllegalAction, Observation, Option, Outcome,
                          ranks_from_keys)
from engines.top_race import data as D
from engines.top_race import fields as F
from engines.top_race.auction import auction_next_bidder, auction_start, offer_start, take_car, take_offer
from engines.top_race.data import CAR_INDEX, CARS
from engines.top_race.movement import CARDS_ON, check_return, continue_card, place_car
from engines.top_race.scoring import ranking_keys
from engines.top_race.shares import apply_trades, canonical_trade, trade_options
from engines.top_race.state import AUCTION, NCARS, OFFER, OVER, TopRaceState, start_race
from engines.top_race.turns import begin_turn, next_turn_index, turn_action

# The rule sections named by IllegalAction, per pending decision kind.
RULE_OF = {
    "bid": "§4.1 auction", "take_car": "§4.1 take_car", "turn": "§4.2 race turn", "joker": "§4.5 joker",
    "move": "§4.4 movement", "return": "§4.7 breakdown return", "claim": "§6.1 pitstop claim",
    "tip": "§6.2 tips", "trade": "§6.3 share round", "take_offer": "§6.3 offer auction",
}


class TopRace(Game):
    """Top Race with the Pitstop module and the Tips and Shares variants (§6)."""

    id = "top_race"
    name = "Top Race"
    min_players = 2
    max_players = 6
    observation_fields = F.OBSERVATION_FIELDS
    action_fields = F.ACTION_FIELDS
    table_fields = F.TABLE_FIELDS
    field_samples = F.FIELD_SAMPLES
    rules_brief = F.RULES_BRIEF
    option_specs = (
        Option("races", None, "int", "races in a game; null: 3, or 1 with Shares (§6.5)",
               minimum=1, maximum=D.MAX_RACES, nullable=True),
        Option("tracks", None, "list", f"one track id per race, as many as the races; null: {D.DEFAULT_TRACK} "
               "every race (§3)",
               minimum=1, maximum=D.MAX_RACES, choices=D.TRACK_IDS, nullable=True),
        Option("pitstop", False, "bool", "the Pitstop module (§6.1)"),
        Option("tips", False, "bool", "variant A: Tips, not with Shares (§6.2)"),
        Option("shares", False, "bool", "variant B: Shares, not with Tips (§6.3)"),
        Option("tips_flip_consumes_pitstop", False, "bool", "with Tips and Pitstop: the pitstop card flipped to "
               "serve as the tip table is no longer usable as a pitstop (§6.2, A16)"),
    )

    # --- setup -----------------------------------------------------------------------------------
    def setup(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> TopRaceState:
        """A new game: race 1's deal and auction are ready (§3)."""
        self.check_players(num_players)
        opts = self.options(options)
        if opts["tips"] and opts["shares"]:
            raise BadOptions("top_race: Tips and Shares must not be combined (§1, §6.2)", option="shares")
        races = opts["races"]
        if races is None:
            races = 1 if opts["shares"] else 3
        tracks = opts["tracks"]
        if tracks is None:
            tracks = [D.DEFAULT_TRACK] * races
        if len(tracks) != races:
            raise BadOptions(f"top_race: option 'tracks' must list {races} tracks, one per race, not "
                             f"{len(tracks)}", option="tracks")
        st = TopRaceState()
        st.n = num_players
        st.rng = random.Random(seed)
        st.races = races
        st.track_ids = list(tracks)
        st.pitstop, st.tips, st.shares = opts["pitstop"], opts["tips"], opts["shares"]
        st.flip_consumes = opts["tips_flip_consumes_pitstop"]
        st.race = 0
        st.cash = [D.START_CAPITAL] * num_players
        st.results = []
        st.last_holdings = None
        st.last_order = None
        st.first_opener = st.rng.randrange(num_players)  # §3.6 race 1: drawn at random
        start_race(st)
        self._advance(st, [])
        return st

    # --- the contract ------------------------------------------------------------------------------
    def to_move(self, state: TopRaceState) -> int | None:
        p = state.pending
        return None if p is None else p[1]

    def legal_actions(self, state: TopRaceState, seat: int) -> list[Action]:
        p = state.pending
        if p is None or p[1] != seat:
            return []
        return list(state.legal)

    def clone(self, state: TopRaceState) -> TopRaceState:
        return state.copy()

    def apply(self, state: TopRaceState, seat: int, action: Action) -> list[Event]:
        st = state
        p = st.pending
        if p is None:
            raise IllegalAction("§4.10 end of game", "the game is over")
        kind, to_move, _data = p
        if seat != to_move:
            raise IllegalAction(f"§9 decision order ({RULE_OF[kind]})", f"seat {to_move} decides now, not seat {seat}")
        if not isinstance(action, dict) or action not in st.legal:
            canonical = canonical_trade(st, seat, action) if kind == "trade" else None
            if canonical is None:
                raise self._refusal(st, seat, action)
            action = canonical
        events: list[Event] = []
        self._do(st, seat, action, events)
        self._advance(st, events)
        return events

    def _refusal(self, st: TopRaceState, seat: int, action: Any) -> IllegalAction:
        """The most precise rule an illegal action breaks."""
        kind = st.pending[0]
        rule = RULE_OF[kind]
        t = action.get("type") if isinstance(action, dict) else None
        msg = f"{action!r} is not legal now; legal: {', '.join(self.describe_action(a) for a in st.legal[:12])}"
        if kind == "bid" and t == "bid":
            rule = "§4.1 bidding: a multiple of 10 000, above the high bid, at most your cash"
        elif kind == "bid" and t == "pass":
            rule = "§4.1 the opener must bid and may not pass"
        elif kind == "turn" and t == "play":
            if st.reserved[seat]:
                rule = "§6.1 Case 1: while holding reserved cards no tempo card may be played"
            elif action.get("card") not in st.hands[seat]:
                rule = "§4.2 a player plays a card from his own hand"
            else:
                rule = "§4.3 a Spurt/Breakdown card is played with mode spurt or breakdown"
        elif kind == "turn" and t == "pass":
            rule = "§4.2 passing is not allowed while you hold cards" if not st.tips else "§6.2 only a player whose cars have all finished may pass"
        elif kind == "turn" and t == "pitstop":
            rule = "§6.1 Case 2 pitstop: a free pitstop card, a Box card or the discard top"
        elif kind == "move":
            rule = "§4.4 the car must move the full possible distance to a free space"
        elif kind == "joker":
            rule = "§4.5 the joker may not name a car printed on the same card"
        elif kind == "trade":
            rule = "§6.3 sell exactly 2 held shares, then buy 2, every car 0..15 (canonical form)"
        return IllegalAction(rule, msg)

    # --- the decision machine -------------------------------------------------------------------
    def _advance(self, st: TopRaceState, ev: list[Event]) -> None:
        """Run automatic steps until a seat has a real choice (``st.pending``/``st.legal``) or the game ends."""
        while True:
            if st.pending is None:
                if st.phase == OVER:
                    st.legal = None
                    return
                self._next_decision(st, ev)
                continue
            legal = self._compute_legal(st)
            if len(legal) == 1:
                # a decision with one option is taken by the engine and logged (§9)
                seat = st.pending[1]
                ev.append({"type": "auto", "seat": seat, "action": legal[0]})
                self._do(st, seat, legal[0], ev)
                continue
            st.legal = legal
            return

    def _next_decision(self, st: TopRaceState, ev: list[Event]) -> None:
        """Set the next pending decision (or end the race/game) when none is open."""
        if st.phase == AUCTION:
            auction_start(st, ev)
        elif st.phase == OFFER:
            offer_start(st, ev)
        elif st.claim_queue:
            st.pending = ("claim", st.claim_queue.pop(0), st.discard[-1])
        elif st.tip_queue:
            k, seat = st.tip_queue.pop(0)
            st.pending = ("tip", seat, k)
        elif st.trade_queue:
            st.pending = ("trade", st.trade_queue.pop(0), None)
        elif st.trades:
            apply_trades(st, ev)
        else:
            if st.turn_done:
                st.turn_done = False
                next_turn_index(st)
                if st.trade_queue:
                    return
            begin_turn(st, ev)

    def _compute_legal(self, st: TopRaceState) -> list[Action]:
        kind, seat, data = st.pending
        if kind == "turn":
            return data
        if kind == "bid":
            lo = st.auc_high + D.BID_UNIT if st.auc_bidder >= 0 else D.MIN_OPENING_BID
            acts: list[Action] = [{"type": "bid", "amount": a} for a in range(lo, st.cash[seat] + 1, D.BID_UNIT)]
            if st.auc_bidder >= 0:
                acts.append({"type": "pass"})
            return acts
        if kind == "take_car":
            free = set(st.pos)
            return [{"type": "take_car", "car": CARS[c], "start": k}
                    for c in range(NCARS) if st.owner[c] < 0
                    for k, sp in sorted(st.track.start_spaces.items()) if sp not in free]
        if kind == "take_offer":
            return [{"type": "take_offer", "card": c} for c in st.offer]
        if kind == "joker":
            on_card = CARDS_ON[st.card]
            return [{"type": "joker", "car": CARS[c]} for c in range(NCARS) if c not in on_card]
        if kind in ("move", "return"):
            ids = st.track.ids
            return [{"type": kind, "to": ids[s]} for s in data[1]]
        if kind == "claim":
            return [{"type": "pitstop_claim"}, {"type": "decline"}]
        if kind == "tip":
            return [{"type": "tip", "car": c} for c in CARS]
        if kind == "trade":
            return trade_options(tuple(st.holdings[seat]))
        raise AssertionError(kind)

    def _do(self, st: TopRaceState, seat: int, action: Action, ev: list[Event]) -> None:
        """Carry out a legal action of the pending decision."""
        kind, _seat, data = st.pending
        st.pending = None
        st.legal = None
        t = action["type"]
        if kind == "bid":
            if t == "bid":
                st.auc_high, st.auc_bidder = action["amount"], seat
                ev.append({"type": "bid", "seat": seat, "amount": action["amount"]})
            else:
                st.auc_passed[seat] = True
                ev.append({"type": "pass", "seat": seat})
            auction_next_bidder(st, seat, ev)
        elif kind == "take_car":
            take_car(st, seat, CAR_INDEX[action["car"]], action["start"], ev)
        elif kind == "take_offer":
            take_offer(st, seat, action["card"], ev)
        elif kind == "turn":
            turn_action(st, seat, action, ev)
        elif kind == "joker":
            st.joker = CAR_INDEX[action["car"]]
            ev.append({"type": "joker", "seat": seat, "car": action["car"]})
            continue_card(st, ev)
        elif kind == "move":
            car = data[0]
            space = st.track.index[action["to"]]
            place_car(st, car, space, ev, "move")
            if check_return(st, car, ev):
                return
            continue_card(st, ev)
        elif kind == "return":
            car = data[0]
            space = st.track.index[action["to"]]
            st.broken[car] = -1
            st.partner[car] = -1
            place_car(st, car, space, ev, "return")
            continue_card(st, ev)
        elif kind == "claim":
            if t == "pitstop_claim":
                card = st.discard.pop()
                st.reserved[seat].append(card)
                st.free_pit[seat] -= 1
                st.claim_queue = []
                st.passed.clear()
                ev.append({"type": "pitstop_claim", "seat": seat, "card": card})
            else:
                ev.append({"type": "decline", "seat": seat})
        elif kind == "tip":
            st.tip_marks[seat][data - 1] = CAR_INDEX[action["car"]]
            ev.append({"type": "tip", "seat": seat, "round": data})  # the car stays secret (§7)
        elif kind == "trade":
            st.trades[seat] = (action["sell"], action["buy"])
            ev.append({"type": "trade", "seat": seat})  # secret (§7)
        else:
            raise AssertionError(kind)

    # --- end of the game (§5) ---------------------------------------------------------------------
    def outcome(self, state: TopRaceState) -> Outcome:
        st = state
        return Outcome(ranks_from_keys(ranking_keys(st)), [float(c) for c in st.cash], {"races": st.results})

    # --- observation (§9, §7) -----------------------------------------------------------------------
    def tables(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Tempo cards, prizes, the tip table and the tracks' space graphs (§2), sent once in ``start``."""
        return F.tables(num_players, options)

    def observe(self, state: TopRaceState, seat: int | None) -> Observation:
        st = state
        tr = st.track
        cars: dict[str, Any] = {}
        for c in range(NCARS):
            if st.place[c]:
                cars[CARS[c]] = {"place": st.place[c]}
            elif st.pos[c] >= 0:
                cars[CARS[c]] = {"space": tr.ids[st.pos[c]]}
            elif st.broken[c] >= 0:
                cars[CARS[c]] = {"broken": tr.ids[st.broken[c]]}
            else:
                cars[CARS[c]] = {}
        p = st.pending
        obs: dict[str, Any] = {
            "game": "top_race",
            "seat": seat,
            "players": st.n,
            "modules": {"pitstop": st.pitstop, "tips": st.tips, "shares": st.shares},
            "race": min(st.race + 1, st.races),
            "races": st.races,
            "track": tr.id,
            "phase": st.phase,
            "to_move": p[1] if p else None,
            "decision": p[0] if p else None,
            "cash": list(st.cash),
            "owners": {CARS[c]: (st.owner[c] if st.owner[c] >= 0 else None) for c in range(NCARS)},
            "cars": cars,
            "hand_sizes": [len(h) for h in st.hands],
            "discard": list(st.discard),
            "box": list(st.box),
            "reserved": [list(r) for r in st.reserved],
            "free_pitstops": list(st.free_pit),
            "order": list(st.order),
            "start_player": st.start_player if st.start_player >= 0 else None,
            "lines_crossed": st.lines,
            "tips_placed": [sum(1 for c in m if c >= 0) for m in st.tip_marks] if st.tips else None,
            "offer": list(st.offer),
            "results": st.results,
        }
        if seat is not None:
            obs["hand"] = list(st.hands[seat])
            if st.tips:
                obs["tips"] = [CARS[c] if c >= 0 else None for c in st.tip_marks[seat]]
            if st.shares:
                obs["holdings"] = {CARS[c]: st.holdings[seat][c] for c in range(NCARS)}
        if st.phase in (AUCTION, OFFER):
            obs["auction"] = {
                "cars_left": NCARS - st.sold,
                "carless": sum(1 for k in st.ncars if k == 0),
                "high_bid": st.auc_high if st.auc_bidder >= 0 else None,
                "high_bidder": st.auc_bidder if st.auc_bidder >= 0 else None,
                "passed": [p for p in range(st.n) if st.auc_passed[p]],
                "may_bid": [p for p in range(st.n) if st.auc_elig[p]],
            }
            if st.phase == OFFER:
                obs["auction"]["offer_won"] = list(st.offer_won)
                obs["auction"]["positions"] = list(st.positions)
        if st.card:
            obs["card"] = {"id": st.card, "slot": st.slot_i, "by": st.play_seat}
        if p and p[0] in ("move", "return"):
            obs["car"] = CARS[p[2][0]]
        elif p and p[0] == "tip":
            obs["tip_round"] = p[2]
        elif p and p[0] == "claim":
            obs["claim_card"] = p[2]
        return obs


GAME = TopRace()
