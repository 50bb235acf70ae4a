"""What a Port Royal bot receives: every observation, action and table field, and the rules in brief.

Section numbers (§) refer to the rules file port_royal.md. The observation names cards by id; the
``cards`` table (sent once in ``start``) gives every card's face, so a bot can read persons,
expeditions and the discard pile without a copy of the card list.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from engines.fields import Field
from engines.port_royal import data as D

_CARD = "a card id (1-120); `tables.cards[id - 1]` is its face"

OBSERVATION_FIELDS: tuple[Field, ...] = (
    Field("you", "int", "your seat (0-based)"),
    Field("state", "str", "the decision now: `DISCOVER` (reveal or stop, §4.1), `REPEL` (repel or dock the "
          "ship just revealed, §4.2), `TRADE` (take cards, §4.6) or `OVER`"),
    Field("to_act", "int", "the seat that decides now (in `TRADE` a non-active player may decide)", nullable=True),
    Field("active", "int", "the seat whose turn it is"),
    Field("start_seat", "int", "the start player; the round ends after the seat before it (§5)"),
    Field("round", "int", "the round, from 1"),
    Field("end_triggered", "bool", "someone has 12 IP: this round is the last (§5)"),
    Field("end_condition", "str", "`standard` or `expedition_required` (the option, §6)"),
    Field("harbour", "list", "the face-up cards of this turn, in reveal order (§4.1)"),
    Field("harbour[]", "object", "a card face, as in the `cards` table"),
    Field("harbour[].id", "int", _CARD),
    Field("harbour[].kind", "str", "`person` or `ship` (taxes and expeditions never enter the harbour)"),
    Field("harbour[].type", "str", "persons: `trader`, `settler`, `captain`, `priest`, `jack_of_all_trades`, "
          "`sailor`, `pirate`, `mademoiselle`, `jester`, `admiral` or `governor` (§2.2)", optional=True),
    Field("harbour[].colour", "str", "ships and traders: `yellow`, `blue`, `green`, `red` or `black`", optional=True),
    Field("harbour[].name", "str", "ships: the ship's name for its colour", optional=True),
    Field("harbour[].coins", "int", "ships: coins the taker draws (§4.6)", optional=True),
    Field("harbour[].swords", "int", "ships: swords needed to repel it, null for a skull (never repelled, §2.3); "
          "sailors and pirates: swords they give (§4.0)", nullable=True, optional=True),
    Field("harbour[].cost", "int", "persons: the printed hiring cost (Mademoiselles lower it, §4.7)", optional=True),
    Field("harbour[].ip", "int", "persons: influence points", optional=True),
    Field("harbour[].symbol", "str", "settler `house`, captain `anchor`, priest `cross`, jack `any` (§2.1)",
          optional=True),
    Field("pending_ship", "object", "the ship just revealed that you may repel (state `REPEL`), else null",
          nullable=True),
    Field("pending_ship.id", "int", _CARD),
    Field("pending_ship.kind", "str", "`ship`"),
    Field("pending_ship.colour", "str", "the ship's colour"),
    Field("pending_ship.name", "str", "the ship's name"),
    Field("pending_ship.coins", "int", "coins it would give"),
    Field("pending_ship.swords", "int", "swords needed to repel it (a skull is never pending)"),
    Field("revealed_this_turn", "int", "cards revealed this turn (`stop` needs at least 1, §4.1)"),
    Field("phase2", "object", "the Trade & Hire phase (§4.6): null outside it", nullable=True),
    Field("phase2.base_allowance", "int", "the active player's base allowance (1-3 by ship colours, §4.6)"),
    Field("phase2.taker", "int", "the seat taking cards now"),
    Field("phase2.takes_used", "int", "cards the taker has taken in this step"),
    Field("phase2.allowance", "int", "cards the taker may take in this step (Governors included)"),
    Field("expedition_area", "list", "the expeditions anyone may fulfil (§4.5)"),
    Field("expedition_area[]", "int", _CARD + " (its `requires`, `ip`, `coins`)"),
    Field("players", "list", "every seat, in seat order"),
    Field("players[]", "object", "one seat (all of it public, §7)"),
    Field("players[].seat", "int", "the seat"),
    Field("players[].coins", "int", "coins held (face-down cards: their faces are secret, only the count is shown)"),
    Field("players[].persons", "list", "hired persons, in hiring order"),
    Field("players[].persons[]", "int", _CARD),
    Field("players[].expeditions", "list", "fulfilled expeditions"),
    Field("players[].expeditions[]", "int", _CARD),
    Field("players[].ip", "int", "influence points (persons + expeditions, §4.0)"),
    Field("players[].swords", "int", "swords: sailors + 2 x pirates (§4.0)"),
    Field("draw_pile_count", "int", "cards left in the draw pile (its order is secret)"),
    Field("discard_pile", "list", "the discard pile, oldest first (reshuffled when the draw pile runs out, §4.8)"),
    Field("discard_pile[]", "int", _CARD),
)

ACTION_FIELDS: tuple[Field, ...] = (
    Field("draw", "object", "reveal the top card of the draw pile (§4.1)"),
    Field("stop", "object", "end Discover and go to Trade & Hire (after at least one reveal, §4.1)"),
    Field("repel", "object", "discard the pending ship with your swords (§4.2)"),
    Field("dock", "object", "let the pending ship dock (a second ship of a colour busts the turn, §4.3)"),
    Field("take", "object", "take a harbour card: trade a ship for coins or hire a person (§4.6); one "
          "action per distinct card kind"),
    Field("take.card", "int", _CARD + " (the lowest id of its kind in the harbour)"),
    Field("expedition", "object", "fulfil an expedition with your persons (active player only, §4.5)"),
    Field("expedition.card", "int", _CARD + " of the expedition"),
    Field("expedition.jacks_for", "map", "only with the option `explicit_jack_allocation`: Jacks used per "
          "required symbol (§9)", optional=True),
    Field("expedition.jacks_for{}", "int", "Jacks of all Trades standing in for that symbol"),
    Field("done", "object", "end your Trade & Hire step (§4.6)"),
)

TABLE_FIELDS: tuple[Field, ...] = (
    Field("cards", "list", "every card, by id: `cards[id - 1]` is card `id` (§2.6)"),
    Field("cards[]", "object", "one card's face"),
    Field("cards[].id", "int", "the card id, 1-120"),
    Field("cards[].kind", "str", "`person`, `ship`, `tax_increase` or `expedition`"),
    Field("cards[].type", "str", "persons: the person type (§2.2)", optional=True),
    Field("cards[].colour", "str", "ships and traders: the colour", optional=True),
    Field("cards[].name", "str", "ships: the ship's name", optional=True),
    Field("cards[].coins", "int", "ships: coins when traded; expeditions: coins drawn when fulfilled", optional=True),
    Field("cards[].swords", "int", "ships: swords to repel (null: a skull, never repelled); sailors 1, pirates 2",
          nullable=True, optional=True),
    Field("cards[].cost", "int", "persons: the printed cost", optional=True),
    Field("cards[].ip", "int", "persons and expeditions: influence points", optional=True),
    Field("cards[].symbol", "str", "settler `house`, captain `anchor`, priest `cross`, jack `any`", optional=True),
    Field("cards[].bonus", "str", "tax increases: `most_swords` or `fewest_ip` gain 1 coin (§4.4)", optional=True),
    Field("cards[].requires", "map", "expeditions: symbol -> persons needed (§2.5)", optional=True),
    Field("cards[].requires{}", "int", "how many persons with that symbol (a Jack stands for any one)"),
    Field("cards[].five_player_only", "bool", "expeditions: the 5-player expedition (never in the deck)",
          optional=True),
)

FIELD_SAMPLES: tuple[tuple[int, dict[str, Any] | None], ...] = (
    (3, None), (2, None),
    (5, {"explicit_jack_allocation": True, "end_condition": "expedition_required"}),
)


@cache
def _tables() -> dict[str, Any]:
    return {"cards": [D.card(cid) for cid in range(1, D.NUM_CARDS + 1)]}


def tables(num_players: int, options: Any) -> dict[str, Any]:
    """The card table (the same for every set-up)."""
    return _tables()


RULES_BRIEF = """\
- **Goal** (§1, §5): the most influence points (IP) when the game ends. Any player reaching 12 IP
  (option `expedition_required`: 12 IP and an expedition, §6) triggers the end; the round is played
  out so everyone has the same number of turns. Ties: more coins; still tied, a shared place.
