"""Alhambra for people: moves and events in words, scores, and the tables the board drawing uses.

The drawing itself is ``view.js`` (run in the browser); ``expected_marks`` says what it must draw for
an observation, counted independently of it, so the browser tests can check the one against the other.
Coordinates are the engine's: x grows to the east, y to the north of the Lion Fountain at (0, 0).
"""
from __future__ import annotations

from typing import Any

from engines.alhambra import data as D
from engines.core import Action, Event, Observation

# A seat's observation adds its own hand of money cards, which the spectator sees only as a count
# (unless the open_money option shows every hand to everyone).
SEAT_VIEWS_PUBLIC = False

WALL_NAMES = {"N": "north", "E": "east", "S": "south", "W": "west"}


def tile_name(tile: int) -> str:
    """``blue Pavilion``; tile 0 is the Lion Fountain."""
    if tile == D.FOUNTAIN:
        return "Lion Fountain"
    kind = D.TILE_TYPE[tile]
    return f"{D.TYPE_COLOURS[kind]} {D.TYPE_NAMES[kind].capitalize()}"


def tile_text(tile: int) -> str:
    """``blue Pavilion (price 7, walls N E)``."""
    if tile == D.FOUNTAIN:
        return "Lion Fountain"
    letters = D.TILE_WALL_LETTERS[tile]
    walls = f"walls {' '.join(letters)}" if letters else "no walls"
    return f"{tile_name(tile)} (price {D.TILE_PRICE[tile]}, {walls})"


def money_text(card: int) -> str:
    """``5 dirham``."""
    return f"{D.CARD_VALUE[card]} {D.CURRENCY_NAMES[D.CARD_CURRENCY[card]]}"


def place_text(x: int, y: int) -> str:
    """Where a cell lies from the fountain: ``2 north, 1 east of the fountain``."""
    parts = []
    if y:
        parts.append(f"{abs(y)} {'north' if y > 0 else 'south'}")
    if x:
        parts.append(f"{abs(x)} {'east' if x > 0 else 'west'}")
    return ", ".join(parts) + " of the fountain" if parts else "at the fountain"


def _seat(seat: int) -> str:
    return f"seat {seat}"


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def describe_action(action: Action, observation: Observation) -> str:
    """The action in words, from the spectator's observation just before it (the shell names the seat)."""
    kind = action.get("type")
    if kind == "take_money":
        return "takes " + _joined([money_text(c) for c in action["cards"]])
    if kind == "buy":
        slot = action["slot"]
        tile = observation["building_market"][str(slot)]
        currency = D.CURRENCY_NAMES[D.SLOT_CURRENCY[slot]]
        pay = action["pay"]
        text = f"buys the {tile_text(tile)} with {' + '.join(map(str, pay))} {currency}"
        if sum(pay) == D.TILE_PRICE[tile]:
            text += " (exact: another action)"
        return text
    if kind == "redesign_place":
        return f"builds the {tile_text(action['tile'])} from the reserve, {place_text(action['x'], action['y'])}"
    if kind == "redesign_remove":
        return f"takes the {tile_text(action['tile'])} out of the Alhambra into the reserve"
    if kind == "redesign_swap":
        return f"swaps the {tile_text(action['tile'])} from the reserve for the {tile_name(action['replaces'])}"
    if kind == "place":
        tile = tile_text(action["tile"])
        if action["to"] == "alhambra":
            return f"builds the {tile} {place_text(action['x'], action['y'])}"
        if action["to"] == "reserve":
            return f"puts the {tile} in the reserve"
        return f"gives the {tile} to Dirk"
    if kind == "pass":
        return "passes (no money left to take)"
    raise ValueError(f"alhambra: unknown action type {kind!r}")


