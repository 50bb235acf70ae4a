"""Alhambra (Dirk Henn, 2003) for 2-6 seats: the Game, which coordinates set-up, legal actions, turn
flow and the end of the game.

Sections (§) refer to the rules file. Actions (§9.2, with the house key ``type`` instead of ``kind``):

    {"type": "take_money", "cards": [14, 57]}              money-card ids, ascending
    {"type": "buy", "slot": 3, "pay": [7, 4]}              card values, descending
    {"type": "redesign_place", "tile": 17, "x": 1, "y": 0}
    {"type": "redesign_remove", "tile": 17}
    {"type": "redesign_swap", "tile": 17, "replaces": 23}  reserve tile -> cell of an Alhambra tile
    {"type": "place", "tile": 17, "to": "alhambra", "x": 1, "y": 0}
    {"type": "place", "tile": 17, "to": "reserve"}
    {"type": "place", "tile": 17, "to": "dirk"}            2 players, bought tiles only
    {"type": "pass"}                                       only when the money market is empty

Money card ``id``: currency ``id // 27``, value ``(id % 27) // 3 + 1`` (data.py).

The rules themselves live in ``state`` (the state and the per-seat cache), ``preparation`` (the set-up steps,
§3), ``money`` (taking money and paying, §4.2, §4.3), ``scoring`` (the points of a round, §5.1) and
``geometry`` (the grid, §4.6, §5.2); this module keeps the placement and redesign part of the lists
(§4.4, §4.6), applying actions, the end of the turn and of the game (§4.1, §5.3), refusals and views.
The action dicts of the legal lists are built once and shared between calls (never mutate an action
you got from ``legal_actions``).
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from engines.alhambra import geometry as geo
from engines.alhambra import fields as F
from engines.alhambra.data import (
    ALL_PAYMENTS, BUILDING_TILES, CARD_CURRENCY, CARD_VALUE, CURRENCY_NAMES, DIRK_ROUND1_TILES, DIRK_START_TILES,
    MARKET_MONEY, MAX_TURNS, MAX_TURNS_LIMIT, OPEN_MONEY, SCORING_A, SLOT_CURRENCY, TILE_PRICE, TILE_TYPE,
    TILE_WALLS, money_deck,
)
from engines.alhambra.money import buy_actions, payment_sets, purse_of, take_actions, take_picks
from engines.alhambra.preparation import choose_start_player, deal_start_money, insert_scoring_cards
from engines.alhambra.scoring import building_counts, score_round
from engines.alhambra.state import ACTION, FINAL_PLACEMENT, OVER, PLACEMENT, REMOVE, AlhambraState, SeatCache
from engines.core import Action, Event, Game, IllegalAction, Observation, Option, Outcome, ranks_from_keys

PASS: Action = {"type": "pass"}


def _tiles_out(alhambra: dict[int, int]) -> list[dict[str, int]]:
    out = []
    for c in sorted(alhambra):
        x, y = geo.xy(c)
        out.append({"tile": alhambra[c], "x": x, "y": y})
    return out


class Alhambra(Game):
    id = "alhambra"
    name = "Alhambra"
    min_players = 2
    max_players = 6
    observation_fields = F.OBSERVATION_FIELDS
    action_fields = F.ACTION_FIELDS
    table_fields = F.TABLE_FIELDS
    field_samples = F.FIELD_SAMPLES
    rules_brief = F.RULES_BRIEF
    option_specs = (
        Option("max_turns", MAX_TURNS, "int", "[HOUSE] turns (over all seats) after which the game ends "
               "as in §5.3; a normal game takes 60-150", minimum=1, maximum=MAX_TURNS_LIMIT),
        Option("open_money", OPEN_MONEY, "bool", "[HOUSE] every seat sees every money hand (§6)"),
        Option("all_payments", ALL_PAYMENTS, "bool", "list every payment set, not only the minimal ones "
               "(§9.3)"),
    )
    rated_presets = {"standard": {}, "two_players": {}}
    # 2 players play a variant of their own (Dirk, the reduced money deck, §6).
    rated_preset_players = {"standard": (3, 4, 5, 6), "two_players": (2,)}

    # ------------------------------------------------------------------------------------ setup
    def setup(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> AlhambraState:
        """§3: bag, market, Dirk (2 players), money deal, start player, scoring cards in piles 2 and 4."""
        self.check_players(num_players)
        opts = self.options(options)
        n = num_players
        s = AlhambraState()
        s.n = n
        s.rng = rng = random.Random(seed)
        s.max_turns = opts["max_turns"]
        s.open_money = opts["open_money"]
        s.all_payments = opts["all_payments"]
        s.alhambras = [geo.new_alhambra() for _ in range(n)]
        s.reserves = [[] for _ in range(n)]
        s.scores = [0] * n
        s.cache = [None] * n
        s.purses = [None] * n  # per seat: (hand, its purse, building market, buy actions) of the last legal list
        s.takes = None  # (the money market, its take actions) of the last legal list
        # steps 2-4: the bag, the building market (slots 1-4 in order), Dirk's first 6 tiles
        s.bag = list(BUILDING_TILES)
        rng.shuffle(s.bag)
        s.market = [s.bag.pop(0) for _ in range(4)]
        s.dirk = [s.bag.pop(0) for _ in range(DIRK_START_TILES)] if n == 2 else None
        s.dirk_score = 0
        # step 5-6: shuffle the money, deal each seat face up until its total reaches 20
        deck = money_deck(n)
        rng.shuffle(deck)
        s.hands, dealt = deal_start_money(deck, n)
        # step 7: fewest cards, then lowest total, then [HOUSE] seeded random (the seed: "the youngest")
        s.active = choose_start_player(s.hands, rng)
        # step 8: the money market
        s.money_market = sorted(deck[dealt:dealt + MARKET_MONEY])
        # step 9: A somewhere in pile 2, B somewhere in pile 4
        s.deck = insert_scoring_cards(deck[dealt + MARKET_MONEY:], rng)
        s.discard = []
        s.phase = ACTION
        s.turn = 0
        s.held = []
        s.scoring_done = []
        s.pending = []
        s.game_end = False
        s.ended_by = None
        s.awards = []
        s.listed = None
        s.listed_seat = -1
        return s

    def clone(self, state: AlhambraState) -> AlhambraState:
        s = AlhambraState()
        s.n = state.n
        s.rng = random.Random()
        s.rng.setstate(state.rng.getstate())
        s.max_turns, s.open_money, s.all_payments = state.max_turns, state.open_money, state.all_payments
        s.bag = list(state.bag)
        s.market = list(state.market)
        s.money_market = list(state.money_market)
        s.deck = list(state.deck)
        s.discard = list(state.discard)
        s.hands = [list(h) for h in state.hands]
        s.alhambras = [dict(a) for a in state.alhambras]
        s.reserves = [list(r) for r in state.reserves]
        s.scores = list(state.scores)
        s.dirk = list(state.dirk) if state.dirk is not None else None
        s.dirk_score = state.dirk_score
        s.phase, s.active, s.turn = state.phase, state.active, state.turn
        s.held = list(state.held)
        s.scoring_done = list(state.scoring_done)
        s.pending = list(state.pending)
        s.game_end, s.ended_by = state.game_end, state.ended_by
        s.awards = [[seat, list(tiles)] for seat, tiles in state.awards]
        s.cache = [None] * state.n
        s.purses = [None] * state.n
        s.takes = None
        s.listed = None
        s.listed_seat = -1
        return s

    # -------------------------------------------------------------------------------- turn order
    def to_move(self, state: AlhambraState) -> int | None:
        phase = state.phase
        if phase is OVER:
            return None
        if phase is FINAL_PLACEMENT:
            return state.awards[0][0]
        return state.active

    # ----------------------------------------------------------------------------- legal actions
    def legal_actions(self, state: AlhambraState, seat: int) -> list[Action]:
        s = state
        phase = s.phase
        if phase is ACTION:  # §4.1 step 2: take money, buy, redesign (or pass)
            if seat != s.active:
                return []
            market = s.money_market
            takes = s.takes
            if takes is None or takes[0] != market:
                takes = s.takes = (market[:], take_actions(market) if market else [])
            hand = s.hands[seat]
            kept = s.purses[seat]
            if kept is None or kept[2] != s.market or kept[0] != hand:
                purse = kept[1] if kept is not None and kept[0] == hand else purse_of(hand)
                kept = s.purses[seat] = (hand[:], purse, s.market[:], buy_actions(s, purse))
            acts: list[Action] = takes[1] + kept[3]
            reserve = s.reserves[seat]
            if reserve or len(s.alhambras[seat]) > 1:
                cache = s.cache[seat]
                if cache is None:
                    cache = s.seat_cache(seat)
                redesign = cache.redesign
                if redesign is None or cache.redesign_reserve != reserve:
                    redesign = self._redesign_actions(s, seat, cache, reserve)
                acts += redesign
            if not market:
                acts.append(PASS)  # §4.5 [HOUSE]: only when there is no money to take
        elif phase is PLACEMENT:
            if seat != s.active:
                return []
            acts = self._place_actions(s, seat, s.held, s.n == 2)
        elif phase is FINAL_PLACEMENT:
            if seat != s.awards[0][0]:
                return []
            acts = self._place_actions(s, seat, s.awards[0][1], False)
        else:
            return []
        # apply() accepts these very objects without checking them again (until the state changes)
        s.listed = acts  # two slots rather than a (seat, list) tuple per list
        s.listed_seat = seat
        return acts

    def _redesign_actions(self, s: AlhambraState, seat: int, cache: SeatCache, reserve: list[int]) -> list[Action]:
        """§4.4/§4.6 (the redesign part of the list), kept in ``cache`` until the Alhambra or the reserve change."""
        acts: list[Action] = []
        alhambra = s.alhambras[seat]
        distinct = reserve  # the lowest id of each (type, walls) in the reserve: the others are interchangeable
        if len(reserve) > 1:
            distinct = []
            seen = []  # a few kinds: a list is cheaper than a set
            kinds = _TILE_KIND
            for t in reserve:  # the reserve is kept sorted
                kind = kinds[t]
                if kind not in seen:
                    seen.append(kind)
                    distinct.append(t)
        if distinct:
            front = cache.front  # cell -> fit flags
            cells = cache.front_list
            if cells is None:  # AlhambraState.front_list without its two calls
                cells = cache.front_list = sorted(front)
            for tile in distinct:
                w = TILE_WALLS[tile]
                placed = _REDESIGN_PLACE[tile]
                for c in cells:
                    if front[c][w]:
                        acts.append(placed[c])
        if len(alhambra) > 1:
            if cache.removable is None:
                self._removal_facts(s, seat, cache)
            acts += cache.removable
            if distinct:
                codes = cache.codes
                swap_fits = geo.SWAP_FIT_FLAGS
                cells = cache.cells
                for tile in distinct:
                    w = TILE_WALLS[tile]
                    row = _SWAP[tile]
                    for c in cells:
                        if swap_fits[codes[c]][w]:
                            acts.append(row[alhambra[c]])
        cache.redesign = acts
        cache.redesign_reserve = reserve[:]
        return acts

    def _place_actions(self, s: AlhambraState, seat: int, tiles: list[int], dirk: bool) -> list[Action]:
        cache = s.seat_cache(seat)
        front = cache.front  # cell -> fit flags
        cells = cache.front_list
        if cells is None:  # AlhambraState.front_list without the call
            cells = cache.front_list = sorted(front)
        acts: list[Action] = []
        for tile in tiles:
            w = TILE_WALLS[tile]
            placed = _PLACE[tile]
            for c in cells:
                if front[c][w]:
                    acts.append(placed[c])
            acts.append(_TO_RESERVE[tile])
            if dirk:
                acts.append(_TO_DIRK[tile])
        return acts

    # ------------------------------------------------------------------------------------ apply
    def apply(self, state: AlhambraState, seat: int, action: Action) -> list[Event]:
        s = state
        phase = s.phase
        if phase is OVER:
            raise IllegalAction("§5.3 end of game", "the game is over")
        if seat != (s.awards[0][0] if phase is FINAL_PLACEMENT else s.active):
            raise IllegalAction("§4.1 turn order", f"seat {seat} is not to move (seat {self.to_move(s)} is)")
        listed, s.listed = s.listed, None
        for a in listed if listed is not None and s.listed_seat == seat else ():
            if a is action:
                break
        else:
            if not self._is_legal(s, seat, action):
                raise self._refusal(s, seat, action)
        kind = action["type"]
        if kind == "take_money":
            return self._take_money(s, seat, action["cards"])
        if kind == "buy":
            return self._buy(s, seat, action["slot"], action["pay"])
        if kind == "place":
            return self._place(s, seat, action)
        if kind == "pass":
            return self._end_action(s, [{"type": "pass", "seat": seat}])
        return self._redesign(s, seat, action)

    def _is_legal(self, s: AlhambraState, seat: int, action: Any) -> bool:
        """``action in legal_actions(s, seat)`` up to interchangeable things, checked without the list.

        Identical money cards and reserve tiles of the same type and walls are interchangeable (§2,
        §9.2): the list names the lowest ids, and any other id of the same card or tile is accepted.
        """
        if type(action) is not dict:
            return False
        kind = action.get("type")
        if s.phase is not ACTION:
            if kind != "place":
                return False
            tiles = s.held if s.phase is PLACEMENT else s.awards[0][1]
            tile = action.get("tile")
            if type(tile) is not int or tile not in tiles:
                return False
            to = action.get("to")
            if to == "alhambra":
                x, y = action.get("x"), action.get("y")
                return (type(x) is int and type(y) is int and len(action) == 5 and geo.on_grid(x, y)
                        and geo.can_place(s.alhambras[seat], geo.cell(x, y), tile))
            if to == "reserve" or (to == "dirk" and s.n == 2 and s.phase is PLACEMENT):
                return len(action) == 3
            return False
        if kind == "take_money":
            cards = action.get("cards")
            market = s.money_market
            if (type(cards) is not list or len(action) != 2 or not all(type(c) is int and c in market for c in cards)
                    or len(set(cards)) != len(cards)):
                return False
            picks = take_picks(market)
            if tuple(market.index(c) for c in cards) in picks:
                return True  # exactly a listed action
            # else the listed pick of the same (currency, value) classes: the lowest market positions of each
            pick = []
            for k in sorted(set(c // 3 for c in cards)):
                pick.extend([i for i, c in enumerate(market) if c // 3 == k][:sum(c // 3 == k for c in cards)])
            return tuple(sorted(pick)) in picks
        if kind == "buy":
            slot = action.get("slot")
            if type(slot) is not int or not 1 <= slot <= 4 or s.market[slot - 1] is None or len(action) != 3:
                return False
            currency = SLOT_CURRENCY[slot]
            values = sorted((CARD_VALUE[c] for c in s.hands[seat] if CARD_CURRENCY[c] == currency), reverse=True)
            pay = action.get("pay")
            return type(pay) is list and tuple(pay) in payment_sets(values, TILE_PRICE[s.market[slot - 1]], s.all_payments)
        if kind == "pass":
            return not s.money_market and len(action) == 1
        tile = action.get("tile")
        alhambra = s.alhambras[seat]
        if kind == "redesign_remove":
            if len(action) != 2 or type(tile) is not int or tile == 0:
                return False
            return tile in self._removable_tiles(s, seat)
        if kind not in ("redesign_place", "redesign_swap") or type(tile) is not int or tile not in s.reserves[seat]:
            return False
        if kind == "redesign_place":
            x, y = action.get("x"), action.get("y")
            return (type(x) is int and type(y) is int and len(action) == 4 and geo.on_grid(x, y)
                    and geo.can_place(alhambra, geo.cell(x, y), tile))
        there = action.get("replaces")
        if len(action) != 3 or type(there) is not int or there == 0:
            return False
        c = _find_cell(alhambra, there)
        return c is not None and geo.can_swap(alhambra, c, tile)

    def _take_money(self, s: AlhambraState, seat: int, cards: list[int]) -> list[Event]:
        market = s.money_market
        for c in cards:
            market.remove(c)
        hand = s.hands[seat]
        hand.extend(cards)
        hand.sort()
        events = [{"type": "take_money", "seat": seat, "cards": list(cards)}]
        if s.held:  # _end_action without the call
            s.phase = PLACEMENT
        else:
            self._end_of_turn(s, events)
        return events

    def _buy(self, s: AlhambraState, seat: int, slot: int, pay: list[int]) -> list[Event]:
        currency = SLOT_CURRENCY[slot]
        hand = s.hands[seat]
        paid = []
        for value in pay:
            base = 27 * currency + 3 * (value - 1)  # lowest id of that (currency, value) first
            for card in hand:
                if base <= card < base + 3:
                    hand.remove(card)
                    paid.append(card)
                    break
        s.discard.extend(paid)
        tile = s.market[slot - 1]
        s.market[slot - 1] = None
        s.held.append(tile)
        exact = sum(pay) == TILE_PRICE[tile]
        events = [{"type": "buy", "seat": seat, "slot": slot, "tile": tile, "paid": paid, "exact": exact}]
        if exact:
            return events  # §4.1: an exact payment gives another action
        return self._end_action(s, events)

    def _redesign(self, s: AlhambraState, seat: int, action: Action) -> list[Event]:
        kind = action["type"]
        tile = action["tile"]
        alhambra = s.alhambras[seat]
        reserve = s.reserves[seat]
        if kind == "redesign_place":
            reserve.remove(tile)
            c = (action["x"] + geo.OFFSET) * geo.STRIDE + action["y"] + geo.OFFSET  # geo.cell without the call
            c = geo.CELLS[c] if 0 <= c < len(geo.CELLS) else c  # geo.cell_key without the call
            alhambra[c] = tile
            s.changed(seat, c, None, tile)
        elif kind == "redesign_remove":
            c = self._tile_cell(s, seat, tile)
            del alhambra[c]
            reserve.append(tile)
            s.changed(seat, c, tile, None)
        else:
            old = action["replaces"]
            c = self._tile_cell(s, seat, old)
            reserve.remove(tile)
            reserve.append(old)
            alhambra[c] = tile
            s.changed(seat, c, old, tile)
        reserve.sort()
        event = dict(action)
        event["seat"] = seat
        events = [event]
        if s.held:  # _end_action without the call
            s.phase = PLACEMENT
        else:
            self._end_of_turn(s, events)
        return events

    @staticmethod
    def _tile_cell(s: AlhambraState, seat: int, tile: int) -> int:
        """The cell of a tile of a seat's Alhambra."""
        cache = s.cache[seat]
        if cache is not None:
            return cache.where[tile]
        return _cell_of(s.alhambras[seat], tile)

    def _place(self, s: AlhambraState, seat: int, action: Action) -> list[Event]:
        tile = action["tile"]
        to = action["to"]
        if to == "alhambra":
            c = (action["x"] + geo.OFFSET) * geo.STRIDE + action["y"] + geo.OFFSET  # geo.cell without the call
            c = geo.CELLS[c] if 0 <= c < len(geo.CELLS) else c  # geo.cell_key without the call
            s.alhambras[seat][c] = tile
            s.changed(seat, c, None, tile)
        elif to == "reserve":
            s.reserves[seat].append(tile)
            s.reserves[seat].sort()
        else:
            s.dirk.append(tile)
        event = dict(action)
        event["seat"] = seat
        events = [event]
        if s.phase is PLACEMENT:
            s.held.remove(tile)
            if not s.held:
                self._end_of_turn(s, events)
        else:
            award = s.awards[0]
            award[1].remove(tile)
            if not award[1]:
                s.awards.pop(0)
                if not s.awards:
                    self._finish(s, events)
        return events

    def _end_action(self, s: AlhambraState, events: list[Event]) -> list[Event]:
        """The action phase is over: placement of held tiles, or straight to the end of the turn."""
        if s.held:
            s.phase = PLACEMENT
        else:
            self._end_of_turn(s, events)
        return events

    # ------------------------------------------------------------------------------ end of turn
    def _draw_money(self, s: AlhambraState, events: list[Event]) -> int | None:
        """The next card of the deck (§4.1 step 3.1), reshuffling the discard pile when needed."""
        if not s.deck:
            if not s.discard:
                return None
            s.deck = s.discard
            s.discard = []
            s.rng.shuffle(s.deck)
            events.append({"type": "reshuffle", "cards": len(s.deck)})
        return s.deck.pop(0)

    def _end_of_turn(self, s: AlhambraState, events: list[Event]) -> None:
        """§4.1 step 3: refill money, refill buildings, resolve scoring, next seat or game end."""
        market = s.money_market
        drawn = []
        while len(market) < MARKET_MONEY:
            card = s.deck.pop(0) if s.deck else self._draw_money(s, events)
            if card is None:
                break
            if card >= SCORING_A:
                r = 1 if card == SCORING_A else 2
                s.pending.append(r)
                events.append({"type": "scoring_card", "round": r})
                continue
            market.append(card)
            drawn.append(card)
        if drawn:  # takes keep the market sorted: only drawn cards unsort it
            market.sort()
        filled = {}
        if not all(s.market):  # some slot is None (tile ids are 1-54): cheaper than ``None in``, no comparisons
            for i in range(4):
                if s.market[i] is None:
                    if s.bag:
                        s.market[i] = s.bag.pop(0)
                        filled[str(i + 1)] = s.market[i]
                    else:
                        s.game_end = True
        events.append({"type": "refill", "money": drawn, "buildings": filled})
        if s.pending:
            for r in sorted(s.pending):
                self._score(s, r, events)
            s.pending = []
        s.turn += 1
        s.phase = ACTION
        if s.game_end or s.turn >= s.max_turns:
            s.ended_by = "bag" if s.game_end else "max_turns"
            self._game_end(s, events)
        else:
            active = s.active + 1  # not % s.n: Python 3.11 does not specialize %
            s.active = active if active < s.n else 0

    def _score(self, s: AlhambraState, r: int, events: list[Event]) -> None:
        """§5.1 scoring round ``r``: majorities per type (Dirk included), then walls for seats."""
        gained, dirk_gained, walls = score_round(r, [self.type_counts(s.alhambras[i]) for i in range(s.n)],
                                                 building_counts(s.dirk) if s.dirk is not None else None,
                                                 [self.longest_wall(s, i) for i in range(s.n)])
        for i in range(s.n):
            s.scores[i] += gained[i]
        s.dirk_score += dirk_gained
        s.scoring_done.append(r)
        event: Event = {"type": "scoring", "round": r, "points": gained, "walls": walls}
        if s.dirk is not None:
            event["dirk"] = dirk_gained
            # §6: Dirk's tiles after rounds 1 and 2 (bag counted after this turn's refill); with fewer
            # than 6 in the bag after round 1 he takes them all [HOUSE]
            take = min(DIRK_ROUND1_TILES, len(s.bag)) if r == 1 else (len(s.bag) // 3 if r == 2 else 0)
            new = s.bag[:take]
            del s.bag[:take]
            s.dirk.extend(new)
            event["dirk_tiles"] = new
        events.append(event)

    def _game_end(self, s: AlhambraState, events: list[Event]) -> None:
        """§5.3: leftover market tiles to the richest seat in each currency, final placement, round 3."""
        gifts: dict[int, list[int]] = {}
        for i in range(4):
            tile = s.market[i]
            if tile is None:
                continue
            currency = SLOT_CURRENCY[i + 1]
            totals = [sum(CARD_VALUE[c] for c in h if CARD_CURRENCY[c] == currency) for h in s.hands]
            top = max(totals)
            if totals.count(top) == 1:
                seat = totals.index(top)
                s.market[i] = None
                gifts.setdefault(seat, []).append(tile)
                events.append({"type": "award", "slot": i + 1, "tile": tile, "seat": seat})
        order = [(s.active + 1 + k) % s.n for k in range(s.n)]
        s.awards = [[seat, gifts[seat]] for seat in order if seat in gifts]
        if s.awards:
            s.phase = FINAL_PLACEMENT
        else:
            self._finish(s, events)

    def _finish(self, s: AlhambraState, events: list[Event]) -> None:
        self._score(s, 3, events)
        s.phase = OVER
        events.append({"type": "game_over", "scores": list(s.scores)})

    # ------------------------------------------------------------------------------ derived facts
    @staticmethod
    def type_counts(alhambra: dict[int, int]) -> list[int]:
        """Buildings per type id (index 0 unused) in an Alhambra."""
        return building_counts(alhambra.values())

    def _removable_tiles(self, s: AlhambraState, seat: int) -> list[int]:
        """The tiles of a seat's Alhambra that may go to its reserve, in cell order."""
        cache = s.seat_cache(seat)
        if cache.removable is None:
            self._removal_facts(s, seat, cache)
        return [act["tile"] for act in cache.removable]

    @staticmethod
    def _removal_facts(s: AlhambraState, seat: int, cache: SeatCache) -> None:
        """Fill ``cache.removable`` (R1, R2): the remove actions of the removable tiles, in cell order."""
        alhambra = s.alhambras[seat]
        codes = cache.codes
        cells = cache.cells
        cache.removable = removable = []
        # plain loops: a few cells, where map/zip objects cost more than they save
        if cache.connected and cache.edges == len(cells):
            # the passages form a tree (n - 1 of them): the tiles with 2+ passages are the cut tiles
            leaf = geo.LEAF
            for c in cells:
                if leaf[codes[c]]:
                    removable.append(_REMOVE[alhambra[c]])
            return
        if cache.cut is None:
            cache.cut = geo.cut_cells(alhambra, codes)
            cache.connected = cache.cut is not None
        cut = cache.cut
        if cut is None:
            cache.removable = [_REMOVE[alhambra[c]] for c in geo.removable(alhambra, codes, cut)]
        else:
            for c in cells:
                if c not in cut and codes[c] & 15 != 15:
                    removable.append(_REMOVE[alhambra[c]])

    def longest_wall(self, s: AlhambraState, seat: int) -> int:
        """The length of ``seat``'s longest outer wall (§5.2), kept until its Alhambra changes."""
        cache = s.seat_cache(seat)
        if cache.longest_wall is None:
            cache.longest_wall = geo.longest_wall(s.alhambras[seat])
        return cache.longest_wall

    # ------------------------------------------------------------------------------ refusals
    def _refusal(self, s: AlhambraState, seat: int, action: Any) -> IllegalAction:
        """The most specific rule an action outside the legal list breaks."""
        kind = action.get("type") if isinstance(action, dict) else None
        if kind not in ("take_money", "buy", "redesign_place", "redesign_remove", "redesign_swap", "place", "pass"):
            return IllegalAction("§9.2 actions", f"unknown action {action!r}")
        if s.phase is not ACTION and kind != "place":
            return IllegalAction("§4.1 phases", f"{kind} is not allowed in the {s.phase} phase: place the held tiles")
        if s.phase is ACTION and kind == "place":
            return IllegalAction("§4.1 phases", "tiles are placed only at the end of the turn (placement phase)")
        if kind == "take_money":
            return IllegalAction("§4.2 take money", "take one card, or several whose values add up to at most 5, "
                                 f"from the money market {s.money_market}")
        if kind == "buy":
            return IllegalAction("§4.3 buy", "pay a tile on the market with cards of its slot's currency, at least its "
                                 "price, no card more than needed")
        if kind == "pass":
            return IllegalAction("§4.5 pass", "pass is allowed only when the money market is empty")
        if kind == "redesign_remove":
            return IllegalAction("§4.6 removing", "that tile cannot be removed (fountain, hole or unreachable tiles)")
        if kind == "redesign_swap":
            return IllegalAction("§4.6 swapping", "the reserve tile does not match that cell's neighbours")
        if kind == "place" and action.get("to") == "dirk":
            return IllegalAction("§6 two players", "only a bought tile in a 2-player game may go to Dirk")
        tile = action.get("tile")
        mine = s.reserves[seat] if kind == "redesign_place" else (s.held if s.phase is PLACEMENT else s.awards[0][1])
        if tile not in mine:
            where = "reserve" if kind == "redesign_place" else "held tiles"
            return IllegalAction("§4.4 redesign" if kind == "redesign_place" else "§4.1 placement",
                                 f"tile {tile} is not among your {where}")
        return IllegalAction("§4.6 placing", "that cell breaks the building rules (contact, matching sides, "
                             "reachability from the fountain, no holes)")

    # ------------------------------------------------------------------------------ views
    def tables(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Tiles, money cards, slot currencies and points (§2), sent once in ``start``."""
        return F.tables(num_players, options)

    def observe(self, state: AlhambraState, seat: int | None) -> Observation:
        s = state
        players = []
        for i in range(s.n):
            counts = self.type_counts(s.alhambras[i])
            p: dict[str, Any] = {
                "seat": i,
                "score": s.scores[i],
                "alhambra": _tiles_out(s.alhambras[i]),
                "reserve": list(s.reserves[i]),
                "hand_count": len(s.hands[i]),
                "longest_wall": self.longest_wall(s, i),
                "type_counts": counts[1:],
            }
            if i == seat or s.open_money:
                p["hand"] = list(s.hands[i])
            players.append(p)
        obs: Observation = {
            "seat": seat,
            "n_seats": s.n,
            "phase": s.phase,
            "active_seat": s.active,
            "to_move": self.to_move(s),
            "turn_number": s.turn,
            "max_turns": s.max_turns,
            "building_market": {str(i + 1): s.market[i] for i in range(4)},
            "money_market": list(s.money_market),
            "bag_count": len(s.bag),
            "deck_count": len(s.deck),
            "discard": list(s.discard),
            "scoring_done": list(s.scoring_done),
            "players": players,
            "held_this_turn": list(s.held),
            "awarded_to_place": [[seat_, list(t)] for seat_, t in s.awards],
        }
        if s.dirk is not None:
            obs["dirk"] = {"tiles": sorted(s.dirk), "score": s.dirk_score,
                           "type_counts": building_counts(s.dirk)[1:]}
        return obs

    def outcome(self, state: AlhambraState) -> Outcome:
        s = state
        detail: dict[str, Any] = {
            "turns": s.turn,
            "ended_by": s.ended_by,
            "longest_wall": [self.longest_wall(s, i) for i in range(s.n)],
            "scoring_rounds": list(s.scoring_done),
        }
        if s.dirk is not None:
            detail["dirk_score"] = s.dirk_score
        return Outcome(ranks_from_keys(s.scores), [float(x) for x in s.scores], detail)

    def describe_action(self, action: Action) -> str:
        """Short human text for an action: money taken and a buy's payment in words, others as the default."""
        kind = action.get("type")
        if kind == "take_money":
            return "take " + ", ".join(_card_text(c) for c in action["cards"])
        if kind == "buy":
            cur = CURRENCY_NAMES[SLOT_CURRENCY[action["slot"]]]
            return f"buy slot {action['slot']} paying {'+'.join(map(str, action['pay']))} {cur}"
        return super().describe_action(action)


# ---------------------------------------------------------------------------------- helpers
# The shared action dicts of the legal lists (see the module docstring).
_REMOVE = REMOVE
_SWAP: tuple[tuple[Action, ...], ...] = tuple(
    tuple({"type": "redesign_swap", "tile": t, "replaces": r} for r in range(55)) for t in range(55))
_TO_RESERVE: tuple[Action, ...] = tuple({"type": "place", "tile": t, "to": "reserve"} for t in range(55))
_TO_DIRK: tuple[Action, ...] = tuple({"type": "place", "tile": t, "to": "dirk"} for t in range(55))


class _CellActions(dict):
    """cell -> the action putting one tile on that cell (a template plus x, y), built on first use."""

    __slots__ = ("template",)

    def __init__(self, template: Action) -> None:
        super().__init__()
        self.template = template

    def __missing__(self, c: int) -> Action:
        x, y = c // geo.STRIDE - geo.OFFSET, c % geo.STRIDE - geo.OFFSET  # geo.xy without the call
        act = self[c] = {**self.template, "x": x, "y": y}
        return act


# tile -> cell -> the action
_REDESIGN_PLACE: tuple[_CellActions, ...] = tuple(
    _CellActions({"type": "redesign_place", "tile": t}) for t in range(55))
_PLACE: tuple[_CellActions, ...] = tuple(
    _CellActions({"type": "place", "tile": t, "to": "alhambra"}) for t in range(55))

_TILE_KIND: tuple[int, ...] = tuple(16 * TILE_TYPE[t] + TILE_WALLS[t] for t in range(55))  # (type, walls) as one int


def _cell_of(alhambra: dict[int, int], tile: int) -> int:
    c = _find_cell(alhambra, tile)
    if c is None:
        raise KeyError(tile)
    return c


def _find_cell(alhambra: dict[int, int], tile: int) -> int | None:
    for c, t in alhambra.items():
        if t == tile:
            return c
    return None


def _card_text(card: int) -> str:
    return f"{CURRENCY_NAMES[CARD_CURRENCY[card]]} {CARD_VALUE[card]}"
