"""Catan's Best Friends scenario (§6.5): donations, favour tokens and the contacts between road networks.

Each ``a_<action>(st, seat, action, events)`` handles one action type for ``rules.Catan.apply``: it
checks the action against the rules (raising ``IllegalAction``), changes ``st`` and appends the events.
"""
from __future__ import annotations

from engines.catan import data as D
from engines.catan.roads import road_edges
from engines.catan.state import (BUILD, DEV_PLAY_PHASES, FAVOR_MERCHANT, FAVOR_RETURN, GIFT_ANSWER, RES, ROAD_BUILDING,
                                 TRADE, CatanState, illegal, need_phase, take_dev, vp)

A_ACCEPT_GIFT = {"type": "accept_gift"}
A_REJECT_GIFT = {"type": "reject_gift"}
A_END_FAVOR = {"type": "end_favor"}
A_EXCHANGE_FAVOR = {"type": "exchange_favor"}
A_USE_FAVOR = {g: {"type": "use_favor", "guild": g} for g in ("merchant", "road_builder", "scholar", "architect")}
A_TRADER = tuple({"type": "use_favor", "guild": "trader", "get": r} for r in RES)
A_RETURN_FAVOR = {g: {"type": "return_favor", "guild": g} for g in D.GUILDS}
A_FAVOR_EXCHANGE = {(g, t): {"type": "favor_exchange", "give": RES[g], "get": RES[t]}
                    for g in range(5) for t in range(5) if g != t}


def merchant_actions(st: CatanState, seat: int) -> list[dict]:
    """The legal list of the merchant's exchanges (phase FAVOR_MERCHANT, §6.5)."""
    hand, bank = st.hands[seat], st.bank
    out = [A_FAVOR_EXCHANGE[(g, t)] for g in range(5) if hand[g] for t in range(5) if t != g and bank[t]]
    if st.merchant_left < 2 or not out:
        out.append(A_END_FAVOR)
    return out


def bf_draw(st, seat, count, events):
    """Give ``seat`` up to ``count`` favour tokens from the supply."""
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


def bf_visible_vp(st, seat):
    """``seat``'s public VP (what donations compare, §6.5)."""
    return vp(st, seat, hidden=False)


def bf_actions(st, seat, out):
    """Donations and favour-token uses of the active seat (§6.5)."""
    if seat != st.active:
        return
    phase = st.phase
    if phase in (TRADE, BUILD) and not st.donated:
        my_vp = bf_visible_vp(st, seat)
        hand = st.hands[seat]
        for to in range(st.n):
            if to != seat and to not in st.gift_asked and bf_visible_vp(st, to) <= my_vp:
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
    if usable[2] >= D.FAVOUR_COST["road_builder"] and st.supply[seat][2] and road_edges(st, seat):
        out.append(A_USE_FAVOR["road_builder"])
    if usable[3] >= D.FAVOUR_COST["scholar"] and st.deck:
        out.append(A_USE_FAVOR["scholar"])
    if usable[4] >= D.FAVOUR_COST["architect"] and st.catan_supply:
        out.append(A_USE_FAVOR["architect"])
    if sum(usable) and st.favour_supply:  # a token gained this turn cannot be exchanged yet [HOUSE]
        out.append(A_EXCHANGE_FAVOR)


