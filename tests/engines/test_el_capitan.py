"""El Capitán: the worked examples of §11 of the rules file, illegal actions, information."""
from __future__ import annotations

import json
import random

import pytest

from engines.core import IllegalAction
from engines.el_capitan import data
from engines.el_capitan.board import city_value, colour_supply_ok, fortress_price, payday_income
from engines.el_capitan.rules import GAME
from engines.el_capitan.state import BANK, OFFBOARD, POST, PRE, SETTLE, CHOOSE, OVER
from engines.el_capitan.tables import CARD_INDEX, CITY_INDEX, LOAN_INDEX

RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3


def code(seat: int, neutral: int = 0) -> int:
    return seat * 2 + neutral


def touch(st) -> None:
    """Invalidate the legal-action cache after editing a state by hand."""
    st.version += 1
    st.cache = None
    st.need_cache = None


def fresh(n: int = 4, phase: int = 1, start: int = 0):
    st = GAME.setup(n, 7)
    st.first_turn = [False] * n
    st.phase, st.round, st.start, st.cur = phase, 2, start, start
    touch(st)
    return st


def turn(st, seat: int) -> None:
    st.cur, st.step, st.carded, st.moved = seat, PRE, False, False
    touch(st)


def set_city(st, city: str, sites: dict[int, int], pictured=(), built=None) -> None:
    c = CITY_INDEX[city]
    row = [-1] * 13
    for k, v in sites.items():
        row[k] = v
    st.sites[c] = row
    st.pictured[c] = list(pictured)
    st.built[c] = bool(sites or pictured) if built is None else built
    st.maxocc[c] = max(sites, default=0)
    st.reverse[c] = row[12] >= 0
    st.pending1[c] = False
    touch(st)


def anchor(st, seat: int, city: str, slot: int) -> None:
    c = CITY_INDEX[city]
    st.loc[seat], st.harbor[seat] = c, slot
    st.harb[c][slot] = seat
    touch(st)


def hand(st, seat: int, *cards: str) -> None:
    st.hand[seat] = sorted(CARD_INDEX[c] for c in cards)
    touch(st)


def legal(st, seat=None):
    return GAME.legal_actions(st, st.cur if seat is None else seat)


def types(actions) -> set[str]:
    return {a["type"] for a in actions}


def play(st, action, seat=None):
    return GAME.apply(st, st.cur if seat is None else seat, action)


def active(st, city: str, seat: int) -> int:
    return sum(1 for v in st.sites[CITY_INDEX[city]][1:] if v >= 0 and v >> 1 == seat)


# --- §11 worked examples ----------------------------------------------------------------------

def test_e1_proliferation_four_cities():
    st = fresh()
    for city in ("MAR", "NAP", "VAL", "TAN"):
        set_city(st, city, {1: code(RED)})
    assert payday_income(st)[RED]["proliferation"] == 10


def test_e2_proliferation_three_and_nine_cities():
    st = fresh()
    for i, city in enumerate(data.CITY_IDS):
        sites = {1: code(YELLOW)}
        if i < 3:
            sites[2] = code(BLUE)
        set_city(st, city, sites)
    inc = payday_income(st)
    assert inc[BLUE]["proliferation"] == 5
    assert inc[YELLOW]["proliferation"] == 60


def test_e3_harbour_price():
    st = fresh()
    anchor(st, RED, "MAR", 0)
    anchor(st, GREEN, "MAR", 1)
    play(st, {"type": "build_warehouse", "site": 1})
    assert st.money[RED] == 16
    play(st, {"type": "end_turn"})
    assert st.cur == GREEN
    play(st, {"type": "build_warehouse"})
    assert st.money[GREEN] == 15


