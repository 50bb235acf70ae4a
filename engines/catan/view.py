"""Catan for people: move descriptions, scores, and the tables the board drawing (view.js) needs.

Places are named by the land around them, as players name them at the table: a corner is "grain 6 /
ore 8 / sea", a path is "between grain 6 and ore 8", a coastal path "the NE side of wool 4".
Geometry is derived from ``data.Board``; the terrain and numbers of a seeded board come from the
observation, so nothing here depends on the seed.
"""
from __future__ import annotations

import math
from functools import cache
from typing import Any

from engines.catan import data as D

#: a seat sees its own resource and development cards, which the spectator sees only as counts
SEAT_VIEWS_PUBLIC = False

HEX_SIZE = 40  # circumradius of a hex in SVG units
_SQRT3 = math.sqrt(3)
_CORNER_NAMES = ("N", "NE", "SE", "S", "SW", "NW")
_SIDE_NAMES = ("NE", "E", "SE", "SW", "W", "NW")  # hex_edges order, data.Board
_GUILD_NAMES = {"merchant": "Merchant", "trader": "Trader", "road_builder": "Road Builder", "scholar": "Scholar",
                "architect": "Architect"}


def _board(num_players: int) -> D.Board:
    return D.BOARD_LARGE if num_players >= 5 else D.BOARD_SMALL


# --------------------------------------------------------------------------------------------- words
def _seat(s: Any) -> str:
    return f"seat {s}"


def _cards(side: dict[str, int] | None) -> str:
    """'1 brick + 2 wool' from a resource map."""
    if not side:
        return "nothing"
    return " + ".join(f"{n} {r}" for r, n in side.items() if n)


def _hex_name(hexes: list[dict], h: int) -> str:
    info = hexes[h]
    if info["terrain"] == "desert":
        return "the desert"
    res = D.RESOURCES[D.TERRAIN_RESOURCE[info["terrain"]]]
    return f"{res} {info['number']}" if info.get("number") else res


def _hex_short(hexes: list[dict], h: int) -> str:
    name = _hex_name(hexes, h)
    return "desert" if name == "the desert" else name


def _harbour_at(observation: dict, v: int) -> str:
    for harbour in observation["board"]["harbors"]:
        if v in harbour["vertices"]:
            kind = harbour["type"]
            return " (3:1 harbour)" if kind == D.GENERIC else f" ({kind} 2:1 harbour)"
    return ""


def vertex_name(observation: dict, v: int) -> str:
    """A corner in words: the land hexes around it (and 'sea'), plus its harbour if any."""
    board = _board(observation["num_players"])
    hexes = observation["board"]["hexes"]
    around = board.vertex_hexes[v]
    if len(around) == 1:
        h = around[0]
        corner = _CORNER_NAMES[board.hex_vertices[h].index(v)]
        place = f"the {corner} corner of {_hex_name(hexes, h)} (coast)"
    else:
        names = [_hex_short(hexes, h) for h in around] + ["sea"] * (3 - len(around))
        place = "the corner of " + " / ".join(names)
    return place + _harbour_at(observation, v)


def edge_name(observation: dict, e: int) -> str:
    """A path in words: between its two land hexes, or the side of its one coastal hex."""
    board = _board(observation["num_players"])
    hexes = observation["board"]["hexes"]
    around = [h for h in range(board.num_hexes) if e in board.hex_edges[h]]
    if len(around) == 2:
        return f"the path between {_hex_short(hexes, around[0])} and {_hex_short(hexes, around[1])}"
    h = around[0]
    side = _SIDE_NAMES[board.hex_edges[h].index(e)]
    return f"the {side} side of {_hex_name(hexes, h)} (coast)"