- **Cards** (§2): 120 cards, 60 persons, 50 ships (10 per colour), 4 tax increases, 6 expeditions.
  Every card's back is a coin: coins are face-down cards drawn from the draw pile (§4.8).
- **Discover** (§4.1): the active player reveals cards one by one (`draw`), and may `stop` after the
  first. A person joins the harbour; an expedition goes to the expedition area; a tax increase makes
  everyone with 12+ coins discard half and pays a bonus coin to the most swords or fewest IP (§4.4).
- **Ships** (§4.2, §4.3): a ship with a sword number at most your swords may be repelled (`repel`);
  otherwise it docks. A second ship of a colour already in the harbour busts the turn: the harbour is
  discarded, Jesters pay 1 coin each, no Trade & Hire.
- **Trade & Hire** (§4.6): the active player takes 1 card (2 with 4 ship colours in the harbour, 3 with
  5), plus 1 per Governor; then each other player in turn may take 1 (+Governors), paying the active
  player 1 coin per card. A ship gives its coins (+1 per matching Trader); a person costs its price
  (-1 per Mademoiselle) and joins your display. Admirals pay 2 coins when the harbour holds 5+ cards.
- **Expeditions** (§4.5): the active player may at any decision hand in persons with the required
  symbols (Priest cross, Captain anchor, Settler house, Jack any) for the expedition's IP and coins.
- **Information** (§7): everything is public except the faces of coins and the order of the draw pile.
"""