def test_e4_fortress_prices():
    st = fresh()
    anchor(st, RED, "MAR", 0)
    anchor(st, GREEN, "MAR", 1)
    play(st, {"type": "build_fortress"})
    assert st.forts[CITY_INDEX["MAR"]] == [RED, -1] and st.money[RED] == 12
    play(st, {"type": "end_turn"})
    play(st, {"type": "build_fortress"})
    assert st.forts[CITY_INDEX["MAR"]] == [RED, GREEN] and st.money[GREEN] == 10
    st.sup_fort[RED] = 1
    assert fortress_price(st, YELLOW, CITY_INDEX["MAR"]) > 1000
    assert fortress_price(st, RED, CITY_INDEX["MAR"]) > 1000


def _sail_targets(actions, card, mode):
    out = set()
    for a in actions:
        if a["type"] == "sail" and a["card"] == card and a.get("mode") == mode:
            out.add(a.get("to", "MAR" if mode == "destination" else None))
    return out


def test_e5_sea_route_three_seals():
    st = fresh()
    anchor(st, RED, "VAL", 0)
    hand(st, RED, "D02")
    acts = legal(st)
    assert [a for a in acts if a["type"] == "sail" and a["mode"] == "destination"] == [
        {"type": "sail", "card": "D02", "mode": "destination"}]
    assert _sail_targets(acts, "D02", "route") == {"MAR", "VEN", "CON", "NAP", "ATH", "TAN", "TUN", "ALE"}
    hand(st, RED, "D01")
    assert _sail_targets(legal(st), "D01", "route") == {"MAR", "NAP", "TAN"}


def test_e6_interconnection_card():
    st = fresh()
    st.money[RED] = 8
    st.disp_l[0] = CARD_INDEX["L13"]
    anchor(st, RED, "VEN", 0)
    play(st, {"type": "buy", "card": "L13"})
    assert st.money[RED] == 5
    play(st, {"type": "sail", "card": "L13"})
    assert st.loc[RED] == CITY_INDEX["TAN"] and st.harbor[RED] == 0
    assert st.harb[CITY_INDEX["VEN"]][0] == -1
    play(st, {"type": "build_warehouse", "site": 1})
    assert st.money[RED] == 2
    assert CARD_INDEX["L13"] in st.disc_l
    # not playable from the bank, off the board or another city
    for where in (BANK, OFFBOARD, CITY_INDEX["MAR"]):
        st2 = fresh()
        hand(st2, RED, "L13")
        st2.loc[RED], st2.harbor[RED] = where, -1
        touch(st2)
        assert not any(a["type"] == "sail" for a in legal(st2))


def test_e7_chained_sailing():
    st = fresh()
    st.money[RED] = 10
    st.loc[RED] = BANK
    hand(st, RED, "D13", "L35")
    anchor(st, GREEN, "TAN", 0)
    anchor(st, YELLOW, "TAN", 1)
    play(st, {"type": "sail", "card": "D13", "mode": "destination"})
    assert st.loc[RED] == CITY_INDEX["TAN"] and st.harbor[RED] == -1
    with pytest.raises(IllegalAction) as err:
        play(st, {"type": "build_warehouse", "site": 1})
    assert "§4.4.2" in err.value.rule
    play(st, {"type": "sail", "card": "L35"})
    assert st.harbor[RED] == 0
    play(st, {"type": "build_warehouse", "site": 1})
    assert st.money[RED] == 5


def _e8_state():
    st = fresh()
    anchor(st, RED, "MAR", 0)
    play(st, {"type": "build_warehouse", "site": 2})
    return st


def test_e8_first_warehouse_on_site_2():
    st = _e8_state()
    mar = CITY_INDEX["MAR"]
    assert st.money[RED] == 16
    assert st.sites[mar][2] == code(RED) and st.pending1[mar]
    assert city_value(st, mar) == 8


