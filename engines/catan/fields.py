"""What a Catan bot receives: every observation, action and table field, and the rules in brief.

Section numbers (§) refer to the rules file catan.md. The observation carries this game's board
(terrains, numbers, harbours: they are drawn at set-up) and names vertices, edges and hexes by id; the
``board`` table (sent once in ``start``) gives the geometry: which vertices touch which hexes, which
edges join which vertices. Resource maps (``{"ore": 2}``) list only non-zero counts.
"""
from __future__ import annotations

from functools import cache
from typing import Any, Mapping

from engines.catan import data as D
from engines.fields import Field

_RES = "a resource: `lumber`, `brick`, `wool`, `grain` or `ore`"
_RESMAP = "resource -> count (non-zero counts only)"
_VERTEX = "a vertex id (table `board.vertices`)"
_EDGE = "an edge id (table `board.edges`)"
_HEX = "a hex id (table `board.hexes`)"
_GUILD = "a guild: `merchant`, `trader`, `road_builder`, `scholar` or `architect` (§6.5)"


def _trade_side(prefix: str, doc: str, **kw: Any) -> tuple[Field, ...]:
    return (Field(prefix, "map", doc + ": " + _RESMAP, **kw), Field(prefix + "{}", "int", "cards"))


OBSERVATION_FIELDS: tuple[Field, ...] = (
    Field("game", "str", "`catan`"),
    Field("options", "map", "the options that differ from their defaults (docs: Options)"),
    Field("options{}", "str|int|bool", "the option's value"),
    Field("seat", "int", "your seat (0-based)"),
    Field("num_players", "int", "the number of seats"),
    Field("turn", "int", "player-turns so far (the set-up phase is turn 0)"),
    Field("active_seat", "int", "the seat whose turn it is"),
    Field("to_act", "int", "the seat that decides now (out of turn in `DISCARD`, `TRADE_RESPOND`, "
          "`SPECIAL_BUILD`, `GIFT_ANSWER`)", nullable=True),
    Field("phase", "str", "`SETUP`, `PRE_ROLL`, `DISCARD`, `MOVE_ROBBER`, `TRADE`, `TRADE_RESPOND`, "
          "`TRADE_DECIDE`, `BUILD`, `ROAD_BUILDING`, `SPECIAL_BUILD`, `GIFT_ANSWER`, `FAVOR_MERCHANT`, "
          "`FAVOR_RETURN` or `GAME_OVER` (§4.1, §6.5)"),
    Field("board", "object", "this game's board (drawn at set-up, §3)"),
    Field("board.hexes", "list", "every land hex"),
    Field("board.hexes[]", "object", "one hex"),
    Field("board.hexes[].id", "int", _HEX),
    Field("board.hexes[].q", "int", "axial column (pointy-top hexes, §2.5)"),
    Field("board.hexes[].r", "int", "axial row"),
    Field("board.hexes[].terrain", "str", "`forest` lumber, `hills` brick, `pasture` wool, `fields` grain, "
          "`mountains` ore, or `desert`"),
    Field("board.hexes[].number", "int", "its number token 2-12; null: the desert", nullable=True),
    Field("board.harbors", "list", "the harbours (§2.9)"),
    Field("board.harbors[]", "object", "one harbour"),
    Field("board.harbors[].slot", "int", "its slot"),
    Field("board.harbors[].type", "str", "`3:1`, or a resource for a 2:1 harbour"),
    Field("board.harbors[].vertices", "list", "the two vertices that use it"),
    Field("board.harbors[].vertices[]", "int", _VERTEX),
    Field("board.robber_hex", "int", "the robber's hex"),
    Field("buildings", "list", "every settlement and city"),
    Field("buildings[]", "object", "one building"),
    Field("buildings[].vertex", "int", _VERTEX),
    Field("buildings[].seat", "int", "its owner"),
    Field("buildings[].kind", "str", "`settlement` or `city`"),
    Field("roads", "list", "every road"),
    Field("roads[]", "object", "one road"),
    Field("roads[].edge", "int", _EDGE),
    Field("roads[].seat", "int", "its owner"),
    Field("players", "list", "every seat's public view"),
    Field("players[]", "object", "one seat"),
    Field("players[].seat", "int", "the seat"),
    Field("players[].colour", "str", "its colour"),
    Field("players[].resource_cards", "int", "resource cards in hand (their kinds are secret, §7)"),
    Field("players[].dev_cards", "int", "unplayed development cards"),
    Field("players[].knights_played", "int", "knights played (Largest Army, §4.8)"),
    Field("players[].public_vp", "int", "visible victory points (hidden VP cards excluded)"),
    Field("players[].road_length", "int", "its longest road (§4.7)"),
    Field("players[].longest_road", "bool", "it holds Longest Road (2 VP)"),
    Field("players[].largest_army", "bool", "it holds Largest Army (2 VP)"),
    Field("players[].supply", "object", "pieces left to build"),
    Field("players[].supply.settlements", "int", "settlements"),
    Field("players[].supply.cities", "int", "cities"),
    Field("players[].supply.roads", "int", "roads"),
    Field("bank", "map", "resource -> cards left in the bank"),
    Field("bank{}", "int", "cards"),
    Field("dev_deck", "int", "development cards left"),
    Field("dice", "list", "this turn's roll (empty before the roll)"),
    Field("dice[]", "int", "a die, 1-6"),
    Field("dev_played_this_turn", "bool", "a development card was played this turn (one per turn, §4.6)"),
    Field("proposals_left", "int", "trade proposals the active player may still start this turn (§4.4)"),
    Field("built_this_turn", "bool", "the active player has built: no more trading this turn (§4.1)"),
    Field("vp_to_win", "int", "victory points that win (§5)"),
    Field("trade", "object", "the domestic trade under way (§4.4); null: none", nullable=True),
    Field("trade.kind", "str", "`proposal` (the active player's offer) or `request` (asking for offers)"),
    Field("trade.from", "int", "the active player"),
    *_trade_side("trade.give", "`proposal` only: what the active player gives", optional=True),
    *_trade_side("trade.get", "`proposal` only: what it wants", optional=True),
    Field("trade.answers", "map", "`TRADE_DECIDE` only: seat -> its answer (public once all answered)",
          optional=True),
    Field("trade.answers{}", "object", "one answer"),
    Field("trade.answers{}.answer", "str", "`accept`, `reject`, `counter`, `offer` or `pass`"),
    *_trade_side("trade.answers{}.give", "counters and offers: what the answering seat gives", optional=True),
    *_trade_side("trade.answers{}.get", "counters and offers: what it wants", optional=True),
    Field("pending_discards", "map", "`DISCARD`: seat -> cards it must still discard (§4.3); else {}"),
    Field("pending_discards{}", "int", "cards"),
    Field("last_events", "list", "what happened since the previous decision (public parts only); each has "
          "a `type` and the keys below that apply to it"),
    Field("last_events[]", "object", "one event"),
    Field("last_events[].type", "str", "the event: an action's type, or `production`, `starting_resources`, "
          "`discards`, `discards_owed`, `steal`, `trade`, `answer`, `answers`, `longest_road`, "
          "`largest_army`, `turn`, `favour_tokens`"),
    Field("last_events[].seat", "int", "the seat concerned", optional=True),
    Field("last_events[].vertex", "int", _VERTEX, optional=True),
    Field("last_events[].edge", "int", _EDGE, optional=True),
    Field("last_events[].hex", "int", _HEX, optional=True),
    Field("last_events[].victim", "int", "the seat robbed; null: nobody", nullable=True, optional=True),
    Field("last_events[].dice", "list", "`roll`: the dice", optional=True),
    Field("last_events[].dice[]", "int", "a die"),
    Field("last_events[].resources", "map|list", "`production`: seat -> " + _RESMAP + "; "
          "`starting_resources`: " + _RESMAP + "; `play_year_of_plenty`: the resources taken", optional=True),
    Field("last_events[].resources{}", "int|map", "a count, or a seat's resource map"),
    Field("last_events[].resources{}{}", "int", "cards"),
    Field("last_events[].resources[]", "str", _RES),
    Field("last_events[].give", "map|str", "trades: what the seat gave (a resource map, or one resource for "
          "maritime and favour trades)", optional=True),
    Field("last_events[].give{}", "int", "cards"),
    Field("last_events[].get", "map|str", "trades: what it got", optional=True),
    Field("last_events[].get{}", "int", "cards"),
    Field("last_events[].rate", "int", "`maritime_trade`: cards given for one", optional=True),
    Field("last_events[].with", "int", "`trade`: the other seat", optional=True),
    Field("last_events[].resource", "str", _RES, optional=True),
    Field("last_events[].taken", "map", "`play_monopoly`: seat -> cards taken from it", optional=True),
    Field("last_events[].taken{}", "int", "cards"),
    Field("last_events[].discarded", "map", "`discards`: seat -> " + _RESMAP, optional=True),
    Field("last_events[].discarded{}", "map", "one seat's discards"),
    Field("last_events[].discarded{}{}", "int", "cards"),
    Field("last_events[].owed", "map", "`discards_owed`: seat -> cards to discard", optional=True),
    Field("last_events[].owed{}", "int", "cards"),
    Field("last_events[].answers", "map", "`answers`: seat -> its answer (as `trade.answers`)", optional=True),
    Field("last_events[].answers{}", "object", "one answer"),
    Field("last_events[].answers{}.answer", "str", "`accept`, `reject`, `counter`, `offer` or `pass`"),
    *_trade_side("last_events[].answers{}.give", "what the answering seat gives", optional=True),
    *_trade_side("last_events[].answers{}.get", "what it wants", optional=True),
    Field("last_events[].knights", "int", "`largest_army`: knights played", optional=True),
    Field("last_events[].length", "int", "`longest_road`: its length", optional=True),
    Field("last_events[].turn", "int", "`turn`: the new turn number", optional=True),
    Field("last_events[].from", "int", "gifts: the donor", optional=True),
    Field("last_events[].to", "int", "`donate`: the recipient", optional=True),
    Field("last_events[].count", "int", "`favour_tokens`: tokens gained", optional=True),
    Field("last_events[].guild", "str", _GUILD, optional=True),
    Field("free_roads", "int", "`ROAD_BUILDING` only: free roads left (§4.6)", optional=True),
    Field("merchant_exchanges_left", "int", "`FAVOR_MERCHANT` only: exchanges left (§6.5)", optional=True),
    Field("favour_tokens", "list", "Best Friends only: per seat, favour tokens held", optional=True),
    Field("favour_tokens[]", "int", "tokens"),
    Field("catan_tokens", "list", "Best Friends only: per seat, Catan tokens (1 VP each)", optional=True),
    Field("catan_tokens[]", "int", "tokens"),
    Field("favour_supply", "int", "Best Friends only: favour tokens left", optional=True),
    Field("catan_supply", "int", "Best Friends only: Catan tokens left", optional=True),
    Field("gift", "object", "Best Friends, `GIFT_ANSWER` only: the gift offered", optional=True),
    Field("gift.from", "int", "the donor"),
    Field("gift.to", "int", "the recipient"),
    Field("gift.resource", "str", _RES),
    Field("you", "object", "your private view"),
    *_trade_side("you.resources", "your resource cards"),
    Field("you.dev_cards", "list", "your unplayed development cards"),
    Field("you.dev_cards[]", "object", "one card"),
    Field("you.dev_cards[].type", "str", "`knight`, `victory_point`, `road_building`, `year_of_plenty` or "
          "`monopoly`"),
    Field("you.dev_cards[].bought_this_turn", "bool", "bought this turn: not playable yet (§4.6)"),
    Field("you.vp_total", "int", "your victory points, hidden VP cards included"),
    Field("you.trade_rates", "map", "resource -> cards you give for one in a maritime trade (4, 3 or 2)"),
    Field("you.trade_rates{}", "int", "the rate"),
    Field("you.last_steal", "object", "the last robbery you took part in (thief or victim)", optional=True),
    Field("you.last_steal.thief", "int", "the thief"),
    Field("you.last_steal.victim", "int", "the victim"),
    Field("you.last_steal.resource", "str", "the card stolen"),
    Field("you.discard_owed", "int", "`DISCARD`: cards you must still discard", optional=True),
    Field("you.favours", "map", "Best Friends: guild -> your favour tokens (non-zero only)", optional=True),
    Field("you.favours{}", "int", "tokens"),
    Field("you.favours_new", "map", "Best Friends: guild -> tokens gained this turn (not usable yet)",
          optional=True),
    Field("you.favours_new{}", "int", "tokens"),
)

