"""Port Royal for people: moves and events in words, scores, and the tables the board drawing uses.

The drawing itself is ``view.js`` (run in the browser); ``expected_marks`` says what it must draw for
an observation, counted independently of it, so the browser tests can check the one against the other.
"""
from __future__ import annotations

from typing import Any

from engines.core import Action, Event, Observation
from engines.port_royal import data as D

# Every observation is the same for all seats apart from ``you`` (coins are public counts, persons
# and expeditions are face up), so a seat sees nothing the spectator does not.
SEAT_VIEWS_PUBLIC = True

PERSON_NAMES: dict[str, str] = {
    "trader": "Trader", "settler": "Settler", "captain": "Captain", "priest": "Priest",
    "jack_of_all_trades": "Jack of all Trades", "sailor": "Sailor", "pirate": "Pirate",
    "mademoiselle": "Mademoiselle", "jester": "Jester", "admiral": "Admiral", "governor": "Governor",
}
SYMBOL_NAMES: dict[str, str] = {"cross": "cross", "anchor": "anchor", "house": "house", "any": "any symbol"}
TAX_NAMES: dict[str, str] = {"most_swords": "most swords", "fewest_ip": "fewest IP"}
COIN_REASONS: dict[str, str] = {
    "ship": "for the ship", "jester": "from Jesters", "admiral": "from Admirals", "tax_bonus": "as tax bonus",
    "expedition": "for the expedition",
}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def requirement_text(requires: dict[str, int]) -> str:
    """The symbols an expedition needs, e.g. ``2 crosses + 1 house``."""
    words = {"cross": "crosses", "anchor": "anchors", "house": "houses"}
    return " + ".join(f"{n} {sym if n == 1 else words[sym]}" for sym, n in requires.items())


def card_name(card_id: int) -> str:
    """The short name of a card: ``Sailor``, ``yellow Trader``, ``red frigate``, ``Tax Increase``."""
    face = D.CARD[card_id]
    kind = face["kind"]
    if kind == "person":
        name = PERSON_NAMES[face["type"]]
        return f"{face['colour']} {name}" if face["type"] == "trader" else name
    if kind == "ship":
        return f"{face['colour']} {face['name']}"
    if kind == "tax_increase":
        return "Tax Increase"
    return "expedition"


def card_text(card_id: int) -> str:
    """A card's name with its values, e.g. ``Sailor (3 coins, 1 IP, 1 sword)``."""
    face = D.CARD[card_id]
    kind = face["kind"]
    if kind == "person":
        parts = [_plural(face["cost"], "coin"), f"{face['ip']} IP"]
        if face.get("swords"):
            parts.append(_plural(face["swords"], "sword"))
        if face.get("symbol"):
            parts.append(SYMBOL_NAMES[face["symbol"]])
        return f"{card_name(card_id)} ({', '.join(parts)})"
    if kind == "ship":
        swords = "skull: cannot be repelled" if face["swords"] is None else _plural(face["swords"], "sword")
        return f"{card_name(card_id)} ({_plural(face['coins'], 'coin')}, {swords})"
    if kind == "tax_increase":
        return f"Tax Increase ({TAX_NAMES[face['bonus']]})"
    return (f"expedition {requirement_text(face['requires'])} "
            f"({face['ip']} IP, {_plural(face['coins'], 'coin')})")


def _seat(seat: int) -> str:
    return f"seat {seat}"


def describe_action(action: Action, observation: Observation) -> str:
    """The action in words, from the spectator's observation just before it (the shell names the seat)."""
    kind = action.get("type")
    if kind == "draw":
        return f"reveals a card ({observation['draw_pile_count']} in the draw pile)"
    if kind == "stop":
        return f"stops discovering with {_plural(len(observation['harbour']), 'card')} in the harbour"
    if kind in ("repel", "dock"):
        ship = observation.get("pending_ship")
        name = card_text(ship["id"]) if ship else "the ship"
        return f"repels the {name}" if kind == "repel" else f"lets the {name} dock"
    if kind == "take":
        cid = action["card"]
        seat = observation["to_act"]
        fee = seat is not None and seat != observation["active"]
        if D.KIND[cid] == D.SHIP:
            text = f"trades the {card_text(cid)}"
            return text + f", paying 1 coin to {_seat(observation['active'])}" if fee else text
        player = observation["players"][seat] if seat is not None else None
        discount = sum(1 for p in player["persons"] if D.PERSON_TYPE[p] == "mademoiselle") if player else 0
        cost = max(0, D.COST[cid] - discount)
        text = f"hires {card_text(cid)}"
        if cost != D.COST[cid]:
            text += f" for {_plural(cost, 'coin')}"
        return text + f" + 1 coin to {_seat(observation['active'])}" if fee else text
    if kind == "expedition":
        text = f"fulfils the {card_text(action['card'])}"
        jacks = {sym: n for sym, n in (action.get("jacks_for") or {}).items() if n}
        if jacks:
            text += ", Jacks of all Trades standing in for " + " + ".join(
                f"{n} {sym}" for sym, n in jacks.items())
        return text
    if kind == "done":
        return "takes no more cards"
    raise ValueError(f"port_royal: unknown action type {kind!r}")


