"""Top Race (Wolfgang Kramer, Pegasus 2008): the rules engine.

Section numbers (§) refer to rules/top_race.md. A game is a number of races; each race is an
auction of the six cars (Shares: an auction of the offer and the seating order) followed by the
race itself, in which every turn a player plays one tempo card that moves one or more cars.

The engine is a decision machine: ``state.pending`` is the one open decision (kind, seat, data)
and ``state.legal`` its legal actions. ``_advance`` runs every automatic step (skips, forced
moves, decisions with a single option) until a seat has a real choice or the game is over.
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from engines.core import (Action, BadOptions, Event, Game, IllegalAction, Observation, Option, Outcome,
                          ranks_from_keys)
from engines.top_race import data as D
from engines.top_race import fields as F
from engines.top_race.data import CAR_INDEX, CARS, get_track

AUCTION, OFFER, RACE, OVER = "auction", "offer_auction", "race", "over"
NCARS = 6
SPURT = D.SPURT_CARDS
SLOTS = {c: tuple((-1 if car == D.JOKER else CAR_INDEX[car], n) for car, n in D.card_slots(c)) for c in D.ALL_CARDS}
CARDS_ON = {c: frozenset(CAR_INDEX[x] for x in SPURT[c]) if c in SPURT else frozenset(i for i, _ in SLOTS[c] if i >= 0)
            for c in D.ALL_CARDS}

# The rule sections named by IllegalAction, per pending decision kind.
RULE_OF = {
    "bid": "§4.1 auction", "take_car": "§4.1 take_car", "turn": "§4.2 race turn", "joker": "§4.5 joker",
    "move": "§4.4 movement", "return": "§4.7 breakdown return", "claim": "§6.1 pitstop claim",
    "tip": "§6.2 tips", "trade": "§6.3 share round", "take_offer": "§6.3 offer auction",
}


class TopRaceState:
    """Everything about one game of Top Race. Cars are indices 0..5 (``data.CARS`` order),
    spaces are indices into the race's ``Track``; -1 means "none"."""

    __slots__ = (
        "n", "rng", "races", "track_ids", "pitstop", "tips", "shares", "flip_consumes",
        "race", "track", "phase", "cash", "pending", "legal",
        # auction (basic and Shares offer)
        "first_opener", "sold", "ncars", "owner", "auc_elig", "auc_passed", "auc_high", "auc_bidder",
        "auc_no", "last_winner", "start_player", "offer", "offer_won", "positions",
        # race
        "pos", "place", "broken", "partner", "finished", "hands", "discard", "box", "free_pit", "reserved",
        "order", "turn_i", "passed", "turn_done", "card", "slots", "slot_i", "joker", "play_seat",
        "claim_queue", "tip_queue", "trade_queue", "trades", "lines", "tips_held", "tip_marks", "holdings",
        "results", "last_holdings", "last_order",
    )

    def copy(self) -> "TopRaceState":
        new = TopRaceState.__new__(TopRaceState)
        for name in self.__slots__:
            value = getattr(self, name)
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            elif isinstance(value, set):
                value = set(value)
            elif isinstance(value, dict):
                value = dict(value)
            setattr(new, name, value)
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        new.rng = rng
        return new


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
        self._start_race(st)
        self._advance(st, [])
        return st

    def _start_race(self, st: TopRaceState) -> None:
        """Deal, reset cars and modules, open the auction (§3)."""
        n = st.n
        st.track = get_track(st.track_ids[st.race])
        if st.race > 0:
            st.first_opener = (st.first_opener + 1) % n  # [HOUSE] A17
        st.pending = None
        st.legal = None
        st.owner = [-1] * NCARS
        st.ncars = [0] * n
        st.pos = [-1] * NCARS
        st.place = [0] * NCARS
        st.broken = [-1] * NCARS
        st.partner = [-1] * NCARS
        st.finished = 0
        st.discard = []
        st.box = []
        st.offer = []
        st.reserved = [[] for _ in range(n)]
        pits = D.PITSTOP_CARDS_PER_PLAYER - (1 if st.tips and st.flip_consumes else 0)
        st.free_pit = [pits if st.pitstop else 0] * n
        st.sold = 0
        st.auc_no = 0
        st.auc_elig = [False] * n
        st.auc_passed = [False] * n
        st.auc_high = 0
        st.auc_bidder = -1
        st.last_winner = -1
        st.start_player = -1
        st.offer_won = [0] * n
        st.positions = []
        st.order = []
        st.turn_i = 0
        st.passed = set()
        st.turn_done = False
        st.card = 0
        st.slots = ()
        st.slot_i = 0
        st.joker = -1
        st.play_seat = -1
        st.claim_queue = []
        st.tip_queue = []
        st.trade_queue = []
        st.trades = {}
        st.lines = 0
        st.tips_held = 0
        st.tip_marks = [[-1, -1, -1] for _ in range(n)]
        st.holdings = [[D.SHARES_START] * NCARS for _ in range(n)] if st.shares else []
        if st.shares:
            deck = [c for c in D.ALL_CARDS if c not in SPURT]
            st.rng.shuffle(deck)
            if st.pitstop:
                each, extra, box = D.DEAL_SHARES_PITSTOP[n]
            else:
                each, extra, _out = D.DEAL_SHARES[n]
                box = 0
            st.hands = [sorted(deck[i * each:(i + 1) * each]) for i in range(n)]
            k = n * each
            st.offer = sorted(list(SPURT) + deck[k:k + extra])
            st.box = sorted(deck[k + extra:k + extra + box])
            # the rest leaves the race unseen
            grid = list(range(NCARS))
            st.rng.shuffle(grid)  # §6.3: the car cards set the start grid
            for number, car in enumerate(grid, start=1):
                st.pos[car] = st.track.start_spaces[number]
            st.phase = OFFER
        else:
            deck = list(D.ALL_CARDS)
            st.rng.shuffle(deck)
            each, box = D.DEAL_PITSTOP[n] if st.pitstop else (D.DEAL_BASIC[n][0], 0)
            st.hands = [sorted(deck[i * each:(i + 1) * each]) for i in range(n)]
            st.box = sorted(deck[n * each:n * each + box])
            st.phase = AUCTION

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
            canonical = self._canonical_trade(st, seat, action) if kind == "trade" else None
            if canonical is None:
                raise self._refusal(st, seat, action)
            action = canonical
        events: list[Event] = []
        self._do(st, seat, action, events)
        self._advance(st, events)
        return events

    def _canonical_trade(self, st: TopRaceState, seat: int, action: Any) -> Action | None:
        """The legal trade with the same result as a valid trade written in another order (§9 #14)."""
        if not isinstance(action, dict) or action.get("type") != "trade":
            return None
        sell, buy = action.get("sell"), action.get("buy")
        if not (isinstance(sell, list) and isinstance(buy, list) and len(sell) == 2 and len(buy) == 2
                and all(isinstance(c, str) and c in CAR_INDEX for c in sell + buy)):
            return None
        h = list(st.holdings[seat])
        for c in sell:
            h[CAR_INDEX[c]] -= 1
            if h[CAR_INDEX[c]] < 0:
                return None
        for c in buy:
            h[CAR_INDEX[c]] += 1
        if max(h) > D.SHARES_MAX:
            return None
        old = st.holdings[seat]
        for a in st.legal:
            g = list(old)
            for c in a["sell"]:
                g[CAR_INDEX[c]] -= 1
            for c in a["buy"]:
                g[CAR_INDEX[c]] += 1
            if g == h:
                return a
        return None

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
            self._auction_start(st, ev)
        elif st.phase == OFFER:
            self._offer_start(st, ev)
        elif st.claim_queue:
            st.pending = ("claim", st.claim_queue.pop(0), st.discard[-1])
        elif st.tip_queue:
            k, seat = st.tip_queue.pop(0)
            st.pending = ("tip", seat, k)
        elif st.trade_queue:
            st.pending = ("trade", st.trade_queue.pop(0), None)
        elif st.trades:
            self._apply_trades(st, ev)
        else:
            if st.turn_done:
                st.turn_done = False
                self._next_turn_index(st)
                if st.trade_queue:
                    return
            self._begin_turn(st, ev)

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
            self._auction_next_bidder(st, seat, ev)
        elif kind == "take_car":
            self._take_car(st, seat, CAR_INDEX[action["car"]], action["start"], ev)
        elif kind == "take_offer":
            self._take_offer(st, seat, action["card"], ev)
        elif kind == "turn":
            self._turn_action(st, seat, action, ev)
        elif kind == "joker":
            st.joker = CAR_INDEX[action["car"]]
            ev.append({"type": "joker", "seat": seat, "car": action["car"]})
            self._continue_card(st, ev)
        elif kind == "move":
            car = data[0]
            space = st.track.index[action["to"]]
            self._place(st, car, space, ev, "move")
            if self._check_return(st, car, ev):
                return
            self._continue_card(st, ev)
        elif kind == "return":
            car = data[0]
            space = st.track.index[action["to"]]
            st.broken[car] = -1
            st.partner[car] = -1
            self._place(st, car, space, ev, "return")
            self._continue_card(st, ev)
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

    # --- auction of the cars (§4.1) ------------------------------------------------------------
    def _auction_start(self, st: TopRaceState, ev: list[Event]) -> None:
        n = st.n
        r = NCARS - st.sold
        carless = [p for p in range(n) if st.ncars[p] == 0]
        n0 = len(carless)
        if r == 1 and n0 == 1:
            buyer = carless[0]
            price = min(D.LAST_CAR_FIXED_PRICE, st.cash[buyer])  # [HOUSE] all his cash if short
            st.cash[buyer] -= price
            ev.append({"type": "forced_last_car", "seat": buyer, "price": price})
            st.pending = ("take_car", buyer, None)
            return
        elig = [st.ncars[p] == 0 or r > n0 for p in range(n)]
        designated = st.first_opener if st.sold == 0 else (st.last_winner + 1) % n
        if not elig[designated]:
            designated = next((designated + i) % n for i in range(1, n + 1) if st.ncars[(designated + i) % n] == 0)
        self._open_auction(st, elig, designated, carless, ev)

    def _open_auction(self, st: TopRaceState, elig: list[bool], designated: int, carless: list[int],
                      ev: list[Event]) -> None:
        """Give the opening duty to ``designated`` or, if he cannot afford the minimum, onwards [HOUSE]."""
        n = st.n
        duty = -1
        for i in range(n):
            q = (designated + i) % n
            if elig[q] and st.cash[q] >= D.MIN_OPENING_BID:
                duty = q
                break
        st.auc_elig = elig
        st.auc_passed = [False] * n
        st.auc_high = 0
        st.auc_bidder = -1
        if duty < 0:
            # [HOUSE] nobody can open: free to the first car-less player from the designated opener
            winner = next(((designated + i) % n for i in range((n)) if (designated + i) % n in carless), designated)
            ev.append({"type": "won", "seat": winner, "price": 0})
            self._auction_won(st, winner)
            return
        st.pending = ("bid", duty, None)

    def _auction_next_bidder(self, st: TopRaceState, frm: int, ev: list[Event]) -> None:
        n = st.n
        q = frm
        bidder = st.auc_bidder
        need = st.auc_high + D.BID_UNIT
        while True:
            q = (q + 1) % n
            if q == bidder:
                price = st.auc_high
                st.cash[bidder] -= price
                ev.append({"type": "won", "seat": bidder, "price": price})
                self._auction_won(st, bidder)
                return
            if st.auc_passed[q]:
                continue
            if not st.auc_elig[q] or st.cash[q] < need:
                st.auc_passed[q] = True  # skipped as passed (§4.1 step 4)
                continue
            st.pending = ("bid", q, None)
            return

    def _auction_won(self, st: TopRaceState, winner: int) -> None:
        st.pending = ("take_offer" if st.phase == OFFER else "take_car", winner, None)

    def _take_car(self, st: TopRaceState, seat: int, car: int, start: int, ev: list[Event]) -> None:
        st.owner[car] = seat
        st.ncars[seat] += 1
        st.pos[car] = st.track.start_spaces[start]
        st.sold += 1
        st.last_winner = seat
        if st.sold == 1:
            st.start_player = seat  # §4.1 step 6
        ev.append({"type": "take_car", "seat": seat, "car": CARS[car], "start": start})
        if st.sold == NCARS:
            st.phase = RACE
            st.order = [(st.start_player + i) % st.n for i in range(st.n)]
            st.turn_i = 0
            ev.append({"type": "race_start", "order": list(st.order)})

    # --- Shares: auction of the offer and the seating order (§6.3) --------------------------------
    def _offer_start(self, st: TopRaceState, ev: list[Event]) -> None:
        n = st.n
        if n >= 3:
            if st.auc_no == n - 1:
                last = next(p for p in range(n) if not st.offer_won[p])
                st.hands[last].extend(st.offer)
                st.hands[last].sort()
                ev.append({"type": "offer_free", "seat": last, "cards": list(st.offer)})
                st.offer = []
                st.positions.append(last)
                self._begin_shares_race(st, ev)
                return
            elig = [not w for w in st.offer_won]
            if st.auc_no == 0:
                designated = st.first_opener
            else:
                designated = next((st.last_winner + i) % n for i in range(1, n + 1) if elig[(st.last_winner + i) % n])
        else:
            if max(st.offer_won) == 2:
                other = 0 if st.offer_won[1] == 2 else 1
                st.hands[other].extend(st.offer)
                st.hands[other].sort()
                ev.append({"type": "offer_free", "seat": other, "cards": list(st.offer)})
                st.offer = []
                first = st.positions[0]
                st.positions = [first, 1 - first]
                self._begin_shares_race(st, ev)
                return
            elig = [True, True]
            designated = st.first_opener if st.auc_no == 0 else 1 - st.last_winner
        self._open_auction(st, elig, designated, [], ev)

    def _take_offer(self, st: TopRaceState, seat: int, card: int, ev: list[Event]) -> None:
        st.offer.remove(card)
        st.hands[seat].append(card)
        st.hands[seat].sort()
        st.offer_won[seat] += 1
        st.auc_no += 1
        st.last_winner = seat
        if st.n >= 3 or not st.positions:
            st.positions.append(seat)
        ev.append({"type": "take_offer", "seat": seat, "card": card})

    def _begin_shares_race(self, st: TopRaceState, ev: list[Event]) -> None:
        st.phase = RACE
        st.order = list(st.positions)
        st.start_player = st.order[0]
        st.turn_i = 0
        ev.append({"type": "race_start", "order": list(st.order)})

    # --- race turns (§4.2, §6.1, §6.2) -------------------------------------------------------------
    def _is_participant(self, st: TopRaceState, seat: int) -> bool:
        if st.tips or st.shares:
            return True
        place, owner = st.place, st.owner
        return any(owner[c] == seat and not place[c] for c in range(NCARS))

    def _turn_options(self, st: TopRaceState, seat: int) -> list[Action]:
        if not self._is_participant(st, seat):
            return []
        acts: list[Action] = []
        reserved = st.reserved[seat]
        hand = st.hands[seat]
        if reserved:
            acts = [{"type": "take_reserved", "card": c} for c in reserved]
        else:
            for c in hand:
                if c in SPURT:
                    acts.append({"type": "play", "card": c, "mode": "spurt"})
                    acts.append({"type": "play", "card": c, "mode": "breakdown"})
                else:
                    acts.append({"type": "play", "card": c})
        if st.pitstop and st.free_pit[seat] > 0:
            acts.extend({"type": "pitstop", "from": "box", "card": c} for c in st.box)
            if st.discard:
                acts.append({"type": "pitstop", "from": "discard"})
        if acts:
            may_pass = False
            if st.tips and all(st.place[c] for c in range(NCARS) if st.owner[c] == seat):
                may_pass = True  # §6.2: a player whose cars have all finished may pass
            elif st.pitstop and not hand and not reserved:
                may_pass = True  # §6.1 running out: pitstop or pass
            if may_pass:
                acts.append({"type": "pass"})
        return acts

    def _begin_turn(self, st: TopRaceState, ev: list[Event]) -> None:
        """Open the turn of the seat at ``turn_i``, skipping seats that can do nothing (§4.2)."""
        while True:
            seat = st.order[st.turn_i]
            opts = self._turn_options(st, seat)
            if opts:
                st.pending = ("turn", seat, opts)
                return
            if self._is_participant(st, seat):
                st.passed.add(seat)  # a skip counts as a pass
                if self._all_passed(st):
                    self._end_race(st, ev, "no cards")
                    return
            self._next_turn_index(st)
            if st.trade_queue:
                return

    def _all_passed(self, st: TopRaceState) -> bool:
        passed = st.passed
        return all(p in passed for p in range(st.n) if self._is_participant(st, p))

    def _next_turn_index(self, st: TopRaceState) -> None:
        st.turn_i = (st.turn_i + 1) % st.n
        if st.turn_i == 0 and st.shares and st.finished == 0:
            st.trade_queue = list(range(st.n))  # §6.3 share round after a complete race round

    def _turn_action(self, st: TopRaceState, seat: int, action: Action, ev: list[Event]) -> None:
        t = action["type"]
        if t == "play":
            self._play(st, seat, action["card"], action.get("mode"), ev)
            return
        if t == "pass":
            st.passed.add(seat)
            ev.append({"type": "pass", "seat": seat})
            if self._all_passed(st):
                self._end_race(st, ev, "all passed")
                return
        elif t == "take_reserved":
            card = action["card"]
            st.reserved[seat].remove(card)
            st.hands[seat].append(card)
            st.hands[seat].sort()
            st.passed.clear()
            ev.append({"type": "take_reserved", "seat": seat, "card": card})
        elif t == "pitstop":
            if action["from"] == "box":
                card = action["card"]
                st.box.remove(card)
            else:
                card = st.discard.pop()
            st.hands[seat].append(card)
            st.hands[seat].sort()
            st.free_pit[seat] -= 1
            st.passed.clear()
            ev.append({"type": "pitstop", "seat": seat, "from": action["from"], "card": card})
        st.turn_done = True

    # --- resolving a tempo card (§4.3-§4.7) -------------------------------------------------------
    def _play(self, st: TopRaceState, seat: int, card: int, mode: str | None, ev: list[Event]) -> None:
        st.hands[seat].remove(card)
        st.passed.clear()
        st.card = card
        st.play_seat = seat
        st.slot_i = 0
        st.joker = -1
        e: Event = {"type": "play", "seat": seat, "card": card}
        if mode:
            e["mode"] = mode
        ev.append(e)
        if card in SPURT:
            st.slots = ()
            if self._spurt_breakdown(st, card, mode, ev):
                return
        else:
            st.slots = SLOTS[card]
        self._continue_card(st, ev)

    def _spurt_breakdown(self, st: TopRaceState, card: int, mode: str, ev: list[Event]) -> bool:
        """Resolve a Spurt/Breakdown card; True if a decision is now pending (or the race ended)."""
        x, y = (CAR_INDEX[c] for c in SPURT[card])
        pos, tr = st.pos, st.track
        if pos[x] < 0 or pos[y] < 0:
            ev.append({"type": "no_effect", "reason": "a named car has finished or broken down"})  # §4.3, A23
            return False
        a, b = (x, y) if tr.key[pos[x]] > tr.key[pos[y]] else (y, x)
        if mode == "spurt":
            target = tr.front[pos[a]]
            occ = set(p for p in pos if p >= 0)
            front, succ = tr.front, tr.succ
            seen = {pos[b]}
            stack = [pos[b]]
            while stack:
                s = stack.pop()
                for t in succ[s]:
                    if t not in seen and t != tr.FINISH and t not in occ and front[t] <= target:
                        seen.add(t)
                        stack.append(t)
            best = max(front[s] for s in seen)
            if best == front[pos[b]]:
                ev.append({"type": "no_effect", "reason": "the rear car cannot advance"})  # A29
                return False
            dests = sorted(s for s in seen if front[s] == best)
            st.pending = ("move", st.play_seat, (b, dests))
            return True
        s = pos[a]
        pos[a] = -1
        st.broken[a] = s
        st.partner[a] = b
        ev.append({"type": "breakdown", "car": CARS[a], "space": tr.ids[s]})
        return self._check_return(st, b, ev)

    def _continue_card(self, st: TopRaceState, ev: list[Event]) -> None:
        """Resolve the card's slots from ``slot_i`` on until a decision is needed or the card is done."""
        slots = st.slots
        while st.slot_i < len(slots):
            car, steps = slots[st.slot_i]
            if car < 0:
                if st.joker < 0:
                    st.pending = ("joker", st.play_seat, None)
                    return
                car = st.joker
                st.joker = -1
            st.slot_i += 1
            if st.pos[car] < 0:
                ev.append({"type": "lost", "car": CARS[car], "spaces": steps})  # finished or broken down
                continue
            dests = self.move_options(st, car, steps)
            if dests is None:
                if self._finish(st, car, ev):
                    return
                if self._check_return(st, car, ev):
                    return
                continue
            if not dests:
                ev.append({"type": "blocked", "car": CARS[car], "spaces": steps})
                continue
            if len(dests) > 1:
                st.pending = ("move", st.play_seat, (car, dests))
                return
            self._place(st, car, dests[0], ev, "move")
            if self._check_return(st, car, ev):
                return
        self._end_card(st, ev)

    def move_options(self, st: TopRaceState, car: int, steps: int) -> list[int] | None:
        """Destinations of ``car`` moving ``steps`` (§4.4): None if it crosses the finish line,
        else the spaces of the furthest non-empty layer (empty if it cannot move at all).

        Layers are bit masks of spaces; the union of successors of a layer is cached per track."""
        tr = st.track
        union = tr.union
        occ = 0
        for p in st.pos:
            if p >= 0:
                occ |= 1 << p
        free = ~occ
        finbit = 1 << tr.FINISH
        layer = 1 << st.pos[car]
        moved = False
        for _ in range(steps):
            u = union.get(layer)
            if u is None:
                u = tr.successor_union(layer)
            if u & finbit:
                return None
            nxt = u & free
            if not nxt:
                break
            layer = nxt
            moved = True
        if not moved:
            return []
        out = []
        while layer:
            low = layer & -layer
            out.append(low.bit_length() - 1)
            layer ^= low
        return out

    def _place(self, st: TopRaceState, car: int, space: int, ev: list[Event], how: str) -> None:
        st.pos[car] = space
        ev.append({"type": how, "car": CARS[car], "to": st.track.ids[space]})
        crossed = st.track.tip_count[space]
        if crossed > st.lines:
            st.lines = crossed

    def _finish(self, st: TopRaceState, car: int, ev: list[Event]) -> bool:
        """The car crosses the line (§4.8); True if that ends the race."""
        st.finished += 1
        st.place[car] = st.finished
        st.pos[car] = -1
        st.lines = len(st.track.tip_lines)
        e: Event = {"type": "finish", "car": CARS[car], "place": st.finished}
        if not st.shares:
            prize = D.PRIZE[st.finished - 1]
            st.cash[st.owner[car]] += prize
            e["seat"], e["prize"] = st.owner[car], prize
        ev.append(e)
        if st.finished == 5:
            self._end_race(st, ev, "5th car finished")
            return True
        return False

    def _check_return(self, st: TopRaceState, moved: int, ev: list[Event]) -> bool:
        """After ``moved`` moved (or finished): does its broken-down partner return (§4.7)? True if a
        return decision is now pending."""
        if moved not in st.partner:
            return False
        tr = st.track
        for a in range(NCARS):
            if st.partner[a] == moved and st.broken[a] >= 0:
                s = st.broken[a]
                if st.place[moved] or tr.front[st.pos[moved]] >= tr.front[s]:
                    chooser = st.play_seat if st.shares else st.owner[a]  # [HOUSE] Shares: active player
                    st.pending = ("return", chooser, (a, self.return_spaces(st, s)))
                    return True
        return False

    def return_spaces(self, st: TopRaceState, s: int) -> list[int]:
        """Free spaces beside the old space ``s``, else the nearest free ones behind it (§4.7 step 4)."""
        tr = st.track
        back, front = tr.back, tr.front
        occ = set(p for p in st.pos if p >= 0)
        fs, bs = front[s], back[s]
        beside = [t for t in range(tr.FINISH) if back[t] < fs and front[t] > bs and t not in occ]
        if beside:
            return beside
        behind = [t for t in range(tr.FINISH) if front[t] <= bs and t not in occ]
        best = max(front[t] for t in behind)
        return [t for t in behind if front[t] == best]

    def _end_card(self, st: TopRaceState, ev: list[Event]) -> None:
        st.discard.append(st.card)
        st.card = 0
        st.slots = ()
        st.turn_done = True
        seat = st.play_seat
        if st.pitstop:
            k = st.order.index(seat)
            st.claim_queue = [q for q in (st.order[(k + i) % st.n] for i in range(1, st.n))
                              if st.free_pit[q] > 0 and self._is_participant(st, q)]
        if st.tips and st.lines > st.tips_held:
            for k in range(st.tips_held + 1, st.lines + 1):
                st.tip_queue.extend((k, p) for p in range(st.n))
            st.tips_held = st.lines

    # --- Shares trades (§6.3) ---------------------------------------------------------------------
    def _apply_trades(self, st: TopRaceState, ev: list[Event]) -> None:
        for seat, (sell, buy) in sorted(st.trades.items()):
            h = st.holdings[seat]
            for c in sell:
                h[CAR_INDEX[c]] -= 1
            for c in buy:
                h[CAR_INDEX[c]] += 1
        st.trades = {}
        ev.append({"type": "share_round_done"})

    # --- end of race and game (§4.8-§4.10, §5, §6.2, §6.3) -------------------------------------
    def _end_race(self, st: TopRaceState, ev: list[Event], why: str) -> None:
        tr = st.track
        rest = []
        for c in range(NCARS):
            if st.place[c]:
                continue
            if st.pos[c] >= 0:
                s, on_track = st.pos[c], 1
            else:
                s, on_track = st.broken[c], 0  # [HOUSE] A13: loses ties to on-track cars
            rest.append(((tr.front[s], on_track, tr.innerness(s)), c))
        rest.sort(reverse=True)
        for _key, c in rest:
            st.finished += 1
            st.place[c] = st.finished
            if not st.shares:
                prize = D.PRIZE[st.place[c] - 1]
                st.cash[st.owner[c]] += prize
        places = {CARS[c]: st.place[c] for c in range(NCARS)}
        result: dict[str, Any] = {"race": st.race + 1, "track": tr.id, "end": why, "places": places}
        if not st.shares:
            result["owners"] = {CARS[c]: st.owner[c] for c in range(NCARS)}
        if st.tips:
            nets = []
            for seat in range(st.n):
                net = sum(D.TIP[k][st.place[c] - 1] for k, c in enumerate(st.tip_marks[seat]) if c >= 0)
                st.cash[seat] = max(0, st.cash[seat] + net)  # [HOUSE] A24: floored at 0
                nets.append(net)
            result["tips"] = [[CARS[c] if c >= 0 else None for c in marks] for marks in st.tip_marks]
            result["tip_net"] = nets
        if st.shares:
            payouts = []
            for seat in range(st.n):
                pay = sum(st.holdings[seat][c] * D.PRIZE[st.place[c] - 1] for c in range(NCARS))
                st.cash[seat] += pay
                payouts.append(pay)
            result["holdings"] = [{CARS[c]: h[c] for c in range(NCARS)} for h in st.holdings]
            result["share_payout"] = payouts
            st.last_holdings = [list(h) for h in st.holdings]
        result["cash"] = list(st.cash)
        st.results.append(result)
        st.last_order = list(st.order)
        ev.append({"type": "race_end", **result})
        st.pending = None
        st.legal = None
        st.claim_queue = []
        st.tip_queue = []
        st.trade_queue = []
        st.trades = {}
        st.turn_done = False
        st.race += 1
        if st.race < st.races:
            self._start_race(st)
        else:
            st.phase = OVER

    def outcome(self, state: TopRaceState) -> Outcome:
        st = state
        last = st.results[-1]
        places = last["places"]
        if st.shares:
            by_place = sorted(range(NCARS), key=lambda c: places[CARS[c]])
            keys = [(st.cash[s], tuple(st.last_holdings[s][c] for c in by_place), st.last_order.index(s))
                    for s in range(st.n)]
        else:
            owners = last["owners"]
            keys = [(st.cash[s], tuple(sorted((-places[c] for c in CARS if owners[c] == s), reverse=True)))
                    for s in range(st.n)]
        return Outcome(ranks_from_keys(keys), [float(c) for c in st.cash], {"races": st.results})

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