def test_e9_second_warehouse_forced_to_site_1_and_row_limit():
    st = _e8_state()
    mar = CITY_INDEX["MAR"]
    anchor(st, GREEN, "MAR", 1)
    st.money[GREEN] = 40
    turn(st, GREEN)
    assert {"type": "build_warehouse"} in legal(st)
    assert not any("site" in a for a in legal(st))
    play(st, {"type": "build_warehouse"})
    assert st.sites[mar][1] == code(GREEN) and st.money[GREEN] == 35 and not st.pending1[mar]
    for expected in (3, 4, 5):
        turn(st, GREEN)
        play(st, {"type": "build_warehouse"})
        assert st.sites[mar][expected] == code(GREEN)
    turn(st, GREEN)
    play(st, {"type": "build_fortress"})
    assert st.forts[mar][0] == GREEN and st.money[GREEN] == 40 - 20 - 8
    turn(st, GREEN)
    assert "build_warehouse" not in types(legal(st))
    with pytest.raises(IllegalAction) as err:
        play(st, {"type": "build_warehouse"})
    assert "§4.5.3" in err.value.rule


def test_e10_first_black_site():
    st = fresh()
    set_city(st, "MAR", {1: code(GREEN), 2: code(RED), 3: code(GREEN), 4: code(GREEN), 5: code(GREEN)})
    anchor(st, YELLOW, "MAR", 0)
    turn(st, YELLOW)
    events = play(st, {"type": "build_warehouse"})
    mar = CITY_INDEX["MAR"]
    assert st.money[YELLOW] == 16 and st.sites[mar][6] == code(YELLOW)
    assert st.pictured[mar] == [code(GREEN)] and st.sites[mar][1] == -1
    assert any(e["type"] == "shut_down" and e["site"] == 1 for e in events)
    assert (active(st, "MAR", RED), active(st, "MAR", GREEN), active(st, "MAR", YELLOW)) == (1, 3, 1)
    assert city_value(st, mar) == 24


def test_e11_second_black_site_and_reopening():
    st = fresh()
    set_city(st, "MAR", {2: code(RED), 3: code(GREEN), 4: code(GREEN), 5: code(GREEN), 6: code(YELLOW),
                         7: code(BLUE), 8: code(YELLOW)}, pictured=[code(GREEN)])
    anchor(st, BLUE, "MAR", 0)
    turn(st, BLUE)
    play(st, {"type": "build_warehouse"})
    mar = CITY_INDEX["MAR"]
    assert st.sites[mar][9] == code(BLUE) and st.sites[mar][2] == -1
    assert code(RED) in st.pictured[mar]
    # later: Red sails to Marseille and reopens for free
    st.loc[RED] = BANK
    hand(st, RED, "D01")
    turn(st, RED)
    money, supply = st.money[RED], st.sup_wh[RED]
    play(st, {"type": "sail", "card": "D01", "mode": "destination"})
    assert {"type": "reopen"} in legal(st)
    play(st, {"type": "reopen"})
    assert st.sites[mar][10] == code(RED) and code(RED) not in st.pictured[mar]
    assert st.money[RED] == money and st.sup_wh[RED] == supply
    assert st.step == POST and types(legal(st)) <= {"buy", "end_turn"}


def _reverse_mar(st, front: dict[int, int]):
    others = {6: code(RED), 7: code(YELLOW), 8: code(BLUE), 9: code(RED), 10: code(YELLOW), 11: code(BLUE),
              12: code(RED)}
    set_city(st, "MAR", {**front, **others}, pictured=[code(RED), code(YELLOW), code(BLUE)])


def test_e12_reverse_building():
    st = fresh()
    _reverse_mar(st, {4: code(GREEN), 5: code(GREEN)})
    anchor(st, GREEN, "MAR", 0)
    turn(st, GREEN)
    play(st, {"type": "build_warehouse"})
    mar = CITY_INDEX["MAR"]
    assert st.sites[mar][3] == code(GREEN)
    assert data.TIERS["B"]["track_values"][3 - 1] == 8
    turn(st, GREEN)
    assert "build_warehouse" not in types(legal(st))