def describe_events(events: list[Event]) -> list[str]:
    """Each event of one move in words (what ``PortRoyal.apply`` returned)."""
    out = []
    for e in events:
        kind = e["type"]
        if kind == "reveal":
            out.append(f"{_seat(e['seat'])} reveals the {card_text(e['card'])}")
        elif kind == "dock":
            out.append(f"the {card_name(e['card'])} docks in the harbour")
        elif kind == "bust":
            out.append(f"a second {card_name(e['card'])}: {_seat(e['seat'])}'s turn busts, the harbour is discarded")
        elif kind == "repel":
            out.append(f"{_seat(e['seat'])} repels the {card_name(e['card'])}")
        elif kind == "stop":
            out.append(f"{_seat(e['seat'])} stops " + ("(nothing left to reveal)" if e.get("auto") else "discovering"))
        elif kind == "turn":
            out.append(f"round {e['round']}: {_seat(e['seat'])}'s turn")
        elif kind == "trade":
            out.append(f"{_seat(e['seat'])} trades the {card_name(e['card'])}")
        elif kind == "coins":
            why = COIN_REASONS.get(e["why"], e["why"])
            out.append(f"{_seat(e['seat'])} gains {_plural(e['gain'], 'coin')} {why}")
        elif kind == "fee":
            out.append(f"{_seat(e['seat'])} pays 1 coin to {_seat(e['to'])}")
        elif kind == "hire":
            fee = " + 1 coin fee" if e["fee"] else ""
            out.append(f"{_seat(e['seat'])} hires the {card_name(e['card'])} for {_plural(e['paid'], 'coin')}{fee}")
        elif kind == "done":
            out.append(f"{_seat(e['seat'])} " + ("has nothing (more) to take" if e.get("auto") else "is done"))
        elif kind == "tax_paid":
            out.append(f"tax: {_seat(e['seat'])} pays {_plural(e['coins'], 'coin')}")
        elif kind == "expedition":
            spent = ", ".join(card_name(c) for c in e["spent"])
            out.append(f"{_seat(e['seat'])} fulfils the {card_text(e['card'])} with {spent}")
        elif kind == "end_triggered":
            out.append(f"{_seat(e['seat'])} reaches {D.END_IP} IP: the round is played to its end")
        elif kind == "game_over":
            why = "12 IP reached" if e["reason"] == "end_ip" else "round limit reached"
            out.append(f"game over ({why})")
        else:
            raise ValueError(f"port_royal: unknown event type {kind!r}")
    return out


def scores(observation: Observation) -> list[float]:
    """Influence points (IP) of every seat."""
    return [float(p["ip"]) for p in observation["players"]]


def static_info(num_players: int, options: dict[str, Any]) -> dict[str, Any]:
    """Every card's face with its display name and short text, by id (the drawing's tables)."""
    cards = {}
    for cid in range(1, D.NUM_CARDS + 1):
        face = D.card(cid)
        face["label"] = card_name(cid)
        if face["kind"] == "person":
            face["title"] = PERSON_NAMES[face["type"]]
        face["text"] = card_text(cid)
        cards[str(cid)] = face
    return {"cards": cards, "end_ip": D.END_IP, "ship_colours": list(D.COLOURS)}


def expected_marks(observation: Observation) -> dict[str, int]:
    """CSS selector -> how many elements ``view.js`` draws for this observation."""
    marks = {
        ".card.harbour": len(observation["harbour"]),
        ".card.pending": 1 if observation.get("pending_ship") else 0,
        ".card.expedition.open": len(observation["expedition_area"]),
        ".player": len(observation["players"]),
        ".pile.draw.back": 1,
        f".pile.draw[data-count='{observation['draw_pile_count']}']": 1,
        f".pile.discard[data-count='{len(observation['discard_pile'])}']": 1,
        ".player.you": 1 if observation.get("you") is not None else 0,
    }
    for p in observation["players"]:
        s = p["seat"]
        marks[f".person[data-seat='{s}']"] = len(p["persons"])
        marks[f".card.expedition.won[data-seat='{s}']"] = len(p["expeditions"])
        marks[f".coin.back[data-seat='{s}']"] = p["coins"]
        marks[f".stat.ip[data-seat='{s}'][data-value='{p['ip']}']"] = 1
        marks[f".stat.swords[data-seat='{s}'][data-value='{p['swords']}']"] = 1
        marks[f".stat.coins[data-seat='{s}'][data-value='{p['coins']}']"] = 1
    return marks