ACTION_FIELDS: tuple[Field, ...] = (
    Field("place_settlement", "object", "set-up phase: place a settlement (§3.4)"),
    Field("place_settlement.vertex", "int", _VERTEX),
    Field("place_road", "object", "set-up phase: place a road next to it"),
    Field("place_road.edge", "int", _EDGE),
    Field("roll", "object", "roll the dice (§4.2)"),
    Field("discard", "object", "discard one card after a 7 (§4.3)"),
    Field("discard.resource", "str", _RES),
    Field("move_robber", "object", "move the robber and rob a seat next to it (§4.3)"),
    Field("move_robber.hex", "int", _HEX),
    Field("move_robber.victim", "int", "the seat robbed; null: nobody", nullable=True),
    Field("maritime_trade", "object", "trade with the bank at your best rate (§4.4)"),
    Field("maritime_trade.give", "str", _RES),
    Field("maritime_trade.rate", "int", "cards given (4, 3 or 2)"),
    Field("maritime_trade.get", "str", _RES),
    Field("propose_trade", "object", "offer a trade to every other seat (§4.4)"),
    *_trade_side("propose_trade.give", "what you give"),
    *_trade_side("propose_trade.get", "what you want"),
    Field("request_offers", "object", "ask every other seat for offers (§4.4)"),
    Field("accept_trade", "object", "accept the active player's proposal"),
    Field("reject_trade", "object", "reject it"),
    Field("counter_trade", "object", "answer a proposal with a counter"),
    *_trade_side("counter_trade.give", "what you give"),
    *_trade_side("counter_trade.get", "what you want"),
    Field("offer", "object", "answer a request with an offer"),
    *_trade_side("offer.give", "what you give"),
    *_trade_side("offer.get", "what you want"),
    Field("pass", "object", "answer a request with nothing"),
    Field("confirm_trade", "object", "carry out your proposal with a seat that accepted"),
    Field("confirm_trade.seat", "int", "that seat"),
    Field("accept_counter", "object", "carry out a seat's counter or offer"),
    Field("accept_counter.seat", "int", "that seat"),
    Field("cancel_trade", "object", "end the trade without an exchange"),
    Field("build_road", "object", "build a road (§4.5)"),
    Field("build_road.edge", "int", _EDGE),
    Field("build_settlement", "object", "build a settlement"),
    Field("build_settlement.vertex", "int", _VERTEX),
    Field("build_city", "object", "upgrade a settlement to a city"),
    Field("build_city.vertex", "int", _VERTEX),
    Field("buy_dev_card", "object", "buy a development card"),
    Field("play_knight", "object", "play a knight: move the robber (§4.6)"),
    Field("play_road_building", "object", "play Road Building: two free roads"),
    Field("free_road", "object", "build one of those free roads"),
    Field("free_road.edge", "int", _EDGE),
    Field("end_road_building", "object", "stop building free roads"),
    Field("play_year_of_plenty", "object", "play Year of Plenty: take two resources"),
    Field("play_year_of_plenty.resources", "list", "the resources (one if the bank has only one)"),
    Field("play_year_of_plenty.resources[]", "str", _RES),
    Field("play_monopoly", "object", "play Monopoly: take every card of a resource"),
    Field("play_monopoly.resource", "str", _RES),
    Field("end_turn", "object", "end your turn (§4.9)"),
    Field("end_special_build", "object", "5-6 players: end your special building phase (§6.2)"),
    Field("donate", "object", "Best Friends: offer a resource card to a seat (§6.5)"),
    Field("donate.resource", "str", _RES),
    Field("donate.to", "int", "the seat"),
    Field("accept_gift", "object", "Best Friends: accept the gift"),
    Field("reject_gift", "object", "Best Friends: refuse it"),
    Field("use_favor", "object", "Best Friends: use favour tokens of a guild"),
    Field("use_favor.guild", "str", _GUILD),
    Field("use_favor.get", "str", "`trader` only: the resource taken", optional=True),
    Field("favor_exchange", "object", "Best Friends, merchant: exchange a card with the bank"),
    Field("favor_exchange.give", "str", _RES),
    Field("favor_exchange.get", "str", _RES),
    Field("end_favor", "object", "Best Friends: stop the merchant's exchanges", rare=True,
          example={"type": "end_favor"}),
    Field("exchange_favor", "object", "Best Friends: exchange favour tokens"),
    Field("return_favor", "object", "Best Friends: return a favour token of a guild"),
    Field("return_favor.guild", "str", _GUILD),
)

