"""Top Race for people: moves and events in words, scores, and the tables the board drawing uses.

The drawing itself is ``view.js`` (run in the browser); ``expected_marks`` says what it must draw for
an observation, counted independently of it, so the browser tests can check the one against the other.
A space ``r12l2`` is named by its row (progress from the start) and lane, left to right in driving order.
"""
from __future__ import annotations

from typing import Any

from engines.core import Action, Event, Observation
from engines.top_race import data as D

# A seat's observation adds its own hand of tempo cards, its secret tips and its share holdings.
SEAT_VIEWS_PUBLIC = False

LANE_NAMES = ("left", "middle", "right")
END_REASONS = {"5th car finished": "the 5th car finished", "no cards": "no one has a card left",
               "all passed": "everyone passed"}


def money(amount: int) -> str:
    """``160 000`` (the rules' way of writing money)."""
    sign = "-" if amount < 0 else ""
    return sign + f"{abs(amount):,}".replace(",", "\u202f")


def card_text(card: int) -> str:
    """A tempo card by what it does: ``purple 6, green 4, yellow 2, red 1``, ``joker 5, red 2``,
    ``Spurt/Breakdown blue & red``."""
    if card in D.SPURT_CARDS:
        a, b = D.SPURT_CARDS[card]
        return f"Spurt/Breakdown {a} & {b}"
    return ", ".join(f"{car} {n}" for car, n in D.card_slots(card))


def space_text(space: str) -> str:
    """``r12l2`` -> ``row 12, right lane``."""
    row, lane = space[1:].split("l")
    return f"row {row}, {LANE_NAMES[int(lane)]} lane"


def _seat(seat: int) -> str:
    return f"seat {seat}"


def describe_action(action: Action, observation: Observation) -> str:
    """The action in words, from the spectator's observation just before it (the shell names the seat)."""
    kind = action.get("type")
    obs = observation or {}
    if kind == "bid":
        return f"bids {money(action['amount'])}"
    if kind == "pass":
        return "passes"
    if kind == "take_car":
        return f"takes the {action['car']} car onto start space {action['start']}"
    if kind == "take_offer":
        return f"takes the card {card_text(action['card'])} from the offer"
    if kind == "play":
        if action.get("mode"):
            a, b = D.SPURT_CARDS[action["card"]]
            return f"plays {action['mode'].capitalize()} on {a} & {b}"
        return f"plays {card_text(action['card'])}"
    if kind == "take_reserved":
        return f"takes the reserved card {card_text(action['card'])} into hand"
    if kind == "pitstop":
        if action["from"] == "box":
            return f"makes a pitstop, taking {card_text(action['card'])} from the box"
        top = obs.get("discard") or []
        return "makes a pitstop, taking the top discard" + (f" ({card_text(top[-1])})" if top else "")
    if kind == "joker":
        return f"names the {action['car']} car for the joker"
    if kind in ("move", "return"):
        car = f"the {obs['car']} car" if obs.get("car") else "the car"
        verb = "moves" if kind == "move" else "brings back"
        return f"{verb} {car} to {space_text(action['to'])}"
    if kind == "pitstop_claim":
        card = obs.get("claim_card")
        return "claims the card just played" + (f" ({card_text(card)})" if card else "") + " for a pitstop"
    if kind == "decline":
        return "lets the card just played go"
    if kind == "tip":
        round_ = obs.get("tip_round")
        return f"places a secret tip{f' {round_}' if round_ else ''} on the {action['car']} car"
    if kind == "trade":
        sell, buy = action["sell"], action["buy"]
        return f"secretly sells {sell[0]} and {sell[1]} shares, buys {buy[0]} and {buy[1]}"
    raise ValueError(f"top_race: unknown action type {kind!r}")


