"""Catan (base game, 5-6 extension, Best Friends scenario) per rules/catan.md.

The state is a plain ``__slots__`` object of ints and lists; the board geometry lives in
``data.Board`` as tuples of ints. Action dicts of the legal lists are precomputed once per board and
shared between calls (never mutate an action you got from ``legal_actions``).
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from engines.catan import data as D
from engines.catan import fields as F
from engines.core import BadOptions, Game, IllegalAction, Option, Outcome, ranks_from_keys

RES = D.RESOURCES
NRES = 5
(SETUP, PRE_ROLL, DISCARD, MOVE_ROBBER, TRADE, TRADE_RESPOND, TRADE_DECIDE, BUILD, ROAD_BUILDING,
 SPECIAL_BUILD, GAME_OVER, GIFT_ANSWER, FAVOR_MERCHANT, FAVOR_RETURN) = range(14)
PHASE_NAMES = ("SETUP", "PRE_ROLL", "DISCARD", "MOVE_ROBBER", "TRADE", "TRADE_RESPOND", "TRADE_DECIDE",
               "BUILD", "ROAD_BUILDING", "SPECIAL_BUILD", "GAME_OVER", "GIFT_ANSWER", "FAVOR_MERCHANT",
               "FAVOR_RETURN")
GENERIC_HARBOUR = 5
KN, VPC, RB, YOP, MONO = range(5)
DEV_PLAY_PHASES = (PRE_ROLL, TRADE, BUILD)

A_ROLL = {"type": "roll"}
A_END_TURN = {"type": "end_turn"}
A_BUY_DEV = {"type": "buy_dev_card"}
A_KNIGHT = {"type": "play_knight"}
A_ROAD_BUILDING = {"type": "play_road_building"}
A_END_ROAD_BUILDING = {"type": "end_road_building"}
A_REQUEST = {"type": "request_offers"}
A_ACCEPT = {"type": "accept_trade"}
A_REJECT = {"type": "reject_trade"}
A_PASS = {"type": "pass"}
A_CANCEL = {"type": "cancel_trade"}
A_END_SPECIAL = {"type": "end_special_build"}
A_ACCEPT_GIFT = {"type": "accept_gift"}
A_REJECT_GIFT = {"type": "reject_gift"}
A_END_FAVOR = {"type": "end_favor"}
A_EXCHANGE_FAVOR = {"type": "exchange_favor"}
A_DISCARD = tuple({"type": "discard", "resource": r} for r in RES)
A_MONOPOLY = tuple({"type": "play_monopoly", "resource": r} for r in RES)
A_CONFIRM = tuple({"type": "confirm_trade", "seat": s} for s in range(6))
A_ACCEPT_COUNTER = tuple({"type": "accept_counter", "seat": s} for s in range(6))
#: (give, rate, get) -> action
A_MARITIME = {(g, rate, t): {"type": "maritime_trade", "give": RES[g], "rate": rate, "get": RES[t]}
              for g in range(5) for rate in (2, 3, 4) for t in range(5) if t != g}
A_YOP_PAIRS = tuple((a, b, {"type": "play_year_of_plenty", "resources": [RES[a], RES[b]]})
                    for a in range(5) for b in range(a, 5))
A_YOP_SINGLE = tuple({"type": "play_year_of_plenty", "resources": [r]} for r in RES)
A_USE_FAVOR = {g: {"type": "use_favor", "guild": g} for g in ("merchant", "road_builder", "scholar", "architect")}
A_TRADER = tuple({"type": "use_favor", "guild": "trader", "get": r} for r in RES)
A_RETURN_FAVOR = {g: {"type": "return_favor", "guild": g} for g in D.GUILDS}
A_FAVOR_EXCHANGE = {(g, t): {"type": "favor_exchange", "give": RES[g], "get": RES[t]}
                    for g in range(5) for t in range(5) if g != t}


def _vec(side: Mapping[str, int]) -> tuple[int, ...]:
    return tuple(side.get(r, 0) for r in RES)


def _side_dict(vec) -> dict[str, int]:
    return {RES[i]: n for i, n in enumerate(vec) if n}


_SIDE_DICTS: dict[tuple[int, ...], dict[str, int]] = {}


def _shared_side(vec: tuple[int, ...]) -> dict[str, int]:
    """A canonical resource map for a trade side, shared (never mutate it)."""
    found = _SIDE_DICTS.get(vec)
    if found is None:
        found = _SIDE_DICTS[vec] = _side_dict(vec)
    return found


def _answers_view(answers: dict) -> dict[str, Any]:
    return {str(s): ({"answer": a[0], "give": _shared_side(a[1]), "get": _shared_side(a[2])} if a[1]
                     else {"answer": a[0]}) for s, a in answers.items()}


class _BoardActions:
    """Shared action dicts for one board size."""

    def __init__(self, board: D.Board):
        self.place_settlement = tuple({"type": "place_settlement", "vertex": v} for v in range(board.num_vertices))
        self.place_road = tuple({"type": "place_road", "edge": e} for e in range(board.num_edges))
        self.build_road = tuple({"type": "build_road", "edge": e} for e in range(board.num_edges))
        self.free_road = tuple({"type": "free_road", "edge": e} for e in range(board.num_edges))
        self.build_settlement = tuple({"type": "build_settlement", "vertex": v} for v in range(board.num_vertices))
        self.build_city = tuple({"type": "build_city", "vertex": v} for v in range(board.num_vertices))
        self.robber: dict[tuple[int, int | None], dict] = {}

    def move_robber(self, hex_id: int, victim: int | None) -> dict:
        key = (hex_id, victim)
        act = self.robber.get(key)
        if act is None:
            act = self.robber[key] = {"type": "move_robber", "hex": hex_id, "victim": victim}
        return act


BOARD_ACTIONS = {id(D.BOARD_SMALL): _BoardActions(D.BOARD_SMALL), id(D.BOARD_LARGE): _BoardActions(D.BOARD_LARGE)}

_TRADE_TABLES: dict[int, tuple] = {}


def trade_table(max_cards: int) -> tuple:
    """Every (give, get) pair of §4.4 grouped by give side.

    Returns ``(groups, index)``: groups are ``(give_vec, {kind: [actions]})`` for the kinds
    propose_trade, counter_trade and offer; ``index`` maps a canonical key of the two sides to the
    vectors, so that validating a trade action is one dict lookup.
    """
    table = _TRADE_TABLES.get(max_cards)
    if table is not None:
        return table
    sides: list[tuple[int, ...]] = []

    def gen(start: int, left: int, vec: list[int]):
        if sum(vec):
            sides.append(tuple(vec))
        if left == 0:
            return
        for r in range(start, 5):
            vec[r] += 1
            gen(r, left - 1, vec)
            vec[r] -= 1

    gen(0, max_cards, [0] * 5)
    sides.sort(key=lambda v: (sum(v), [-x for x in v]))
    groups = []
    index: dict = {}
    for give in sides:
        by_kind: dict[str, list] = {"propose_trade": [], "counter_trade": [], "offer": []}
        for get in sides:
            if any(give[i] and get[i] for i in range(5)):
                continue
            g, t = _side_dict(give), _side_dict(get)
            index[(tuple(g.items()), tuple(t.items()))] = (give, get)
            for kind, acts in by_kind.items():
                acts.append({"type": kind, "give": g, "get": t})
        groups.append((give, by_kind))
    ids = {id(act): (give, get) for give, by_kind in groups for acts in by_kind.values() for act in acts
           for get in [_vec(act["get"])]}
    table = (tuple(groups), index, {}, ids)
    _TRADE_TABLES[max_cards] = table
    return table


def _trade_list(table: tuple, hand: list[int], kind: str) -> list[dict]:
    """The trade actions of ``kind`` whose give side ``hand`` covers (cached by the capped hand)."""
    cache = table[2]
    key = (kind, min(hand[0], 2), min(hand[1], 2), min(hand[2], 2), min(hand[3], 2), min(hand[4], 2))
    found = cache.get(key)
    if found is None:
        found = []
        for give, by_kind in table[0]:
            if hand[0] >= give[0] and hand[1] >= give[1] and hand[2] >= give[2] and hand[3] >= give[3] \
                    and hand[4] >= give[4]:
                found.extend(by_kind[kind])
        if max(sum(g) for g, _ in table[0]) <= 2:  # the cap of 2 per type is exact only for sides of <= 2
            cache[key] = found
    return found


class CatanState:
    """Everything that changes during a game. Lists are indexed by seat, vertex, edge or hex id."""

    __slots__ = (
        "n", "opts", "board", "acts", "rng", "colours", "vp_target", "combined", "max_turns", "bf",
        "hex_res", "hex_num", "num_hexes", "harbour_types", "vert_harbour", "robber",
        "bld_owner", "bld_kind", "blocked", "road_owner", "seat_roads", "seat_buildings",
        "hands", "devs", "devs_new", "knights", "supply", "road_len", "lr_holder", "la_holder",
        "bank", "deck", "rates",
        "phase", "active", "to_act", "turn", "setup_order", "setup_idx", "setup_vertex",
        "discard_queue", "discard_owed", "discard_log", "return_phase", "dev_played", "built",
        "proposals_left", "trade", "free_roads", "special_queue", "winner", "last_events", "dice",
        "last_steal", "trade_table",
        # Best Friends
        "favours", "favours_new", "favour_supply", "catan_tokens", "catan_supply", "donated", "gift_asked",
        "gift", "favour_used", "merchant_left", "networks_contacts", "favour_return_phase",
    )


_LIST_SLOTS = ("hex_res", "hex_num", "harbour_types", "vert_harbour", "bld_owner", "bld_kind", "blocked",
               "road_owner", "knights", "road_len", "bank", "deck", "setup_order", "discard_queue",
               "discard_log", "special_queue", "last_events", "dice", "catan_tokens", "favour_supply",
               "gift_asked", "colours")
_NESTED_SLOTS = ("seat_roads", "seat_buildings", "hands", "devs", "devs_new", "supply", "rates", "favours",
                 "favours_new")


def _rule(section: str, msg: str) -> IllegalAction:
    return IllegalAction(section, msg)


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
        if beginner:
            terrains = list(D.BEGINNER_TERRAIN)
            harbours = list(D.BEGINNER_HARBOURS)
            numbers = list(D.BEGINNER_NUMBERS)
            if opts["numbers"] == "random":
                numbers = self._random_numbers(rng, board, terrains, D.TOKENS_SMALL)
        else:
            terrains = list(D.TERRAIN_TILES_LARGE if large else D.TERRAIN_TILES_SMALL)
            rng.shuffle(terrains)
            harbours = list(D.HARBOUR_TYPES_LARGE if large else D.HARBOUR_TYPES_SMALL)
            rng.shuffle(harbours)
            tokens = D.TOKENS_LARGE if large else D.TOKENS_SMALL
            if opts["numbers"] == "random":
                numbers = self._random_numbers(rng, board, terrains, tokens)
            else:
                corner = board.corners[rng.randrange(len(board.corners))]
                numbers = [0] * board.num_hexes
                it = iter(tokens)
                for h in board.spiral_orders[corner]:
                    if terrains[h] != "desert":
                        numbers[h] = next(it)
        st.hex_res = [D.TERRAIN_RESOURCE[t] for t in terrains]
        st.hex_num = numbers
        num_hexes: dict[int, tuple[int, ...]] = {}
        for h, k in enumerate(numbers):
            if k:
                num_hexes[k] = num_hexes.get(k, ()) + (h,)
        st.num_hexes = num_hexes
        st.harbour_types = harbours
        st.vert_harbour = [-1] * board.num_vertices
        for slot, (_sea, _facing, _land, verts) in enumerate(board.harbour_slots):
            kind = GENERIC_HARBOUR if harbours[slot] == D.GENERIC else D.RES_INDEX[harbours[slot]]
            for v in verts:
                st.vert_harbour[v] = kind
        st.robber = terrains.index("desert")  # lower id of the two deserts on 5-6 [HOUSE]
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
                    self._put_settlement(st, seat, v)
                for e in roads:
                    self._put_road(st, seat, e)
                for r in hand:
                    st.hands[seat][D.RES_INDEX[r]] += 1
                    st.bank[D.RES_INDEX[r]] -= 1
            for seat in range(n):
                st.road_len[seat] = self.road_length(st, seat)
            if st.bf:
                self._bf_init_contacts(st)
            st.phase = PRE_ROLL
            st.to_act = 0
        else:
            st.phase = SETUP
            st.to_act = 0
        return st

    @staticmethod
    def _random_numbers(rng: random.Random, board: D.Board, terrains: list[str], tokens) -> list[int]:
        """§3.2 fully random numbers: redraw until no two adjacent hexes both carry a 6 or 8."""
        land = [h for h in range(board.num_hexes) if terrains[h] != "desert"]
        toks = list(tokens)
        while True:
            rng.shuffle(toks)
            numbers = [0] * board.num_hexes
            for h, k in zip(land, toks):
                numbers[h] = k
            if not any(numbers[h] in (6, 8) and numbers[g] in (6, 8)
                       for h in range(board.num_hexes) for g in board.hex_neighbours[h]):
                return numbers

    # ------------------------------------------------------------------ contract
    def to_move(self, state: CatanState) -> int | None:
        return None if state.phase == GAME_OVER else state.to_act

    def clone(self, state: CatanState) -> CatanState:
        """Fast copy: shared immutable parts, copied lists."""
        new = CatanState()
        for name in CatanState.__slots__:
            setattr(new, name, getattr(state, name))
        for name in _LIST_SLOTS:
            setattr(new, name, list(getattr(state, name)))
        for name in _NESTED_SLOTS:
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

    # ------------------------------------------------------------------ helpers
    def vp(self, st: CatanState, seat: int, hidden: bool = True) -> int:
        """Victory points of ``seat`` (with hidden VP cards unless ``hidden`` is False)."""
        sup = st.supply[seat]
        points = (5 - sup[0]) + 2 * (4 - sup[1]) + st.catan_tokens[seat]
        if st.lr_holder == seat:
            points += 2
        if st.la_holder == seat:
            points += 2
        if hidden:
            points += st.devs[seat][VPC]
        return points

    def _put_settlement(self, st: CatanState, seat: int, v: int) -> None:
        st.bld_owner[v] = seat
        st.bld_kind[v] = 1
        st.seat_buildings[seat].append(v)
        st.supply[seat][0] -= 1
        blocked = st.blocked
        blocked[v] = 1
        for w in st.board.vertex_neighbours[v]:
            blocked[w] = 1
        kind = st.vert_harbour[v]
        if kind >= 0:
            rates = st.rates[seat]
            if kind == GENERIC_HARBOUR:
                for r in range(5):
                    if rates[r] > 3:
                        rates[r] = 3
            else:
                rates[kind] = 2

    def _put_road(self, st: CatanState, seat: int, e: int) -> None:
        st.road_owner[e] = seat
        st.seat_roads[seat].append(e)
        st.supply[seat][2] -= 1

    def road_length(self, st: CatanState, seat: int) -> int:
        """§4.7 longest trail of ``seat``'s roads not passing through another seat's building."""
        roads = st.seat_roads[seat]
        if not roads:
            return 0
        owner, bo = st.road_owner, st.bld_owner
        ev, ve = st.board.edge_vertices, st.board.vertex_edges

        def walk(v: int, used: int) -> int:
            best = 0
            for e in ve[v]:
                if owner[e] == seat and not (used >> e) & 1:
                    a, b = ev[e]
                    w = b if a == v else a
                    o = bo[w]
                    if o >= 0 and o != seat:
                        length = 1
                    else:
                        length = 1 + walk(w, used | (1 << e))
                    if length > best:
                        best = length
            return best

        starts = set()
        for e in roads:
            a, b = ev[e]
            starts.add(a)
            starts.add(b)
        best = 0
        total = len(roads)
        for v in starts:
            length = walk(v, 0)
            if length > best:
                best = length
                if best == total:
                    break
        return best

    def _update_longest_road(self, st: CatanState, events: list) -> None:
        """§4.7 card update from the current lengths."""
        lengths = st.road_len
        m = max(lengths)
        holder = st.lr_holder
        if holder >= 0 and lengths[holder] >= D.LONGEST_ROAD_MIN and lengths[holder] == m:
            return
        top = [s for s in range(st.n) if lengths[s] == m]
        new = top[0] if m >= D.LONGEST_ROAD_MIN and len(top) == 1 else -1
        if new != holder:
            st.lr_holder = new
            events.append({"type": "longest_road", "seat": None if new < 0 else new, "length": m})

    def _road_edges(self, st: CatanState, seat: int) -> list[int]:
        """Edges where ``seat`` may place a road now (§4.5)."""
        bo, ro = st.bld_owner, st.road_owner
        ve, ev = st.board.vertex_edges, st.board.edge_vertices
        out = set()
        for v in st.seat_buildings[seat]:
            for e in ve[v]:
                if ro[e] < 0:
                    out.add(e)
        for e in st.seat_roads[seat]:
            for v in ev[e]:
                o = bo[v]
                if o < 0 or o == seat:
                    for e2 in ve[v]:
                        if ro[e2] < 0:
                            out.add(e2)
        return sorted(out)

    def _settlement_spots(self, st: CatanState, seat: int) -> list[int]:
        blocked, ev = st.blocked, st.board.edge_vertices
        out = set()
        for e in st.seat_roads[seat]:
            a, b = ev[e]
            if not blocked[a]:
                out.add(a)
            if not blocked[b]:
                out.add(b)
        return sorted(out)

    @staticmethod
    def _pay(st: CatanState, seat: int, cost) -> None:
        hand, bank = st.hands[seat], st.bank
        for r in range(5):
            c = cost[r]
            if c:
                hand[r] -= c
                bank[r] += c

    @staticmethod
    def _can_pay(hand, cost) -> bool:
        return hand[0] >= cost[0] and hand[1] >= cost[1] and hand[2] >= cost[2] and hand[3] >= cost[3] \
            and hand[4] >= cost[4]

    def _robber_actions(self, st: CatanState, seat: int) -> list[dict]:
        board, bo, hands, acts = st.board, st.bld_owner, st.hands, st.acts
        out = []
        for h in range(board.num_hexes):
            if h == st.robber:
                continue
            victims = set()
            for v in board.hex_vertices[h]:
                o = bo[v]
                if o >= 0 and o != seat and sum(hands[o]):
                    victims.add(o)
            if not victims:
                out.append(acts.move_robber(h, None))
            else:
                if st.bf and st.hex_res[h] < 0:
                    out.append(acts.move_robber(h, None))  # §6.5: harmless robber on the desert
                for o in sorted(victims):
                    out.append(acts.move_robber(h, o))
        return out

    def _dev_actions(self, st: CatanState, seat: int, out: list) -> None:
        """§4.6 playable development cards of the active seat."""
        if st.dev_played:
            return
        devs, new = st.devs[seat], st.devs_new[seat]
        if devs[KN] > new[KN]:
            out.append(A_KNIGHT)
        if devs[RB] > new[RB] and st.supply[seat][2] > 0 and self._road_edges(st, seat):
            out.append(A_ROAD_BUILDING)
        if devs[YOP] > new[YOP]:
            bank = st.bank
            total = sum(bank)
            if total == 1:
                out.append(A_YOP_SINGLE[bank.index(1)])
            elif total > 1:
                for a, b, act in A_YOP_PAIRS:
                    if (bank[a] >= 2) if a == b else (bank[a] and bank[b]):
                        out.append(act)
        if devs[MONO] > new[MONO]:
            out.extend(A_MONOPOLY)

    def _build_actions(self, st: CatanState, seat: int, out: list) -> None:
        hand, sup, acts = st.hands[seat], st.supply[seat], st.acts
        if hand[0] and hand[1] and sup[2]:
            out.extend([acts.build_road[e] for e in self._road_edges(st, seat)])
        if hand[0] and hand[1] and hand[2] and hand[3] and sup[0]:
            out.extend([acts.build_settlement[v] for v in self._settlement_spots(st, seat)])
        if hand[3] >= 2 and hand[4] >= 3 and sup[1]:
            bk = st.bld_kind
            out.extend([acts.build_city[v] for v in sorted(st.seat_buildings[seat]) if bk[v] == 1])
        if hand[2] and hand[3] and hand[4] and st.deck:
            out.append(A_BUY_DEV)

    def _trade_actions(self, st: CatanState, seat: int, out: list) -> None:
        hand, bank, rates = st.hands[seat], st.bank, st.rates[seat]
        for g in range(5):
            rate = rates[g]
            if hand[g] >= rate:
                for t in range(5):
                    if t != g and bank[t]:
                        out.append(A_MARITIME[(g, rate, t)])
        if st.proposals_left > 0 and st.n > 1:
            out.extend(_trade_list(st.trade_table, hand, "propose_trade"))
            out.append(A_REQUEST)

    @staticmethod
    def _side_actions(st: CatanState, seat: int, kind: str, out: list) -> None:
        out.extend(_trade_list(st.trade_table, st.hands[seat], kind))

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, state: CatanState, seat: int) -> list[dict]:
        st = state
        if st.phase == GAME_OVER or seat != st.to_act:
            return []
        phase = st.phase
        out: list[dict] = []
        if phase == TRADE:
            if st.bf:
                self._bf_actions(st, seat, out)
            self._dev_actions(st, seat, out)
            self._build_actions(st, seat, out)
            if not st.built or st.combined:
                self._trade_actions(st, seat, out)
            out.append(A_END_TURN)
        elif phase == PRE_ROLL:
            out.append(A_ROLL)
            self._dev_actions(st, seat, out)
            if st.bf:
                self._bf_actions(st, seat, out)
        elif phase == TRADE_RESPOND:
            tr = st.trade
            if tr["kind"] == "proposal":
                if self._can_pay(st.hands[seat], tr["get"]):
                    out.append(A_ACCEPT)
                out.append(A_REJECT)
                self._side_actions(st, seat, "counter_trade", out)
            else:
                out.append(A_PASS)
                self._side_actions(st, seat, "offer", out)
        elif phase == TRADE_DECIDE:
            tr = st.trade
            hand = st.hands[seat]
            for s in tr["order"]:
                kind, give, get = tr["answers"][s]
                if kind == "accept":
                    out.append(A_CONFIRM[s])
                elif kind in ("counter", "offer") and self._can_pay(hand, get):
                    out.append(A_ACCEPT_COUNTER[s])
            out.append(A_CANCEL)
        elif phase == BUILD:
            if st.bf:
                self._bf_actions(st, seat, out)
            self._dev_actions(st, seat, out)
            self._build_actions(st, seat, out)
            out.append(A_END_TURN)
        elif phase == DISCARD:
            hand = st.hands[seat]
            out.extend([A_DISCARD[r] for r in range(5) if hand[r]])
        elif phase == MOVE_ROBBER:
            out = self._robber_actions(st, seat)
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
            out = [acts.free_road[e] for e in self._road_edges(st, seat)]
            out.append(A_END_ROAD_BUILDING)
        elif phase == SPECIAL_BUILD:
            self._build_actions(st, seat, out)
            out.append(A_END_SPECIAL)
        elif phase == GIFT_ANSWER:
            out = [A_ACCEPT_GIFT, A_REJECT_GIFT]
        elif phase == FAVOR_MERCHANT:
            hand, bank = st.hands[seat], st.bank
            out = [A_FAVOR_EXCHANGE[(g, t)] for g in range(5) if hand[g] for t in range(5) if t != g and bank[t]]
            if st.merchant_left < 2 or not out:
                out.append(A_END_FAVOR)
        elif phase == FAVOR_RETURN:
            fav = st.favours[seat]
            out = [A_RETURN_FAVOR[g] for i, g in enumerate(D.GUILDS) if fav[i]]
        return out

    # ------------------------------------------------------------------ apply
    def apply(self, state: CatanState, seat: int, action: Mapping[str, Any]) -> list[dict]:
        st = state
        if st.phase == GAME_OVER:
            raise _rule("§5 end of game", "the game is over")
        if seat != st.to_act:
            raise _rule("§4.1 phases of a turn", f"seat {seat} is not to act (seat {st.to_act} is)")
        try:
            kind = action["type"]
            handler = _HANDLERS[kind]
        except (KeyError, TypeError):
            raise _rule("§9.2 actions", f"unknown action {action!r}") from None
        events: list[dict] = []
        try:
            handler(self, st, seat, action, events)
        except IllegalAction:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise _rule("§9.2 actions", f"malformed action {action!r}: {exc}") from None
        if kind in _VP_ACTIONS and st.phase != GAME_OVER and st.phase != SPECIAL_BUILD and st.phase != SETUP:
            a = st.active
            if self.vp(st, a) >= st.vp_target:
                self._finish(st, a, events)
        st.last_events = events
        return events

    def _finish(self, st: CatanState, winner: int, events: list) -> None:
        st.phase = GAME_OVER
        st.winner = winner
        events.append({"type": "game_over", "winner": None if winner < 0 else winner,
                       "vp": [self.vp(st, s) for s in range(st.n)],
                       "vp_cards": [st.devs[s][VPC] for s in range(st.n)]})

    def _need_phase(self, st: CatanState, phases: tuple, rule: str, what: str) -> None:
        if st.phase not in phases:
            raise _rule(rule, f"{what} is not allowed in phase {PHASE_NAMES[st.phase]}")

    # --- set-up phase
    def _a_place_settlement(self, st, seat, action, events):
        self._need_phase(st, (SETUP,), "§3.4 set-up phase", "place_settlement")
        if st.setup_vertex >= 0:
            raise _rule("§3.4 set-up phase", "place the road next to your new settlement first")
        v = action["vertex"]
        if not isinstance(v, int) or not 0 <= v < st.board.num_vertices:
            raise _rule("§2.5 vertices", f"no vertex {v!r}")
        if st.blocked[v]:
            raise _rule("§4.5 distance rule", f"vertex {v} is occupied or next to a settlement")
        self._put_settlement(st, seat, v)
        st.setup_vertex = v
        events.append({"type": "place_settlement", "seat": seat, "vertex": v})
        if st.setup_idx >= st.n:  # the second settlement yields its resources
            got = [0] * 5
            for h in st.board.vertex_hexes[v]:
                r = st.hex_res[h]
                if r >= 0 and st.bank[r]:
                    got[r] += 1
                    st.bank[r] -= 1
                    st.hands[seat][r] += 1
            events.append({"type": "starting_resources", "seat": seat, "resources": _side_dict(got)})
        if st.bf:
            self._bf_update_contacts(st, seat, None, events, award=False)

    def _a_place_road(self, st, seat, action, events):
        self._need_phase(st, (SETUP,), "§3.4 set-up phase", "place_road")
        if st.setup_vertex < 0:
            raise _rule("§3.4 set-up phase", "place a settlement first")
        e = action["edge"]
        if not isinstance(e, int) or not 0 <= e < st.board.num_edges or st.road_owner[e] >= 0 \
                or st.setup_vertex not in st.board.edge_vertices[e]:
            raise _rule("§3.4 set-up phase", f"edge {e!r} is not a free path at your new settlement")
        self._put_road(st, seat, e)
        st.road_len[seat] = self.road_length(st, seat)
        events.append({"type": "place_road", "seat": seat, "edge": e})
        if st.bf:
            self._bf_update_contacts(st, seat, e, events, award=False)
        st.setup_vertex = -1
        st.setup_idx += 1
        if st.setup_idx >= len(st.setup_order):
            st.phase = PRE_ROLL
            st.active = st.to_act = 0
            self._start_turn(st, events)
        else:
            st.to_act = st.setup_order[st.setup_idx]

    def _start_turn(self, st: CatanState, events: list) -> None:
        st.phase = PRE_ROLL
        st.to_act = st.active
        st.dev_played = st.built = False
        st.proposals_left = int(st.opts["max_trade_proposals_per_turn"])
        st.donated = st.favour_used = False
        st.gift_asked = []
        st.dice = []
        events.append({"type": "turn", "seat": st.active, "turn": st.turn})

    # --- rolling
    def _a_roll(self, st, seat, action, events):
        self._need_phase(st, (PRE_ROLL,), "§4.2 rolling", "roll")
        rng = st.rng
        d1 = rng.randint(1, 6)
        d2 = rng.randint(1, 6)
        k = d1 + d2
        st.dice = [d1, d2]
        events.append({"type": "roll", "seat": seat, "dice": [d1, d2]})
        if k == 7:
            queue, owed = [], {}
            n = st.n
            for i in range(n):
                s = (seat + i) % n
                total = sum(st.hands[s])
                if total > 7:
                    queue.append(s)
                    owed[s] = total // 2
            st.discard_log = []
            st.return_phase = TRADE
            if queue:
                st.discard_queue, st.discard_owed = queue, owed
                st.phase = DISCARD
                st.to_act = queue[0]
                events.append({"type": "discards_owed", "owed": {str(s): c for s, c in owed.items()}})
            else:
                st.phase = MOVE_ROBBER
            return
        hexes = st.num_hexes.get(k, ())
        board = st.board
        bo, bk, hv, hr = st.bld_owner, st.bld_kind, board.hex_vertices, st.hex_res
        owed = None
        robber = st.robber
        for h in hexes:
            if h == robber:
                continue
            r = hr[h]
            for v in hv[h]:
                o = bo[v]
                if o >= 0:
                    if owed is None:
                        owed = {}
                    key = (r, o)
                    owed[key] = owed.get(key, 0) + bk[v]
        st.phase = TRADE
        if owed:
            totals = [0] * 5
            for (r, o), c in owed.items():
                totals[r] += c
            bank, hands = st.bank, st.hands
            got = {}
            for (r, o), c in owed.items():
                if totals[r] <= bank[r]:
                    hands[o][r] += c
                    got.setdefault(str(o), {})[RES[r]] = c
            for r in range(5):
                if totals[r] and totals[r] <= bank[r]:
                    bank[r] -= totals[r]
            events.append({"type": "production", "resources": got})

    def _a_discard(self, st, seat, action, events):
        self._need_phase(st, (DISCARD,), "§4.3 discard", "discard")
        r = D.RES_INDEX.get(action["resource"], -1)
        if r < 0 or not st.hands[seat][r]:
            raise _rule("§4.3 discard", f"seat {seat} holds no {action['resource']!r} to discard")
        st.hands[seat][r] -= 1
        st.bank[r] += 1
        st.discard_log.append((seat, r))
        events.append({"type": "discard", "seat": seat})  # the type stays hidden until all are done
        st.discard_owed[seat] -= 1
        if st.discard_owed[seat] == 0:
            del st.discard_owed[seat]
            st.discard_queue.pop(0)
            if st.discard_queue:
                st.to_act = st.discard_queue[0]
            else:
                done: dict[str, dict[str, int]] = {}
                for s, res in st.discard_log:
                    d = done.setdefault(str(s), {})
                    d[RES[res]] = d.get(RES[res], 0) + 1
                events.append({"type": "discards", "discarded": done})
                st.discard_log = []
                st.phase = MOVE_ROBBER
                st.to_act = st.active

    def _a_move_robber(self, st, seat, action, events):
        self._need_phase(st, (MOVE_ROBBER,), "§4.3 robber", "move_robber")
        h = action["hex"]
        victim = action.get("victim")
        if action not in self._robber_actions(st, seat):
            if not isinstance(h, int) or not 0 <= h < st.board.num_hexes or h == st.robber:
                raise _rule("§4.3 robber", f"the robber must move to another land hex, not {h!r}")
            raise _rule("§4.3 steal", f"victim {victim!r} is not an opponent with cards at hex {h}")
        st.robber = h
        events.append({"type": "move_robber", "seat": seat, "hex": h, "victim": victim})
        if victim is not None:
            hand = st.hands[victim]
            idx = st.rng.randrange(sum(hand))
            for r in range(5):
                if idx < hand[r]:
                    break
                idx -= hand[r]
            hand[r] -= 1
            st.hands[seat][r] += 1
            st.last_steal = (seat, victim, r)
            events.append({"type": "steal", "seat": seat, "victim": victim})
        elif st.bf:
            harmless = not any(st.bld_owner[v] >= 0 for v in st.board.hex_vertices[h]) or st.hex_res[h] < 0
            if harmless:
                self._bf_draw(st, seat, 1, events)
        st.phase = st.return_phase
        st.to_act = st.active

    # --- trade
    def _a_maritime(self, st, seat, action, events):
        self._check_trade_phase(st, "maritime_trade")
        g = D.RES_INDEX.get(action["give"], -1)
        t = D.RES_INDEX.get(action["get"], -1)
        rate = action["rate"]
        if g < 0 or t < 0 or g == t:
            raise _rule("§4.4 maritime trade", "give and get must be two different resources")
        if rate != st.rates[seat][g]:
            raise _rule("§4.4 maritime trade", f"your rate for {RES[g]} is {st.rates[seat][g]}:1, not {rate!r}")
        if st.hands[seat][g] < rate:
            raise _rule("§4.4 maritime trade", f"you need {rate} {RES[g]}")
        if not st.bank[t]:
            raise _rule("§4.4 maritime trade", f"the bank has no {RES[t]}")
        st.hands[seat][g] -= rate
        st.bank[g] += rate
        st.hands[seat][t] += 1
        st.bank[t] -= 1
        events.append({"type": "maritime_trade", "seat": seat, "give": RES[g], "rate": rate, "get": RES[t]})

    def _check_trade_phase(self, st, what):
        if st.phase == BUILD:
            raise _rule("§4.1 strict order", f"no {what} after building this turn (trade comes before build)")
        if st.phase != TRADE:
            raise _rule("§4.1 phases of a turn", f"{what} only in the trade phase, not {PHASE_NAMES[st.phase]}")
        if st.built and not st.combined:
            raise _rule("§4.1 strict order", f"no {what} after building this turn (trade comes before build)")

    def _parse_side(self, st, side, rule: str) -> tuple[int, ...]:
        if not isinstance(side, dict) or any(k not in D.RES_INDEX for k in side) \
                or any(not isinstance(c, int) or c < 1 for c in side.values()):
            raise _rule(rule, f"bad resource map {side!r}")
        vec = _vec(side)
        if not 1 <= sum(vec) <= int(st.opts["trade_max_cards_per_side"]):
            raise _rule(rule, f"each side holds 1..{st.opts['trade_max_cards_per_side']} cards")
        return vec

    def _parse_trade(self, st, action, rule):
        found = st.trade_table[3].get(id(action))  # one of our own shared action dicts
        if found is not None:
            return found
        try:
            found = st.trade_table[1].get((tuple(action["give"].items()), tuple(action["get"].items())))
        except (AttributeError, TypeError):
            found = None
        if found is not None:
            return found
        give = self._parse_side(st, action["give"], rule)
        get = self._parse_side(st, action["get"], rule)
        if any(give[i] and get[i] for i in range(5)):
            raise _rule("§4.4 domestic trade", "no resource type may appear on both sides")
        return give, get

    def _a_propose(self, st, seat, action, events):
        self._check_trade_phase(st, "propose_trade")
        if st.proposals_left <= 0:
            raise _rule("§4.4 bot protocol", "no trade proposals left this turn")
        give, get = self._parse_trade(st, action, "§4.4 bot protocol")
        if not self._can_pay(st.hands[seat], give):
            raise _rule("§4.4 domestic trade", "you must hold what you offer")
        self._open_trade(st, seat, "proposal", give, get, events)

    def _a_request(self, st, seat, action, events):
        self._check_trade_phase(st, "request_offers")
        if st.proposals_left <= 0:
            raise _rule("§4.4 bot protocol", "no trade proposals left this turn")
        self._open_trade(st, seat, "request", None, None, events)

    def _open_trade(self, st, seat, kind, give, get, events):
        st.proposals_left -= 1
        order = [(seat + i) % st.n for i in range(1, st.n)]
        st.trade = {"kind": kind, "give": give, "get": get, "order": order, "queue": list(order), "answers": {}}
        ev = {"type": "propose_trade" if kind == "proposal" else "request_offers", "seat": seat}
        if kind == "proposal":
            ev["give"], ev["get"] = _shared_side(give), _shared_side(get)
        events.append(ev)
        st.phase = TRADE_RESPOND
        st.to_act = order[0]

    def _answer(self, st, seat, answer, events):
        tr = st.trade
        tr["answers"][seat] = answer
        tr["queue"].pop(0)
        events.append({"type": "answer", "seat": seat})  # contents public once everyone answered
        if tr["queue"]:
            st.to_act = tr["queue"][0]
        else:
            events.append({"type": "answers", "answers": _answers_view(tr["answers"])})
            st.phase = TRADE_DECIDE
            st.to_act = st.active

    def _a_accept_trade(self, st, seat, action, events):
        self._need_phase(st, (TRADE_RESPOND,), "§4.4 bot protocol", "accept_trade")
        if st.trade["kind"] != "proposal":
            raise _rule("§4.4 bot protocol", "accept_trade answers a proposal, not a request")
        if not self._can_pay(st.hands[seat], st.trade["get"]):
            raise _rule("§4.4 domestic trade", "you do not hold the cards asked for")
        self._answer(st, seat, ("accept", None, None), events)

    def _a_reject_trade(self, st, seat, action, events):
        self._need_phase(st, (TRADE_RESPOND,), "§4.4 bot protocol", "reject_trade")
        if st.trade["kind"] != "proposal":
            raise _rule("§4.4 bot protocol", "answer a request with offer or pass")
        self._answer(st, seat, ("reject", None, None), events)

    def _a_pass(self, st, seat, action, events):
        self._need_phase(st, (TRADE_RESPOND,), "§4.4 bot protocol", "pass")
        if st.trade["kind"] != "request":
            raise _rule("§4.4 bot protocol", "answer a proposal with accept_trade, reject_trade or counter_trade")
        self._answer(st, seat, ("pass", None, None), events)

    def _a_counter(self, st, seat, action, events):
        self._need_phase(st, (TRADE_RESPOND,), "§4.4 bot protocol", action["type"])
        want = "proposal" if action["type"] == "counter_trade" else "request"
        if st.trade["kind"] != want:
            raise _rule("§4.4 bot protocol", f"{action['type']} does not answer a {st.trade['kind']}")
        give, get = self._parse_trade(st, action, "§4.4 bot protocol")
        if not self._can_pay(st.hands[seat], give):
            raise _rule("§4.4 domestic trade", "you must hold what you offer")
        self._answer(st, seat, ("counter" if want == "proposal" else "offer", give, get), events)

    def _exchange(self, st, a, b, a_gives, b_gives):
        ha, hb = st.hands[a], st.hands[b]
        for r in range(5):
            ha[r] += b_gives[r] - a_gives[r]
            hb[r] += a_gives[r] - b_gives[r]

    def _a_confirm(self, st, seat, action, events):
        self._need_phase(st, (TRADE_DECIDE,), "§4.4 bot protocol", "confirm_trade")
        s = action["seat"]
        tr = st.trade
        if tr["answers"].get(s, ("",))[0] != "accept":
            raise _rule("§4.4 bot protocol", f"seat {s!r} did not accept the proposal")
        self._exchange(st, seat, s, tr["give"], tr["get"])
        events.append({"type": "trade", "seat": seat, "with": s, "give": _shared_side(tr["give"]),
                       "get": _shared_side(tr["get"])})
        self._close_trade(st)

    def _a_accept_counter(self, st, seat, action, events):
        self._need_phase(st, (TRADE_DECIDE,), "§4.4 bot protocol", "accept_counter")
        s = action["seat"]
        ans = st.trade["answers"].get(s)
        if not ans or ans[0] not in ("counter", "offer"):
            raise _rule("§4.4 bot protocol", f"seat {s!r} made no counter-offer")
        if not self._can_pay(st.hands[seat], ans[2]):
            raise _rule("§4.4 domestic trade", "you do not hold what the counter-offer asks for")
        self._exchange(st, s, seat, ans[1], ans[2])
        events.append({"type": "trade", "seat": seat, "with": s, "give": _shared_side(ans[2]),
                       "get": _shared_side(ans[1])})
        self._close_trade(st)

    def _a_cancel(self, st, seat, action, events):
        self._need_phase(st, (TRADE_DECIDE,), "§4.4 bot protocol", "cancel_trade")
        events.append({"type": "cancel_trade", "seat": seat})
        self._close_trade(st)

    def _close_trade(self, st):
        st.trade = None
        st.phase = TRADE
        st.to_act = st.active

    # --- building
    def _build_phase(self, st, seat, what):
        ph = st.phase
        if ph == TRADE:
            if not st.combined:
                st.phase = BUILD
        elif ph not in (BUILD, SPECIAL_BUILD):
            raise _rule("§4.1 phases of a turn", f"{what} is not allowed in phase {PHASE_NAMES[ph]}")
        st.built = True

    def _a_build_road(self, st, seat, action, events):
        if st.phase not in (TRADE, BUILD, SPECIAL_BUILD):
            raise _rule("§4.1 phases of a turn", f"build_road is not allowed in phase {PHASE_NAMES[st.phase]}")
        e = action["edge"]
        if not self._can_pay(st.hands[seat], D.COST_ROAD):
            raise _rule("§2.3 costs", "a road costs 1 lumber + 1 brick")
        if not st.supply[seat][2]:
            raise _rule("§4.5 piece limits", "no road left in your supply")
        if e not in self._road_edges(st, seat):
            raise _rule("§4.5 building", f"edge {e!r} is not free or not connected to your network")
        self._build_phase(st, seat, "build_road")
        self._pay(st, seat, D.COST_ROAD)
        self._road_placed(st, seat, e, events, "build_road")

    def _road_placed(self, st, seat, e, events, kind):
        self._put_road(st, seat, e)
        events.append({"type": kind, "seat": seat, "edge": e})
        st.road_len[seat] = self.road_length(st, seat)
        self._update_longest_road(st, events)
        if st.bf:
            self._bf_update_contacts(st, seat, e, events, award=True)

    def _a_build_settlement(self, st, seat, action, events):
        if st.phase not in (TRADE, BUILD, SPECIAL_BUILD):
            raise _rule("§4.1 phases of a turn", f"build_settlement is not allowed in phase {PHASE_NAMES[st.phase]}")
        v = action["vertex"]
        if not self._can_pay(st.hands[seat], D.COST_SETTLEMENT):
            raise _rule("§2.3 costs", "a settlement costs brick, lumber, wool and grain")
        if not st.supply[seat][0]:
            raise _rule("§4.5 piece limits", "no settlement left in your supply (max 5)")
        if not isinstance(v, int) or not 0 <= v < st.board.num_vertices:
            raise _rule("§2.5 vertices", f"no vertex {v!r}")
        if st.blocked[v]:
            raise _rule("§4.5 distance rule", f"vertex {v} is occupied or next to a settlement or city")
        if v not in self._settlement_spots(st, seat):
            raise _rule("§4.5 building", f"no own road leads to vertex {v}")
        self._build_phase(st, seat, "build_settlement")
        self._pay(st, seat, D.COST_SETTLEMENT)
        self._put_settlement(st, seat, v)
        events.append({"type": "build_settlement", "seat": seat, "vertex": v})
        # a settlement may break opponents' roads through v (§4.7)
        changed = False
        ro = st.road_owner
        for e in st.board.vertex_edges[v]:
            o = ro[e]
            if o >= 0 and o != seat:
                st.road_len[o] = self.road_length(st, o)
                changed = True
        if changed:
            self._update_longest_road(st, events)

    def _a_build_city(self, st, seat, action, events):
        if st.phase not in (TRADE, BUILD, SPECIAL_BUILD):
            raise _rule("§4.1 phases of a turn", f"build_city is not allowed in phase {PHASE_NAMES[st.phase]}")
        v = action["vertex"]
        if not self._can_pay(st.hands[seat], D.COST_CITY):
            raise _rule("§2.3 costs", "a city costs 3 ore + 2 grain")
        if not st.supply[seat][1]:
            raise _rule("§4.5 piece limits", "no city left in your supply (max 4)")
        if not isinstance(v, int) or not 0 <= v < st.board.num_vertices or st.bld_owner[v] != seat \
                or st.bld_kind[v] != 1:
            raise _rule("§4.5 city", f"a city only replaces your own settlement (vertex {v!r})")
        self._build_phase(st, seat, "build_city")
        self._pay(st, seat, D.COST_CITY)
        st.bld_kind[v] = 2
        st.supply[seat][0] += 1
        st.supply[seat][1] -= 1
        events.append({"type": "build_city", "seat": seat, "vertex": v})

    def _a_buy_dev(self, st, seat, action, events):
        if st.phase not in (TRADE, BUILD, SPECIAL_BUILD):
            raise _rule("§4.1 phases of a turn", f"buy_dev_card is not allowed in phase {PHASE_NAMES[st.phase]}")
        if not self._can_pay(st.hands[seat], D.COST_DEV):
            raise _rule("§2.3 costs", "a development card costs ore, wool and grain")
        if not st.deck:
            raise _rule("§4.5 building", "the development deck is empty")
        self._build_phase(st, seat, "buy_dev_card")
        self._pay(st, seat, D.COST_DEV)
        self._take_dev(st, seat)
        events.append({"type": "buy_dev_card", "seat": seat})

    def _take_dev(self, st, seat):
        card = st.deck.pop()
        st.devs[seat][card] += 1
        st.devs_new[seat][card] += 1

    # --- development cards
    def _check_dev(self, st, seat, card, what):
        if st.phase not in DEV_PLAY_PHASES or seat != st.active:
            raise _rule("§4.6 development cards", f"{what} only on your own turn before/while trading or building")
        if st.dev_played:
            raise _rule("§4.6 development cards", "only one development card per turn")
        if st.devs[seat][card] - st.devs_new[seat][card] <= 0:
            if st.devs[seat][card]:
                raise _rule("§4.6 development cards", "a card bought this turn cannot be played this turn")
            raise _rule("§4.6 development cards", f"you hold no {D.DEV_TYPES[card]} card")

    def _play(self, st, seat, card):
        st.devs[seat][card] -= 1
        st.dev_played = True

    def _a_knight(self, st, seat, action, events):
        self._check_dev(st, seat, KN, "play_knight")
        self._play(st, seat, KN)
        st.knights[seat] += 1
        events.append({"type": "play_knight", "seat": seat})
        k = st.knights[seat]
        holder = st.la_holder
        if k >= D.LARGEST_ARMY_MIN and holder != seat and (holder < 0 or k > st.knights[holder]):
            st.la_holder = seat
            events.append({"type": "largest_army", "seat": seat, "knights": k})
        st.return_phase = st.phase
        st.phase = MOVE_ROBBER

    def _a_play_road_building(self, st, seat, action, events):
        self._check_dev(st, seat, RB, "play_road_building")
        if not st.supply[seat][2] or not self._road_edges(st, seat):
            raise _rule("§4.6 road building", "no road piece or no legal edge for a free road")
        self._play(st, seat, RB)
        events.append({"type": "play_road_building", "seat": seat})
        st.free_roads = min(2, st.supply[seat][2])
        st.return_phase = st.phase
        st.phase = ROAD_BUILDING

    def _a_free_road(self, st, seat, action, events):
        self._need_phase(st, (ROAD_BUILDING,), "§4.6 road building", "free_road")
        e = action["edge"]
        if e not in self._road_edges(st, seat):
            raise _rule("§4.5 building", f"edge {e!r} is not free or not connected to your network")
        self._road_placed(st, seat, e, events, "free_road")
        st.free_roads -= 1
        if st.free_roads <= 0 or not st.supply[seat][2] or not self._road_edges(st, seat):
            st.phase = st.return_phase

    def _a_end_road_building(self, st, seat, action, events):
        self._need_phase(st, (ROAD_BUILDING,), "§4.6 road building", "end_road_building")
        st.free_roads = 0
        st.phase = st.return_phase
        events.append({"type": "end_road_building", "seat": seat})

    def _a_year_of_plenty(self, st, seat, action, events):
        self._check_dev(st, seat, YOP, "play_year_of_plenty")
        names = action["resources"]
        if not isinstance(names, list) or any(r not in D.RES_INDEX for r in names):
            raise _rule("§4.6 year of plenty", f"bad resources {names!r}")
        want = [0] * 5
        for r in names:
            want[D.RES_INDEX[r]] += 1
        total = sum(st.bank)
        if len(names) != min(2, total) or len(names) == 0 or not self._can_pay(st.bank, want):
            raise _rule("§4.6 year of plenty", "take 2 cards the bank holds (1 only when the bank holds 1)")
        self._play(st, seat, YOP)
        for r in range(5):
            st.bank[r] -= want[r]
            st.hands[seat][r] += want[r]
        events.append({"type": "play_year_of_plenty", "seat": seat, "resources": sorted(names, key=D.RES_INDEX.get)})

    def _a_monopoly(self, st, seat, action, events):
        self._check_dev(st, seat, MONO, "play_monopoly")
        r = D.RES_INDEX.get(action["resource"], -1)
        if r < 0:
            raise _rule("§4.6 monopoly", f"no resource {action['resource']!r}")
        self._play(st, seat, MONO)
        taken = {}
        for s in range(st.n):
            if s != seat and st.hands[s][r]:
                taken[str(s)] = st.hands[s][r]
                st.hands[seat][r] += st.hands[s][r]
                st.hands[s][r] = 0
        events.append({"type": "play_monopoly", "seat": seat, "resource": RES[r], "taken": taken})

    # --- end of turn
    def _a_end_turn(self, st, seat, action, events):
        self._need_phase(st, (TRADE, BUILD), "§4.9 end of turn", "end_turn")
        events.append({"type": "end_turn", "seat": seat})
        if st.n >= 5:
            st.special_queue = [(seat + i) % st.n for i in range(1, st.n)]
            st.phase = SPECIAL_BUILD
            st.to_act = st.special_queue[0]
            return
        self._next_turn(st, events)

    def _a_end_special(self, st, seat, action, events):
        self._need_phase(st, (SPECIAL_BUILD,), "§6.2 special building phase", "end_special_build")
        st.special_queue.pop(0)
        if st.special_queue:
            st.to_act = st.special_queue[0]
        else:
            self._next_turn(st, events)

    def _next_turn(self, st, events):
        for new in st.devs_new:
            new[:] = (0, 0, 0, 0, 0)
        if st.bf:
            for new in st.favours_new:
                new[:] = (0, 0, 0, 0, 0)
        st.turn += 1
        if st.turn >= st.max_turns:
            self._finish(st, -1, events)
            return
        st.active = (st.active + 1) % st.n
        self._start_turn(st, events)
        # win check at the start of the turn happens in apply()

    # ------------------------------------------------------------------ Best Friends (§6.5)
    def _bf_draw(self, st, seat, count, events):
        got = 0
        for _ in range(count):
            if not st.favour_supply:
                break
            g = st.favour_supply.pop()
            st.favours[seat][g] += 1
            st.favours_new[seat][g] += 1
            got += 1
        if got:
            events.append({"type": "favour_tokens", "seat": seat, "count": got})

    def _bf_visible_vp(self, st, seat):
        return self.vp(st, seat, hidden=False)

    def _bf_actions(self, st, seat, out):
        if seat != st.active:
            return
        phase = st.phase
        if phase in (TRADE, BUILD) and not st.donated:
            my_vp = self._bf_visible_vp(st, seat)
            hand = st.hands[seat]
            for to in range(st.n):
                if to != seat and to not in st.gift_asked and self._bf_visible_vp(st, to) <= my_vp:
                    for r in range(5):
                        if hand[r]:
                            out.append({"type": "donate", "resource": RES[r], "to": to})
        if st.favour_used:
            return
        fav, new = st.favours[seat], st.favours_new[seat]
        usable = [fav[i] - new[i] for i in range(5)]
        hand, bank = st.hands[seat], st.bank
        if usable[0] >= D.FAVOUR_COST["merchant"] and any(
                hand[g] and any(bank[t] for t in range(5) if t != g) for g in range(5)):
            out.append(A_USE_FAVOR["merchant"])
        if usable[1] >= D.FAVOUR_COST["trader"]:
            out.extend([A_TRADER[r] for r in range(5) if bank[r]])
        if usable[2] >= D.FAVOUR_COST["road_builder"] and st.supply[seat][2] and self._road_edges(st, seat):
            out.append(A_USE_FAVOR["road_builder"])
        if usable[3] >= D.FAVOUR_COST["scholar"] and st.deck:
            out.append(A_USE_FAVOR["scholar"])
        if usable[4] >= D.FAVOUR_COST["architect"] and st.catan_supply:
            out.append(A_USE_FAVOR["architect"])
        if sum(usable) and st.favour_supply:  # a token gained this turn cannot be exchanged yet [HOUSE]
            out.append(A_EXCHANGE_FAVOR)

    def _a_donate(self, st, seat, action, events):
        if not st.bf:
            raise _rule("§6.5 best friends", "donations exist only in the Best Friends scenario")
        if st.phase not in (TRADE, BUILD) or seat != st.active:
            raise _rule("§6.5 donation", "donate only on your own turn after rolling")
        if action not in [a for a in self._bf_donations(st, seat)]:
            raise _rule("§6.5 donation", f"donation {action!r} is not allowed now")
        to = action["to"]
        st.gift_asked.append(to)
        st.gift = (seat, to, D.RES_INDEX[action["resource"]], st.phase)
        events.append({"type": "donate", "seat": seat, "to": to, "resource": action["resource"]})
        st.phase = GIFT_ANSWER
        st.to_act = to

    def _bf_donations(self, st, seat):
        out = []
        if st.bf and not st.donated:
            saved = st.favour_used
            st.favour_used = True
            self._bf_actions(st, seat, out)
            st.favour_used = saved
        return [a for a in out if a.get("type") == "donate"]

    def _a_gift_answer(self, st, seat, action, events):
        self._need_phase(st, (GIFT_ANSWER,), "§6.5 donation", action["type"])
        donor, to, r, back = st.gift
        if action["type"] == "accept_gift":
            st.hands[donor][r] -= 1
            st.hands[to][r] += 1
            st.donated = True
            events.append({"type": "accept_gift", "seat": to, "from": donor})
            self._bf_draw(st, donor, 1, events)
        else:
            events.append({"type": "reject_gift", "seat": to, "from": donor})
        st.gift = None
        st.phase = back
        st.to_act = donor

    def _check_favour(self, st, seat, guild):
        if not st.bf:
            raise _rule("§6.5 best friends", "favour tokens exist only in the Best Friends scenario")
        if st.phase not in DEV_PLAY_PHASES or seat != st.active:
            raise _rule("§6.5 favour tokens", "favour tokens are used on your own turn only")
        if st.favour_used:
            raise _rule("§6.5 favour tokens", "one use or exchange of favour tokens per turn")
        if guild is not None:
            g = D.GUILDS.index(guild)
            if st.favours[seat][g] - st.favours_new[seat][g] < D.FAVOUR_COST[guild]:
                raise _rule("§6.5 favour tokens", f"not enough {guild} tokens gained in earlier turns")

    def _a_use_favor(self, st, seat, action, events):
        guild = action["guild"]
        if guild not in D.GUILDS:
            raise _rule("§6.5 favour tokens", f"no guild {guild!r}")
        self._check_favour(st, seat, guild)
        legal = []
        self._bf_actions(st, seat, legal)
        if action not in legal:
            raise _rule("§6.5 favour tokens", f"{action!r} is not possible now")
        g = D.GUILDS.index(guild)
        st.favours[seat][g] -= D.FAVOUR_COST[guild]
        st.favour_used = True
        events.append({"type": "use_favor", "seat": seat, "guild": guild})
        if guild == "trader":
            r = D.RES_INDEX[action["get"]]
            st.bank[r] -= 1
            st.hands[seat][r] += 1
        elif guild == "merchant":
            st.merchant_left = 2
            st.favour_return_phase = st.phase
            st.phase = FAVOR_MERCHANT
        elif guild == "road_builder":
            st.free_roads = 1
            st.return_phase = st.phase
            st.phase = ROAD_BUILDING
        elif guild == "scholar":
            self._take_dev(st, seat)  # counts as bought this turn [HOUSE]
        else:
            st.catan_supply -= 1
            st.catan_tokens[seat] += 1

    def _a_favor_exchange(self, st, seat, action, events):
        self._need_phase(st, (FAVOR_MERCHANT,), "§6.5 merchant", "favor_exchange")
        g, t = D.RES_INDEX.get(action["give"], -1), D.RES_INDEX.get(action["get"], -1)
        if g < 0 or t < 0 or g == t or not st.hands[seat][g] or not st.bank[t]:
            raise _rule("§6.5 merchant", "exchange 1 card you hold for 1 other card the bank holds")
        st.hands[seat][g] -= 1
        st.bank[g] += 1
        st.bank[t] -= 1
        st.hands[seat][t] += 1
        st.merchant_left -= 1
        events.append({"type": "favor_exchange", "seat": seat, "give": RES[g], "get": RES[t]})
        if st.merchant_left <= 0:
            st.phase = st.favour_return_phase

    def _a_end_favor(self, st, seat, action, events):
        self._need_phase(st, (FAVOR_MERCHANT,), "§6.5 merchant", "end_favor")
        if st.merchant_left >= 2 and self.legal_actions(st, seat) != [A_END_FAVOR]:
            raise _rule("§6.5 merchant", "make at least one exchange first")
        st.merchant_left = 0
        st.phase = st.favour_return_phase

    def _a_exchange_favor(self, st, seat, action, events):
        self._check_favour(st, seat, None)
        usable = sum(st.favours[seat]) - sum(st.favours_new[seat])
        if usable <= 0 or not st.favour_supply:
            raise _rule("§6.5 favour tokens", "an exchange needs a token from an earlier turn and a non-empty supply")
        st.favour_used = True
        g = st.favour_supply.pop()
        st.favours[seat][g] += 1
        st.favours_new[seat][g] += 1
        st.favour_return_phase = st.phase
        st.phase = FAVOR_RETURN
        events.append({"type": "exchange_favor", "seat": seat})

    def _a_return_favor(self, st, seat, action, events):
        self._need_phase(st, (FAVOR_RETURN,), "§6.5 favour tokens", "return_favor")
        guild = action["guild"]
        g = D.GUILDS.index(guild) if guild in D.GUILDS else -1
        if g < 0 or not st.favours[seat][g]:
            raise _rule("§6.5 favour tokens", f"you hold no {guild!r} token")
        st.favours[seat][g] -= 1
        if st.favours_new[seat][g] > 0:
            st.favours_new[seat][g] -= 1
        st.favour_supply.insert(st.rng.randrange(len(st.favour_supply) + 1), g)
        st.phase = st.favour_return_phase
        events.append({"type": "return_favor", "seat": seat})

    def _networks(self, st, seat):
        """Connected components (sets of vertices) of ``seat``'s roads and buildings (§6.5)."""
        ev = st.board.edge_vertices
        parent: dict[int, int] = {}

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for v in st.seat_buildings[seat]:
            parent.setdefault(v, v)
        for e in st.seat_roads[seat]:
            a, b = ev[e]
            parent.setdefault(a, a)
            parent.setdefault(b, b)
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
        comps: dict[int, set] = {}
        for v in parent:
            comps.setdefault(find(v), set()).add(v)
        return list(comps.values())

    def _contacts(self, st):
        """Pairs of (seat, network vertex set) in contact: {(s, frozenset), (t, frozenset)}."""
        nets = [(s, frozenset(c)) for s in range(st.n) for c in self._networks(st, s)]
        return nets

    def _bf_init_contacts(self, st):
        nets = self._contacts(st)
        for i, (s, a) in enumerate(nets):
            for t, b in nets[i + 1:]:
                if s != t and a & b:
                    st.networks_contacts.add(frozenset(((s, a), (t, b))))

    def _bf_update_contacts(self, st, seat, edge, events, award):
        """Remember contacts between networks; award favour tokens for new ones (§6.5 way 3).

        Contacts are stored as pairs of (seat, vertex set) networks; a grown network inherits the
        contacts of its parts, so only a pair of networks that never touched before is new.
        """
        old = st.networks_contacts
        # the builder's networks after the placement; a network inherits contacts of any old network it contains
        my_nets = [frozenset(c) for c in self._networks(st, seat)]
        others = [(t, frozenset(c)) for t in range(st.n) if t != seat for c in self._networks(st, t)]

        def known(mine: frozenset, t: int, theirs: frozenset) -> bool:
            for pair in old:
                (s1, a), (s2, b) = tuple(pair)
                if s1 == seat and s2 == t and a <= mine and b <= theirs:
                    return True
                if s2 == seat and s1 == t and b <= mine and a <= theirs:
                    return True
            return False

        new_contacts = []
        for mine in my_nets:
            for t, theirs in others:
                if mine & theirs and not known(mine, t, theirs):
                    new_contacts.append((mine, t, theirs))
        # rebuild the contact memory over the current networks, keeping inherited contacts
        nets = [(seat, m) for m in my_nets] + others
        fresh = set()
        for i, (s, a) in enumerate(nets):
            for t2, b in nets[i + 1:]:
                if s == t2:
                    continue
                touching = bool(a & b)
                inherited = any(
                    (p1[0] == s and p2[0] == t2 and p1[1] <= a and p2[1] <= b)
                    or (p2[0] == s and p1[0] == t2 and p2[1] <= a and p1[1] <= b)
                    for p1, p2 in (tuple(pair) for pair in old))
                if touching or inherited:
                    fresh.add(frozenset(((s, a), (t2, b))))
        st.networks_contacts = fresh
        if award and edge is not None:
            ev = st.board.edge_vertices[edge]
            mine_with_edge = [m for m in my_nets if ev[0] in m]
            opponents = sorted({t for mine, t, _ in new_contacts if mine in mine_with_edge},
                               key=lambda t: (t - seat) % st.n)
            if opponents:
                for t in opponents:
                    self._bf_draw(st, t, 1, events)
                self._bf_draw(st, seat, 3, events)

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
                         "public_vp": self.vp(st, s, hidden=False), "road_length": st.road_len[s],
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
                t["give"], t["get"] = _side_dict(tr["give"]), _side_dict(tr["get"])
            if st.phase == TRADE_DECIDE:  # answers are public once all are in
                t["answers"] = _answers_view(tr["answers"])
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
            obs["revealed"] = {str(s): {"resources": _side_dict(st.hands[s]),
                                        "dev_cards": _side_dict_dev(st.devs[s])} for s in range(st.n)}
            obs["winner"] = None if st.winner < 0 else st.winner
        if seat is not None:
            you: dict[str, Any] = {
                "resources": _side_dict(st.hands[seat]),
                "dev_cards": [{"type": D.DEV_TYPES[c], "bought_this_turn": i < st.devs_new[seat][c]}
                              for c in range(5) for i in range(st.devs[seat][c])],
                "vp_total": self.vp(st, seat),
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
        vps = [self.vp(st, s) for s in range(st.n)]
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
    "place_settlement": Catan._a_place_settlement,
    "place_road": Catan._a_place_road,
    "roll": Catan._a_roll,
    "discard": Catan._a_discard,
    "move_robber": Catan._a_move_robber,
    "maritime_trade": Catan._a_maritime,
    "propose_trade": Catan._a_propose,
    "request_offers": Catan._a_request,
    "accept_trade": Catan._a_accept_trade,
    "reject_trade": Catan._a_reject_trade,
    "counter_trade": Catan._a_counter,
    "offer": Catan._a_counter,
    "pass": Catan._a_pass,
    "confirm_trade": Catan._a_confirm,
    "accept_counter": Catan._a_accept_counter,
    "cancel_trade": Catan._a_cancel,
    "build_road": Catan._a_build_road,
    "build_settlement": Catan._a_build_settlement,
    "build_city": Catan._a_build_city,
    "buy_dev_card": Catan._a_buy_dev,
    "play_knight": Catan._a_knight,
    "play_road_building": Catan._a_play_road_building,
    "free_road": Catan._a_free_road,
    "end_road_building": Catan._a_end_road_building,
    "play_year_of_plenty": Catan._a_year_of_plenty,
    "play_monopoly": Catan._a_monopoly,
    "end_turn": Catan._a_end_turn,
    "end_special_build": Catan._a_end_special,
    "donate": Catan._a_donate,
    "accept_gift": Catan._a_gift_answer,
    "reject_gift": Catan._a_gift_answer,
    "use_favor": Catan._a_use_favor,
    "favor_exchange": Catan._a_favor_exchange,
    "end_favor": Catan._a_end_favor,
    "exchange_favor": Catan._a_exchange_favor,
    "return_favor": Catan._a_return_favor,
}