def describe_action(action: dict, observation: dict) -> str:
    """Human words for ``action`` given the spectator observation just before it."""
    kind = action.get("type")
    trade = observation.get("trade") or {}
    if kind in ("place_settlement", "build_settlement"):
        verb = "places" if kind == "place_settlement" else "builds"
        return f"{verb} a settlement at {vertex_name(observation, action['vertex'])}"
    if kind == "build_city":
        return f"upgrades the settlement at {vertex_name(observation, action['vertex'])} to a city"
    if kind in ("place_road", "build_road", "free_road"):
        verb = {"place_road": "places a road", "build_road": "builds a road",
                "free_road": "builds a free road"}[kind]
        return f"{verb} on {edge_name(observation, action['edge'])}"
    if kind == "roll":
        return "rolls the dice"
    if kind == "discard":
        return f"discards 1 {action['resource']}"
    if kind == "move_robber":
        place = _hex_name(observation["board"]["hexes"], action["hex"])
        victim = action.get("victim")
        steal = f" and steals from {_seat(victim)}" if victim is not None else ", stealing from nobody"
        return f"moves the robber to {place}{steal}"
    if kind == "maritime_trade":
        return f"trades {action['rate']} {action['give']} with the bank for 1 {action['get']}"
    if kind == "propose_trade":
        return f"offers {_cards(action['give'])} for {_cards(action['get'])} to everyone"
    if kind == "request_offers":
        return "asks the others for trade offers"
    if kind == "accept_trade":
        return (f"accepts {_seat(trade.get('from'))}'s offer of {_cards(trade.get('give'))}"
                f" for {_cards(trade.get('get'))}")
    if kind == "reject_trade":
        return f"rejects {_seat(trade.get('from'))}'s offer"
    if kind == "counter_trade":
        return f"counters {_seat(trade.get('from'))}: gives {_cards(action['give'])} for {_cards(action['get'])}"
    if kind == "offer":
        return f"offers {_seat(trade.get('from'))} {_cards(action['give'])} for {_cards(action['get'])}"
    if kind == "pass":
        return f"makes no offer to {_seat(trade.get('from'))}"
    if kind == "confirm_trade":
        return (f"trades {_cards(trade.get('give'))} to {_seat(action['seat'])}"
                f" for {_cards(trade.get('get'))}")
    if kind == "accept_counter":
        answer = (trade.get("answers") or {}).get(str(action["seat"])) or {}
        return (f"accepts {_seat(action['seat'])}'s counter-offer: gives {_cards(answer.get('get'))}"
                f" for {_cards(answer.get('give'))}")
    if kind == "cancel_trade":
        return "closes the trade without a deal"
    if kind == "buy_dev_card":
        return "buys a development card"
    if kind == "play_knight":
        return "plays a Knight"
    if kind == "play_road_building":
        return "plays Road Building"
    if kind == "end_road_building":
        return "stops building free roads"
    if kind == "play_year_of_plenty":
        return f"plays Year of Plenty and takes {' + '.join(action['resources'])}"
    if kind == "play_monopoly":
        return f"plays Monopoly on {action['resource']}"
    if kind == "end_turn":
        return "ends the turn"
    if kind == "end_special_build":
        return "passes in the special building phase"
    if kind == "donate":
        return f"offers 1 {action['resource']} as a gift to {_seat(action['to'])}"
    if kind in ("accept_gift", "reject_gift"):
        gift = observation.get("gift") or {}
        verb = "accepts" if kind == "accept_gift" else "refuses"
        return f"{verb} the gift of 1 {gift.get('resource', 'card')} from {_seat(gift.get('from'))}"
    if kind == "use_favor":
        guild = _GUILD_NAMES.get(action["guild"], action["guild"])
        extra = f" and takes 1 {action['get']}" if action.get("get") else ""
        return f"uses the {guild} favour{extra}"
    if kind == "favor_exchange":
        return f"exchanges 1 {action['give']} with the bank for 1 {action['get']} (Merchant)"
    if kind == "end_favor":
        return "ends the Merchant exchanges"
    if kind == "exchange_favor":
        return "exchanges a favour token"
    if kind == "return_favor":
        return f"returns a {_GUILD_NAMES.get(action['guild'], action['guild'])} favour token"
    return str(kind).replace("_", " ")


def _per_seat(mapping: dict[str, dict[str, int]], verb: str) -> str:
    return "; ".join(f"{_seat(s)} {verb} {_cards(side)}" for s, side in mapping.items())