TABLE_FIELDS: tuple[Field, ...] = (
    Field("board", "object", "the geometry of this game's board (3-4 or 5-6 players, §2.5-§2.12)"),
    Field("board.hexes", "list", "every land hex by id: `hexes[id]`"),
    Field("board.hexes[]", "object", "one hex"),
    Field("board.hexes[].id", "int", _HEX),
    Field("board.hexes[].q", "int", "axial column"),
    Field("board.hexes[].r", "int", "axial row"),
    Field("board.hexes[].vertices", "list", "its corners N, NE, SE, S, SW, NW"),
    Field("board.hexes[].vertices[]", "int", _VERTEX),
    Field("board.hexes[].edges", "list", "its sides NE, E, SE, SW, W, NW"),
    Field("board.hexes[].edges[]", "int", _EDGE),
    Field("board.hexes[].neighbours", "list", "adjacent land hexes"),
    Field("board.hexes[].neighbours[]", "int", _HEX),
    Field("board.vertices", "list", "every vertex by id: `vertices[id]`"),
    Field("board.vertices[]", "object", "one vertex"),
    Field("board.vertices[].id", "int", _VERTEX),
    Field("board.vertices[].hexes", "list", "the land hexes it touches (what a building there produces from)"),
    Field("board.vertices[].hexes[]", "int", _HEX),
    Field("board.vertices[].edges", "list", "the edges that end at it"),
    Field("board.vertices[].edges[]", "int", _EDGE),
    Field("board.vertices[].neighbours", "list", "the vertices one edge away (the distance rule, §4.5)"),
    Field("board.vertices[].neighbours[]", "int", _VERTEX),
    Field("board.edges", "list", "every edge by id: `edges[id]`"),
    Field("board.edges[]", "object", "one edge"),
    Field("board.edges[].id", "int", _EDGE),
    Field("board.edges[].vertices", "list", "its two ends"),
    Field("board.edges[].vertices[]", "int", _VERTEX),
    Field("costs", "map", "`road`, `settlement`, `city`, `dev_card` -> its cost (§2.3)"),
    Field("costs{}", "map", _RESMAP),
    Field("costs{}{}", "int", "cards"),
    Field("dev_deck", "map", "development card type -> cards in this game's deck (§2.2)"),
    Field("dev_deck{}", "int", "cards"),
    Field("pips", "map", "dice number (`\"2\"`-`\"12\"`) -> ways out of 36 to roll it (§2.4)"),
    Field("pips{}", "int", "ways"),
)