def test_e13_reverse_building_not_blocked_by_distant_run():
    st = fresh()
    set_city(st, "MAR", {4: code(GREEN), 5: code(GREEN), 6: code(YELLOW), 7: code(BLUE), 8: code(YELLOW),
                         9: code(BLUE), 10: code(RED), 11: code(RED), 12: code(RED)}, pictured=[code(BLUE)])
    anchor(st, RED, "MAR", 0)
    play(st, {"type": "build_warehouse"})
    assert st.sites[CITY_INDEX["MAR"]][3] == code(RED)


def _other_city_with(st, count: int, city: str = "VEN") -> None:
    # alternate two seats so the other city does not touch Red/Green/Blue's NAP payouts
    set_city(st, city, {k: code(YELLOW) for k in range(1, count + 1)})


def test_e14_majority_tie_and_fortresses_at_half():
    st = fresh()
    set_city(st, "NAP", {1: code(RED), 2: code(GREEN), 3: code(BLUE), 4: code(GREEN), 5: code(BLUE)})
    st.forts[CITY_INDEX["NAP"]] = [GREEN, RED]
    _other_city_with(st, 7)
    assert city_value(st, CITY_INDEX["NAP"]) == 20
    inc = payday_income(st)
    assert (inc[GREEN]["majority"], inc[BLUE]["majority"], inc[RED]["majority"]) == (20, 10, 0)
    assert inc[GREEN]["fortresses"] == 10 and inc[RED]["fortresses"] == 10
    # variant: Red builds on site 6
    st.sites[CITY_INDEX["NAP"]][6] = code(RED)
    st.maxocc[CITY_INDEX["NAP"]] = 6
    inc = payday_income(st)
    assert (inc[RED]["majority"], inc[GREEN]["majority"], inc[BLUE]["majority"]) == (24, 12, 0)
    assert inc[GREEN]["fortresses"] == 12 and inc[RED]["fortresses"] == 12


def test_e15_rounding_down():
    st = fresh()
    set_city(st, "VAL", {1: code(RED), 2: code(BLUE), 3: code(RED), 4: code(BLUE), 5: code(YELLOW)})
    assert city_value(st, CITY_INDEX["VAL"]) == 15
    inc = payday_income(st)
    assert inc[RED]["majority"] == 15 and inc[BLUE]["majority"] == 7 and inc[YELLOW]["majority"] == 0


def _e16_state():
    st = fresh()
    r, b, y, g = code(RED), code(BLUE), code(YELLOW), code(GREEN)
    set_city(st, "MAR", {3: r, 4: b, 5: y, 6: g, 7: r, 8: b, 9: y, 10: r, 11: b, 12: y}, pictured=[b, b])
    return st


def test_e16_three_way_tie_in_advanced_game():
    st = _e16_state()
    assert city_value(st, CITY_INDEX["MAR"]) == 16
    inc = payday_income(st)
    assert [inc[s]["majority"] for s in (RED, BLUE, YELLOW, GREEN)] == [16, 8, 0, 0]


def test_e17_fortresses_in_most_built_city():
    st = _e16_state()
    st.forts[CITY_INDEX["MAR"]] = [GREEN, RED]
    set_city(st, "NAP", {k: code(YELLOW) for k in range(1, 10)})
    inc = payday_income(st)
    assert inc[GREEN]["fortresses"] == 16 and inc[RED]["fortresses"] == 16
    # another city also with 10 active: its fortresses pay full V too
    set_city(st, "VEN", {k: code(BLUE) for k in range(1, 11)})
    st.forts[CITY_INDEX["VEN"]] = [YELLOW, -1]
    inc = payday_income(st)
    assert inc[YELLOW]["fortresses"] == data.TIERS["A"]["track_values"][10]
    assert inc[GREEN]["fortresses"] == 16