def _trade_table() -> list[list[tuple[tuple[tuple[int, int, int], ...], dict[str, Any]]]]:
    """Every (sell pair, buy pair) grouped by its net change, each group in canonical order, with the
    holding bounds that make it valid: per car (car, lowest holding, highest holding)."""
    pairs = [(i, j) for i in range(NCARS) for j in range(i, NCARS)]
    groups: dict[tuple[int, ...], list] = {}
    for si, sj in pairs:
        for bi, bj in pairs:
            sold = [0] * NCARS
            bought = [0] * NCARS
            sold[si] += 1
            sold[sj] += 1
            bought[bi] += 1
            bought[bj] += 1
            delta = tuple(bought[c] - sold[c] for c in range(NCARS))
            bounds = tuple((c, sold[c], D.SHARES_MAX - bought[c] + sold[c])
                           for c in range(NCARS) if sold[c] or bought[c])
            action = {"type": "trade", "sell": [CARS[si], CARS[sj]], "buy": [CARS[bi], CARS[bj]]}
            groups.setdefault(delta, []).append((bounds, action))
    return list(groups.values())


_TRADES = _trade_table()
_TRADE_CACHE: dict[tuple[int, ...], list[dict[str, Any]]] = {}


def trade_options(holdings: tuple[int, ...]) -> list[dict[str, Any]]:
    """Every distinct share trade (§6.3, §9 #14): sell 2 held shares, then buy 2, every car 0..15.

    One canonical action per resulting holding: the smallest sell list, then the smallest buy list
    (colour order). The action dicts are shared; callers must not mutate them."""
    got = _TRADE_CACHE.get(holdings)
    if got is not None:
        return got
    out = []
    h = holdings
    for group in _TRADES:
        for bounds, action in group:
            for c, lo, hi in bounds:
                if not lo <= h[c] <= hi:
                    break
            else:
                out.append(action)
                break
    if len(_TRADE_CACHE) > 50000:
        _TRADE_CACHE.clear()
    _TRADE_CACHE[holdings] = out
    return out


GAME = TopRace()
