"""Port Royal (Alexander Pfister, 2014): the rules engine.

Section numbers (§) refer to the rules file port_royal.md. Conventions the rules leave to us:

- The draw pile is a list whose *last* element is the top card; after every shuffle the list is
  reversed so that the top card is the first card of the shuffled order (§8).
- The discard pile is a list in the order cards reached it (oldest first); a reshuffle shuffles it
  in that order (§4.8, lazy: only when a card is needed and the draw pile is empty).
- A coin stack is a list; the last element is the last coin added, which is the one paid (LIFO, §4.8).
"""
from __future__ import annotations

import random
from itertools import product
from typing import Any, Mapping

from engines.core import (Action, BadOptions, Event, Game, IllegalAction, Observation, Option, Outcome,
                          ranks_from_keys)
from engines.port_royal import data as D
from engines.port_royal import fields as F

DISCOVER, REPEL, TRADE, OVER = 0, 1, 2, 3
STATE_NAMES = ("DISCOVER", "REPEL", "TRADE", "OVER")

_PERSON, _SHIP, _TAX, _EXPEDITION = D.PERSON, D.SHIP, D.TAX, D.EXPEDITION
_KIND, _KIND_NO, _COST, _IP, _SWORDS, _COLOUR, _COINS = D.KIND, D.KIND_NO, D.COST, D.IP, D.SWORDS, D.COLOUR, D.COINS
_PTYPE, _SYMBOL, _REQUIRES, _SKULL = D.PERSON_TYPE, D.SYMBOL, D.REQUIRES, D.SKULL


class State:
    """The whole state of one game of Port Royal (mutable; see ``PortRoyal.clone``)."""

    __slots__ = (
        "n", "rng", "end_required_expedition", "max_rounds", "start_seat", "last_seat", "explicit_jacks",
        "draw", "discard", "harbour", "hmask", "pending", "expedition_area",
        "coins", "persons", "expeditions",
        "ip", "swords", "mademoiselles", "governors", "admirals", "jesters", "traders",
        "phase", "active", "round", "revealed", "end_triggered", "end_reason",
        "base_allowance", "taker", "takes_used",
    )

    def copy(self) -> "State":
        """A copy for ``PortRoyal.clone``: the lists copied, the generator at the same point."""
        new = State.__new__(State)
        for name in ("n", "end_required_expedition", "max_rounds", "start_seat", "last_seat", "explicit_jacks",
                     "hmask", "pending", "phase", "active", "round", "revealed", "end_triggered", "end_reason",
                     "base_allowance", "taker", "takes_used"):
            setattr(new, name, getattr(self, name))
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        new.draw = self.draw[:]
        new.discard = self.discard[:]
        new.harbour = self.harbour[:]
        new.expedition_area = self.expedition_area[:]
        new.coins = [c[:] for c in self.coins]
        new.persons = [p[:] for p in self.persons]
        new.expeditions = [e[:] for e in self.expeditions]
        for name in ("ip", "swords", "mademoiselles", "governors", "admirals", "jesters"):
            setattr(new, name, getattr(self, name)[:])
        new.traders = [t[:] for t in self.traders]
        return new


def _ship_count(mask: int) -> int:
    return mask.bit_count()


