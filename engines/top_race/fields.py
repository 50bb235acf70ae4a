"""What a Top Race bot receives: every observation, action and table field, and the rules in brief.

Section numbers (§) refer to the rules file top_race.md. Observations name tempo cards by id and
track spaces as ``r{back}l{lane}``; the ``cards`` and ``tracks`` tables (sent once in ``start``) give
every card's slots and every space's successors.
"""
from __future__ import annotations

from functools import cache
from typing import Any, Mapping

from engines.fields import Field
from engines.top_race import data as D

_CARD = "a tempo card id, 1-48 (table `cards`)"
_CAR = "a car: `red`, `yellow`, `blue`, `black`, `purple` or `green`"
_SPACE = "a track space id `r{back row}l{lane}` (table `tracks`)"

OBSERVATION_FIELDS: tuple[Field, ...] = (
    Field("game", "str", "`top_race`"),
    Field("seat", "int", "your seat (0-based)"),
    Field("players", "int", "the number of seats"),
    Field("modules", "object", "the modules in play (options, §6)"),
    Field("modules.pitstop", "bool", "Pitstop (§6.1)"),
    Field("modules.tips", "bool", "Tips (§6.2)"),
    Field("modules.shares", "bool", "Shares (§6.3)"),
    Field("race", "int", "the current race, from 1"),
    Field("races", "int", "races in the game"),
    Field("track", "str", "this race's track id (table `tracks`)"),
    Field("phase", "str", "`auction` (cars, §4.1), `offer_auction` (Shares: the seating order, §6.3), `race` "
          "(§4.2) or `over`"),
    Field("to_move", "int", "the seat that decides now", nullable=True),
    Field("decision", "str", "the pending decision: `bid`, `take_car`, `take_offer`, `turn`, `joker`, `move`, "
          "`return`, `claim`, `tip` or `trade` (§9)", nullable=True),
    Field("cash", "list", "every seat's money"),
    Field("cash[]", "int", "money"),
    Field("owners", "map", "car -> its owner this race (§4.1)"),
    Field("owners{}", "int", "the seat; null: not sold (yet), or Shares (no owners)", nullable=True),
    Field("cars", "map", "every car -> where it is; an empty object for a car not on the track yet"),
    Field("cars{}", "object", "one car: at most one of the keys below"),
    Field("cars{}.space", "str", "on the track: " + _SPACE, optional=True),
    Field("cars{}.place", "int", "finished in this place (1-6, §4.8)", optional=True),
    Field("cars{}.broken", "str", "broken down, waiting to return next to this space (§4.7)", optional=True),
    Field("hand_sizes", "list", "every seat's number of tempo cards"),
    Field("hand_sizes[]", "int", "cards"),
    Field("hand", "list", "your tempo cards (private, §7)"),
    Field("hand[]", "int", _CARD),
    Field("discard", "list", "played tempo cards, oldest first"),
    Field("discard[]", "int", _CARD),
    Field("box", "list", "Pitstop: the cards in the Box (§6.1)"),
    Field("box[]", "int", _CARD),
    Field("reserved", "list", "Pitstop: per seat, the cards it reserved (§6.1)"),
    Field("reserved[]", "list", "one seat's reserved cards"),
    Field("reserved[][]", "int", _CARD),
    Field("free_pitstops", "list", "Pitstop: per seat, pitstops left"),
    Field("free_pitstops[]", "int", "a count"),
    Field("order", "list", "the seats in turn order this race"),
    Field("order[]", "int", "a seat"),
    Field("start_player", "int", "the seat that plays first this race; null before it is known", nullable=True),
    Field("lines_crossed", "int", "Tips: tip lines the leading car has crossed (§6.2)"),
    Field("tips_placed", "list", "Tips: per seat, tips placed so far (their cars are secret); null without Tips",
          nullable=True),
    Field("tips_placed[]", "int", "a count"),
    Field("tips", "list", "Tips only: your tips, in tip-round order", optional=True),
    Field("tips[]", "str", _CAR + "; null: not placed", nullable=True),
    Field("holdings", "map", "Shares only: car -> your shares of it (private)", optional=True),
    Field("holdings{}", "int", "shares"),
    Field("offer", "list", "Shares: the cards of the offer auction (§6.3)"),
    Field("offer[]", "int", _CARD),
    Field("results", "list", "the races already run"),
    Field("results[]", "object", "one race's result"),
    Field("results[].race", "int", "the race number"),
    Field("results[].track", "str", "its track"),
    Field("results[].end", "str", "why it ended (5th car finished, no cards, ...)"),
    Field("results[].places", "map", "car -> its place"),
    Field("results[].places{}", "int", "1-6"),
    Field("results[].owners", "map", "without Shares: car -> its owner", optional=True),
    Field("results[].owners{}", "int", "a seat"),
    Field("results[].tips", "list", "Tips: per seat, its tips", optional=True),
    Field("results[].tips[]", "list", "one seat's tips"),
    Field("results[].tips[][]", "str", _CAR + "; null: not placed", nullable=True),
    Field("results[].tip_net", "list", "Tips: per seat, what its tips won or lost", optional=True),
    Field("results[].tip_net[]", "int", "money"),
    Field("results[].holdings", "list", "Shares: per seat, its shares per car", optional=True),
    Field("results[].holdings[]", "map", "car -> shares"),
    Field("results[].holdings[]{}", "int", "shares"),
    Field("results[].share_payout", "list", "Shares: per seat, its payout", optional=True),
    Field("results[].share_payout[]", "int", "money"),
    Field("results[].cash", "list", "every seat's money after the race"),
    Field("results[].cash[]", "int", "money"),
    Field("auction", "object", "the auctions only (§4.1, §6.3)", optional=True),
    Field("auction.cars_left", "int", "cars still to sell"),
    Field("auction.carless", "int", "seats without a car (each must get one)"),
    Field("auction.high_bid", "int", "the highest bid; null: no bid yet", nullable=True),
    Field("auction.high_bidder", "int", "its seat; null: no bid yet", nullable=True),
    Field("auction.passed", "list", "seats that passed in this auction"),
    Field("auction.passed[]", "int", "a seat"),
    Field("auction.may_bid", "list", "seats still allowed to bid"),
    Field("auction.may_bid[]", "int", "a seat"),
    Field("auction.offer_won", "list", "offer auction: seats that have won a card", optional=True),
    Field("auction.offer_won[]", "int", "a seat"),
    Field("auction.positions", "list", "offer auction: the turn-order positions taken", optional=True),
    Field("auction.positions[]", "int", "a seat"),
    Field("card", "object", "the tempo card being resolved", optional=True),
    Field("card.id", "int", _CARD),
    Field("card.slot", "int", "the slot being resolved, 0 = top"),
    Field("card.by", "int", "the seat that played it"),
    Field("car", "str", "decisions `move` and `return`: the car to move", optional=True),
    Field("tip_round", "int", "decision `tip`: the tip round (1-3)", optional=True),
    Field("claim_card", "int", "decision `claim`: the card a pitstop may claim (§6.1)", optional=True),
)

