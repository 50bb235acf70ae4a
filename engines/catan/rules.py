"""Catan (base game, 5-6 extension, Best Friends scenario) per rules/catan.md.

The state is a plain ``__slots__`` object of ints and lists (``state.CatanState``); the board geometry
lives in ``data.Board`` as tuples of ints. This module is the coordinator: set-up, the legal lists and
the dispatch of actions; the rules themselves live in ``board`` (set-up of the board), ``turn`` (the
turn flow, dice, robber), ``roads`` (road network, Longest Road), ``building``, ``trade``,
``development`` (development cards) and ``bestfriends`` (the §6.5 scenario); the names they define
are re-exported here. Action dicts of the legal lists are precomputed once per board and shared
between calls (never mutate an action you got from ``legal_actions``).
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from engines.catan import data as D
from engines.catan import fields as F
from engines.catan.bestfriends import (A_ACCEPT_GIFT, A_EXCHANGE_FAVOR, A_FAVOR_EXCHANGE, A_REJECT_GIFT,  # noqa: F401
                                       A_RETURN_FAVOR, A_TRADER, A_USE_FAVOR, A_END_FAVOR, a_donate,
                                       a_end_favor, a_exchange_favor, a_favor_exchange, a_gift_answer,
                                       a_return_favor, a_use_favor, bf_actions, bf_init_contacts, merchant_actions)
from engines.catan.board import BOARD_ACTIONS, lay_out
from engines.catan.building import (A_BUY_DEV, a_build_city, a_build_road, a_build_settlement,  # noqa: F401
                                    build_actions, put_settlement)
from engines.catan.development import (A_END_ROAD_BUILDING, A_KNIGHT, A_MONOPOLY, A_ROAD_BUILDING,  # noqa: F401
                                       A_YOP_PAIRS, A_YOP_SINGLE, a_buy_dev, a_end_road_building, a_free_road,
                                       a_knight, a_monopoly, a_play_road_building, a_year_of_plenty, dev_actions)
from engines.catan.roads import put_road, road_edges, road_length, settlement_spots, update_longest_road
from engines.catan.state import (BUILD, DEV_PLAY_PHASES, DISCARD, FAVOR_MERCHANT, FAVOR_RETURN,  # noqa: F401
                                 GAME_OVER, GENERIC_HARBOUR, GIFT_ANSWER, KN, LIST_SLOTS, MONO, MOVE_ROBBER,
                                 NESTED_SLOTS, NRES, PHASE_NAMES, PRE_ROLL, RB, RES, ROAD_BUILDING, SETUP,
                                 SPECIAL_BUILD, TRADE, TRADE_DECIDE, TRADE_RESPOND, VPC, YOP, CatanState, can_pay,
                                 illegal, vp)
from engines.catan.trade import (A_ACCEPT, A_ACCEPT_COUNTER, A_CANCEL, A_CONFIRM, A_MARITIME,  # noqa: F401
                                 A_PASS, A_REJECT, A_REQUEST, a_accept_counter, a_accept_trade, a_cancel,
                                 a_confirm, a_counter, a_maritime, a_pass, a_propose, a_reject_trade, a_request,
                                 answers_view, side_actions, side_dict, trade_actions, trade_table)
from engines.catan.turn import (A_DISCARD, A_END_SPECIAL, A_END_TURN, A_ROLL, a_discard, a_end_special,  # noqa: F401
                                a_end_turn, a_move_robber, a_place_road, a_place_settlement, a_roll, finish,
                                robber_actions)
from engines.core import BadOptions, Game, IllegalAction, Option, Outcome, ranks_from_keys


class Catan(Game):
    """The Catan engine (see rules/catan.md)."""

    id = "catan"
    name = "Catan"
    min_players = 2
    max_players = 6
    observation_fields = F.OBSERVATION_FIELDS
    action_fields = F.ACTION_FIELDS
    table_fields = F.TABLE_FIELDS
    field_samples = F.FIELD_SAMPLES
    rules_brief = F.RULES_BRIEF
    option_specs = (
        Option("allow_two_players", False, "bool", "[HOUSE] allow 2 players (rules unchanged; for testing only)"),
        Option("board", "variable", "choice", "variable board, or the beginner board (3-4 players) (§3)",
               choices=("variable", "beginner")),
        Option("numbers", "spiral", "choice", "number tokens: spiral, fully random (§6.4), or the beginner "
               "board's printed numbers (beginner board only) (§3.2)", choices=("spiral", "random", "beginner")),
        Option("start_positions", "setup_phase", "choice", "a normal set-up phase, or the beginner preset "
               "positions (beginner board, 3-4 players) (§3.3)", choices=("setup_phase", "beginner_preset")),
        Option("combined_trade_build", False, "bool", "trade and build in any order after rolling (§6.3)"),
        Option("vp_to_win", None, "int", "victory points that win; null: 10 (11 in Best Friends) (§5)",
               minimum=D.MIN_VP_TO_WIN, maximum=D.MAX_VP_TO_WIN, nullable=True),
        Option("max_trade_proposals_per_turn", D.DEFAULT_MAX_TRADE_PROPOSALS, "int",
               "[HOUSE] trade proposals (or requests for offers) a player may start per turn (§4.4)",
               minimum=0, maximum=D.MAX_TRADE_PROPOSALS),
        Option("trade_max_cards_per_side", D.DEFAULT_TRADE_MAX_CARDS, "int",
               "[HOUSE] cards on each side of a proposal, counter or offer (§4.4); each more card multiplies "
               "the trade lists", minimum=1, maximum=D.MAX_TRADE_CARDS),
        Option("max_turns", D.DEFAULT_MAX_TURNS, "int", "[HOUSE] player-turns after which the game ends "
               "with no winner (§5)", minimum=1, maximum=D.MAX_TURNS),
        Option("scenario", "none", "choice", "the base game, or the Best Friends scenario (§6.5)",
               choices=("none", "best_friends")),
    )
    rated_presets = {"standard": {}, "five_six_players": {}}
    # 3-4 players: the base game; 5-6: the 5-6 extension (another board, bank, deck and the special
    # building phase, §6.2); 2 players is a house option, never rated.
    rated_preset_players = {"standard": (3, 4), "five_six_players": (5, 6)}

    # the helpers below live in their modules; kept here under their old names for callers and tests
    vp = staticmethod(vp)
    road_length = staticmethod(road_length)
    _put_settlement = staticmethod(put_settlement)
    _put_road = staticmethod(put_road)
    _update_longest_road = staticmethod(update_longest_road)
    _settlement_spots = staticmethod(settlement_spots)
    _bf_init_contacts = staticmethod(bf_init_contacts)

    # ------------------------------------------------------------------ setup
    def setup(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> CatanState:
        """A new game: board per options, then the set-up phase (or the beginner preset)."""
        opts = self.options(options)
        self.check_players(num_players)
        n = num_players
        if n == 2 and not opts["allow_two_players"]:
            raise BadOptions("catan: 2 players only with the house option allow_two_players",
                             option="allow_two_players")
        beginner = opts["board"] == "beginner"
        if beginner and n > 4:
            raise BadOptions("catan: the beginner board is for 3-4 players", option="board")
        if opts["numbers"] == "beginner" and not beginner:
            raise BadOptions("catan: numbers 'beginner' needs board 'beginner'", option="numbers")
        if opts["start_positions"] == "beginner_preset" and not (beginner and n in (3, 4)):
            raise BadOptions("catan: beginner_preset needs the beginner board and 3 or 4 players",
                             option="start_positions")
        large = n >= 5
        board = D.BOARD_LARGE if large else D.BOARD_SMALL
        st = CatanState()
        st.n, st.opts, st.board, st.acts = n, opts, board, BOARD_ACTIONS[id(board)]
        rng = st.rng = random.Random(seed)
        st.bf = opts["scenario"] == "best_friends"
        st.vp_target = opts["vp_to_win"] or (D.BEST_FRIENDS_VP if st.bf else 10)
        st.combined = opts["combined_trade_build"]
        st.max_turns = opts["max_turns"]
        st.trade_table = trade_table(opts["trade_max_cards_per_side"])
        preset = opts["start_positions"] == "beginner_preset"
        # §8 step 1: colours
        if preset:
            st.colours = list(D.BEGINNER_COLOURS[n])
        else:
            st.colours = list(D.COLOURS[:n])
            rng.shuffle(st.colours)
        # §8 steps 2-4: terrain, harbours, numbers
        lay_out(st, rng, opts["numbers"], beginner, large)
        # §8 step 5: development deck
        deck_spec = D.DEV_DECK_LARGE if large else D.DEV_DECK_SMALL
        st.deck = [i for i, name in enumerate(D.DEV_TYPES) for _ in range(deck_spec[name])]
        rng.shuffle(st.deck)
        st.bank = [D.BANK_LARGE if large else D.BANK_SMALL] * 5
        st.bld_owner = [-1] * board.num_vertices
        st.bld_kind = [0] * board.num_vertices
        st.blocked = [0] * board.num_vertices
        st.road_owner = [-1] * board.num_edges
        st.seat_roads = [[] for _ in range(n)]
        st.seat_buildings = [[] for _ in range(n)]
        st.hands = [[0] * 5 for _ in range(n)]
        st.devs = [[0] * 5 for _ in range(n)]
        st.devs_new = [[0] * 5 for _ in range(n)]
        st.knights = [0] * n
        st.supply = [[D.PIECES["settlements"], D.PIECES["cities"], D.PIECES["roads"]] for _ in range(n)]
        st.rates = [[4] * 5 for _ in range(n)]
        st.road_len = [0] * n
        st.lr_holder = st.la_holder = -1
        st.turn = 0
        st.discard_queue, st.discard_owed, st.discard_log = [], {}, []
        st.return_phase = TRADE
        st.dev_played = st.built = False
        st.proposals_left = opts["max_trade_proposals_per_turn"]
        st.trade = None
        st.free_roads = 0
        st.special_queue = []
        st.winner = -1
        st.last_events = []
        st.dice = []
        st.last_steal = None
        st.setup_order = list(range(n)) + list(range(n - 1, -1, -1))
        st.setup_idx = 0
        st.setup_vertex = -1
        # Best Friends
        st.favours = [[0] * 5 for _ in range(n)]
        st.favours_new = [[0] * 5 for _ in range(n)]
        st.catan_tokens = [0] * n
        st.catan_supply = D.CATAN_TOKENS if st.bf else 0
        st.favour_supply = []
        if st.bf:
            col = n - 3 if n >= 3 else 0
            st.favour_supply = [g for g, name in enumerate(D.GUILDS) for _ in range(D.FAVOUR_TOKENS[name][col])]
            rng.shuffle(st.favour_supply)
        st.donated = False
        st.gift_asked = []
        st.gift = None
        st.favour_used = False
        st.merchant_left = 0
        st.networks_contacts = set()
        st.favour_return_phase = TRADE
        st.active = 0
        if preset:
            for seat, colour in enumerate(st.colours):
                settlements, roads, hand = D.BEGINNER_PRESET[colour]
                for v in settlements:
                    put_settlement(st, seat, v)
                for e in roads:
                    put_road(st, seat, e)
                for r in hand:
                    st.hands[seat][D.RES_INDEX[r]] += 1
                    st.bank[D.RES_INDEX[r]] -= 1
            for seat in range(n):
                st.road_len[seat] = road_length(st, seat)
            if st.bf:
                bf_init_contacts(st)
            st.phase = PRE_ROLL
            st.to_act = 0
        else:
            st.phase = SETUP
            st.to_act = 0
        return st

    # ------------------------------------------------------------------ contract
    def to_move(self, state: CatanState) -> int | None:
        return None if state.phase == GAME_OVER else state.to_act

    def clone(self, state: CatanState) -> CatanState:
        """Fast copy: shared immutable parts, copied lists."""
        new = CatanState()
        for name in CatanState.__slots__:
            setattr(new, name, getattr(state, name))
        for name in LIST_SLOTS:
            setattr(new, name, list(getattr(state, name)))
        for name in NESTED_SLOTS:
            setattr(new, name, [list(x) for x in getattr(state, name)])
        new.discard_owed = dict(state.discard_owed)
        new.networks_contacts = set(state.networks_contacts)
        if state.trade is not None:
            t = dict(state.trade)
            t["answers"] = dict(t["answers"])
            t["queue"] = list(t["queue"])
            new.trade = t
        new.rng = random.Random()
        new.rng.setstate(state.rng.getstate())
        return new

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, state: CatanState, seat: int) -> list[dict]:
        st = state
        if st.phase == GAME_OVER or seat != st.to_act:
            return []
        phase = st.phase
        out: list[dict] = []
        if phase == TRADE:
            if st.bf:
                bf_actions(st, seat, out)
            dev_actions(st, seat, out)
            build_actions(st, seat, out)
            if not st.built or st.combined:
                trade_actions(st, seat, out)
            out.append(A_END_TURN)
        elif phase == PRE_ROLL:
            out.append(A_ROLL)
            dev_actions(st, seat, out)
            if st.bf:
                bf_actions(st, seat, out)
        elif phase == TRADE_RESPOND:
            tr = st.trade
            if tr["kind"] == "proposal":
                if can_pay(st.hands[seat], tr["get"]):
                    out.append(A_ACCEPT)
                out.append(A_REJECT)
                side_actions(st, seat, "counter_trade", out)
            else:
                out.append(A_PASS)
                side_actions(st, seat, "offer", out)
        elif phase == TRADE_DECIDE:
            tr = st.trade
            hand = st.hands[seat]
            for s in tr["order"]:
                kind, give, get = tr["answers"][s]
                if kind == "accept":
                    out.append(A_CONFIRM[s])
                elif kind in ("counter", "offer") and can_pay(hand, get):
                    out.append(A_ACCEPT_COUNTER[s])
            out.append(A_CANCEL)
        elif phase == BUILD:
            if st.bf:
                bf_actions(st, seat, out)
            dev_actions(st, seat, out)
            build_actions(st, seat, out)
            out.append(A_END_TURN)
        elif phase == DISCARD:
            hand = st.hands[seat]
            out.extend([A_DISCARD[r] for r in range(5) if hand[r]])
        elif phase == MOVE_ROBBER:
            out = robber_actions(st, seat)
        elif phase == SETUP:
            acts = st.acts
            if st.setup_vertex < 0:
                blocked = st.blocked
                out = [acts.place_settlement[v] for v in range(st.board.num_vertices) if not blocked[v]]
            else:
                ro = st.road_owner
                out = [acts.place_road[e] for e in sorted(st.board.vertex_edges[st.setup_vertex]) if ro[e] < 0]
        elif phase == ROAD_BUILDING:
            acts = st.acts
            out = [acts.free_road[e] for e in road_edges(st, seat)]
            out.append(A_END_ROAD_BUILDING)
        elif phase == SPECIAL_BUILD:
            build_actions(st, seat, out)
            out.append(A_END_SPECIAL)
        elif phase == GIFT_ANSWER:
            out = [A_ACCEPT_GIFT, A_REJECT_GIFT]
        elif phase == FAVOR_MERCHANT:
            out = merchant_actions(st, seat)
        elif phase == FAVOR_RETURN:
            fav = st.favours[seat]
            out = [A_RETURN_FAVOR[g] for i, g in enumerate(D.GUILDS) if fav[i]]
        return out

    # ------------------------------------------------------------------ apply
    def apply(self, state: CatanState, seat: int, action: Mapping[str, Any]) -> list[dict]:
        st = state
        if st.phase == GAME_OVER:
            raise illegal("§5 end of game", "the game is over")
        if seat != st.to_act:
            raise illegal("§4.1 phases of a turn", f"seat {seat} is not to act (seat {st.to_act} is)")
        try:
            kind = action["type"]
            handler = _HANDLERS[kind]
        except (KeyError, TypeError):
            raise illegal("§9.2 actions", f"unknown action {action!r}") from None
        events: list[dict] = []
        try:
            handler(st, seat, action, events)
        except IllegalAction:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise illegal("§9.2 actions", f"malformed action {action!r}: {exc}") from None
        if kind in _VP_ACTIONS and st.phase != GAME_OVER and st.phase != SPECIAL_BUILD and st.phase != SETUP:
            a = st.active
            if vp(st, a) >= st.vp_target:
                finish(st, a, events)
        st.last_events = events
        return events

    # ------------------------------------------------------------------ observation & outcome
    def tables(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """The board geometry, costs, the development deck and the pips (§2), sent once in ``start``."""
        return F.tables(num_players, options)

    def observe(self, state: CatanState, seat: int | None) -> dict[str, Any]:
        st = state
        board = st.board
        opts = {k: v for k, v in st.opts.items() if v != self.default_options[k]}
        obs: dict[str, Any] = {
            "game": "catan", "options": opts, "seat": seat, "num_players": st.n, "turn": st.turn,
            "active_seat": st.active, "to_act": None if st.phase == GAME_OVER else st.to_act,
            "phase": PHASE_NAMES[st.phase],
            "board": {
                "hexes": [{"id": h, "q": board.hex_coords[h][0], "r": board.hex_coords[h][1],
                           "terrain": D.TERRAINS[st.hex_res[h]] if st.hex_res[h] >= 0 else "desert",
                           "number": st.hex_num[h] or None} for h in range(board.num_hexes)],
                "harbors": [{"slot": i, "type": st.harbour_types[i], "vertices": list(slot[3])}
                            for i, slot in enumerate(board.harbour_slots)],
                "robber_hex": st.robber,
            },
            "buildings": [{"vertex": v, "seat": st.bld_owner[v], "kind": "city" if st.bld_kind[v] == 2 else "settlement"}
                          for v in range(board.num_vertices) if st.bld_owner[v] >= 0],
            "roads": [{"edge": e, "seat": st.road_owner[e]} for e in range(board.num_edges) if st.road_owner[e] >= 0],
            "players": [{"seat": s, "colour": st.colours[s], "resource_cards": sum(st.hands[s]),
                         "dev_cards": sum(st.devs[s]), "knights_played": st.knights[s],
                         "public_vp": vp(st, s, hidden=False), "road_length": st.road_len[s],
                         "longest_road": st.lr_holder == s, "largest_army": st.la_holder == s,
                         "supply": {"settlements": st.supply[s][0], "cities": st.supply[s][1], "roads": st.supply[s][2]}}
                        for s in range(st.n)],
            "bank": {r: st.bank[i] for i, r in enumerate(RES)},
            "dev_deck": len(st.deck),
            "dice": list(st.dice), "dev_played_this_turn": st.dev_played, "proposals_left": st.proposals_left,
            "built_this_turn": st.built, "vp_to_win": st.vp_target,
            "trade": None,
            "pending_discards": {str(s): c for s, c in st.discard_owed.items()} if st.phase == DISCARD else {},
            "last_events": self._public_events(st.last_events),
        }
        if st.trade is not None:
            tr = st.trade
            t: dict[str, Any] = {"kind": tr["kind"], "from": st.active}
            if tr["kind"] == "proposal":
                t["give"], t["get"] = side_dict(tr["give"]), side_dict(tr["get"])
            if st.phase == TRADE_DECIDE:  # answers are public once all are in
                t["answers"] = answers_view(tr["answers"])
            obs["trade"] = t
        if st.phase == FAVOR_MERCHANT:
            obs["merchant_exchanges_left"] = st.merchant_left
        if st.phase == ROAD_BUILDING:
            obs["free_roads"] = st.free_roads
        if st.bf:
            obs["favour_tokens"] = [sum(st.favours[s]) for s in range(st.n)]
            obs["catan_tokens"] = list(st.catan_tokens)
            obs["favour_supply"] = len(st.favour_supply)
            obs["catan_supply"] = st.catan_supply
            if st.gift is not None:
                obs["gift"] = {"from": st.gift[0], "to": st.gift[1], "resource": RES[st.gift[2]]}
        if st.phase == GAME_OVER:
            obs["revealed"] = {str(s): {"resources": side_dict(st.hands[s]),
                                        "dev_cards": _side_dict_dev(st.devs[s])} for s in range(st.n)}
            obs["winner"] = None if st.winner < 0 else st.winner
        if seat is not None:
            you: dict[str, Any] = {
                "resources": side_dict(st.hands[seat]),
                "dev_cards": [{"type": D.DEV_TYPES[c], "bought_this_turn": i < st.devs_new[seat][c]}
                              for c in range(5) for i in range(st.devs[seat][c])],
                "vp_total": vp(st, seat),
                "trade_rates": {RES[r]: st.rates[seat][r] for r in range(5)},
            }
            if st.last_steal and seat in st.last_steal[:2]:
                you["last_steal"] = {"thief": st.last_steal[0], "victim": st.last_steal[1],
                                     "resource": RES[st.last_steal[2]]}
            if st.phase == DISCARD and seat in st.discard_owed:
                you["discard_owed"] = st.discard_owed[seat]
            if st.bf:
                you["favours"] = {g: st.favours[seat][i] for i, g in enumerate(D.GUILDS) if st.favours[seat][i]}
                you["favours_new"] = {g: st.favours_new[seat][i] for i, g in enumerate(D.GUILDS)
                                      if st.favours_new[seat][i]}
            obs["you"] = you
        return obs

    @staticmethod
    def _public_events(events):
        return [e for e in events]

    def outcome(self, state: CatanState) -> Outcome:
        st = state
        vps = [vp(st, s) for s in range(st.n)]
        keys = [(1 if s == st.winner else 0, vps[s]) for s in range(st.n)]
        return Outcome(ranks_from_keys(keys), [float(v) for v in vps],
                       {"winner": None if st.winner < 0 else st.winner, "turns": st.turn,
                        "vp_cards": [st.devs[s][VPC] for s in range(st.n)]})


def _side_dict_dev(vec) -> dict[str, int]:
    return {D.DEV_TYPES[i]: n for i, n in enumerate(vec) if n}


#: actions after which the VP of the seat on turn may have changed (or a new turn began): win check
_VP_ACTIONS = frozenset({"build_road", "build_settlement", "build_city", "buy_dev_card", "play_knight", "free_road",
                         "end_turn", "end_special_build", "use_favor", "place_road"})

_HANDLERS = {
    "place_settlement": a_place_settlement,
    "place_road": a_place_road,
    "roll": a_roll,
    "discard": a_discard,
    "move_robber": a_move_robber,
    "maritime_trade": a_maritime,
    "propose_trade": a_propose,
    "request_offers": a_request,
    "accept_trade": a_accept_trade,
    "reject_trade": a_reject_trade,
    "counter_trade": a_counter,
    "offer": a_counter,
    "pass": a_pass,
    "confirm_trade": a_confirm,
    "accept_counter": a_accept_counter,
    "cancel_trade": a_cancel,
    "build_road": a_build_road,
    "build_settlement": a_build_settlement,
    "build_city": a_build_city,
    "buy_dev_card": a_buy_dev,
    "play_knight": a_knight,
    "play_road_building": a_play_road_building,
    "free_road": a_free_road,
    "end_road_building": a_end_road_building,
    "play_year_of_plenty": a_year_of_plenty,
    "play_monopoly": a_monopoly,
    "end_turn": a_end_turn,
    "end_special_build": a_end_special,
    "donate": a_donate,
    "accept_gift": a_gift_answer,
    "reject_gift": a_gift_answer,
    "use_favor": a_use_favor,
    "favor_exchange": a_favor_exchange,
    "end_favor": a_end_favor,
    "exchange_favor": a_exchange_favor,
    "return_favor": a_return_favor,
}