class PortRoyal(Game):
    """Port Royal for 2-5 players, per the rules file port_royal.md."""

    id = "port_royal"
    name = "Port Royal"
    min_players = 2
    max_players = 5
    observation_fields = F.OBSERVATION_FIELDS
    action_fields = F.ACTION_FIELDS
    table_fields = F.TABLE_FIELDS
    field_samples = F.FIELD_SAMPLES
    rules_brief = F.RULES_BRIEF
    option_specs = (
        Option("end_condition", "standard", "choice", "the end is triggered by 12 IP, or by 12 IP and at "
               "least one expedition (§6)", choices=("standard", "expedition_required")),
        Option("max_rounds", D.MAX_ROUNDS_DEFAULT, "int", "[HOUSE] safety cap: the game ends after this "
               "many complete rounds (§5)", minimum=1, maximum=D.MAX_ROUNDS_LIMIT),
        Option("start_seat", D.DEFAULT_START_SEAT, "choice", "[HOUSE] the start player: a seat (below the "
               "player count), or drawn at random (§3)", choices=(0, 1, 2, 3, 4, "random")),
        Option("explicit_jack_allocation", False, "bool", "list every allocation of Jacks to an expedition "
               "instead of the canonical one (§9)"),
    )

    # --- setup -------------------------------------------------------------------------------
    def setup(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        """Shuffle the deck, deal 3 coins to every seat and start the start player's first turn (§3)."""
        self.check_players(num_players)
        opts = self.options(options)
        n = num_players
        max_rounds = opts["max_rounds"]
        start = opts["start_seat"]
        if start != "random" and start >= n:
            raise BadOptions(f"port_royal: start_seat must be a seat 0..{n - 1} or 'random', not {start!r}",
                             option="start_seat")

        st = State()
        st.n = n
        st.rng = rng = random.Random(seed)
        st.end_required_expedition = opts["end_condition"] == "expedition_required"
        st.max_rounds = max_rounds
        st.explicit_jacks = opts["explicit_jack_allocation"]
        # §8: the random start seat is drawn first, then the deck is shuffled.
        st.start_seat = rng.randrange(n) if start == "random" else start
        st.last_seat = (st.start_seat - 1) % n
        draw = list(D.DECK_IDS)
        rng.shuffle(draw)
        draw.reverse()  # top card = first card of the shuffled order
        st.draw = draw
        st.discard = []
        st.harbour = []
        st.hmask = 0
        st.pending = None
        st.expedition_area = [D.FIVE_PLAYER_EXPEDITION] if n == 5 else []
        st.coins = [[] for _ in range(n)]
        for _ in range(D.STARTING_COINS):  # [HOUSE] one card at a time, seat 0..n-1, three passes
            for seat in range(n):
                st.coins[seat].append(draw.pop())
        st.persons = [[] for _ in range(n)]
        st.expeditions = [[] for _ in range(n)]
        st.ip = [0] * n
        st.swords = [0] * n
        st.mademoiselles = [0] * n
        st.governors = [0] * n
        st.admirals = [0] * n
        st.jesters = [0] * n
        st.traders = [[0] * len(D.COLOURS) for _ in range(n)]
        st.phase = DISCOVER
        st.active = st.start_seat
        st.round = 1
        st.revealed = 0
        st.end_triggered = False
        st.end_reason = None
        st.base_allowance = 0
        st.taker = st.active
        st.takes_used = 0
        return st

    def clone(self, state: State) -> State:
        return state.copy()

    # --- whose decision --------------------------------------------------------------------------
    def to_move(self, state: State) -> int | None:
        phase = state.phase
        if phase == TRADE:
            return state.taker
        if phase == OVER:
            return None
        return state.active

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Legal actions in the order of §9: draw, stop, repel, dock, take…, expedition…, done."""
        st = state
        phase = st.phase
        if phase == OVER or seat != self.to_move(st):
            return []
        if phase == DISCOVER:
            acts: list[Action] = []
            if st.draw or st.discard:
                acts.append({"type": "draw"})
            if st.revealed:
                acts.append({"type": "stop"})
            if st.expedition_area:
                acts.extend(self._expedition_actions(st, seat))
            return acts
        if phase == REPEL:
            return [{"type": "repel"}, {"type": "dock"}]
        acts = []
        if st.harbour and st.takes_used < self._allowance(st, seat):
            acts.extend(self._take_actions(st, seat))
        if seat == st.active and st.expedition_area:
            acts.extend(self._expedition_actions(st, seat))
        acts.append({"type": "done"})
        return acts

    def _allowance(self, st: State, seat: int) -> int:
        """Cards ``seat`` may take in its Phase-2 step (§4.6); Governors count at once."""
        return (st.base_allowance if seat == st.active else 1) + st.governors[seat]

    @staticmethod
    def _hire_cost(st: State, seat: int, cid: int) -> int:
        """What ``seat`` pays to hire person ``cid``: its cost less 1 per Mademoiselle, floor 0 (§4.0).

        A non-active hirer's 1-coin fee comes on top and is never reduced (A16).
        """
        return max(0, _COST[cid] - st.mademoiselles[seat])

    @staticmethod
    def _hire_limit(st: State, seat: int) -> int:
        """The dearest printed cost ``seat`` can hire now: ``_hire_cost`` plus the fee within its coins.

        ``max(0, cost - discount) + fee <= coins`` holds exactly when ``coins - fee >= 0`` and
        ``cost <= coins - fee + discount``; -1 (below every cost) when the fee alone is unaffordable.
        """
        money = len(st.coins[seat]) - (seat != st.active)  # a non-active taker also pays the 1-coin fee
        return money + st.mademoiselles[seat] if money >= 0 else -1

    def _take_actions(self, st: State, seat: int) -> list[Action]:
        harbour = st.harbour
        lowest: dict[int, int] = {}
        for cid in harbour:
            k = _KIND_NO[cid]
            low = lowest.get(k)
            if low is None or cid < low:
                lowest[k] = cid
        limit = self._hire_limit(st, seat)
        acts = []
        for cid in harbour:
            if lowest[_KIND_NO[cid]] != cid:
                continue
            if _KIND[cid] == _SHIP or _COST[cid] <= limit:
                acts.append({"type": "take", "card": cid})
        return acts

    def _symbol_cards(self, st: State, seat: int) -> dict[str, list[int]]:
        cards: dict[str, list[int]] = {"cross": [], "anchor": [], "house": [], "any": []}
        for cid in sorted(st.persons[seat]):
            sym = _SYMBOL[cid]
            if sym is not None:
                cards[sym].append(cid)
        return cards

    @staticmethod
    def _allocation(cards: dict[str, list[int]], exp_id: int,
                    jacks_for: Mapping[str, int] | None = None) -> list[int] | None:
        """Persons spent on ``exp_id`` (ascending ids), or None if they do not cover it (§4.5).

        Canonical allocation: real symbols first, Jacks for the shortfall, lowest ids. With
        ``jacks_for`` the number of Jacks per required symbol is given explicitly (§9 option).
        """
        used: list[int] = []
        jacks = 0
        for sym, need in _REQUIRES[exp_id].items():
            have = cards[sym]
            j = max(0, need - len(have)) if jacks_for is None else jacks_for[sym]
            real = need - j
            if real > len(have):
                return None
            used.extend(have[:real])
            jacks += j
        if jacks > len(cards["any"]):
            return None
        used.extend(cards["any"][:jacks])
        used.sort()
        return used

    def _expedition_actions(self, st: State, seat: int) -> list[Action]:
        persons = st.persons[seat]
        if len(persons) < 2:
            return []
        cards = self._symbol_cards(st, seat)
        if len(cards["cross"]) + len(cards["anchor"]) + len(cards["house"]) + len(cards["any"]) < 2:
            return []
        acts: list[Action] = []
        for eid in sorted(st.expedition_area):
            if not st.explicit_jacks:
                if self._allocation(cards, eid) is not None:
                    acts.append({"type": "expedition", "card": eid})
                continue
            syms = [s for s in D.SYMBOLS if s in _REQUIRES[eid]]
            for counts in product(*(range(_REQUIRES[eid][s] + 1) for s in syms)):
                jacks_for = dict(zip(syms, counts))
                if self._allocation(cards, eid, jacks_for) is not None:
                    acts.append({"type": "expedition", "card": eid, "jacks_for": jacks_for})
        return acts

    def _has_choice(self, st: State, seat: int) -> bool:
        """True unless ``done`` is the taker's only legal action (then it is applied automatically)."""
        if st.harbour and st.takes_used < self._allowance(st, seat):
            if st.hmask:  # a ship can always be taken
                return True
            limit = self._hire_limit(st, seat)
            for cid in st.harbour:
                if _COST[cid] <= limit:
                    return True
        if seat == st.active and st.expedition_area and self._expedition_actions(st, seat):
            return True
        return False

    # --- playing -------------------------------------------------------------------------------
    def apply(self, state: State, seat: int, action: Action) -> list[Event]:
        """Validate and play one action; automatic steps that follow are resolved here too (§9)."""
        st = state
        phase = st.phase
        if phase == OVER:
            raise IllegalAction("§5 end of game", "the game is over")
        mover = self.to_move(st)
        if seat != mover:
            raise IllegalAction("§9 decision points", f"seat {seat} is not to move; seat {mover} is")
        typ = action.get("type") if isinstance(action, dict) else None
        ev: list[Event] = []
        if phase == DISCOVER:
            if typ == "draw":
                if not (st.draw or st.discard):
                    raise IllegalAction("§4.8 both piles empty", "no card can be revealed: both piles are empty")
                self._reveal(st, ev)
            elif typ == "stop":
                if not st.revealed:
                    raise IllegalAction("§4.1 stop", "the first reveal of a turn is mandatory; draw first")
                ev.append({"type": "stop", "seat": seat})
                if not self._begin_trade(st, ev):
                    self._next_turn(st, ev)
            elif typ == "expedition":
                self._expedition(st, seat, action, ev)
            else:
                raise IllegalAction("§9 decision points",
                                    f"{typ!r} is not an action of the DISCOVER state (draw, stop, expedition)")
        elif phase == REPEL:
            ship = st.pending
            if typ == "repel":
                st.pending = None
                st.phase = DISCOVER
                st.discard.append(ship)
                ev.append({"type": "repel", "seat": seat, "card": ship})
            elif typ == "dock":
                st.pending = None
                st.phase = DISCOVER
                self._dock(st, ship, ev)
            else:
                raise IllegalAction("§4.2 repel", f"{typ!r} is not allowed while a ship is pending: repel or dock")
        else:  # TRADE
            if typ == "take":
                self._take(st, seat, action, ev)
            elif typ == "expedition":
                if seat != st.active:
                    raise IllegalAction("§4.5 expedition", "only the active player may fulfil an expedition")
                self._expedition(st, seat, action, ev)
            elif typ == "done":
                ev.append({"type": "done", "seat": seat})
                if not self._next_step(st, ev):
                    self._next_turn(st, ev)
                return ev
            else:
                raise IllegalAction("§9 decision points",
                                    f"{typ!r} is not an action of the TRADE state (take, expedition, done)")
            if not self._has_choice(st, seat):
                ev.append({"type": "done", "seat": seat, "auto": True})
                if not self._next_step(st, ev):
                    self._next_turn(st, ev)
        return ev

    # --- cards and coins (§4.8) ----------------------------------------------------------------
    def _take_top(self, st: State) -> int | None:
        """The top card of the draw pile; reshuffles the discard pile lazily when it is empty."""
        if not st.draw:
            if not st.discard:
                return None
            pile = st.discard
            st.discard = []
            st.rng.shuffle(pile)
            pile.reverse()
            st.draw = pile
        return st.draw.pop()

    def _gain(self, st: State, seat: int, count: int, ev: list[Event], why: str) -> None:
        stack = st.coins[seat]
        got = 0
        for _ in range(count):
            cid = self._take_top(st)
            if cid is None:  # [HOUSE] both piles empty: the rest is forfeited
                break
            stack.append(cid)
            got += 1
        ev.append({"type": "coins", "seat": seat, "gain": got, "why": why})

    def _pay(self, st: State, seat: int, count: int) -> None:
        """Pay ``count`` coins to the discard pile, last-added first (face up, now public)."""
        stack = st.coins[seat]
        discard = st.discard
        for _ in range(count):
            discard.append(stack.pop())

    # --- Phase 1 (§4.1-§4.5) -------------------------------------------------------------------
    def _reveal(self, st: State, ev: list[Event]) -> None:
        cid = self._take_top(st)
        st.revealed += 1
        kind = _KIND[cid]
        ev.append({"type": "reveal", "seat": st.active, "card": cid})
        if kind == _PERSON:
            st.harbour.append(cid)
        elif kind == _SHIP:
            need = _SWORDS[cid]
            if need != _SKULL and st.swords[st.active] >= need:
                st.pending = cid
                st.phase = REPEL
            else:
                self._dock(st, cid, ev)
        elif kind == _EXPEDITION:
            st.expedition_area.append(cid)
        else:
            self._tax(st, cid, ev)

    def _dock(self, st: State, ship: int, ev: list[Event]) -> None:
        bit = 1 << _COLOUR[ship]
        if not st.hmask & bit:
            st.harbour.append(ship)
            st.hmask |= bit
            ev.append({"type": "dock", "card": ship})
            return
        # §4.3 bust: harbour (reveal order), then the ship, to the discard pile; Jesters pay everyone.
        st.discard.extend(st.harbour)
        st.discard.append(ship)
        st.harbour = []
        st.hmask = 0
        ev.append({"type": "bust", "seat": st.active, "card": ship})
        n = st.n
        for i in range(n):
            s = (st.active + i) % n
            if st.jesters[s]:
                self._gain(st, s, st.jesters[s], ev, "jester")
        self._next_turn(st, ev)

    def _tax(self, st: State, tax: int, ev: list[Event]) -> None:
        """§4.4: halve the rich (active first, clockwise), then the bonus on the new values."""
        n = st.n
        order = [(st.active + i) % n for i in range(n)]
        for s in order:
            c = len(st.coins[s])
            if c >= D.TAX_THRESHOLD:
                self._pay(st, s, c // 2)
                ev.append({"type": "tax_paid", "seat": s, "coins": c // 2})
        if D.TAX_BONUS[tax] == "most_swords":
            best = max(st.swords)
            winners = [s for s in order if st.swords[s] == best]
        else:
            least = min(st.ip)
            winners = [s for s in order if st.ip[s] == least]
        for s in winners:
            self._gain(st, s, 1, ev, "tax_bonus")
        st.discard.append(tax)  # set aside during the bonus, discarded after it

    def _expedition(self, st: State, seat: int, action: Action, ev: list[Event]) -> None:
        eid = action.get("card")
        if type(eid) is not int or eid not in st.expedition_area:
            raise IllegalAction("§4.5 expedition", f"expedition {eid!r} is not in the expedition area")
        jacks_for = action.get("jacks_for")
        if st.explicit_jacks:
            syms = set(_REQUIRES[eid])
            if (not isinstance(jacks_for, dict) or set(jacks_for) != syms
                    or any(type(v) is not int or not 0 <= v <= _REQUIRES[eid][k] for k, v in jacks_for.items())):
                raise IllegalAction("§9 expedition", f"jacks_for must give 0..required Jacks for each of {sorted(syms)}")
        elif jacks_for is not None:
            raise IllegalAction("§9 expedition", "jacks_for is only accepted with the explicit_jack_allocation option")
        spent = self._allocation(self._symbol_cards(st, seat), eid, jacks_for)
        if spent is None:
            raise IllegalAction("§4.5 expedition", f"your persons do not cover the symbols of expedition {eid}")
        for cid in spent:
            self._remove_person(st, seat, cid)
        st.discard.extend(spent)  # ascending ids [HOUSE]
        st.expedition_area.remove(eid)
        st.expeditions[seat].append(eid)
        st.ip[seat] += _IP[eid]
        ev.append({"type": "expedition", "seat": seat, "card": eid, "spent": spent})
        self._gain(st, seat, _COINS[eid], ev, "expedition")
        self._check_end(st, seat, ev)

    # --- Phase 2 (§4.6) ------------------------------------------------------------------------
    def _begin_trade(self, st: State, ev: list[Event]) -> bool:
        """Start Phase 2 with the active step; False if the whole phase resolved automatically."""
        st.phase = TRADE
        st.base_allowance = D.BASE_ALLOWANCE[_ship_count(st.hmask)]
        st.taker = a = st.active
        st.takes_used = 0
        if len(st.harbour) >= D.ADMIRAL_HARBOUR_MIN and st.admirals[a]:
            self._gain(st, a, D.ADMIRAL_COINS * st.admirals[a], ev, "admiral")
        if self._has_choice(st, a):
            return True
        ev.append({"type": "done", "seat": a, "auto": True})
        return self._next_step(st, ev)

    def _next_step(self, st: State, ev: list[Event]) -> bool:
        """Move to the next non-active step that has a decision; False once Phase 2 is over."""
        n = st.n
        t = st.taker
        while True:
            t = (t + 1) % n
            if t == st.active:
                # End of Phase 2: the rest of the harbour is discarded (reveal order).
                st.discard.extend(st.harbour)
                st.harbour = []
                st.hmask = 0
                return False
            st.taker = t
            st.takes_used = 0
            if not st.harbour:
                if st.jesters[t]:  # §4.6: no card left for a non-active player
                    self._gain(st, t, st.jesters[t], ev, "jester")
                continue
            if len(st.harbour) >= D.ADMIRAL_HARBOUR_MIN and st.admirals[t]:
                self._gain(st, t, D.ADMIRAL_COINS * st.admirals[t], ev, "admiral")
            if self._has_choice(st, t):
                return True
            ev.append({"type": "done", "seat": t, "auto": True})

    def _take(self, st: State, seat: int, action: Action, ev: list[Event]) -> None:
        cid = action.get("card")
        if st.takes_used >= self._allowance(st, seat):
            raise IllegalAction("§4.6 allowance", f"seat {seat} has taken all {self._allowance(st, seat)} "
                                                  f"card(s) it may take")
        if type(cid) is not int or cid not in st.harbour:
            raise IllegalAction("§4.6 take", f"card {cid!r} is not in the harbour")
        k = _KIND_NO[cid]
        for other in st.harbour:
            if other < cid and _KIND_NO[other] == k:
                raise IllegalAction("§9 take", f"cards of one kind are taken by their lowest id ({other}, not {cid})")
        active = st.active
        fee = seat != active
        if _KIND[cid] == _SHIP:
            st.harbour.remove(cid)
            st.hmask &= ~(1 << _COLOUR[cid])
            st.discard.append(cid)  # before the coins are drawn (§4.8)
            ev.append({"type": "trade", "seat": seat, "card": cid})
            self._gain(st, seat, _COINS[cid] + st.traders[seat][_COLOUR[cid]], ev, "ship")
            if fee:
                st.coins[active].append(st.coins[seat].pop())
                ev.append({"type": "fee", "seat": seat, "to": active})
        else:
            cost = self._hire_cost(st, seat, cid)
            if len(st.coins[seat]) < cost + fee:
                raise IllegalAction("§4.6 hire", f"hiring {cid} costs {cost}{' + 1 fee' if fee else ''} coins; "
                                                 f"seat {seat} has {len(st.coins[seat])}")
            st.harbour.remove(cid)
            self._pay(st, seat, cost)
            if fee:
                st.coins[active].append(st.coins[seat].pop())
            self._add_person(st, seat, cid)
            ev.append({"type": "hire", "seat": seat, "card": cid, "paid": cost, "fee": int(fee)})
            self._check_end(st, seat, ev)
        st.takes_used += 1

    # --- persons and IP ------------------------------------------------------------------------
    def _add_person(self, st: State, seat: int, cid: int) -> None:
        st.persons[seat].append(cid)
        self._count_person(st, seat, cid, 1)

    def _remove_person(self, st: State, seat: int, cid: int) -> None:
        st.persons[seat].remove(cid)
        self._count_person(st, seat, cid, -1)

    @staticmethod
    def _count_person(st: State, seat: int, cid: int, sign: int) -> None:
        st.ip[seat] += sign * _IP[cid]
        st.swords[seat] += sign * _SWORDS[cid]
        ptype = _PTYPE[cid]
        if ptype == "trader":
            st.traders[seat][_COLOUR[cid]] += sign
        elif ptype == "mademoiselle":
            st.mademoiselles[seat] += sign
        elif ptype == "governor":
            st.governors[seat] += sign
        elif ptype == "admiral":
            st.admirals[seat] += sign
        elif ptype == "jester":
            st.jesters[seat] += sign

    def _check_end(self, st: State, seat: int, ev: list[Event]) -> None:
        """§5/§6: the end is triggered the first time a player reaches 12 IP (and an expedition)."""
        if st.end_triggered or st.ip[seat] < D.END_IP:
            return
        if st.end_required_expedition and not st.expeditions[seat]:
            return
        st.end_triggered = True
        ev.append({"type": "end_triggered", "seat": seat})

    # --- turns and rounds (§5) -----------------------------------------------------------------
    def _next_turn(self, st: State, ev: list[Event]) -> None:
        """End the active turn; start the next one or end the game.

        A loop rather than recursion: with both piles empty ([HOUSE] §4.8) whole turns pass with
        no decision (auto-stop, auto-done) until the round cap ends the game.
        """
        n = st.n
        while True:
            if st.active == st.last_seat:
                if st.end_triggered:
                    st.phase, st.end_reason = OVER, "end_ip"
                elif st.round >= st.max_rounds:
                    st.phase, st.end_reason = OVER, "max_rounds"
                if st.phase == OVER:
                    ev.append({"type": "game_over", "reason": st.end_reason})
                    return
            st.active = (st.active + 1) % n
            if st.active == st.start_seat:
                st.round += 1
            st.phase = DISCOVER
            st.revealed = 0
            st.taker = st.active
            st.takes_used = 0
            st.base_allowance = 0
            ev.append({"type": "turn", "seat": st.active, "round": st.round})
            if st.draw or st.discard:
                return
            ev.append({"type": "stop", "seat": st.active, "auto": True})  # [HOUSE] nothing to reveal
            if self._begin_trade(st, ev):
                return

    # --- views -------------------------------------------------------------------------------
    def tables(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """The card table (§2.6), sent once in ``start``."""
        return F.tables(num_players, options)

    def observe(self, state: State, seat: int | None) -> Observation:
        """The public view (§7, §9): identical for every seat apart from ``you``."""
        st = state
        phase2 = None
        if st.phase == TRADE:
            phase2 = {"base_allowance": st.base_allowance, "taker": st.taker, "takes_used": st.takes_used,
                      "allowance": self._allowance(st, st.taker)}
        card = D.card
        return {
            "you": seat,
            "state": STATE_NAMES[st.phase],
            "to_act": self.to_move(st),
            "active": st.active,
            "start_seat": st.start_seat,
            "round": st.round,
            "end_triggered": st.end_triggered,
            "end_condition": "expedition_required" if st.end_required_expedition else "standard",
            "harbour": [card(c) for c in st.harbour],
            "pending_ship": card(st.pending) if st.pending is not None else None,
            "revealed_this_turn": st.revealed,
            "phase2": phase2,
            "expedition_area": list(st.expedition_area),
            "players": [
                {"seat": s, "coins": len(st.coins[s]), "persons": list(st.persons[s]),
                 "expeditions": list(st.expeditions[s]), "ip": st.ip[s], "swords": st.swords[s]}
                for s in range(st.n)
            ],
            "draw_pile_count": len(st.draw),
            "discard_pile": list(st.discard),
        }

    def outcome(self, state: State) -> Outcome:
        """Ranks by (IP, coins), expedition holders first under ``expedition_required`` (§5, §6)."""
        st = state
        n = st.n
        coins = [len(c) for c in st.coins]
        if st.end_required_expedition:
            keys = [(1 if st.expeditions[s] else 0, st.ip[s], coins[s]) for s in range(n)]
        else:
            keys = [(st.ip[s], coins[s]) for s in range(n)]
        return Outcome(
            ranks_from_keys(keys),
            [float(x) for x in st.ip],
            {"ip": list(st.ip), "coins": coins, "expeditions": [len(e) for e in st.expeditions],
             "rounds": st.round, "end": st.end_reason},
        )

    def card_count(self, state: State) -> int:
        """Cards in play, for the conservation check of §9 (119, or 120 with 5 players)."""
        st = state
        return (len(st.draw) + len(st.discard) + len(st.harbour) + (st.pending is not None)
                + len(st.expedition_area) + sum(len(p) for p in st.persons)
                + sum(len(e) for e in st.expeditions) + sum(len(c) for c in st.coins))


GAME = PortRoyal()
