"""El Capitán for people: move descriptions, scores, and the tables the map drawing (view.js) needs.

Cards are named by what they show ("the Marseille card (3 seals)", "the Marseille–Venezia card"),
loans by their size and what they cost, places by city, harbour space, fortress site and track site.
"""
from __future__ import annotations

from typing import Any

from engines.el_capitan import data

#: observe() gives every seat the same public view (hands, money and loans are open; §7, §9.1): only
#: the order of the draw piles is hidden, and nobody sees that.
SEAT_VIEWS_PUBLIC = True

_CITY = {c["id"]: c for c in data.CITIES}
_DEST = {cid: (city, seals, price) for cid, city, seals, price in data.DESTINATION_CARDS}
_LINK = {cid: (a, b, price) for cid, a, b, price in data.LINK_CARDS}
_LOAN_SIZE = dict(zip(data.LOAN_IDS, data.LOAN_SIZE))


def _seat(s: Any) -> str:
    return f"seat {s}"


def _fl(amount: int) -> str:
    return f"{amount} Florin{'' if abs(amount) == 1 else 's'}"


def city_name(city_id: str) -> str:
    """'Marseille' from 'MAR'."""
    return _CITY[city_id]["name"]


def card_name(card_id: str) -> str:
    """A sailing card by what it shows: 'the Marseille card (3 seals)', 'the Marseille–Venezia card'."""
    if card_id in _DEST:
        city, seals, _price = _DEST[card_id]
        return f"the {city_name(city)} card ({seals} seal{'' if seals == 1 else 's'})"
    a, b, _price = _LINK[card_id]
    return f"the {city_name(a)}–{city_name(b)} card"


def card_price(card_id: str) -> int:
    """A sailing card's price in Florins."""
    return _DEST[card_id][2] if card_id in _DEST else _LINK[card_id][2]


def _place(at: str) -> str:
    if at == "BANK":
        return "the bank harbour"
    if at == "OFFBOARD":
        return "off the board"
    return city_name(at)


def _loan(loan_id: str) -> str:
    size = _LOAN_SIZE[loan_id]
    spec = data.LOANS[size]
    return f"a {size} loan ({_fl(spec['amount'])})"


def describe_action(action: dict, observation: dict) -> str:
    """Human words for ``action`` given the (public) observation just before it."""
    kind = action.get("type")
    seat = observation.get("to_move")
    player = observation["players"][seat] if isinstance(seat, int) else None
    at = player["ship"]["at"] if player else "OFFBOARD"
    if kind == "buy":
        return f"buys {card_name(action['card'])} for {_fl(card_price(action['card']))}"
    if kind == "sail":
        card = action["card"]
        if card in _LINK:
            a, b, _ = _LINK[card]
            to = b if at == a else a
        elif action.get("mode") == "route":
            to = action["to"]
        else:
            to = _DEST[card][0]
        start = "sails onto the board" if at == "OFFBOARD" else f"sails from {_place(at)}"
        how = " on a sea route" if action.get("mode") == "route" else ""
        return f"{start} to {city_name(to)}{how} with {card_name(card)}"
    if kind in ("build_warehouse", "reopen", "build_fortress"):
        city = observation["cities"].get(at) if at in _CITY else None
        place = city_name(at) if city is not None else "the city"
        colour = "neutral " if action.get("color") == "neutral" else ""
        if kind == "reopen":
            return f"reopens a shut-down {colour}warehouse in {place}"
        if kind == "build_fortress":
            slot = 0 if city is None or city["fortresses"][0] is None else 1
            price = data.TIERS[_CITY[at]["tier"]]["fortress_price"][slot] if city is not None else None
            return f"builds a fortress in {place}" + (f" for {_fl(price)}" if price is not None else "")
        harbour = player["ship"]["harbor"] if player else None
        price = data.TIERS[_CITY[at]["tier"]]["harbor_price"][harbour - 1] if city is not None and harbour else None
        site = f" on site {action['site']}" if action.get("site") else ""
        return f"builds a {colour}warehouse in {place}{site}" + (f" for {_fl(price)}" if price is not None else "")
    if kind == "loan":
        spec = data.LOANS[action["size"]]
        return (f"takes a {action['size']} loan of {_fl(spec['amount'])}"
                f" (repay {spec['repay']}, or {spec['repay_extended']} if extended)")
    if kind == "repay":
        due = next((loan["due"] for loan in (player["loans"] if player else []) if loan["id"] == action["loan"]), None)
        return f"repays {_loan(action['loan'])}" + (f": {_fl(due)}" if due is not None else "")
    if kind == "extend":
        spec = data.LOANS[_LOAN_SIZE[action["loan"]]]
        return f"extends {_loan(action['loan'])}: {_fl(spec['repay_extended'])} due at the next payday"
    if kind == "end_turn":
        return "ends the turn"
    if kind == "pass":
        return "passes (no turn can be finished)"
    if kind == "choose_start":
        return f"chooses {_seat(action['seat'])} as start player"
    return str(kind).replace("_", " ")