ACTION_FIELDS: tuple[Field, ...] = (
    Field("bid", "object", "bid in an auction (multiples of 10,000, §4.1)"),
    Field("bid.amount", "int", "the bid"),
    Field("pass", "object", "pass in an auction; or no card to play (Pitstop), all your cars finished (Tips)"),
    Field("take_car", "object", "the auction's winner takes a car and its start space (§4.1)"),
    Field("take_car.car", "str", _CAR),
    Field("take_car.start", "int", "the start space, 1-6 (table `tracks`: `start_spaces`)"),
    Field("take_offer", "object", "Shares: the offer auction's winner takes a card (§6.3)"),
    Field("take_offer.card", "int", _CARD),
    Field("play", "object", "play a tempo card (§4.3)"),
    Field("play.card", "int", _CARD),
    Field("play.mode", "str", "spurt cards (46-48) only: `spurt` or `breakdown` (§4.6, §4.7)", optional=True),
    Field("joker", "object", "name the car the joker slot moves (§4.5)"),
    Field("joker.car", "str", _CAR),
    Field("move", "object", "choose the destination of a car's move (§4.4)"),
    Field("move.to", "str", _SPACE),
    Field("return", "object", "return a broken-down car to the track (§4.7)"),
    Field("return.to", "str", _SPACE),
    Field("pitstop_claim", "object", "Pitstop: claim the card just played (§6.1)"),
    Field("decline", "object", "Pitstop: do not claim it"),
    Field("take_reserved", "object", "Pitstop: take back a reserved card (§6.1)", rare=True,
          example={"type": "take_reserved", "card": 27}),
    Field("take_reserved.card", "int", _CARD, rare=True),
    Field("pitstop", "object", "Pitstop, case 2: take a card from the Box or the discard (§6.1)"),
    Field("pitstop.from", "str", "`box` or `discard`"),
    Field("pitstop.card", "int", "`box` only: " + _CARD, optional=True),
    Field("tip", "object", "Tips: place a secret tip on a car (§6.2)"),
    Field("tip.car", "str", _CAR),
    Field("trade", "object", "Shares: sell 2 shares, then buy 2 (§6.3)"),
    Field("trade.sell", "list", "the two cars sold"),
    Field("trade.sell[]", "str", _CAR),
    Field("trade.buy", "list", "the two cars bought"),
    Field("trade.buy[]", "str", _CAR),
)