#: events that only repeat the action they follow (the action's description already says it all)
_ECHOES = frozenset({"place_settlement", "place_road", "build_settlement", "build_city", "build_road", "free_road",
                     "move_robber", "maritime_trade", "propose_trade", "request_offers", "answer", "buy_dev_card",
                     "play_knight", "play_road_building", "end_road_building", "play_year_of_plenty", "end_turn",
                     "discard", "cancel_trade", "donate", "accept_gift", "reject_gift", "use_favor",
                     "favor_exchange", "exchange_favor", "return_favor"})


_ANSWER_WORDS = {"accept": "accepts", "reject": "rejects", "pass": "passes", "counter": "counters with",
                 "offer": "offers"}


def describe_events(events: list[dict]) -> list[str]:
    """Human text for what a move caused (events that only echo the action are left out)."""
    out = []
    for ev in events:
        kind = ev.get("type")
        if kind in _ECHOES:
            continue
        if kind == "roll":
            d1, d2 = ev["dice"]
            out.append(f"rolled {d1 + d2} ({d1} + {d2})")
        elif kind == "production":
            out.append("production: " + (_per_seat(ev["resources"], "gets") or "nothing"))
        elif kind == "starting_resources":
            out.append(f"{_seat(ev['seat'])} takes {_cards(ev['resources'])} as starting resources")
        elif kind == "turn":
            out.append(f"turn {ev['turn'] + 1}: {_seat(ev['seat'])} to roll")
        elif kind == "discards_owed":
            out.append("a 7: " + "; ".join(f"{_seat(s)} must discard {c}" for s, c in ev["owed"].items()))
        elif kind == "discards":
            out.append("discards: " + _per_seat(ev["discarded"], "gives up"))
        elif kind == "steal":
            out.append(f"{_seat(ev['seat'])} steals a card from {_seat(ev['victim'])}")
        elif kind == "answers":
            parts = []
            for s, answer in ev["answers"].items():
                word = _ANSWER_WORDS.get(answer["answer"], answer["answer"])
                if "give" in answer:
                    word += f" {_cards(answer['give'])} for {_cards(answer['get'])}"
                parts.append(f"{_seat(s)} {word}")
            out.append("answers: " + "; ".join(parts))
        elif kind == "trade":
            out.append(f"{_seat(ev['seat'])} gives {_cards(ev['give'])} to {_seat(ev['with'])}"
                       f" for {_cards(ev['get'])}")
        elif kind == "longest_road":
            out.append("nobody holds Longest Road" if ev["seat"] is None
                       else f"{_seat(ev['seat'])} takes Longest Road ({ev['length']} roads)")
        elif kind == "largest_army":
            out.append(f"{_seat(ev['seat'])} takes Largest Army ({ev['knights']} knights)")
        elif kind == "play_monopoly":
            taken = "; ".join(f"{c} from {_seat(s)}" for s, c in ev["taken"].items()) or "nothing"
            out.append(f"Monopoly on {ev['resource']} takes {taken}")
        elif kind == "favour_tokens":
            out.append(f"{_seat(ev['seat'])} draws {ev['count']} favour token{'s' if ev['count'] != 1 else ''}")
        elif kind == "game_over":
            vps = ", ".join(f"{_seat(s)} {vp}" for s, vp in enumerate(ev["vp"]))
            head = "game over (turn limit)" if ev["winner"] is None else f"{_seat(ev['winner'])} wins"
            out.append(f"{head}; victory points: {vps}")
        else:
            out.append(str(kind).replace("_", " "))
    return out


def scores(observation: dict) -> list[float]:
    """Visible victory points of every seat (hidden VP cards count once revealed at the end)."""
    revealed = observation.get("revealed") or {}
    return [float(p["public_vp"] + (revealed.get(str(p["seat"]), {}).get("dev_cards", {}).get("victory_point", 0)))
            for p in observation["players"]]


# --------------------------------------------------------------------------------------------- drawing tables
def _centre(q: int, r: int) -> tuple[float, float]:
    return HEX_SIZE * _SQRT3 * (q + r / 2), HEX_SIZE * 1.5 * r