#: events that only repeat the action they follow
_ECHOES = frozenset({"pass", "buy", "loan", "extend", "choose_start"})


def describe_events(events: list[dict]) -> list[str]:
    """Human text for what a move caused (events that only echo the action are left out)."""
    out = []
    for ev in events:
        kind = ev.get("type")
        if kind in _ECHOES:
            continue
        if kind == "sail":
            harbour = ev.get("harbor")
            out.append(f"{_seat(ev['seat'])} anchors in {city_name(ev['to'])} on harbour space {harbour}" if harbour
                       else f"{_seat(ev['seat'])} reaches {city_name(ev['to'])}: both harbour spaces are taken")
        elif kind == "build_warehouse":
            neutral = "neutral " if ev.get("color") == "neutral" else ""
            out.append(f"{_seat(ev['seat'])} pays {_fl(ev['price'])}: {neutral}warehouse on site {ev['site']}"
                       f" of {city_name(ev['city'])}")
        elif kind == "reopen":
            out.append(f"the warehouse reopens on site {ev['site']} of {city_name(ev['city'])}")
        elif kind == "build_fortress":
            out.append(f"{_seat(ev['seat'])} pays {_fl(ev['price'])}: fortress on fortress site {ev['fortress_site']}"
                       f" of {city_name(ev['city'])}")
        elif kind == "repay":
            out.append(f"{_seat(ev['seat'])} pays back {_fl(ev['paid'])}")
        elif kind == "shut_down":
            neutral = " neutral" if ev.get("color") == "neutral" else ""
            out.append(f"{_seat(ev['seat'])}'s{neutral} warehouse on site {ev['site']} of {city_name(ev['city'])}"
                       " is shut down")
        elif kind == "bonus_card":
            out.append(f"{_seat(ev['seat'])} has warehouses in all nine cities: bonus card of {_fl(ev['value'])}")
        elif kind == "reshuffle":
            pile = "destination" if ev["pile"] == "destination" else "interconnection"
            out.append(f"the {pile} discards ({ev['cards']} cards) are shuffled into a new draw pile")
        elif kind == "refill":
            out.append("new on display: " + ", ".join(card_name(c) for c in ev["cards"]))
        elif kind == "payday":
            parts = []
            for s, income in enumerate(ev["income"]):
                got = sum(income.values())
                detail = ", ".join(f"{k} {v}" for k, v in income.items() if v)
                parts.append(f"{_seat(s)} +{got}" + (f" ({detail})" if detail else ""))
            out.append(f"payday {ev['phase']}: " + "; ".join(parts))
        elif kind == "financial_check":
            out.append(f"{_seat(ev['chooser'])} has the lowest net worth and chooses the start player")
        elif kind == "phase_start":
            out.append(f"phase {ev['phase']} begins; {_seat(ev['start_player'])} starts")
        elif kind == "game_over":
            out.append("game over; money: " + ", ".join(f"{_seat(s)} {m}" for s, m in enumerate(ev["money"])))
        else:
            out.append(str(kind).replace("_", " "))
    return out


