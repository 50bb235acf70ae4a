"""Catan's game state, phases and the small helpers every part of the rules uses (rules/catan.md)."""
from __future__ import annotations

from engines.catan import data as D
from engines.core import IllegalAction

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


LIST_SLOTS = ("hex_res", "hex_num", "harbour_types", "vert_harbour", "bld_owner", "bld_kind", "blocked",
               "road_owner", "knights", "road_len", "bank", "deck", "setup_order", "discard_queue",
               "discard_log", "special_queue", "last_events", "dice", "catan_tokens", "favour_supply",
               "gift_asked", "colours")
NESTED_SLOTS = ("seat_roads", "seat_buildings", "hands", "devs", "devs_new", "supply", "rates", "favours",
                 "favours_new")



def illegal(section: str, msg: str) -> IllegalAction:
    """The error for an action against the rules, citing the section of rules/catan.md."""
    return IllegalAction(section, msg)


def vp(st: CatanState, seat: int, hidden: bool = True) -> int:
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


def pay(st: CatanState, seat: int, cost) -> None:
    """Move ``cost`` (a vector of 5) from ``seat``'s hand to the bank."""
    hand, bank = st.hands[seat], st.bank
    for r in range(5):
        c = cost[r]
        if c:
            hand[r] -= c
            bank[r] += c


def can_pay(hand, cost) -> bool:
    """Whether ``hand`` covers ``cost`` (both vectors of 5 resources)."""
    return hand[0] >= cost[0] and hand[1] >= cost[1] and hand[2] >= cost[2] and hand[3] >= cost[3] \
        and hand[4] >= cost[4]


def need_phase(st: CatanState, phases: tuple, section: str, what: str) -> None:
    """Raise unless the game is in one of ``phases``."""
    if st.phase not in phases:
        raise illegal(section, f"{what} is not allowed in phase {PHASE_NAMES[st.phase]}")


def take_dev(st, seat):
    """Draw the top development card for ``seat`` (it counts as bought this turn)."""
    card = st.deck.pop()
    st.devs[seat][card] += 1
    st.devs_new[seat][card] += 1
