"""El Capitán's dead-end filter (§9.3): a buy or a sail is listed only if the turn can still be
finished with a main action after it.

``Finisher`` answers for one seat from its needs (the least money for a main action on arriving in
each city), kept in ``st.need_cache`` from decision to decision while valid (``KEEP_NEEDS``,
``SHIP_ONLY``, ``harbours_changed`` and ``city_built`` say what an action leaves stale); its plans
search the cards that may be played: ``_free_plan`` when every card is free (a lower bound, two
moves, then the search), else the lower bound ``_relaxed_plan`` (whose path is often a plan
already) then ``_search``; ``Finisher.buy_plan`` first asks what the buys of one price share.
"""
from __future__ import annotations

from heapq import heappop, heappush
from operator import itemgetter

from .board import arrival_slot, colour_supply_ok, main_needs
from .state import ECState
from .tables import CARD_IDS, CARD_PRICE, INF, MOVES, NCARD, NCITY


def _search(loc: int, start: int, pool: list[tuple[int, int]], used: int, budget: int,
            need: list[int], min_need: int, visited: int, memo: dict) -> bool:
    """Can the ship reach, from ``loc``, a city whose main action fits in the budget, playing the
    cards of ``pool`` (card, cost; sorted by cost) not yet ``used``? Paths that repeat a city are
    never needed, except a return to the start city (which re-anchors), so they are cut."""
    if used & (used - 1):  # two cards or more played: another order may have come here (none before)
        key = (loc, used, visited)
        seen = memo.get(key)
        if seen is not None and seen >= budget:
            return False
        memo[key] = budget
    lp = loc + 2
    limit = budget - min_need
    bit = 1  # the card's bit in ``used``
    for k, cost in pool:
        if cost > limit:
            break
        if not used & bit:
            left = budget - cost
            for b in MOVES[k][lp]:
                if visited >> b & 1:
                    continue
                if need[b] <= left:
                    return True
                if b == start:
                    continue
                if _search(b, start, pool, used | bit, left, need, min_need, visited | (1 << b), memo):
                    return True
        bit += bit
    return False


#: MOVE_MASK[k][loc + 2]: MOVES as a bit set of cities
MOVE_MASK = tuple(tuple(sum(1 << b for b in moves) for moves in row) for row in MOVES)


def _step_table(k: int) -> list[int]:
    """STEP[k], made on first use (54 tables of 512 would slow every import)."""
    table = [0] * (1 << NCITY)
    for cities in range(1, 1 << NCITY):
        low = cities & -cities
        table[cities] = table[cities ^ low] | MOVE_MASK[k][low.bit_length() + 1]
    STEP[k] = table
    return table


#: STEP[k][cities]: where card k takes the ship from any city of a bit set (None: not made yet)
STEP: list[list[int] | None] = [None] * len(CARD_IDS)


def _into_table(k: int) -> list[int]:
    """INTO[k], made on first use (as STEP)."""
    before = [0] * NCITY  # before[c]: the cities from which card k takes the ship to c
    for a in range(NCITY):
        for b in MOVES[k][a + 2]:
            before[b] |= 1 << a
    table = [0] * (1 << NCITY)
    for cities in range(1, 1 << NCITY):
        low = cities & -cities
        table[cities] = table[cities ^ low] | before[low.bit_length() - 1]
    INTO[k] = table
    return table


#: INTO[k][cities]: the cities from which card k takes the ship into a bit set (None: not made yet)
INTO: list[list[int] | None] = [None] * len(CARD_IDS)

#: BITS[cities]: the cities of a bit set, ascending
BITS = tuple(tuple(b for b in range(NCITY) if cities >> b & 1) for cities in range(1 << NCITY))


def _may_reach(lp: int, cards: list[int], target: int) -> bool:
    """The lower bound of the plans: whether ``cards``, each played any number of times, take the
    ship from ``lp`` (location + 2) into ``target`` (a bit set). False proves no plan exists."""
    reach = 0
    steps = []
    for k in cards:
        reach |= MOVE_MASK[k][lp]
        steps.append(STEP[k] or _step_table(k))
    while not reach & target:
        more = reach
        for step in steps:
            more |= step[reach]
        if more == reach:
            return False
        reach = more
    return True


def _two_moves(lp: int, cards: list[int], target: int) -> bool:
    """Whether one of ``cards`` takes the ship from ``lp`` (location + 2) to a city from which another
    takes it into ``target`` (a bit set). A move never stays, so the first never ends where it
    started, and the search allows a second that returns to the start."""
    once = twice = 0  # the cities from which one card, two cards or more reach the target
    for k in cards:
        into = (INTO[k] or _into_table(k))[target]
        twice |= once & into
        once |= into
    for k in cards:
        first = MOVE_MASK[k][lp]
        if first & twice or first & once & ~INTO[k][target]:
            return True
    return False