def _race_end(e: Event) -> list[str]:
    order = sorted(e["places"], key=lambda car: e["places"][car])
    owners = e.get("owners") or {}
    ranking = ", ".join(f"{e['places'][car]}. {car}" + (f" ({_seat(owners[car])})" if car in owners else "")
                        for car in order)
    out = [f"race {e['race']} over ({END_REASONS.get(e['end'], e['end'])}): {ranking}"]
    if "tip_net" in e:
        out.append("tips: " + ", ".join(f"{_seat(s)} {money(n)}" for s, n in enumerate(e["tip_net"])))
    if "share_payout" in e:
        out.append("shares pay: " + ", ".join(f"{_seat(s)} {money(n)}" for s, n in enumerate(e["share_payout"])))
    out.append("cash: " + ", ".join(f"{_seat(s)} {money(c)}" for s, c in enumerate(e["cash"])))
    return out


def describe_events(events: list[Event]) -> list[str]:
    """Each event of one move in words (what ``TopRace.apply`` returned)."""
    out: list[str] = []
    for e in events:
        kind = e["type"]
        if kind == "auto":
            out.append(f"{_seat(e['seat'])}, with only one choice, {describe_action(e['action'], {})}")
        elif kind == "bid":
            out.append(f"{_seat(e['seat'])} bids {money(e['amount'])}")
        elif kind == "pass":
            out.append(f"{_seat(e['seat'])} passes")
        elif kind == "won":
            out.append(f"{_seat(e['seat'])} wins the auction for {money(e['price'])}")
        elif kind == "forced_last_car":
            out.append(f"{_seat(e['seat'])} must take the last car for {money(e['price'])}")
        elif kind == "take_car":
            out.append(f"{_seat(e['seat'])} takes the {e['car']} car onto start space {e['start']}")
        elif kind == "race_start":
            out.append("the race starts; order: " + ", ".join(_seat(s) for s in e["order"]))
        elif kind == "play":
            what = (f"{e['mode'].capitalize()} on {' & '.join(D.SPURT_CARDS[e['card']])}" if e.get("mode")
                    else card_text(e["card"]))
            out.append(f"{_seat(e['seat'])} plays {what}")
        elif kind == "joker":
            out.append(f"{_seat(e['seat'])}'s joker moves the {e['car']} car")
        elif kind == "move":
            out.append(f"the {e['car']} car moves to {space_text(e['to'])}")
        elif kind == "return":
            out.append(f"the {e['car']} car comes back at {space_text(e['to'])}")
        elif kind == "lost":
            out.append(f"the {e['car']} car is out of the race (finished or broken down): "
                       f"its {e['spaces']} spaces are lost")
        elif kind == "blocked":
            out.append(f"the {e['car']} car is blocked: its {e['spaces']} spaces are lost")
        elif kind == "finish":
            prize = f", {money(e['prize'])} to {_seat(e['seat'])}" if "prize" in e else ""
            out.append(f"the {e['car']} car finishes {_ordinal(e['place'])}{prize}")
        elif kind == "breakdown":
            out.append(f"the {e['car']} car breaks down at {space_text(e['space'])}")
        elif kind == "no_effect":
            out.append(f"no effect: {e['reason']}")
        elif kind == "pitstop_claim":
            out.append(f"{_seat(e['seat'])} claims {card_text(e['card'])} for a pitstop")
        elif kind == "decline":
            out.append(f"{_seat(e['seat'])} declines the pitstop")
        elif kind == "take_reserved":
            out.append(f"{_seat(e['seat'])} takes the reserved {card_text(e['card'])} into hand")
        elif kind == "pitstop":
            out.append(f"{_seat(e['seat'])} pitstops: {card_text(e['card'])} from the {e['from']}")
        elif kind == "tip":
            out.append(f"{_seat(e['seat'])} places tip {e['round']} face down")
        elif kind == "trade":
            out.append(f"{_seat(e['seat'])} trades shares in secret")
        elif kind == "share_round_done":
            out.append("the share round is over: trades take effect")
        elif kind == "take_offer":
            out.append(f"{_seat(e['seat'])} takes {card_text(e['card'])} from the offer")
        elif kind == "offer_free":
            cards = "; ".join(card_text(c) for c in e["cards"]) or "nothing"
            out.append(f"{_seat(e['seat'])} gets the rest of the offer for free: {cards}")
        elif kind == "race_end":
            out.extend(_race_end(e))
        else:
            raise ValueError(f"top_race: unknown event type {kind!r}")
    return out