def describe_events(events: list[Event]) -> list[str]:
    """Each event of one move in words (what ``Alhambra.apply`` returned)."""
    out = []
    for e in events:
        kind = e["type"]
        if kind == "take_money":
            out.append(f"{_seat(e['seat'])} takes {_joined([money_text(c) for c in e['cards']])}")
        elif kind == "buy":
            paid = " + ".join(money_text(c) for c in e["paid"])
            out.append(f"{_seat(e['seat'])} buys the {tile_name(e['tile'])} paying {paid}"
                       + (" exactly" if e["exact"] else ""))
        elif kind == "place":
            where = {"alhambra": place_text(e.get("x", 0), e.get("y", 0)), "reserve": "in the reserve",
                     "dirk": "to Dirk"}[e["to"]]
            out.append(f"{_seat(e['seat'])} places the {tile_name(e['tile'])} {where}")
        elif kind == "redesign_place":
            out.append(f"{_seat(e['seat'])} builds the {tile_name(e['tile'])} from the reserve, "
                       f"{place_text(e['x'], e['y'])}")
        elif kind == "redesign_remove":
            out.append(f"{_seat(e['seat'])} moves the {tile_name(e['tile'])} to the reserve")
        elif kind == "redesign_swap":
            out.append(f"{_seat(e['seat'])} swaps in the {tile_name(e['tile'])} for the {tile_name(e['replaces'])}")
        elif kind == "pass":
            out.append(f"{_seat(e['seat'])} passes")
        elif kind == "refill":
            parts = []
            if e["money"]:
                parts.append("money " + ", ".join(money_text(c) for c in e["money"]))
            if e["buildings"]:
                parts.append("buildings " + ", ".join(
                    f"{tile_name(t)} ({D.CURRENCY_NAMES[D.SLOT_CURRENCY[int(s)]]})" for s, t in e["buildings"].items()))
            if parts:  # a turn that took nothing from the market refills nothing: no line
                out.append("market refilled: " + "; ".join(parts))
        elif kind == "reshuffle":
            out.append(f"the discarded money is shuffled into a new deck of {e['cards']} cards")
        elif kind == "scoring_card":
            out.append(f"scoring card {'A' if e['round'] == 1 else 'B'} comes up: scoring round {e['round']}")
        elif kind == "scoring":
            gains = ", ".join(f"{_seat(s)} +{p}" + (f" ({w} for walls)" if w else "")
                              for s, (p, w) in enumerate(zip(e["points"], e["walls"])))
            dirk = f", Dirk +{e['dirk']}" if "dirk" in e else ""
            out.append(f"scoring round {e['round']}: {gains}{dirk}")
            if e.get("dirk_tiles"):
                out.append(f"Dirk gets {len(e['dirk_tiles'])} tiles from the bag")
        elif kind == "award":
            currency = D.CURRENCY_NAMES[D.SLOT_CURRENCY[e["slot"]]]
            out.append(f"{_seat(e['seat'])}, richest in {currency}, gets the {tile_name(e['tile'])} left on the market")
        elif kind == "game_over":
            out.append("game over, points: " + ", ".join(f"{_seat(s)} {p}" for s, p in enumerate(e["scores"])))
        else:
            raise ValueError(f"alhambra: unknown event type {kind!r}")
    return out


def scores(observation: Observation) -> list[float]:
    """Every seat's points so far."""
    return [float(p["score"]) for p in observation["players"]]


def static_info(num_players: int, options: dict[str, Any]) -> dict[str, Any]:
    """Tiles (type, price, walls, text), money cards (currency, value), currencies, slots, points."""
    tiles = {str(t): {"type": D.TILE_TYPE[t], "price": D.TILE_PRICE[t], "walls": D.TILE_WALL_LETTERS[t],
                      "text": tile_text(t)} for t in (D.FOUNTAIN,) + D.BUILDING_TILES}
    money = {str(c): [D.CARD_CURRENCY[c], D.CARD_VALUE[c]] for c in range(len(D.CARD_CURRENCY))}
    return {
        "tiles": tiles,
        "money": money,
        "types": [{"name": D.TYPE_NAMES[k].capitalize(), "colour": D.TYPE_COLOURS[k],
                   "points": [list(p) for p in D.POINTS[k]] if k else []} for k in range(len(D.TYPE_NAMES))],
        "currencies": list(D.CURRENCY_NAMES),
        "currency_colours": list(D.CURRENCY_COLOURS),
        "slot_currency": [D.SLOT_CURRENCY[s] for s in D.MARKET_SLOTS],
        "dirk": num_players == 2,
    }


def expected_marks(observation: Observation) -> dict[str, int]:
    """CSS selector -> how many elements ``view.js`` draws for this observation."""
    market = observation["building_market"]
    marks = {
        ".slot": 4,
        ".tile.market": sum(1 for t in market.values() if t is not None),
        ".money.market": len(observation["money_market"]),
        ".scoring-round": 3,
        ".scoring-round.done": len(observation["scoring_done"]),
        ".tile.held": len(observation["held_this_turn"]),
        ".tile.award": sum(len(tiles) for _seat_, tiles in observation["awarded_to_place"]),
        f".pile.bag[data-count='{observation['bag_count']}']": 1,
        f".pile.deck[data-count='{observation['deck_count']}']": 1,
        ".player": len(observation["players"]),
        ".player.you": 1 if observation.get("seat") is not None else 0,
        ".tile.dirk": len(observation["dirk"]["tiles"]) if "dirk" in observation else 0,
    }
    for p in observation["players"]:
        s = p["seat"]
        marks[f".tile.palace[data-seat='{s}']"] = len(p["alhambra"])
        marks[f".wall[data-seat='{s}']"] = sum(len(D.TILE_WALL_LETTERS[c["tile"]]) for c in p["alhambra"])
        marks[f".tile.reserve[data-seat='{s}']"] = len(p["reserve"])
        shown = "hand" in p
        marks[f".money.hand[data-seat='{s}']"] = len(p["hand"]) if shown else 0
        marks[f".money.back[data-seat='{s}']"] = 0 if shown else p["hand_count"]
        marks[f".score[data-seat='{s}'][data-value='{p['score']}']"] = 1
    return marks