@cache
def _static(large: bool) -> dict:
    board = D.BOARD_LARGE if large else D.BOARD_SMALL
    land = set(board.hex_coords)
    sea = sorted({(q + dq, r + dr) for (q, r) in land for (dq, dr) in D.DIRS.values()} - land,
                 key=lambda c: (c[1], c[0]))
    xs = [_centre(q, r)[0] for q, r in sea]
    ys = [_centre(q, r)[1] for q, r in sea]
    # the drawing shows the sea ring up to just past its hex centres, where the harbour badges sit
    margin = 20
    ox, oy = -min(xs) + margin, -min(ys) + margin

    def at(x: float, y: float) -> list[float]:
        return [round(x + ox, 1), round(y + oy, 1)]

    def vertex_xy(key):
        q, r, corner = key
        x, y = _centre(q, r)
        return at(x, y - HEX_SIZE if corner == "N" else y + HEX_SIZE)

    return {
        "board": "large" if large else "small",
        "hex_size": HEX_SIZE,
        "width": round(max(xs) - min(xs) + 2 * margin, 1),
        "height": round(max(ys) - min(ys) + 2 * margin, 1),
        "hexes": [at(*_centre(q, r)) for q, r in board.hex_coords],
        "sea": [at(*_centre(q, r)) for q, r in sea],
        "vertices": [vertex_xy(k) for k in board.vertex_keys],
        "edges": [list(e) for e in board.edge_vertices],
        "harbours": [{"at": at(*_centre(*slot[0])), "vertices": list(slot[3])} for slot in board.harbour_slots],
        "pips": {str(k): v for k, v in D.PIPS.items()},
        "resources": list(D.RESOURCES),
    }


def static_info(num_players: int, options: dict) -> dict:
    """Board geometry for ``num_players`` (the 5-6 board from 5 players): hex, corner and harbour positions.

    Terrain, numbers and harbour types vary per seed and are read from the observation.
    """
    return _static(num_players >= 5)


def expected_marks(observation: dict) -> dict[str, int]:
    """CSS selector -> how many such elements view.js draws for ``observation``."""
    obs = observation
    n = obs["num_players"]
    hexes = obs["board"]["hexes"]
    marks: dict[str, int] = {
        ".hex": len(hexes),
        ".token": sum(1 for h in hexes if h.get("number")),
        ".token.red": sum(1 for h in hexes if h.get("number") in D.RED_NUMBERS),
        ".harbour": len(obs["board"]["harbors"]),
        ".robber": 1,
        f".robber[data-hex='{obs['board']['robber_hex']}']": 1,
        ".road": len(obs["roads"]),
        ".settlement": sum(1 for b in obs["buildings"] if b["kind"] == "settlement"),
        ".city": sum(1 for b in obs["buildings"] if b["kind"] == "city"),
        ".player": n,
        ".longest-road": sum(1 for p in obs["players"] if p["longest_road"]),
        ".largest-army": sum(1 for p in obs["players"] if p["largest_army"]),
        ".die": len(obs.get("dice") or []),
        # one halo group under whatever the last move placed
        ".last-move": int(any("vertex" in ev or "edge" in ev or ev.get("type") == "move_robber"
                              for ev in obs.get("last_events") or [])),
    }
    for s in range(n):
        marks[f".road[data-seat='{s}']"] = sum(1 for r in obs["roads"] if r["seat"] == s)
        marks[f".settlement[data-seat='{s}']"] = sum(1 for b in obs["buildings"]
                                                     if b["seat"] == s and b["kind"] == "settlement")
        marks[f".city[data-seat='{s}']"] = sum(1 for b in obs["buildings"] if b["seat"] == s and b["kind"] == "city")
    # hands: face-up for the viewing seat and for everyone once revealed at the end; else card backs
    revealed = obs.get("revealed")
    you = obs.get("you")
    backs = faces = 0
    for s in range(n):
        if revealed is not None:
            hand = revealed[str(s)]
            faces += len(hand["resources"]) + len(hand["dev_cards"])
        elif you is not None and obs["seat"] == s:
            faces += len(you["resources"]) + len({c["type"] for c in you["dev_cards"]})
        else:
            backs += 2  # one pile of resource cards, one of development cards
    marks[".back"] = backs
    marks[".face"] = faces
    return marks
