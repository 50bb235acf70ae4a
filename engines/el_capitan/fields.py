"""What an El Capitán bot receives: every observation, action and table field, and the rules in brief.

Section numbers (§) refer to the rules file el_capitan.md. Observations name sailing cards, cities
and loans by id; the ``cards``, ``cities`` and ``loans`` tables (sent once in ``start``) describe them.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from engines.el_capitan import data as D
from engines.fields import Field

_CARD = "a sailing card id: `D01`-`D18` destination, `L01`-`L36` interconnection (table `cards`)"
_CITY = "a city id (table `cities`)"

OBSERVATION_FIELDS: tuple[Field, ...] = (
    Field("phase", "int", "the phase, 1-3; each ends with a payday (§4.1, §5)"),
    Field("round", "int", "the round within the phase, from 1"),
    Field("start_player", "int", "the seat that starts each round of this phase"),
    Field("to_move", "int", "the seat that decides now", nullable=True),
    Field("turn_step", "str", "`pre_action` (buy, sail, then one main action, §4.2), `post_action` (buy, "
          "then `end_turn`), `settle` (repay or extend a loan at payday, §5.2), `choose_start` (§5.3) or `over`"),
    Field("phase_end_pending", "bool", "someone has built all his pieces: this round is the phase's last (§4.11)"),
    Field("first_turn", "bool", "this is the active player's first turn of the game (§4.4.4)"),
    Field("acted_with_cards_this_turn", "bool", "a card was bought or played this turn: no loan any more (§4.8)"),
    Field("num_players", "int", "the number of seats"),
    Field("players", "list", "every seat, in seat order (all public, §7)"),
    Field("players[]", "object", "one seat"),
    Field("players[].seat", "int", "the seat"),
    Field("players[].money", "int", "Florins; below 0 after a compulsory repayment the seat could not afford (§5.2, a house rule): it can then afford nothing; the final score is this money and may be negative"),
    Field("players[].ship", "object", "its ship"),
    Field("players[].ship.at", "str", _CITY + ", `BANK` or `OFFBOARD` (before its first turn)"),
    Field("players[].ship.harbor", "int", "the harbour space it anchors on (1 = H1, 2 = H2; §4.4.2); null "
          "when not in a city", nullable=True),
    Field("players[].ship.moved_this_turn", "bool", "it sailed this turn (§4.4)"),
    Field("players[].hand", "list", "its sailing cards (hands are public, §7)"),
    Field("players[].hand[]", "str", _CARD),
    Field("players[].supply", "object", "pieces it may still build this phase"),
    Field("players[].supply.warehouses", "int", "warehouses"),
    Field("players[].supply.fortresses", "int", "fortresses"),
    Field("players[].supply.neutral", "int", "2 players: neutral warehouses (§6.2); else 0"),
    Field("players[].loans", "list", "its loans"),
    Field("players[].loans[]", "object", "one loan card"),
    Field("players[].loans[].id", "str", "`LS01`-`LS18` small, `LL01`-`LL12` large"),
    Field("players[].loans[].size", "str", "`small` or `large`"),
    Field("players[].loans[].extended", "bool", "extended once already (§5.2)"),
    Field("players[].loans[].due", "int", "Florins to repay it"),
    Field("players[].bonus_card", "int", "its proliferation bonus card (15, 10 or 5 Florins, §4.10); null: none",
          nullable=True),
    Field("players[].first_turn", "bool", "it has not had its first turn yet"),
    Field("cities", "map", "city id -> the city's state (§4.5.1)"),
    Field("cities{}", "object", "one city"),
    Field("cities{}.sites", "list", "warehouse sites 1-12 in order"),
    Field("cities{}.sites[]", "object", "a warehouse; null: the site is empty", nullable=True),
    Field("cities{}.sites[].seat", "int", "its owner"),
    Field("cities{}.sites[].color", "str", "`main`, or `neutral` (2 players)"),
    Field("cities{}.pictured", "list", "shut-down warehouses on the city picture (§4.5.5)"),
    Field("cities{}.pictured[]", "object", "a shut-down warehouse"),
    Field("cities{}.pictured[].seat", "int", "its owner"),
    Field("cities{}.pictured[].color", "str", "`main` or `neutral`"),
    Field("cities{}.fortresses", "list", "fortress sites F1, F2"),
    Field("cities{}.fortresses[]", "int", "the owner; null: free", nullable=True),
    Field("cities{}.harbor", "list", "harbour spaces H1, H2"),
    Field("cities{}.harbor[]", "int", "the seat whose ship anchors there; null: free", nullable=True),
    Field("cities{}.site1_pending", "bool", "the first warehouse went to site 2: the next goes to site 1 (§4.5.2)"),
    Field("cities{}.reverse", "bool", "site 12 is taken: building runs backwards (§4.5.4)"),
    Field("cities{}.value_now", "int", "the track value under the last warehouse: what the majority pays now (§5.1)"),
    Field("display", "object", "the face-up cards for sale (§4.3)"),
    Field("display.destination", "list", "destination cards (up to 4)"),
    Field("display.destination[]", "str", _CARD),
    Field("display.link", "list", "interconnection cards (up to 6)"),
    Field("display.link[]", "str", _CARD),
    Field("piles", "object", "the draw and discard piles"),
    Field("piles.destination_draw", "int", "destination cards in the draw pile (order secret)"),
    Field("piles.destination_discard", "list", "played destination cards"),
    Field("piles.destination_discard[]", "str", _CARD),
    Field("piles.link_draw", "int", "interconnection cards in the draw pile"),
    Field("piles.link_discard", "list", "played interconnection cards"),
    Field("piles.link_discard[]", "str", _CARD),
    Field("loan_supply", "object", "loan cards left in the bank"),
    Field("loan_supply.small", "int", "small loans"),
    Field("loan_supply.large", "int", "large loans"),
    Field("bonus_left", "list", "proliferation bonus cards still to win, best first (§4.10)"),
    Field("bonus_left[]", "int", "Florins"),
    Field("settling", "object", "`turn_step` `settle` only: the loan being settled", optional=True),
    Field("settling.seat", "int", "its owner"),
    Field("settling.loan", "str", "the loan id"),
    Field("chooser", "int", "`turn_step` `choose_start` only: the poorest player, who picks the next start "
          "player (§5.3)", optional=True),
)

ACTION_FIELDS: tuple[Field, ...] = (
    Field("buy", "object", "buy a face-up card at its price (§4.3)"),
    Field("buy.card", "str", _CARD),
    Field("sail", "object", "play a card from your hand to sail (§4.4.1)"),
    Field("sail.card", "str", _CARD),
    Field("sail.mode", "str", "destination cards: `destination` (sail to its city) or `route` (its seals as "
          "steps)", optional=True),
    Field("sail.to", "str", "`route` and interconnection cards: the city sailed to", optional=True),
    Field("build_warehouse", "object", "main action A: build a warehouse in your ship's city (§4.5)"),
    Field("build_warehouse.site", "int", "an empty city only: site 1 or 2 (§4.5.2)", optional=True),
    Field("build_warehouse.color", "str", "2 players only: `main` or `neutral` (§6.2)", optional=True),
    Field("reopen", "object", "main action A': reopen a shut-down warehouse (§4.6)", rare=True,
          example={"type": "reopen"}),
    Field("reopen.color", "str", "2 players, both colours pictured: which", optional=True, rare=True),
    Field("build_fortress", "object", "main action B: build a fortress (§4.7)"),
    Field("loan", "object", "main action C: take a loan; the turn ends (§4.8)"),
    Field("loan.size", "str", "`small` or `large`"),
    Field("end_turn", "object", "end the turn after the main action"),
    Field("pass", "object", "[HOUSE] no legal main action is left (§6.4)", rare=True, example={"type": "pass"}),
    Field("repay", "object", "payday: repay a loan (§5.2)"),
    Field("repay.loan", "str", "the loan id"),
    Field("extend", "object", "payday: extend a loan once (§5.2)"),
    Field("extend.loan", "str", "the loan id"),
    Field("choose_start", "object", "after paydays 1-2: choose the next start player (§5.3)"),
    Field("choose_start.seat", "int", "the seat"),
)

TABLE_FIELDS: tuple[Field, ...] = (
    Field("cards", "list", "the 54 sailing cards (§2.6)"),
    Field("cards[]", "object", "one card"),
    Field("cards[].id", "str", "the card id"),
    Field("cards[].kind", "str", "`destination` or `link`"),
    Field("cards[].cities", "list", "destination: its city; link: the two cities it joins"),
    Field("cards[].cities[]", "str", _CITY),
    Field("cards[].seals", "int", "destination: red seals (steps when played as a sea route)", optional=True),
    Field("cards[].price", "int", "Florins"),
    Field("cities", "list", "the nine cities on the 3x3 grid (§2.3); distance = rows + columns apart"),
    Field("cities[]", "object", "one city"),
    Field("cities[].id", "str", "the city id"),
    Field("cities[].name", "str", "its name"),
    Field("cities[].row", "int", "grid row, 1 = north"),
    Field("cities[].col", "int", "grid column, 1 = west"),
    Field("cities[].tier", "str", "value tier `A`, `B` or `C`"),
    Field("cities[].harbor_price", "list", "warehouse price from harbour space H1, H2"),
    Field("cities[].harbor_price[]", "int", "Florins"),
    Field("cities[].fortress_price", "list", "fortress price on F1, F2"),
    Field("cities[].fortress_price[]", "int", "Florins"),
    Field("cities[].track_values", "list", "income of track spaces 1-13 (§5.1)"),
    Field("cities[].track_values[]", "int", "Florins"),
    Field("cities[].black_sites", "list", "shut-down sites (§4.5.5)"),
    Field("cities[].black_sites[]", "int", "a site"),
    Field("cities[].triangle_site", "int", "the extra shut-down site with 2-3 players"),
    Field("loans", "map", "loan size -> its terms (§2.5)"),
    Field("loans{}", "object", "one size"),
    Field("loans{}.count", "int", "cards of this size"),
    Field("loans{}.amount", "int", "Florins received"),
    Field("loans{}.repay", "int", "Florins to repay"),
    Field("loans{}.repay_extended", "int", "Florins to repay once extended"),
    Field("proliferation", "list", "payday income by the number of cities with an active warehouse (§2.4)"),
    Field("proliferation[]", "int", "Florins"),
)

FIELD_SAMPLES: tuple[tuple[int, dict[str, Any] | None], ...] = ((3, None), (2, None), (5, None))


@cache
def _tables() -> dict[str, Any]:
    cards = [{"id": cid, "kind": "destination", "cities": [city], "seals": seals, "price": price}
             for cid, city, seals, price in D.DESTINATION_CARDS]
    cards += [{"id": cid, "kind": "link", "cities": [a, b], "price": price} for cid, a, b, price in D.LINK_CARDS]
    cities = []
    for city in D.CITIES:
        tier = D.TIERS[city["tier"]]
        cities.append({"id": city["id"], "name": city["name"], "row": city["row"], "col": city["col"],
                       "tier": city["tier"], "harbor_price": list(tier["harbor_price"]),
                       "fortress_price": list(tier["fortress_price"]), "track_values": list(tier["track_values"]),
                       "black_sites": list(city["black_sites"]), "triangle_site": city["triangle_site"]})
    return {"cards": cards, "cities": cities, "loans": {k: dict(v) for k, v in D.LOANS.items()},
            "proliferation": list(D.PROLIFERATION)}


def tables(num_players: int, options: Any) -> dict[str, Any]:
    """Sailing cards, cities, loans and the proliferation chart (the same for every set-up)."""
    return _tables()


RULES_BRIEF = """\
- **Goal** (§1, §5.5): the most Florins after the third payday, once all loans are repaid.
- **Turn** (§4.2): before the main action, buy face-up sailing cards (§4.3) and sail by playing cards
  (§4.4: a destination card takes the ship to its city, or moves it as many steps as its seals; an
  interconnection card joins its two cities). Then exactly one main action in the ship's city:
  build a warehouse or reopen one (§4.5, §4.6), build a fortress (§4.7), or take a loan (§4.8: only as
  the first thing of a turn; the turn ends). After a build, buy more cards and end the turn.
- **Warehouses** (§4.5): the price is shown on your harbour space; warehouses fill a city's track
  from site 1 (the first builder may start on site 2), never more than 3 in a row of one colour;
  building on a black site shuts down the oldest warehouse to the city picture; once site 12 is
  taken, building runs backwards.
- **Phase end and payday** (§4.11, §5.1): a phase ends after the round in which someone built all his
  pieces. Payday pays proliferation (cities with an active warehouse), the majority and second in
  each city by its track value, and every fortress. Loans are repaid or extended once (§5.2); the
  poorest player picks the next start player (§5.3).
- **Two players** (§6.2): each also builds a neutral colour. **Information** (§7): everything is
  public except the order of the draw piles.
"""