FIELD_SAMPLES: tuple[tuple[int, dict[str, Any] | None], ...] = (
    (3, {"max_turns": 150}), (5, {"max_turns": 150}), (4, {"scenario": "best_friends"}),
    (3, {"combined_trade_build": True, "board": "beginner", "start_positions": "beginner_preset",
         "max_turns": 150}),
)

_COSTS = {"road": D.COST_ROAD, "settlement": D.COST_SETTLEMENT, "city": D.COST_CITY, "dev_card": D.COST_DEV}


@cache
def _tables(large: bool) -> dict[str, Any]:
    b = D.BOARD_LARGE if large else D.BOARD_SMALL
    hexes = [{"id": h, "q": b.hex_coords[h][0], "r": b.hex_coords[h][1], "vertices": list(b.hex_vertices[h]),
              "edges": list(b.hex_edges[h]), "neighbours": list(b.hex_neighbours[h])} for h in range(b.num_hexes)]
    vertices = [{"id": v, "hexes": list(b.vertex_hexes[v]), "edges": list(b.vertex_edges[v]),
                 "neighbours": list(b.vertex_neighbours[v])} for v in range(b.num_vertices)]
    edges = [{"id": e, "vertices": list(b.edge_vertices[e])} for e in range(b.num_edges)]
    return {
        "board": {"hexes": hexes, "vertices": vertices, "edges": edges},
        "costs": {name: {D.RESOURCES[i]: n for i, n in enumerate(cost) if n} for name, cost in _COSTS.items()},
        "dev_deck": dict(D.DEV_DECK_LARGE if large else D.DEV_DECK_SMALL),
        "pips": {str(k): v for k, v in D.PIPS.items()},
    }