def _free_plan(loc: int, cards: list[int], target: int) -> bool:
    """``_search`` when every card is free: can the ship reach a city of ``target`` (a bit set)
    from ``loc`` playing each card at most once?"""
    lp = loc + 2
    if not _may_reach(lp, cards, target):  # the lower bound first
        return False
    if _two_moves(lp, cards, target):  # the commonest plan
        return True
    masks = []
    bit = 1
    for k in cards:
        masks.append((bit, MOVE_MASK[k]))
        bit += bit
    return _free_search(lp, 1 << loc if loc >= 0 else 0, masks, 0, target, 0, set())


def _free_search(lp: int, start_bit: int, masks: list[tuple[int, tuple[int, ...]]], used: int,
                 target: int, visited: int, seen: set) -> bool:
    """Depth-first over unused cards (``masks``: the bit of each card in ``used`` and its MOVE_MASK),
    every one-move finish tried before going deeper; as in ``_search``, no city twice and no move
    on from the start."""
    if used & (used - 1):  # two cards or more played: another order may have come here (none before)
        key = (lp, used, visited)
        if key in seen:
            return False
        seen.add(key)
    deeper = []
    for bit, mask in masks:
        if used & bit:
            continue
        to = mask[lp] & ~visited
        if to & target:
            return True
        to &= ~start_bit
        if to:
            deeper.append((bit, to))
    for bit, to in deeper:
        after = used | bit
        for b in BITS[to]:
            if _free_search(b + 2, start_bit, masks, after, target, visited | 1 << b, seen):
                return True
    return False


_COST = itemgetter(1)


def _relaxed_plan(loc: int, pool: list[tuple[int, int]], budget: int, need: list[int]) -> int:
    """The lower bound that ignores that each card is used once: 0 proves no plan exists; 2 found
    one that happens to play each card once (a plan); 1: maybe. ``pool`` (card, cost) is sorted by
    cost."""
    dist = [INF] * (NCITY + 2)  # by location + 2; the start is never reached again
    dist[loc + 2] = 0
    via: list[tuple[int, int] | None] = [None] * (NCITY + 2)  # the city and card each one is reached by
    arrive = [INF] * NCITY  # arriving by at least one move
    frontier = [(0, loc)]
    while frontier:
        d, u = heappop(frontier)
        up = u + 2
        if dist[up] < d:
            continue
        left = budget - d
        for k, cost in pool:
            if cost > left:
                break
            nd = d + cost
            for b in MOVES[k][up]:
                if nd < arrive[b]:
                    arrive[b] = nd
                    if nd + need[b] <= budget:
                        # the path here is a plan if no card comes twice on it: no city does (b on
                        # it would have been arrived at before, for less; the start is never reached)
                        cards = 1 << k
                        x = u
                        while x != loc:
                            x, card = via[x + 2]
                            if cards >> card & 1:
                                return 1
                            cards |= 1 << card
                        return 2
                    if nd < dist[b + 2]:
                        dist[b + 2] = nd
                        via[b + 2] = (u, k)
                        heappush(frontier, (nd, b))
    return 0


#: actions that change no seat's needs (main_needs): not the board, the harbours nor a supply
KEEP_NEEDS = frozenset({"buy", "pass", "end_turn", "repay", "extend"})
#: actions that change the harbours only (of the cities the ship leaves and reaches): the needs of
#: other seats are patched there (``harbours_changed``)
SHIP_ONLY = frozenset({"sail", "loan"})


def harbours_changed(needs: dict, seat: int, cities: int) -> None:
    """The ship of ``seat`` left or reached the cities of the bit set ``cities``: every other seat's
    needs there are stale (a seat's own harbour space counts as free on arrival, so its own stay)."""
    for key, got in needs.items():
        if key != seat and key.__class__ is int:
            got.stale |= cities


#: main actions: they change the board of the ship's city and the acting seat's supply only
MAIN_ACTIONS = frozenset({"build_warehouse", "reopen", "build_fortress"})


def supply_key(st: ECState, p: int) -> int:
    """What main_needs reads of seat p's supply: whether a fortress, a main and a neutral warehouse
    may be built (with 3-5 players there are no neutral ones and no colour rule)."""
    if st.n == 2:
        return (st.sup_fort[p] > 0) * 4 + colour_supply_ok(st, p, 0) * 2 + colour_supply_ok(st, p, 1)
    return (st.sup_fort[p] > 0) * 4 + (st.sup_wh[p] > 0) * 2