def test_e18_proliferation_bonus():
    st = fresh()
    for city in data.CITY_IDS:
        if city != "CON":
            set_city(st, city, {1: code(YELLOW)})
    anchor(st, YELLOW, "CON", 0)
    turn(st, YELLOW)
    money = st.money[YELLOW]
    events = play(st, {"type": "build_warehouse", "site": 1})
    assert st.bonus[YELLOW] == 15 and st.money[YELLOW] == money - 5
    assert {"type": "bonus_card", "seat": YELLOW, "value": 15} in events
    # her only TAN warehouse is shut down: she keeps the card
    set_city(st, "TAN", {}, pictured=[code(YELLOW)])
    assert st.bonus[YELLOW] == 15
    # the next player to reach nine cities takes the 10 card
    for city in data.CITY_IDS:
        if city != "ALE":
            c = CITY_INDEX[city]
            st.sites[c][2] = code(BLUE)
            st.maxocc[c] = max(st.maxocc[c], 2)
            st.built[c] = True
    anchor(st, BLUE, "ALE", 0)
    turn(st, BLUE)
    play(st, {"type": "build_warehouse"})
    assert st.bonus[BLUE] == 10
    st.phase = 3
    inc = payday_income(st)
    assert inc[YELLOW]["bonus"] == 15 and inc[BLUE]["bonus"] == 10


def test_e19_loans():
    st = fresh(start=BLUE)
    st.money[BLUE] = 1
    anchor(st, BLUE, "VAL", 0)
    turn(st, BLUE)
    assert st.round == 2
    play(st, {"type": "loan", "size": "small"})
    li = LOAN_INDEX["LS01"]
    assert st.loc[BLUE] == BANK and st.harb[CITY_INDEX["VAL"]][0] == -1
    assert st.money[BLUE] == 11 and st.loan_owner[li] == BLUE and not st.loan_ext[li]
    assert st.cur != BLUE  # the turn ended; no buying afterwards
    # payday 1: repay 12 or extend
    st.money[BLUE] = 20
    GAME._payday(st, [])
    while st.step == SETTLE and st.settle[0][0] != BLUE:
        play(st, legal(st, st.settle[0][0])[0], st.settle[0][0])
    assert legal(st, BLUE) == [{"type": "repay", "loan": "LS01"}, {"type": "extend", "loan": "LS01"}]
    play(st, {"type": "extend", "loan": "LS01"}, BLUE)
    assert st.loan_ext[li]
    # payday 2: only repay 16
    st.phase, st.step, st.settle = 2, SETTLE, [(BLUE, li)]
    touch(st)
    assert legal(st, BLUE) == [{"type": "repay", "loan": "LS01"}]
    money = st.money[BLUE]
    play(st, {"type": "repay", "loan": "LS01"}, BLUE)
    assert st.money[BLUE] == money - 16 and st.loan_owner[li] == -1
    # the large loan: +16, repay 20, extended 30
    assert data.LOANS["large"] == {"count": 12, "amount": 16, "repay": 20, "repay_extended": 30}


def test_e20_forced_loan():
    st = fresh(phase=2)
    st.money[RED] = 2
    anchor(st, RED, "TAN", 1)
    st.hand[RED] = []
    touch(st)
    assert legal(st) == [{"type": "loan", "size": "small"}, {"type": "loan", "size": "large"}]


def test_e21_first_turn():
    st = GAME.setup(4, 3)
    st.cur = st.start
    st.disp_d[0] = CARD_INDEX["D09"]
    touch(st)
    acts = legal(st)
    assert acts and types(acts) == {"buy"}
    p = st.cur
    play(st, {"type": "buy", "card": "D09"})
    assert st.money[p] == 16
    play(st, {"type": "sail", "card": "D09", "mode": "destination"})
    assert st.harbor[p] == 0
    acts = legal(st)
    for a in ({"type": "build_warehouse", "site": 1}, {"type": "build_warehouse", "site": 2},
              {"type": "build_fortress"}):
        assert a in acts
    assert "loan" not in types(acts)