TABLE_FIELDS: tuple[Field, ...] = (
    Field("cards", "list", "the 48 tempo cards: `cards[id - 1]` (§2.4)"),
    Field("cards[]", "object", "one card"),
    Field("cards[].id", "int", "the card id"),
    Field("cards[].group", "str", "its group `A`-`H`, or `S` for spurt/breakdown"),
    Field("cards[].slots", "list", "normal cards: the moves, top to bottom, each `[car or \"joker\", spaces]`",
          optional=True),
    Field("cards[].slots[]", "list", "one slot"),
    Field("cards[].slots[][]", "str|int", "the car (or `joker`), then the spaces"),
    Field("cards[].spurt_breakdown", "list", "spurt cards: the two cars they name (§4.6)", optional=True),
    Field("cards[].spurt_breakdown[]", "str", _CAR),
    Field("prizes", "list", "prize money by place 1-6 (§2.2)"),
    Field("prizes[]", "int", "money"),
    Field("tip_table", "list", "Tips: per tip round, the payout by place 1-6 (§2.7)"),
    Field("tip_table[]", "list", "one round"),
    Field("tip_table[][]", "int", "money (negative: a loss)"),
    Field("tracks", "map", "track id -> its space graph, for the tracks of this match (§2.8, §2.9)"),
    Field("tracks{}", "object", "one track"),
    Field("tracks{}.finish", "int", "the row of the finish line"),
    Field("tracks{}.tip_lines", "list", "rows of the tip lines"),
    Field("tracks{}.tip_lines[]", "int", "a row"),
    Field("tracks{}.start_spaces", "map", "start space number (`\"1\"`-`\"6\"`) -> space id"),
    Field("tracks{}.start_spaces{}", "str", _SPACE),
    Field("tracks{}.spaces", "list", "every space, in (back, lane) order"),
    Field("tracks{}.spaces[]", "object", "one space"),
    Field("tracks{}.spaces[].id", "str", _SPACE),
    Field("tracks{}.spaces[].back", "int", "its back row"),
    Field("tracks{}.spaces[].front", "int", "its front row (back + 1, or + 2 on a curve's inner lane)"),
    Field("tracks{}.spaces[].lane", "int", "its lane"),
    Field("tracks{}.spaces[].next", "list", "the spaces one step ahead (§4.4)"),
    Field("tracks{}.spaces[].next[]", "str", _SPACE + ", or `finish`"),
)

FIELD_SAMPLES: tuple[tuple[int, dict[str, Any] | None], ...] = (
    (3, None), (5, None),
    (4, {"pitstop": True, "tips": True, "tracks": ["turbo_town", "lake_lane", "desert_drive"]}),
    (3, {"pitstop": True, "shares": True, "races": 2}),
)


@cache
def _track(track_id: str) -> dict[str, Any]:
    tr = D.get_track(track_id)
    ids = list(tr.ids) + ["finish"]
    spaces = [{"id": tr.ids[i], "back": tr.back[i], "front": tr.front[i], "lane": tr.lane[i],
               "next": [ids[t] for t in tr.succ[i]]} for i in range(len(tr.ids))]
    return {"finish": tr.finish, "tip_lines": list(tr.tip_lines),
            "start_spaces": {str(k): tr.ids[v] for k, v in sorted(tr.start_spaces.items())}, "spaces": spaces}


@cache
def _common() -> dict[str, Any]:
    return {"cards": [D.card_json(c) for c in D.ALL_CARDS], "prizes": list(D.PRIZE),
            "tip_table": [list(row) for row in D.TIP]}


def tables(num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """Tempo cards, prizes, the tip table and the space graph of every track this match uses."""
    track_ids = options.get("tracks") or [D.DEFAULT_TRACK]
    return {**_common(), "tracks": {t: _track(t) for t in dict.fromkeys(track_ids)}}


RULES_BRIEF = """\
- **Goal** (§1, §5): the most money after the last race (3 by default); ties by the places of one's
  cars in the last race (Shares: by shares of the best-placed cars).
- **Auction** (§4.1): the six cars are auctioned one by one (bids in steps of 10,000); every player
  must end with at least one car; the winner picks a car and a start space.
- **Race** (§4.2-§4.4): in turn, each player plays one tempo card; its slots move the named cars, top
  to bottom, by the given spaces, rivals' cars included. A move must be made in full: forward or
  diagonally forward, never sideways, never through another car; a blocked car loses the rest of its
  move. The joker slot moves a car of the player's choice (§4.5); spurt cards move two cars as far as
  they can, or break one down (§4.6, §4.7).
- **End** (§4.8-§4.10): the race ends when the 5th car finishes (or the cards run out); cars are paid
  by place (table `prizes`) to their owners.
- **Modules** (§6): Pitstop (take cards back), Tips (secret bets on places paid by the tip table),
  Shares (no owners: hidden shares traded between races, the seating order auctioned).
- **Information** (§7): your hand, tips and shares are private; everything else is public.
"""