def a_donate(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Offer a resource card to a seat with no more public points than the donor (§6.5); that seat answers next."""
    if not st.bf:
        raise illegal("§6.5 best friends", "donations exist only in the Best Friends scenario")
    if st.phase not in (TRADE, BUILD) or seat != st.active:
        raise illegal("§6.5 donation", "donate only on your own turn after rolling")
    if action not in [a for a in bf_donations(st, seat)]:
        raise illegal("§6.5 donation", f"donation {action!r} is not allowed now")
    to = action["to"]
    st.gift_asked.append(to)
    st.gift = (seat, to, D.RES_INDEX[action["resource"]], st.phase)
    events.append({"type": "donate", "seat": seat, "to": to, "resource": action["resource"]})
    st.phase = GIFT_ANSWER
    st.to_act = to


def bf_donations(st, seat):
    """The donations the active seat may make now."""
    out = []
    if st.bf and not st.donated:
        saved = st.favour_used
        st.favour_used = True
        bf_actions(st, seat, out)
        st.favour_used = saved
    return [a for a in out if a.get("type") == "donate"]


def a_gift_answer(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Accept or refuse a donation (§6.5); an accepted one moves the card and earns the donor a favour token."""
    need_phase(st, (GIFT_ANSWER,), "§6.5 donation", action["type"])
    donor, to, r, back = st.gift
    if action["type"] == "accept_gift":
        st.hands[donor][r] -= 1
        st.hands[to][r] += 1
        st.donated = True
        events.append({"type": "accept_gift", "seat": to, "from": donor})
        bf_draw(st, donor, 1, events)
    else:
        events.append({"type": "reject_gift", "seat": to, "from": donor})
    st.gift = None
    st.phase = back
    st.to_act = donor


def check_favour(st, seat, guild):
    """Raise unless ``seat`` may use (``guild``) or exchange (None) favour tokens now."""
    if not st.bf:
        raise illegal("§6.5 best friends", "favour tokens exist only in the Best Friends scenario")
    if st.phase not in DEV_PLAY_PHASES or seat != st.active:
        raise illegal("§6.5 favour tokens", "favour tokens are used on your own turn only")
    if st.favour_used:
        raise illegal("§6.5 favour tokens", "one use or exchange of favour tokens per turn")
    if guild is not None:
        g = D.GUILDS.index(guild)
        if st.favours[seat][g] - st.favours_new[seat][g] < D.FAVOUR_COST[guild]:
            raise illegal("§6.5 favour tokens", f"not enough {guild} tokens gained in earlier turns")


def a_use_favor(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Spend favour tokens from earlier turns on a guild (§6.5): a card from the bank (trader), up to two
    exchanges with it (merchant), a free road, a development card (scholar) or a Catan token (architect)."""
    guild = action["guild"]
    if guild not in D.GUILDS:
        raise illegal("§6.5 favour tokens", f"no guild {guild!r}")
    check_favour(st, seat, guild)
    legal = []
    bf_actions(st, seat, legal)
    if action not in legal:
        raise illegal("§6.5 favour tokens", f"{action!r} is not possible now")
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
        take_dev(st, seat)  # counts as bought this turn [HOUSE]
    else:
        st.catan_supply -= 1
        st.catan_tokens[seat] += 1


def a_favor_exchange(st: CatanState, seat: int, action: dict, events: list) -> None:
    """The merchant's exchange (§6.5): one card of the seat for one other card from the bank, up to twice."""
    need_phase(st, (FAVOR_MERCHANT,), "§6.5 merchant", "favor_exchange")
    g, t = D.RES_INDEX.get(action["give"], -1), D.RES_INDEX.get(action["get"], -1)
    if g < 0 or t < 0 or g == t or not st.hands[seat][g] or not st.bank[t]:
        raise illegal("§6.5 merchant", "exchange 1 card you hold for 1 other card the bank holds")
    st.hands[seat][g] -= 1
    st.bank[g] += 1
    st.bank[t] -= 1
    st.hands[seat][t] += 1
    st.merchant_left -= 1
    events.append({"type": "favor_exchange", "seat": seat, "give": RES[g], "get": RES[t]})
    if st.merchant_left <= 0:
        st.phase = st.favour_return_phase


def a_end_favor(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Stop the merchant's exchanges (§6.5), after at least one when one is possible."""
    need_phase(st, (FAVOR_MERCHANT,), "§6.5 merchant", "end_favor")
    if st.merchant_left >= 2 and merchant_actions(st, seat) != [A_END_FAVOR]:
        raise illegal("§6.5 merchant", "make at least one exchange first")
    st.merchant_left = 0
    st.phase = st.favour_return_phase


def a_exchange_favor(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Exchange favour tokens (§6.5): draw one from the supply, then return one (``return_favor``)."""
    check_favour(st, seat, None)
    usable = sum(st.favours[seat]) - sum(st.favours_new[seat])
    if usable <= 0 or not st.favour_supply:
        raise illegal("§6.5 favour tokens", "an exchange needs a token from an earlier turn and a non-empty supply")
    st.favour_used = True
    g = st.favour_supply.pop()
    st.favours[seat][g] += 1
    st.favours_new[seat][g] += 1
    st.favour_return_phase = st.phase
    st.phase = FAVOR_RETURN
    events.append({"type": "exchange_favor", "seat": seat})


def a_return_favor(st: CatanState, seat: int, action: dict, events: list) -> None:
    """Return a favour token of a guild to the supply, at a random place, ending the exchange (§6.5)."""
    need_phase(st, (FAVOR_RETURN,), "§6.5 favour tokens", "return_favor")
    guild = action["guild"]
    g = D.GUILDS.index(guild) if guild in D.GUILDS else -1
    if g < 0 or not st.favours[seat][g]:
        raise illegal("§6.5 favour tokens", f"you hold no {guild!r} token")
    st.favours[seat][g] -= 1
    if st.favours_new[seat][g] > 0:
        st.favours_new[seat][g] -= 1
    st.favour_supply.insert(st.rng.randrange(len(st.favour_supply) + 1), g)
    st.phase = st.favour_return_phase
    events.append({"type": "return_favor", "seat": seat})


def networks(st, seat):
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


def contacts(st):
    """Pairs of (seat, network vertex set) in contact: {(s, frozenset), (t, frozenset)}."""
    nets = [(s, frozenset(c)) for s in range(st.n) for c in networks(st, s)]
    return nets


def bf_init_contacts(st):
    """Remember the contacts between the networks already on the board (preset start)."""
    nets = contacts(st)
    for i, (s, a) in enumerate(nets):
        for t, b in nets[i + 1:]:
            if s != t and a & b:
                st.networks_contacts.add(frozenset(((s, a), (t, b))))


def bf_update_contacts(st, seat, edge, events, award):
    """Remember contacts between networks; award favour tokens for new ones (§6.5 way 3).

    Contacts are stored as pairs of (seat, vertex set) networks; a grown network inherits the
    contacts of its parts, so only a pair of networks that never touched before is new.
    """
    old = st.networks_contacts
    # the builder's networks after the placement; a network inherits contacts of any old network it contains
    my_nets = [frozenset(c) for c in networks(st, seat)]
    others = [(t, frozenset(c)) for t in range(st.n) if t != seat for c in networks(st, t)]

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
                bf_draw(st, t, 1, events)
            bf_draw(st, seat, 3, events)