def test_e22_bank():
    st = fresh(phase=2)
    turn(st, GREEN)
    st.money[GREEN] = 10
    st.loc[GREEN] = BANK
    hand(st, GREEN, "L04", "D10")
    acts = legal(st)
    assert {"type": "loan", "size": "small"} in acts and {"type": "loan", "size": "large"} in acts
    sails = [a for a in acts if a["type"] == "sail"]
    assert sails == [{"type": "sail", "card": "D10", "mode": "destination"}]
    affordable = {data.DESTINATION_CARDS[k][0] if k < 18 else data.LINK_CARDS[k - 18][0]
                  for k in st.disp_d + st.disp_l}
    assert {a["card"] for a in acts if a["type"] == "buy"} <= affordable
    assert any(a["type"] == "buy" for a in acts)
    play(st, sails[0])
    assert {"type": "sail", "card": "L04"} in legal(st)


def test_e23_phase_end_and_round_completion():
    st = fresh(start=2)
    st.sup_wh[0], st.sup_fort[0] = 1, 0
    anchor(st, 0, "NAP", 0)
    turn(st, 0)
    play(st, {"type": "build_warehouse", "site": 1})
    assert st.phase_end_pending
    play(st, {"type": "end_turn"})
    assert st.cur == 1 and st.step == PRE
    st.money[1] = 0  # nothing to do but a loan
    touch(st)
    play(st, {"type": "loan", "size": "small"})
    assert st.step in (SETTLE, CHOOSE) and st.history and st.history[-1]["phase"] == 1


@pytest.mark.parametrize("trigger,payday_at_once", [(0, False), (1, True)])
def test_e23_two_players(trigger, payday_at_once):
    st = fresh(n=2, start=0)
    st.sup_wh[trigger], st.sup_neu[trigger], st.sup_fort[trigger] = 1, 0, 0
    anchor(st, trigger, "NAP", 0)
    turn(st, trigger)
    play(st, {"type": "build_warehouse", "site": 1, "color": "main"})
    play(st, {"type": "end_turn"})
    if payday_at_once:
        assert st.step in (SETTLE, CHOOSE)
    else:
        assert st.step == PRE and st.cur == 1


def test_e24_financial_check():
    st = fresh(start=RED)
    st.money[RED], st.money[GREEN], st.money[YELLOW], st.money[BLUE] = 30, 40, 18, 25
    st.loan_owner[LOAN_INDEX["LS01"]], st.loan_ext[LOAN_INDEX["LS01"]] = RED, True
    st.loan_owner[LOAN_INDEX["LL01"]], st.loan_ext[LOAN_INDEX["LL01"]] = YELLOW, True
    events = []
    GAME._after_settle(st, events)
    assert st.step == CHOOSE and GAME.to_move(st) == YELLOW
    assert events[-1]["net_worth"] == [14, 40, -12, 25]
    assert legal(st, YELLOW) == [{"type": "choose_start", "seat": s} for s in range(4)]
    play(st, {"type": "choose_start", "seat": BLUE}, YELLOW)
    assert st.phase == 2 and st.start == BLUE and st.cur == BLUE and st.sup_wh[RED] == 12


def test_e25_two_player_colour_choice():
    st = fresh(n=2)
    anchor(st, 0, "NAP", 0)

    def colours(main, neutral):
        st.sup_wh[0], st.sup_neu[0] = main, neutral
        touch(st)
        return {a["color"] for a in legal(st) if a["type"] == "build_warehouse"}

    assert colours(6, 2) == {"main", "neutral"}
    assert colours(3, 2) == {"neutral"}
    assert colours(2, 1) == {"neutral"}
    assert colours(1, 0) == {"main"}
    assert colour_supply_ok(st, 0, 0) is True