def tables(num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """The board geometry for this player count, costs, the development deck and the pips."""
    return _tables(num_players >= 5)


RULES_BRIEF = """\
- **Goal** (§1, §5): the first to reach 10 victory points on his own turn wins (settlement 1, city 2,
  VP card 1, Longest Road 2, Largest Army 2); the others are ranked by points.
- **Set-up** (§3.4): in snake order each seat places a settlement and a road, twice; the second
  settlement yields its starting resources.
- **Turn** (§4.1): roll (§4.2: every hex with that number produces for adjacent buildings, 1 per
  settlement, 2 per city, not under the robber); then trade, then build. A development card may be
  played at any time of one's turn, one per turn, not the turn it was bought (§4.6).
- **A 7** (§4.3): everyone with more than 7 cards discards half; the active player moves the robber and
  robs one adjacent seat of a random card.
- **Trade** (§4.4): with the bank 4:1, or 3:1 / 2:1 with a harbour; with the other seats only through
  the active player (proposals, counters and offers, bounded per turn).
- **Build** (§4.5): road 1 lumber + 1 brick; settlement lumber, brick, wool, grain (two edges from any
  building, on one's road); city 2 grain + 3 ore; development card wool, grain, ore.
- **5-6 players** (§6.2): a larger board, and a special building phase for the others after each turn.
  **Best Friends** (§6.5): favour tokens for gifts, harmless robbers and joined networks.
- **Information** (§7): hands and unplayed development cards are secret (their counts are public).
"""