def scores(observation: dict) -> list[float]:
    """Money of every seat: the score of El Capitán (§5.5)."""
    return [float(p["money"]) for p in observation["players"]]


def static_info(num_players: int, options: dict) -> dict:
    """The map: cities with grid place, prices, track values and shut-down sites; sea routes; cards."""
    shut_extra = num_players <= 3  # the triangle site shuts down with 2-3 players (§2.2)
    cities = []
    for c in data.CITIES:
        tier = data.TIERS[c["tier"]]
        shut = sorted(set(c["black_sites"]) | ({c["triangle_site"]} if shut_extra else set()))
        cities.append({"id": c["id"], "name": c["name"], "row": c["row"], "col": c["col"], "tier": c["tier"],
                       "harbour_prices": list(tier["harbor_price"]), "fortress_prices": list(tier["fortress_price"]),
                       "track": list(tier["track_values"]), "shut_sites": shut,
                       "triangle_site": c["triangle_site"]})
    routes = [[a["id"], b["id"]] for i, a in enumerate(data.CITIES) for b in data.CITIES[i + 1:]
              if data.city_distance(a["id"], b["id"]) == 1]
    cards = {cid: {"kind": "destination", "city": city, "seals": seals, "price": price}
             for cid, city, seals, price in data.DESTINATION_CARDS}
    cards.update({cid: {"kind": "link", "cities": [a, b], "price": price} for cid, a, b, price in data.LINK_CARDS})
    return {"cities": cities, "routes": routes, "cards": cards, "loans": data.LOANS,
            "two_players": num_players == 2}


def expected_marks(observation: dict) -> dict[str, int]:
    """CSS selector -> how many such elements view.js draws for ``observation``."""
    obs = observation
    n = obs["num_players"]
    cities = obs["cities"].values()
    sites = [w for c in cities for w in c["sites"] if w]
    pictured = [w for c in cities for w in c["pictured"]]
    forts = [f for c in cities for f in c["fortresses"] if f is not None]
    marks = {
        ".city": len(data.CITIES),
        ".route": 12,
        ".harbour-space": 2 * len(data.CITIES),
        ".warehouse": len(sites),
        ".warehouse.neutral": sum(1 for w in sites if w["color"] == "neutral"),
        ".shutdown": len(pictured),
        ".fortress": len(forts),
        ".ship": n,
        ".ship[data-at='BANK']": sum(1 for p in obs["players"] if p["ship"]["at"] == "BANK"),
        ".player": n,
        ".card.display": len(obs["display"]["destination"]) + len(obs["display"]["link"]),
        ".card.hand": sum(len(p["hand"]) for p in obs["players"]),
        ".loan": sum(len(p["loans"]) for p in obs["players"]),
        ".loan.extended": sum(1 for p in obs["players"] for loan in p["loans"] if loan["extended"]),
        ".bonus": sum(1 for p in obs["players"] if p["bonus_card"]),
        ".back": 2,  # the two draw piles, face down
    }
    for s in range(n):
        marks[f".warehouse[data-seat='{s}']"] = sum(1 for w in sites if w["seat"] == s)
        marks[f".shutdown[data-seat='{s}']"] = sum(1 for w in pictured if w["seat"] == s)
        marks[f".fortress[data-seat='{s}']"] = forts.count(s)
        marks[f".card.hand[data-seat='{s}']"] = len(obs["players"][s]["hand"])
        marks[f".ship[data-seat='{s}']"] = 1
    for cid, c in obs["cities"].items():
        marks[f".warehouse[data-city='{cid}']"] = sum(1 for w in c["sites"] if w)
    return marks