def city_built(st: ECState, needs: dict, seat: int, c: int) -> None:
    """``seat`` took a main action in city c: every seat's needs in c are stale; the acting seat's
    needs go if what main_needs reads of its supply changed. A warehouse may have been shut down or
    reopened, so the seats with something to reopen go too."""
    needs.pop("pictured", None)
    own = needs.get(seat)
    if own is not None and own.supply != supply_key(st, seat):
        del needs[seat]
    for key, got in needs.items():
        if key.__class__ is int:
            got.stale |= 1 << c
            got.by_slot[c] = None


#: needs (one per city) -> ([location + 2] -> [card] -> the least need among the card's moves from
#: there (None: not computed yet; rows made when first asked), money -> bit set of the cities whose
#: need it affords)
_REACH: dict[tuple[int, ...], tuple[list[list[int | None] | None], dict[int, int]]] = {}


def _reach_for(need: list[int]) -> tuple[list[list[int | None] | None], dict[int, int]]:
    """The least need card by card and the cities affordable (``_REACH``) for these needs: shared by
    every turn with them."""
    key = tuple(need)
    reach = _REACH.get(key)
    if reach is None:
        if len(_REACH) > 2_000:  # a few MB at most
            _REACH.clear()
        reach = _REACH[key] = ([None] * (NCITY + 2), {})
    return reach


#: buy_plan's shared answers: no buy of the price, every one, ask plan
_NONE, _SURE, _OPEN = 0, 1, 2


def seat_finisher(st: ECState, p: int, disp: list[int]) -> "Finisher":
    """Seat p's ``Finisher`` for this decision (``disp``: both displays), kept in ``st.need_cache``
    with its needs while they stay valid (see ``Finisher.__init__``)."""
    needs = st.need_cache
    if needs is None:
        needs = st.need_cache = {}
    fin = needs.get(p)
    if fin is None:
        fin = needs[p] = Finisher(st, p)
    elif fin.stale:
        fin.patch()
    fin.hand = st.hand[p]
    fin.disp = disp
    fin.cheapest = fin.by_left = None
    return fin


