"""What an Alhambra bot receives: every observation, action and table field, and the rules in brief.

Section numbers (§) refer to the rules file alhambra.md. Observations name tiles and money cards by
id; the ``tiles`` and ``money`` tables (sent once in ``start``) give their faces.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from engines.alhambra import data as D
from engines.fields import Field

_TILE = "a tile id (0 = the fountain, 1-54 buildings); `tables.tiles[id]` is its face"
_MONEY = "a money card id (0-107); `tables.money[id]` is its currency and value"

OBSERVATION_FIELDS: tuple[Field, ...] = (
    Field("seat", "int", "your seat (0-based)"),
    Field("n_seats", "int", "the number of seats"),
    Field("phase", "str", "`action` (take money, buy or redesign, §4.1), `placement` (place the tiles bought "
          "this turn), `final_placement` (place tiles awarded at the end, §5.3) or `over`"),
    Field("active_seat", "int", "the seat whose turn it is"),
    Field("to_move", "int", "the seat that decides now", nullable=True),
    Field("turn_number", "int", "turns played so far, over all seats"),
    Field("max_turns", "int", "[HOUSE] the game ends after this many turns (option)"),
    Field("building_market", "map", "slot (`\"1\"`-`\"4\"`) -> the tile on it; slot s is paid in "
          "`tables.slot_currency[s]` (§2.3)"),
    Field("building_market{}", "int", _TILE + "; null: the slot is empty", nullable=True),
    Field("money_market", "list", "the face-up money cards anyone may take (§4.2), ids ascending"),
    Field("money_market[]", "int", _MONEY),
    Field("bag_count", "int", "building tiles left in the bag"),
    Field("deck_count", "int", "money cards left in the deck"),
    Field("discard", "list", "the money discard pile (paid cards), oldest first"),
    Field("discard[]", "int", _MONEY),
    Field("scoring_done", "list", "the scoring rounds already resolved (1, 2; 3 at the end, §5.1)"),
    Field("scoring_done[]", "int", "a scoring round"),
    Field("players", "list", "every seat, in seat order"),
    Field("players[]", "object", "one seat"),
    Field("players[].seat", "int", "the seat"),
    Field("players[].score", "int", "points so far"),
    Field("players[].alhambra", "list", "the tiles of its Alhambra with their cells (x east, y north; the "
          "fountain at 0,0, §4.6)"),
    Field("players[].alhambra[]", "object", "one placed tile"),
    Field("players[].alhambra[].tile", "int", _TILE),
    Field("players[].alhambra[].x", "int", "the cell's column"),
    Field("players[].alhambra[].y", "int", "the cell's row"),
    Field("players[].reserve", "list", "tiles on its reserve board (§4.7)"),
    Field("players[].reserve[]", "int", _TILE),
    Field("players[].hand_count", "int", "money cards in its hand"),
    Field("players[].hand", "list", "its money cards: only in your own entry (every entry with the option "
          "`open_money`, §7)", optional=True),
    Field("players[].hand[]", "int", _MONEY),
    Field("players[].longest_wall", "int", "its longest outer wall, scored each round (§5.2)"),
    Field("players[].type_counts", "list", "tiles of each building type in its Alhambra, in "
          "`tables.building_types` order (pavilion ... tower)"),
    Field("players[].type_counts[]", "int", "a count"),
    Field("held_this_turn", "list", "tiles bought this turn, to place in the placement phase (§4.1)"),
    Field("held_this_turn[]", "int", _TILE),
    Field("awarded_to_place", "list", "at the end: `[seat, [tiles]]` per seat that must still place awarded "
          "tiles, in order (§5.3)"),
    Field("awarded_to_place[]", "list", "`[seat, [tile ids]]`"),
    Field("awarded_to_place[][]", "int|list", "the seat, then the list of its tiles"),
    Field("awarded_to_place[][][]", "int", _TILE),
    Field("dirk", "object", "2 players only: Dirk, the imaginary third scorer (§6)", optional=True),
    Field("dirk.tiles", "list", "Dirk's tiles"),
    Field("dirk.tiles[]", "int", _TILE),
    Field("dirk.score", "int", "Dirk's points (not ranked)"),
    Field("dirk.type_counts", "list", "Dirk's tiles per building type"),
    Field("dirk.type_counts[]", "int", "a count"),
)

ACTION_FIELDS: tuple[Field, ...] = (
    Field("take_money", "object", "take one money card, or several adding up to at most 5 (§4.2)"),
    Field("take_money.cards", "list", "the cards taken, ids ascending"),
    Field("take_money.cards[]", "int", _MONEY),
    Field("buy", "object", "buy the tile on a market slot with cards of its currency; an exact payment gives "
          "another action (§4.3)"),
    Field("buy.slot", "int", "the market slot, 1-4"),
    Field("buy.pay", "list", "the values of the cards paid, descending (the lowest-id card of each value is "
          "used, §9.2)"),
    Field("buy.pay[]", "int", "a card value, 1-9"),
    Field("redesign_place", "object", "move a reserve tile into the Alhambra (§4.4)"),
    Field("redesign_place.tile", "int", _TILE),
    Field("redesign_place.x", "int", "the cell's column"),
    Field("redesign_place.y", "int", "the cell's row"),
    Field("redesign_remove", "object", "move an Alhambra tile to the reserve (§4.4)"),
    Field("redesign_remove.tile", "int", _TILE),
    Field("redesign_swap", "object", "swap a reserve tile with an Alhambra tile (§4.4)"),
    Field("redesign_swap.tile", "int", "the reserve tile: " + _TILE),
    Field("redesign_swap.replaces", "int", "the Alhambra tile whose cell it takes"),
    Field("place", "object", "place a held or awarded tile (§4.1, §5.3)"),
    Field("place.tile", "int", _TILE),
    Field("place.to", "str", "`alhambra`, `reserve` or (2 players, bought tiles) `dirk`"),
    Field("place.x", "int", "`alhambra` only: the cell's column", optional=True),
    Field("place.y", "int", "`alhambra` only: the cell's row", optional=True),
    Field("pass", "object", "[HOUSE] end the turn when the money market is empty (§4.5)", rare=True,
          example={"type": "pass"}),
)

TABLE_FIELDS: tuple[Field, ...] = (
    Field("tiles", "list", "every tile by id: `tiles[id]` (§2.2)"),
    Field("tiles[]", "object", "one tile"),
    Field("tiles[].id", "int", "the tile id"),
    Field("tiles[].type", "str", "`fountain` or the building type"),
    Field("tiles[].colour", "str", "the type's colour"),
    Field("tiles[].price", "int", "the price (0 for the fountain)"),
    Field("tiles[].walls", "str", "the sides with a wall: letters of `NESW` (tiles never rotate)"),
    Field("money", "list", "every money card by id: `money[id]` (§2.3); 2 players use only copies 0-1"),
    Field("money[]", "object", "one money card"),
    Field("money[].id", "int", "the card id"),
    Field("money[].currency", "str", "`gulden`, `dirham`, `denar` or `ducat`"),
    Field("money[].value", "int", "1-9"),
    Field("slot_currency", "map", "market slot (`\"1\"`-`\"4\"`) -> the currency it is paid in"),
    Field("slot_currency{}", "str", "a currency"),
    Field("building_types", "list", "the six building types, the order of `type_counts`"),
    Field("building_types[]", "str", "a type"),
    Field("points", "map", "building type -> points per scoring round (§5.1)"),
    Field("points{}", "list", "rounds 1-3"),
    Field("points{}[]", "list", "points for 1st, 2nd, 3rd place in that round"),
    Field("points{}[][]", "int", "points"),
)

FIELD_SAMPLES: tuple[tuple[int, dict[str, Any] | None], ...] = ((3, None), (2, None), (4, {"open_money": True}))


@cache
def _tables() -> dict[str, Any]:
    tiles = [{"id": t, "type": D.TYPE_NAMES[D.TILE_TYPE[t]], "colour": D.TYPE_COLOURS[D.TILE_TYPE[t]],
              "price": D.TILE_PRICE[t], "walls": D.TILE_WALL_LETTERS[t]} for t in range(len(D.TILE_TYPE))]
    money = [{"id": c, "currency": D.CURRENCY_NAMES[D.CARD_CURRENCY[c]], "value": D.CARD_VALUE[c]}
             for c in range(len(D.CARD_VALUE))]
    return {
        "tiles": tiles,
        "money": money,
        "slot_currency": {str(s): D.CURRENCY_NAMES[c] for s, c in D.SLOT_CURRENCY.items()},
        "building_types": [D.TYPE_NAMES[t] for t in D.BUILDING_TYPES],
        "points": {D.TYPE_NAMES[t]: [list(r) for r in D.POINTS[t]] for t in D.BUILDING_TYPES},
    }


def tables(num_players: int, options: Any) -> dict[str, Any]:
    """Tiles, money cards, slot currencies and the points table (the same for every set-up)."""
    return _tables()


RULES_BRIEF = """\
- **Goal** (§1, §5.4): the highest score after the third scoring round; equal scores share a place.
- **Turn** (§4.1): one action: take money (one card, or several adding up to at most 5, §4.2), buy a
  tile (§4.3) or redesign your Alhambra (§4.4). A tile is paid only in its slot's currency, with no
  change; an exact payment gives another action. Bought tiles are placed at the end of the turn, in
  your Alhambra or on your reserve. Then the markets are refilled.
- **Building** (§4.6): tiles never rotate; adjacent sides must match (wall against wall, open against
  open), every tile must be reachable from the fountain on foot without crossing a wall, and no holes.
- **Scoring** (§5.1, §5.2): when scoring card A, then B, is drawn, and at the end: per building type,
  the seats (and Dirk with 2 players) with the most tiles of it score by the points table (round 1
  pays 1st place, round 2 1st-2nd, round 3 1st-3rd; ties share, rounded down); each seat adds its
  longest outer wall.
- **End** (§5.3): when the building market cannot be refilled; the remaining market tiles go to the
  seat with the most money in their currency (ties: nobody), then the third scoring.
- **Information** (§7): hands are private (their sizes are public); the bag and deck order are secret.
"""