def _ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def scores(observation: Observation) -> list[float]:
    """Every seat's cash (the game is won by the most money)."""
    return [float(c) for c in observation["cash"]]


def _track(track_id: str) -> dict[str, Any]:
    tr = D.get_track(track_id)
    spec = D.TRACKS[track_id]
    kinds = []  # segment kind of every row: S straight, C curve, K chicane
    for seg in spec["segments"]:
        kinds.extend([seg["k"]] * seg["rows"])
    return {
        "rows": tr.finish,
        "spaces": [[tr.ids[i], tr.back[i], tr.front[i], tr.lane[i]] for i in range(tr.FINISH)],
        "tip_lines": list(tr.tip_lines),
        "start_spaces": {str(k): tr.ids[v] for k, v in tr.start_spaces.items()},
        "row_kinds": "".join(kinds),
        "name": track_id.replace("_", " ").title(),
    }


def static_info(num_players: int, options: dict[str, Any]) -> dict[str, Any]:
    """Tempo cards, the four tracks as spaces, prizes, the tip table and the cars."""
    cards = {}
    for c in D.ALL_CARDS:
        face = D.card_json(c)
        face["text"] = card_text(c)
        cards[str(c)] = face
    return {
        "cards": cards,
        "cars": list(D.CARS),
        "tracks": {t: _track(t) for t in D.TRACK_IDS},
        "prizes": list(D.PRIZE),
        "tips": [list(row) for row in D.TIP],
        "lanes": list(LANE_NAMES),
    }


def expected_marks(observation: Observation) -> dict[str, int]:
    """CSS selector -> how many elements ``view.js`` draws for this observation."""
    obs = observation
    cars = obs["cars"].values()
    track = D.get_track(obs["track"])
    marks = {
        ".car": len(D.CARS),
        ".car.on-track": sum(1 for c in cars if "space" in c),
        ".car.broken": sum(1 for c in cars if "broken" in c),
        ".car.finished": sum(1 for c in cars if "place" in c),
        ".car.waiting": sum(1 for c in cars if not c),
        ".space": track.FINISH,
        ".tip-line": len(track.tip_lines),
        ".player": obs["players"],
        ".player.you": 1 if obs.get("seat") is not None else 0,
        ".tempo.current": 1 if "card" in obs else 0,
        ".tempo.offer": len(obs["offer"]),
        f".pile.discard[data-count='{len(obs['discard'])}']": 1,
        f".pile.box[data-count='{len(obs['box'])}']": 1 if obs["modules"]["pitstop"] else 0,
        ".race-result": len(obs["results"]),
        ".auction": 1 if "auction" in obs else 0,
    }
    for s in range(obs["players"]):
        shown = obs.get("seat") == s
        size = obs["hand_sizes"][s]
        marks[f".tempo.hand[data-seat='{s}']"] = size if shown else 0
        marks[f".tempo.back[data-seat='{s}']"] = 0 if shown else size
        marks[f".tempo.reserved[data-seat='{s}']"] = len(obs["reserved"][s])
        marks[f".cash[data-seat='{s}'][data-value='{obs['cash'][s]}']"] = 1
        if not obs["modules"]["shares"]:
            marks[f".car[data-owner='{s}']"] = sum(1 for o in obs["owners"].values() if o == s)
        if obs["modules"]["pitstop"]:
            marks[f".pitstop-card[data-seat='{s}']"] = obs["free_pitstops"][s]
        if obs["modules"]["tips"]:
            marks[f".tip.shown[data-seat='{s}']"] = sum(1 for c in obs["tips"] if c) if shown else 0
            marks[f".tip.back[data-seat='{s}']"] = 0 if shown else obs["tips_placed"][s]
        if obs["modules"]["shares"]:  # own holdings, and everyone's once the game is over
            public = obs["phase"] == "over" and obs["results"] and "holdings" in obs["results"][-1]
            marks[f".share[data-seat='{s}']"] = len(D.CARS) if shown or public else 0
    return marks