def test_e26_two_player_neutral_first_nobody_paid():
    st = fresh(n=2)
    set_city(st, "TUN", {1: code(0, 1), 2: code(1, 0)})
    inc = payday_income(st)
    assert inc[0]["majority"] == 0 and inc[1]["majority"] == 0
    set_city(st, "TUN", {1: code(0, 1), 2: code(0, 0)})
    inc = payday_income(st)
    assert inc[0]["majority"] == 0
    assert inc[0]["proliferation"] == data.PROLIFERATION[1]
    # a main colour first is paid, and only 1st place
    set_city(st, "TUN", {1: code(1, 0), 2: code(0, 0)})
    inc = payday_income(st)
    assert inc[1]["majority"] == 6 and inc[0]["majority"] == 0


def test_e27_two_player_row_limits():
    st = fresh(n=2)
    a_main, a_neu = code(0, 0), code(0, 1)
    set_city(st, "ATH", {1: a_main, 2: a_main, 3: a_main, 4: a_neu})
    anchor(st, 0, "ATH", 0)
    st.sup_wh[0], st.sup_neu[0] = 3, 1
    touch(st)
    assert "build_warehouse" not in types(legal(st))
    # B builds on site 5, then A may build on site 6 (black): A's own site-1 warehouse is shut down
    ath = CITY_INDEX["ATH"]
    st.sites[ath][5] = code(1, 0)
    st.maxocc[ath] = 5
    touch(st)
    acts = [a for a in legal(st) if a["type"] == "build_warehouse"]
    assert {a["color"] for a in acts} == {"main", "neutral"}
    play(st, {"type": "build_warehouse", "color": "main"})
    assert st.sites[ath][6] == a_main and st.sites[ath][1] == -1 and st.pictured[ath] == [a_main]


# --- illegal actions name the rule -------------------------------------------------------------

def test_illegal_actions_name_the_rule():
    st = GAME.setup(3, 11)
    p = st.cur
    with pytest.raises(IllegalAction) as err:
        play(st, {"type": "loan", "size": "small"})
    assert err.value.rule.startswith("§4.8")
    with pytest.raises(IllegalAction) as err:
        play(st, {"type": "build_fortress"})
    assert err.value.rule.startswith("§4.4.2")
    with pytest.raises(IllegalAction) as err:
        play(st, {"type": "end_turn"})
    assert err.value.rule.startswith("§4.2")
    with pytest.raises(IllegalAction) as err:
        play(st, {"type": "buy", "card": "D01"} if CARD_INDEX["D01"] not in st.disp_d else {"type": "buy", "card": "L99"})
    assert err.value.rule.startswith("§4.3")
    with pytest.raises(IllegalAction) as err:
        GAME.apply(st, (p + 1) % 3, {"type": "pass"})
    assert err.value.rule.startswith("§4.1")
    # a loan after a card was bought this turn
    st = fresh()
    anchor(st, RED, "NAP", 0)
    play(st, {"type": "buy", "card": data.DESTINATION_CARDS[st.disp_d[0]][0]})
    with pytest.raises(IllegalAction) as err:
        play(st, {"type": "loan", "size": "small"})
    assert err.value.rule.startswith("§4.8") and "excludes" in err.value.message


def test_a_single_card_never_returns_to_its_own_city():
    st = fresh()
    anchor(st, RED, "MAR", 0)
    hand(st, RED, "D01")
    acts = legal(st)
    assert not any(a["type"] == "sail" and a.get("mode") == "destination" for a in acts)
    with pytest.raises(IllegalAction):
        play(st, {"type": "sail", "card": "D01", "mode": "destination"})


def test_round_trip_reanchors_on_free_harbour():
    st = fresh()
    anchor(st, GREEN, "MAR", 0)
    anchor(st, RED, "MAR", 1)
    hand(st, RED, "L01", "D02")
    GAME.clone(st)
    st.harb[CITY_INDEX["MAR"]][0] = -1  # Green's ship has left
    st.loc[GREEN] = BANK
    touch(st)
    play(st, {"type": "sail", "card": "L01"})
    play(st, {"type": "sail", "card": "D02", "mode": "destination"})
    assert st.loc[RED] == CITY_INDEX["MAR"] and st.harbor[RED] == 0
    play(st, {"type": "build_warehouse", "site": 1})
    assert st.money[RED] == 16