class Finisher:
    """Answers "can this turn still be finished with a main action?" for one seat: its needs (the
    least money for a main action on arriving in each city), kept from decision to decision while
    valid, and the hand and display of the current decision."""

    __slots__ = ("st", "p", "need", "min_need", "reach", "targets", "by_slot", "stale", "supply",
                 "hand", "disp", "cheapest", "by_left")

    def __init__(self, st: ECState, p: int):
        # A seat's needs depend on the board, the harbours and its supply only: buying, passing,
        # ending a turn and settling loans change none of them, and a seat's own harbour space
        # counts as free on arrival, so its own sails keep its needs too (see ``apply``). Another
        # ship's sail or loan changes the harbours of two cities at most: those are looked up again
        # in main_needs by harbour space (``by_slot``, None: stale), which is kept until a main
        # action in the city.
        self.st, self.p = st, p
        by_slot = []
        need = []
        for c in range(NCITY):
            pair = main_needs(st, p, c)
            by_slot.append(pair)
            slot = arrival_slot(st, p, c)
            need.append(pair[slot] if slot >= 0 else INF)
        self.need, self.min_need, self.by_slot = need, min(need), by_slot
        self.reach, self.targets = _reach_for(need)
        self.stale = 0  # bit set of the cities whose need is stale
        self.supply = supply_key(st, p)
        self.hand: list[int] = []
        self.disp: list[int] = []
        self.cheapest: tuple[int, int, int] | None = None  # see plan
        self.by_left: dict[int, int] | None = None  # see buy_plan

    def patch(self) -> None:
        """Recompute the stale needs."""
        st, p, need, by_slot = self.st, self.p, self.need, self.by_slot
        patched = list(need)
        for c in BITS[self.stale]:
            slot = arrival_slot(st, p, c)
            if slot < 0:
                patched[c] = INF
            else:
                pair = by_slot[c]
                if pair is None:
                    pair = by_slot[c] = main_needs(st, p, c)
                patched[c] = pair[slot]
        self.stale = 0
        if patched != need:
            self.need, self.min_need = patched, min(patched)
            self.reach, self.targets = _reach_for(patched)

    def stay_need(self, loc: int, slot: int) -> int:
        """The least money for a main action where the ship lies (city loc, harbour slot; -1: none)."""
        if slot < 0:
            return INF
        pair = self.by_slot[loc]
        if pair is None:
            pair = self.by_slot[loc] = main_needs(self.st, self.p, loc)
        return pair[slot]

    def reach_row(self, loc: int, cards: list[int]) -> list[int | None]:
        """[card] -> the least need among the card's moves from ``loc`` (INF: no move; None: not
        asked yet), filled in for ``cards``; kept for these needs."""
        lp = loc + 2
        row = self.reach[lp]
        if row is None:
            row = self.reach[lp] = [None] * NCARD
        need = self.need
        for k in cards:
            if row[k] is None:
                m = INF
                for b in MOVES[k][lp]:
                    if need[b] < m:
                        m = need[b]
                row[k] = m
        return row

    def can(self, loc: int, money: int, skip_hand: int = -1, bought: int = -1) -> bool:
        """From ``loc`` with ``money``: hand minus ``skip_hand`` is free; ``bought`` moved to the hand."""
        if self.min_need > money:
            return False
        # one more move is the usual answer (reach_row's work inlined: this is the hot loop)
        lp = loc + 2
        row = self.reach[lp]
        if row is None:
            row = self.reach[lp] = [None] * NCARD
        need = self.need
        for k in self.hand:
            m = row[k]
            if m is None:
                m = INF
                for b in MOVES[k][lp]:
                    if need[b] < m:
                        m = need[b]
                row[k] = m
            if m <= money and k != skip_hand:
                return True
        for k in self.disp:
            m = row[k]
            if m is None:
                m = INF
                for b in MOVES[k][lp]:
                    if need[b] < m:
                        m = need[b]
                row[k] = m
            if m + CARD_PRICE[k] <= money and k != bought:
                return True
        if bought >= 0 and row[bought] <= money:
            return True
        return self.plan(loc, money, skip_hand, bought)

    def then_hand(self, loc: int, k: int, money: int) -> bool:
        """Whether card k, then one hand card, takes the ship from ``loc`` where ``money`` affords a
        main action (a two-move plan: a quick answer for a card just bought)."""
        hand = self.hand
        for b in MOVES[k][loc + 2]:
            row = self.reach_row(b, hand)
            for h in hand:
                if row[h] <= money:
                    return True
        return False

    def target(self, money: int) -> int:
        """The cities whose need ``money`` affords, as a bit set (kept for these needs)."""
        target = 0
        need = self.need
        for c in range(NCITY):
            if need[c] <= money:
                target |= 1 << c
        self.targets[money] = target
        return target

    def buy_plan(self, loc: int, left: int, k: int) -> bool:
        """``plan`` after buying display card k with ``left`` money left. What the buys of one price
        share is kept for the decision and answers first: no buy of them can be followed by a plan
        if the ship cannot even reach a city that ``left`` affords playing the hand, the cards of
        that price and the display cards still affordable on top as often as wished; every one can
        if two hand cards take the ship there."""
        by_left = self.by_left
        if by_left is None:
            by_left = self.by_left = {}
        shared = by_left.get(left)
        if shared is None:
            shared = by_left[left] = self._buys_at(loc, left, CARD_PRICE[k])
        if shared != _OPEN:
            return shared == _SURE
        return self.plan(loc, left, -1, k)

    def _buys_at(self, loc: int, left: int, price: int) -> int:
        """``buy_plan``'s shared answer for the display cards of ``price``: _NONE, _SURE or _OPEN."""
        target = self.targets.get(left)
        if target is None:
            target = self.target(left)
        lp = loc + 2
        limit = left - self.min_need
        hand = self.hand
        cards = hand[:]
        for k in self.disp:
            cost = CARD_PRICE[k]
            if cost == price or cost <= limit:
                cards.append(k)
        if not _may_reach(lp, cards, target):
            return _NONE
        return _SURE if _two_moves(lp, hand, target) else _OPEN

    def plan(self, loc: int, money: int, skip_hand: int = -1, bought: int = -1) -> bool:
        """``can`` without its one-move answers: the search over every card that may be played."""
        limit = money - self.min_need
        need = self.need
        cheapest = self.cheapest
        if cheapest is None:  # the two cheapest display cards: (price, card, second price)
            first = second = INF
            first_card = -1
            for k in self.disp:
                price = CARD_PRICE[k]
                if price < second:
                    if price < first:
                        first, second, first_card = price, first, k
                    else:
                        second = price
            cheapest = self.cheapest = (first, first_card, second)
        first, first_card, second = cheapest
        if first > limit or (first_card == bought and second > limit):
            # the commonest case: only free cards, so only the cities matter
            cards = self.hand[:]
            if skip_hand >= 0:
                cards.remove(skip_hand)
            if bought >= 0:
                cards.append(bought)
            if not cards:
                return False
            target = self.targets.get(money)
            if target is None:
                target = self.target(money)
            return _free_plan(loc, cards, target)
        pool = []
        for k in self.hand:
            if k != skip_hand:
                pool.append((k, 0))
        if bought >= 0:
            pool.append((bought, 0))
        priced = []
        for k in self.disp:
            price = CARD_PRICE[k]
            if price <= limit and k != bought:
                priced.append((k, price))
        priced.sort(key=_COST)  # the pool by cost, the free cards first
        pool += priced
        found = _relaxed_plan(loc, pool, money, need)
        if found != 1:
            return found == 2
        return _search(loc, loc if loc >= 0 else -1, pool, 0, money, need, self.min_need, 0, {})
