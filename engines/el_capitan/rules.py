"""El Capitán rules engine (rules file: el_capitan.md): the ``ElCapitan`` game, which sets up, lists
the legal actions (§9.2), applies them with their effects, pays (§5) and observes (§7, §9.1).

It coordinates the modules below it: ``tables`` (derived card and board tables, the shared action
dicts), ``state`` (the state and its encodings), ``board`` (board helpers) and ``deadend`` (the
dead-end filter of §9.3).
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from engines.core import Action, Event, Game, IllegalAction, Observation, Outcome, ranks_from_keys
from engines.el_capitan import fields as F

from . import data
from .board import (
    arrival_slot, city_value, colour_supply_ok, fortress_price, has_pictured, loans_left, main_cities, net_worth,
    next_sites, payday_income, reopen_options, warehouse_options,
)
from .deadend import KEEP_NEEDS, MAIN_ACTIONS, SHIP_ONLY, city_built, harbours_changed, seat_finisher
from .state import BANK, CHOOSE, OFFBOARD, OVER, POST, PRE, SETTLE, ECState
from .tables import (
    BUY, CARD_IDS, CARD_INDEX, CARD_PRICE, CHOOSE_ACTS, CITY_IDS, CITY_INDEX, DEST_CITY, DISPLAY_DESTINATION,
    DISPLAY_LINK, END_TURN_ACT, FORTRESS_ACT, FORTRESS_PRICE, HARBOR_PRICE, INF, LINK_PAIR, LOAN_ACTS, LOAN_AMOUNT,
    LOAN_LARGE, LOAN_REPAY, LOAN_REPAY_EXT, LOAN_SMALL, MIN_PRICE, MOVES, NCARD, NCITY, NDEST, NLOAN, PASS_ACT,
    REOPEN_ACTS, ROUND_CAP, ROUTES, SAIL, SAIL_ROUTE, SETTLE_ACTS, SHUT_SITES, WAREHOUSE_ACTS, WAREHOUSE_VIEW,
)


# --- the game --------------------------------------------------------------------------------

class ElCapitan(Game):
    """El Capitán for 2-5 players (el_capitan.md)."""

    id = "el_capitan"
    name = "El Capitán"
    min_players = 2
    max_players = 5
    observation_fields = F.OBSERVATION_FIELDS
    action_fields = F.ACTION_FIELDS
    table_fields = F.TABLE_FIELDS
    field_samples = F.FIELD_SAMPLES
    rules_brief = F.RULES_BRIEF
    # No options. 2 players play with neutral warehouses (§6.2): a preset of their own.
    rated_presets = {"standard": {}, "two_players": {}}
    rated_preset_players = {"standard": (3, 4, 5), "two_players": (2,)}

    # --- setup -----------------------------------------------------------------------------
    def setup(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> ECState:
        """A new game (§3): 20 Fl each, ships off the board, shuffled decks, random start player."""
        self.check_players(num_players)
        self.options(options)
        n = num_players
        st = ECState()
        st.n = n
        st.rng = rng = random.Random(seed)
        st.phase, st.round = 1, 1
        st.step, st.carded, st.moved = PRE, False, False
        st.first_turn = [True] * n
        st.money = [data.STARTING_MONEY] * n
        st.loc = [OFFBOARD] * n
        st.harbor = [-1] * n
        st.hand = [[] for _ in range(n)]
        st.sup_wh = [data.PHASE_WAREHOUSES] * n
        st.sup_neu = [data.PHASE_NEUTRAL_2P if n == 2 else 0] * n
        st.sup_fort = [data.PHASE_FORTRESSES] * n
        st.loan_owner = [-1] * NLOAN
        st.loan_ext = [False] * NLOAN
        st.bonus = [0] * n
        st.bonus_left = list(data.BONUS_CARDS)
        st.sites = [[-1] * 13 for _ in range(NCITY)]
        st.pictured = [[] for _ in range(NCITY)]
        st.forts = [[-1, -1] for _ in range(NCITY)]
        st.harb = [[-1, -1] for _ in range(NCITY)]
        st.pending1 = [False] * NCITY
        st.built = [False] * NCITY
        st.reverse = [False] * NCITY
        st.draw_d = list(range(NDEST))
        st.draw_l = list(range(NDEST, len(CARD_IDS)))
        rng.shuffle(st.draw_d)
        rng.shuffle(st.draw_l)
        st.disc_d, st.disc_l = [], []
        st.disp_d = [st.draw_d.pop() for _ in range(data.DISPLAY_DESTINATION)]
        st.disp_l = [st.draw_l.pop() for _ in range(data.DISPLAY_LINK)]
        st.start = rng.randrange(n)  # stands for "the youngest player" (§3, §10 #15)
        st.cur = st.start
        st.phase_end_pending = False
        st.settle = []
        st.chooser = -1
        st.version = 0
        st.cache = None
        st.shut = SHUT_SITES[n]
        st.history = []
        st.maxocc = [0] * NCITY
        st.obs_cache = None
        st.need_cache = None
        return st

    def clone(self, state: ECState) -> ECState:
        return state.copy()

    def to_move(self, state: ECState) -> int | None:
        step = state.step
        if step == PRE or step == POST:
            return state.cur
        if step == SETTLE:
            return state.settle[0][0]
        if step == CHOOSE:
            return state.chooser
        return None

    # --- legal actions -----------------------------------------------------------------------
    def legal_actions(self, state: ECState, seat: int) -> list[Action]:
        """Every legal action of ``seat`` in canonical order (empty if it is not to move)."""
        st = state
        cache = st.cache
        if cache is not None and cache[0] == st.version and cache[1] == seat:
            return list(cache[2])
        acts = self._legal(st, seat)
        st.cache = (st.version, seat, acts)
        return list(acts)

    def _legal(self, st: ECState, seat: int) -> list[Action]:
        step = st.step
        if step != PRE and step != POST:  # to_move's other cases
            if step == SETTLE:
                p, li = st.settle[0]
                return self._settle_acts(st, li) if p == seat else []
            if step == CHOOSE and st.chooser == seat:
                return list(CHOOSE_ACTS[:st.n])
            return []
        if st.cur != seat:
            return []
        p = seat
        money = st.money[p]
        acts: list[Action] = []
        if step == POST:
            cands = []
            for k in st.disp_d + st.disp_l:
                if CARD_PRICE[k] <= money:
                    cands.append(k)
            cands.sort()  # card order (the ids sort as the indexes do)
            for k in cands:
                acts.append(BUY[k])
            acts.append(END_TURN_ACT)
            return acts
        # pre-action: buys and sails only if the turn can still be finished afterwards (§9.3)
        loc = st.loc[p]
        if money < MIN_PRICE and not has_pictured(st, p):
            # Every main action but reopening costs >= MIN_PRICE and nothing is there to reopen, so
            # no buy, sail or main action can be played: only a loan, else pass (§6.4). The same
            # list as the full path below gives (the commonest case of a random game's late turns).
            if not st.first_turn[p] and not st.carded:
                small, large = loans_left(st)
                if small:
                    acts.append(LOAN_ACTS[0])
                if large:
                    acts.append(LOAN_ACTS[1])
            return acts or [PASS_ACT]
        hand = st.hand[p]
        disp = st.disp_d + st.disp_l
        cands = []
        for k in disp:
            if CARD_PRICE[k] <= money:
                cands.append(k)
        fin = None
        if cands or hand:
            fin = seat_finisher(st, p, disp)
            need = fin.need
        lp = loc + 2
        if cands:
            # can()'s quick answers first: no main action affordable at all, or a main action
            # where the ship lies, or one more move affords one (with a hand card, another display
            # card or the card bought); reach_row's work inlined
            row = fin.reach[lp]
            if row is None:
                row = fin.reach[lp] = [None] * NCARD
            quick = fin.stay_need(loc, st.harbor[p]) if loc >= 0 else INF
            for k in hand:
                m = row[k]
                if m is None:
                    m = INF
                    for b in MOVES[k][lp]:
                        if need[b] < m:
                            m = need[b]
                    row[k] = m
                if m < quick:
                    quick = m
            floor = fin.min_need
            best_display = second_display = INF  # the two least price + need by a display card
            best_card = -1
            for k in disp:
                m = row[k]
                if m is None:
                    m = INF
                    for b in MOVES[k][lp]:
                        if need[b] < m:
                            m = need[b]
                    row[k] = m
                tot = m + CARD_PRICE[k]
                if tot < second_display:
                    if tot < best_display:
                        best_display, second_display, best_card = tot, best_display, k
                    else:
                        second_display = tot
            cands.sort()  # card order (the ids sort as the indexes do)
            for k in cands:
                left = money - CARD_PRICE[k]
                if (quick <= left or (floor <= left and (
                        (best_display if k != best_card else second_display) <= left
                        or row[k] <= left or fin.then_hand(loc, k, left) or fin.buy_plan(loc, left, k)))):
                    acts.append(BUY[k])
        for k in hand:
            if k < NDEST:
                x = DEST_CITY[k]
                if x != loc and (need[x] <= money or fin.can(x, money, k)):
                    acts.append(SAIL[k])
                if loc >= 0:
                    route = SAIL_ROUTE[k]
                    for b in ROUTES[k][loc]:
                        if need[b] <= money or fin.can(b, money, k):
                            acts.append(route[b])
            else:
                moves = MOVES[k][lp]  # an interconnection card: one move at most
                if moves:
                    b = moves[0]
                    if need[b] <= money or fin.can(b, money, k):
                        acts.append(SAIL[k])
        if loc >= 0 and st.harbor[p] >= 0:
            # The stay need is the least price of a main action here (0: a free reopen, listed even
            # with negative money): above the money, there is none to list.
            stay = fin.stay_need(loc, st.harbor[p]) if fin is not None else 0
            if stay == 0 or stay <= money:
                acts += self._main_actions(st, p, loc)
        if not st.first_turn[p] and not st.carded:
            small, large = loans_left(st)
            if small:
                acts.append(LOAN_ACTS[0])
            if large:
                acts.append(LOAN_ACTS[1])
        if not acts:
            acts.append(PASS_ACT)  # §6.4 safeguard
        return acts

    def _main_actions(self, st: ECState, p: int, c: int) -> list[Action]:
        acts: list[Action] = []
        money = st.money[p]
        two = st.n == 2
        price = HARBOR_PRICE[c][st.harbor[p]]
        if price <= money and (st.sup_wh[p] or st.sup_neu[p]):
            empty = not st.built[c]
            for site, neutral in warehouse_options(st, p, c):
                acts.append(WAREHOUSE_ACTS[site if empty else 0][1 + neutral if two else 0])
        codes = reopen_options(st, p, c)
        if codes:
            if two and len({code for code in st.pictured[c] if code >> 1 == p}) == 2:
                for code in codes:
                    acts.append(REOPEN_ACTS[1 + (code & 1)])
            else:
                acts.append(REOPEN_ACTS[0])
        if fortress_price(st, p, c) <= money:
            acts.append(FORTRESS_ACT)
        return acts

    def _settle_acts(self, st: ECState, li: int) -> list[Action]:
        """§5.2: repay or extend at paydays 1-2; repay only if extended or at payday 3."""
        repay, extend = SETTLE_ACTS[0][li], SETTLE_ACTS[1][li]
        if st.phase == data.NUM_PHASES or st.loan_ext[li]:
            return [repay]
        p = st.loan_owner[li]
        if st.money[p] >= LOAN_REPAY[li]:
            return [repay, extend]
        return [extend]

    # --- apply ---------------------------------------------------------------------------------
    def apply(self, state: ECState, seat: int, action: Action) -> list[Event]:
        """Validate ``action`` against the legal list (refusals name the rule) and play it."""
        st = state
        cache = st.cache
        if cache is not None and cache[0] == st.version and cache[1] == seat:
            ok = action in cache[2]
        else:
            ok = self._is_legal(st, seat, action)  # replays: no need to build the whole list
        if not ok:
            rule, msg = self._diagnose(st, seat, action)
            raise IllegalAction(rule, msg)
        st.version += 1
        st.cache = None
        t = action["type"]
        needs = st.need_cache
        if needs is not None:
            if t in KEEP_NEEDS:  # the commonest case
                if t == "repay":
                    needs.pop("loans", None)
            elif t in SHIP_ONLY:  # the harbours change where the ship leaves and arrives (sail: below)
                if t == "loan":
                    loc = st.loc[seat]
                    if loc >= 0 and st.harbor[seat] >= 0:
                        harbours_changed(needs, seat, 1 << loc)
                    needs.pop("loans", None)
            elif t not in MAIN_ACTIONS:  # a main action: see _after_main
                st.need_cache = None
        p = seat
        ev: list[Event] = []
        if t == "pass":  # the commonest action of random self-play once the loan cards are gone
            ev.append({"type": "pass", "seat": p})
            self._end_turn(st, ev)
        elif t == "buy":
            k = CARD_INDEX[action["card"]]
            if k < NDEST:
                st.disp_d.remove(k)
            else:
                st.disp_l.remove(k)
            st.money[p] -= CARD_PRICE[k]
            st.hand[p].append(k)
            st.hand[p].sort()
            if st.step == PRE:
                st.carded = True
            ev.append({"type": "buy", "seat": p, "card": action["card"], "price": CARD_PRICE[k]})
        elif t == "sail":
            k = CARD_INDEX[action["card"]]
            loc = st.loc[p]
            if k < NDEST:
                to = DEST_CITY[k] if action["mode"] == "destination" else CITY_INDEX[action["to"]]
                st.disc_d.append(k)
            else:
                a, b = LINK_PAIR[k - NDEST]
                to = b if loc == a else a
                st.disc_l.append(k)
            st.hand[p].remove(k)
            changed = 1 << loc if loc >= 0 and st.harbor[p] >= 0 else 0  # the harbours left and reached
            self._leave(st, p)
            st.loc[p] = to
            slot = arrival_slot(st, p, to)
            if slot >= 0:
                st.harb[to][slot] = p
                changed |= 1 << to
            if changed and needs is not None:
                harbours_changed(needs, p, changed)
            st.harbor[p] = slot
            st.moved = st.carded = True
            ev.append({"type": "sail", "seat": p, "card": action["card"], "to": CITY_IDS[to],
                       "harbor": slot + 1 if slot >= 0 else None})
        elif t == "build_warehouse":
            c = st.loc[p]
            neutral = 1 if action.get("color") == "neutral" else 0
            site = action.get("site") or next_sites(st, c)[0]
            price = HARBOR_PRICE[c][st.harbor[p]]
            st.money[p] -= price
            if neutral:
                st.sup_neu[p] -= 1
            else:
                st.sup_wh[p] -= 1
            ev.append({"type": "build_warehouse", "seat": p, "city": CITY_IDS[c], "site": site,
                       "color": "neutral" if neutral else "main", "price": price})
            self._place(st, p, c, site, p * 2 + neutral, ev)
            self._after_main(st, p)
        elif t == "reopen":
            c = st.loc[p]
            codes = reopen_options(st, p, c)
            code = codes[0]
            if "color" in action:
                code = p * 2 + (1 if action["color"] == "neutral" else 0)
            st.pictured[c].remove(code)
            site = next_sites(st, c)[0]
            ev.append({"type": "reopen", "seat": p, "city": CITY_IDS[c], "site": site,
                       "color": "neutral" if code & 1 else "main"})
            self._place(st, p, c, site, code, ev)
            self._after_main(st, p)
        elif t == "build_fortress":
            c = st.loc[p]
            f = st.forts[c]
            slot = 0 if f[0] < 0 else 1
            price = FORTRESS_PRICE[c][slot]
            st.money[p] -= price
            f[slot] = p
            st.sup_fort[p] -= 1
            ev.append({"type": "build_fortress", "seat": p, "city": CITY_IDS[c], "fortress_site": slot + 1,
                       "price": price})
            self._after_main(st, p)
        elif t == "loan":
            ids = LOAN_SMALL if action["size"] == "small" else LOAN_LARGE
            li = next(i for i in ids if st.loan_owner[i] < 0)
            self._leave(st, p)
            st.loc[p] = BANK
            st.harbor[p] = -1
            st.loan_owner[li] = p
            st.loan_ext[li] = False
            st.money[p] += LOAN_AMOUNT[li]
            ev.append({"type": "loan", "seat": p, "loan": data.LOAN_IDS[li], "amount": LOAN_AMOUNT[li]})
            self._end_turn(st, ev)
        elif t == "end_turn":
            self._end_turn(st, ev)
        elif t in ("repay", "extend"):
            _, li = st.settle.pop(0)
            if t == "repay":
                due = LOAN_REPAY_EXT[li] if st.loan_ext[li] else LOAN_REPAY[li]
                st.money[p] -= due  # may go negative when compulsory (§5.2, §10 #8)
                st.loan_owner[li] = -1
                st.loan_ext[li] = False
                ev.append({"type": "repay", "seat": p, "loan": data.LOAN_IDS[li], "paid": due})
            else:
                st.loan_ext[li] = True
                ev.append({"type": "extend", "seat": p, "loan": data.LOAN_IDS[li]})
            if not st.settle:
                self._after_settle(st, ev)
        elif t == "choose_start":
            ev.append({"type": "choose_start", "seat": p, "start_player": action["seat"]})
            self._next_phase(st, action["seat"], ev)
        return ev

    def _is_legal(self, st: ECState, seat: int, a: Any) -> bool:
        """Exactly ``a in legal_actions(st, seat)``, checking only the one action."""
        if self.to_move(st) != seat or not isinstance(a, dict):
            return False
        if st.step != PRE and st.step != POST:
            return a in self._legal(st, seat)
        t = a.get("type")
        p = seat
        money = st.money[p]
        if t == "buy" or t == "sail":
            card = a.get("card")
            if not isinstance(card, str) or card not in CARD_INDEX:
                return False
            k = CARD_INDEX[card]
            if t == "buy":
                if a != BUY[k] or CARD_PRICE[k] > money:
                    return False
                if k not in st.disp_d and k not in st.disp_l:
                    return False
                if st.step == POST:
                    return True
            elif st.step == POST or k not in st.hand[p]:
                return False
            if money < MIN_PRICE and not has_pictured(st, p):
                return False
            loc = st.loc[p]
            fin = seat_finisher(st, p, st.disp_d + st.disp_l)
            if t == "buy":
                left = money - CARD_PRICE[k]
                stay_need = fin.stay_need(loc, st.harbor[p]) if loc >= 0 else INF
                return stay_need <= left or fin.can(loc, left, bought=k)
            if k < NDEST:
                mode = a.get("mode")
                if mode == "destination":
                    if a != SAIL[k]:
                        return False
                    b = DEST_CITY[k]
                    if b == loc:
                        return False
                elif mode == "route":
                    to = a.get("to")
                    if loc < 0 or not isinstance(to, str) or to not in CITY_INDEX:
                        return False
                    b = CITY_INDEX[to]
                    if a != SAIL_ROUTE[k][b] or b not in ROUTES[k][loc]:
                        return False
                else:
                    return False
            else:
                targets = MOVES[k][loc + 2]
                if not targets or a != SAIL[k]:
                    return False
                b = targets[0]
            return fin.need[b] <= money or fin.can(b, money, skip_hand=k)
        if st.step == POST:
            return a == END_TURN_ACT
        if t in ("build_warehouse", "reopen", "build_fortress"):
            loc = st.loc[p]
            return loc >= 0 and st.harbor[p] >= 0 and a in self._main_actions(st, p, loc)
        if t == "loan":
            if st.first_turn[p] or st.carded:
                return False
            if a == LOAN_ACTS[0]:
                return loans_left(st)[0]
            if a == LOAN_ACTS[1]:
                return loans_left(st)[1]
            return False
        if t == "pass":
            return a == PASS_ACT and self._legal(st, seat) == [a]
        return False

    def _diagnose(self, st: ECState, seat: int, action: Any) -> tuple[str, str]:
        """The rule an illegal action breaks, for the error message."""
        if not isinstance(action, dict) or "type" not in action:
            return "§9.2 actions", f"not an action: {action!r}"
        t = action["type"]
        if self.to_move(st) != seat:
            return "§4.1 turn order", f"seat {seat} is not to move"
        if st.step == SETTLE:
            return "§5.2 loans after payday", f"{t} is not a choice for the loan settled now"
        if st.step == CHOOSE:
            return "§5.3 financial check", f"choose a start seat 0..{st.n - 1}"
        p = seat
        if t == "loan":
            if st.first_turn[p]:
                return "§4.8 take a loan", "no loan in a player's first turn"
            if st.step == POST or st.carded:
                return "§4.8 take a loan", "a loan excludes buying, sailing and building in the same turn"
            return "§6.4 loan supply", "no loan card of that size is left"
        if t == "buy":
            k = CARD_INDEX.get(action.get("card"), -1)
            if k < 0 or k not in st.disp_d + st.disp_l:
                return "§4.3 buying sailing cards", "that card is not in the face-up display"
            if CARD_PRICE[k] > st.money[p]:
                return "§4.3 buying sailing cards", "not enough money for that card"
            return "§9.3 dead-end filter", "after this buy the turn could not be finished"
        if t == "sail":
            if st.step == POST:
                return "§4.4 sailing", "sailing is only allowed before the main action"
            k = CARD_INDEX.get(action.get("card"), -1)
            if k < 0 or k not in st.hand[p]:
                return "§4.4 sailing", "that card is not in the hand"
            if k >= NDEST and st.loc[p] not in LINK_PAIR[k - NDEST]:
                return "§4.4.1 card uses", "an interconnection card is played only from one of its cities"
            if k < NDEST and action.get("mode") == "route" and st.loc[p] < 0:
                return "§4.4.1 card uses", "from the bank or off the board only a destination card as destination"
            return "§4.4.1 card uses / §9.3 dead-end filter", "that sailing move is not allowed here"
        if t in ("build_warehouse", "reopen", "build_fortress"):
            if st.step == POST:
                return "§4.2 turn structure", "exactly one main action per turn"
            if st.loc[p] < 0 or st.harbor[p] < 0:
                return "§4.4.2 harbour spaces", "the ship is not anchored in a city"
            c = st.loc[p]
            if t == "build_fortress":
                return "§4.7 build a fortress", "no fortress site, supply, money, or one already in this city"
            if t == "reopen":
                return "§4.6 reopen", "no shut-down warehouse of yours can be reopened here"
            if not (st.sup_wh[p] or st.sup_neu[p]):
                return "§4.5 build a warehouse", "no warehouse left in supply"
            if HARBOR_PRICE[c][st.harbor[p]] > st.money[p]:
                return "§4.5 build a warehouse", "not enough money for the harbour price"
            if not next_sites(st, c):
                return "§4.5.2 next site", "every site of this city is taken"
            if st.n == 2 and action.get("color") in ("main", "neutral"):
                if not colour_supply_ok(st, p, 1 if action["color"] == "neutral" else 0):
                    return "§6.2.3 colour choice", "main warehouses in supply must outnumber neutral ones"
            if not warehouse_options(st, p, c):
                return "§4.5.3 row limit", "no more than three warehouses of one colour in a row"
            return "§4.5.2 next site", "give site 1 or 2 only in an empty city (and color with 2 players)"
        if t == "end_turn":
            return "§4.2 turn structure", "a turn ends only after its main action"
        if t == "pass":
            return "§6.4 no legal turn", "pass only when no turn can be finished"
        return "§9.2 actions", f"unknown or malformed action {action!r}"

    # --- effects ------------------------------------------------------------------------------
    def _leave(self, st: ECState, p: int) -> None:
        """The ship leaves its harbour space, which is free at once (§4.4.2)."""
        loc, slot = st.loc[p], st.harbor[p]
        if loc >= 0 and slot >= 0 and st.harb[loc][slot] == p:
            st.harb[loc][slot] = -1
        st.harbor[p] = -1

    def _place(self, st: ECState, p: int, c: int, site: int, code: int, ev: list[Event]) -> None:
        """Put a warehouse on ``site``; shut-down, bonus card (§4.5 effects 2-4)."""
        row = st.sites[c]
        if not st.built[c]:
            st.built[c] = True
            st.pending1[c] = site == 2
        elif st.pending1[c]:
            st.pending1[c] = False
        row[site] = code
        if site > st.maxocc[c]:
            st.maxocc[c] = site
        if site in st.shut[c]:
            assert not st.reverse[c], "data constraint: reverse building never lands on a shut-down site"
            for k in range(1, 13):
                if k != site and row[k] >= 0:
                    victim = row[k]
                    row[k] = -1
                    st.pictured[c].append(victim)
                    ev.append({"type": "shut_down", "city": CITY_IDS[c], "site": k, "seat": victim >> 1,
                               "color": "neutral" if victim & 1 else "main"})
                    break
        if row[12] >= 0:
            st.reverse[c] = True
        if st.bonus[p] == 0 and st.bonus_left and main_cities(st, p) == NCITY:
            st.bonus[p] = st.bonus_left.pop(0)
            ev.append({"type": "bonus_card", "seat": p, "value": st.bonus[p]})

    def _after_main(self, st: ECState, p: int) -> None:
        needs = st.need_cache
        if needs is not None:
            city_built(st, needs, p, st.loc[p])
        st.step = POST
        if st.sup_wh[p] + st.sup_neu[p] + st.sup_fort[p] == 0:
            st.phase_end_pending = True  # §4.11: the round is finished first

    def _refill(self, st: ECState, ev: list[Event]) -> None:
        """Refill both displays from the draw piles, reshuffling a discard pile when needed (§4.9)."""
        if len(st.disp_d) == data.DISPLAY_DESTINATION and len(st.disp_l) == data.DISPLAY_LINK:
            return
        for disp, draw, disc, size, kind in ((st.disp_d, st.draw_d, st.disc_d, data.DISPLAY_DESTINATION, "destination"),
                                             (st.disp_l, st.draw_l, st.disc_l, data.DISPLAY_LINK, "link")):
            drawn = []
            while len(disp) < size:
                if not draw:
                    if not disc:
                        break
                    draw.extend(disc)
                    disc.clear()
                    st.rng.shuffle(draw)
                    ev.append({"type": "reshuffle", "pile": kind, "cards": len(draw)})
                k = draw.pop()
                disp.append(k)
                drawn.append(CARD_IDS[k])
            if drawn:
                ev.append({"type": "refill", "pile": kind, "cards": drawn})

    def _end_turn(self, st: ECState, ev: list[Event]) -> None:
        p = st.cur
        if len(st.disp_d) != DISPLAY_DESTINATION or len(st.disp_l) != DISPLAY_LINK:
            self._refill(st, ev)
        st.first_turn[p] = False
        st.carded = st.moved = False
        last = (st.start - 1) % st.n
        if p == last and (st.phase_end_pending or st.round >= ROUND_CAP):
            self._payday(st, ev)
            return
        st.cur = (p + 1) % st.n
        if st.cur == st.start:
            st.round += 1
        st.step = PRE

    def _payday(self, st: ECState, ev: list[Event]) -> None:
        """Pay everyone at once (§5.1), then queue the loan decisions (§5.2)."""
        inc = payday_income(st)
        for p in range(st.n):
            st.money[p] += sum(inc[p].values())
        ev.append({"type": "payday", "phase": st.phase, "income": inc, "money": list(st.money)})
        st.history.append({"phase": st.phase, "income": inc})
        st.settle = []
        for i in range(st.n):
            p = (st.start + i) % st.n
            for li in range(NLOAN):
                if st.loan_owner[li] == p:
                    st.settle.append((p, li))
        st.cur = -1
        if st.settle:
            st.step = SETTLE
        else:
            self._after_settle(st, ev)

    def _after_settle(self, st: ECState, ev: list[Event]) -> None:
        if st.phase == data.NUM_PHASES:
            st.step = OVER
            ev.append({"type": "game_over", "money": list(st.money)})
            return
        # §5.3: the poorest net worth chooses; ties: first clockwise from the start player
        order = [(st.start + i) % st.n for i in range(st.n)]
        worth = {p: net_worth(st, p) for p in order}
        low = min(worth.values())
        st.chooser = next(p for p in order if worth[p] == low)
        ev.append({"type": "financial_check", "net_worth": [worth[p] for p in range(st.n)], "chooser": st.chooser})
        st.step = CHOOSE

    def _next_phase(self, st: ECState, start: int, ev: list[Event]) -> None:
        """§5.4: new pieces, the chosen start player, phase + 1."""
        for p in range(st.n):
            st.sup_wh[p] += data.PHASE_WAREHOUSES
            st.sup_fort[p] += data.PHASE_FORTRESSES
            if st.n == 2:
                st.sup_neu[p] += data.PHASE_NEUTRAL_2P
        st.phase += 1
        st.round = 1
        st.start = st.cur = start
        st.chooser = -1
        st.phase_end_pending = False
        st.step = PRE
        st.carded = st.moved = False
        ev.append({"type": "phase_start", "phase": st.phase, "start_player": start})

    # --- observation and outcome --------------------------------------------------------------
    def tables(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Sailing cards, cities, loans and the proliferation chart (§2), sent once in ``start``."""
        return F.tables(num_players, options)

    def observe(self, state: ECState, seat: int | None) -> Observation:
        """The same public view for every seat (§7, §9.1): only the draw-pile order is hidden.

        Built once per state version and shared between seats (a fresh top-level dict each call);
        callers must not mutate nested parts."""
        st = state
        cached = st.obs_cache
        if cached is None or cached[0] != st.version:
            cached = st.obs_cache = (st.version, self._observe(st))
        return dict(cached[1])

    def _observe(self, st: ECState) -> Observation:
        n = st.n
        to_move = self.to_move(st)
        players = []
        for p in range(n):
            loc = st.loc[p]
            at = "OFFBOARD" if loc == OFFBOARD else "BANK" if loc == BANK else CITY_IDS[loc]
            loans = []
            for li in range(NLOAN):
                if st.loan_owner[li] == p:
                    ext = st.loan_ext[li]
                    loans.append({"id": data.LOAN_IDS[li], "size": data.LOAN_SIZE[li], "extended": ext,
                                  "due": LOAN_REPAY_EXT[li] if ext else LOAN_REPAY[li]})
            players.append({
                "seat": p, "money": st.money[p],
                "ship": {"at": at, "harbor": st.harbor[p] + 1 if loc >= 0 and st.harbor[p] >= 0 else None,
                         "moved_this_turn": bool(st.moved and p == st.cur)},
                "hand": [CARD_IDS[k] for k in st.hand[p]],
                "supply": {"warehouses": st.sup_wh[p], "fortresses": st.sup_fort[p], "neutral": st.sup_neu[p]},
                "loans": loans, "bonus_card": st.bonus[p] or None,
                "first_turn": st.first_turn[p],
            })
        cities = {}
        wh = WAREHOUSE_VIEW
        for c in range(NCITY):
            cities[CITY_IDS[c]] = {
                "sites": [wh[code] if code >= 0 else None for code in st.sites[c][1:]],
                "pictured": [wh[code] for code in st.pictured[c]],
                "fortresses": [f if f >= 0 else None for f in st.forts[c]],
                "harbor": [h if h >= 0 else None for h in st.harb[c]],
                "site1_pending": st.pending1[c], "reverse": st.reverse[c], "value_now": city_value(st, c),
            }
        obs: Observation = {
            "phase": st.phase, "round": st.round, "start_player": st.start, "to_move": to_move,
            "turn_step": st.step, "phase_end_pending": st.phase_end_pending,
            "first_turn": bool(st.step == PRE and st.first_turn[st.cur]) if st.cur >= 0 else False,
            "acted_with_cards_this_turn": st.carded, "num_players": n,
            "players": players, "cities": cities,
            "display": {"destination": [CARD_IDS[k] for k in st.disp_d], "link": [CARD_IDS[k] for k in st.disp_l]},
            "piles": {"destination_draw": len(st.draw_d), "destination_discard": [CARD_IDS[k] for k in st.disc_d],
                      "link_draw": len(st.draw_l), "link_discard": [CARD_IDS[k] for k in st.disc_l]},
            "loan_supply": {"small": sum(1 for i in LOAN_SMALL if st.loan_owner[i] < 0),
                            "large": sum(1 for i in LOAN_LARGE if st.loan_owner[i] < 0)},
            "bonus_left": list(st.bonus_left),
        }
        if st.step == SETTLE:
            p, li = st.settle[0]
            obs["settling"] = {"seat": p, "loan": data.LOAN_IDS[li]}
        if st.step == CHOOSE:
            obs["chooser"] = st.chooser
        return obs

    def outcome(self, state: ECState) -> Outcome:
        """Final money is the score; ranks by money, ties shared (§5.5)."""
        st = state
        scores = list(st.money)
        return Outcome(ranks_from_keys(scores), [float(s) for s in scores],
                       {"paydays": st.history, "loans_left": sum(1 for o in st.loan_owner if o >= 0)})


GAME = ElCapitan()