def test_clone_is_independent():
    st = fresh()
    anchor(st, RED, "NAP", 0)
    twin = GAME.clone(st)
    play(st, {"type": "build_warehouse", "site": 1})
    assert twin.sites[CITY_INDEX["NAP"]][1] == -1 and twin.money[RED] == 20
    play(twin, {"type": "build_fortress"})
    assert st.forts[CITY_INDEX["NAP"]] == [-1, -1]


def test_payday_three_ends_the_game_with_compulsory_repayment():
    st = fresh(phase=3)
    st.money[RED] = 5
    st.loan_owner[LOAN_INDEX["LL02"]] = RED
    st.loan_ext[LOAN_INDEX["LL02"]] = True
    GAME._payday(st, [])
    assert legal(st, RED) == [{"type": "repay", "loan": "LL02"}]
    play(st, {"type": "repay", "loan": "LL02"}, RED)
    assert st.step == OVER and GAME.to_move(st) is None
    assert st.money[RED] == 5 - 30  # negative money is allowed (§5.2)
    out = GAME.outcome(st)
    assert out.ranks[RED] == 3 and out.ranks[GREEN] == 0 and out.ranks[YELLOW] == 0


# --- information ----------------------------------------------------------------------------

def test_observations_hide_only_the_draw_order_and_are_identical_for_all_seats():
    rng = random.Random(5)
    for game_seed in range(30):
        n = 2 + game_seed % 4
        st = GAME.setup(n, game_seed)
        for _ in range(rng.randrange(0, 300)):
            seat = GAME.to_move(st)
            if seat is None:
                break
            acts = GAME.legal_actions(st, seat)
            GAME.apply(st, seat, acts[rng.randrange(len(acts))])
        views = [GAME.observe(st, s) for s in [None, *range(n)]]
        assert all(v == views[0] for v in views)
        # a state that differs only in the order of the draw piles looks the same
        twin = GAME.clone(st)
        twin.draw_d.reverse()
        twin.draw_l.reverse()
        twin.rng.seed(12345)
        for s in [None, *range(n)]:
            assert GAME.observe(twin, s) == GAME.observe(st, s)
        text = json.dumps(views[0])
        assert "draw" not in text.replace("destination_draw", "").replace("link_draw", "")
        assert views[0]["piles"]["destination_draw"] == len(st.draw_d)


def test_single_action_check_agrees_with_the_legal_list():
    """apply validates a replayed action without building the list; both must agree exactly."""
    rng = random.Random(9)
    odd = [{"type": "pass"}, {"type": "end_turn"}, {"type": "loan", "size": "huge"}, {"type": "buy", "card": ["x"]},
           {"type": "sail", "card": "D01", "mode": "route", "to": "XXX"}, {"type": "build_warehouse", "site": 7},
           {"type": "choose_start", "seat": 9}, "buy", {"type": "sail", "card": "L01", "extra": 1}]
    checked = 0
    for game_seed in range(24):
        n = 2 + game_seed % 4
        st = GAME.setup(n, game_seed)
        while (seat := GAME.to_move(st)) is not None:
            acts = GAME.legal_actions(st, seat)
            probes = list(acts) + odd
            # near misses: other cards, other targets, other seats
            for a in acts:
                if "card" in a:
                    probes.append({**a, "card": rng.choice(data.DESTINATION_CARDS + data.LINK_CARDS)[0]})
                if "to" in a:
                    probes.append({**a, "to": rng.choice(data.CITY_IDS)})
            for a in probes:
                assert GAME._is_legal(st, seat, a) == (a in acts), (a, acts)
                checked += 1
            assert not GAME._is_legal(st, (seat + 1) % n, acts[0])
            GAME.apply(st, seat, acts[rng.randrange(len(acts))])
    assert checked > 10_000
