"""A smarter Port Royal bot, only from what the protocol sends (no tables of its own: the card
table comes in `start`, as `arena_bot.match.tables["cards"]`, where card id N is `cards[N - 1]`).

- An expedition is always taken (it is worth influence points and coins).
- Discovering: keep drawing while the risk of a bust (a second ship of a colour already in the
  harbour) is low and the harbour is poor; stop when it holds enough good cards.
- Trading: take the card of the best value: a person is worth its influence points less a little of
  its price, more if its symbol is wanted by an expedition on display; a ship its coins; pass when
  nothing is worth it.
- A ship that would bust the harbour is repelled when possible.

Play it locally in the sandbox, as the platform runs it (add --trusted where bubblewrap is missing):
    python -m engines play --game port_royal --bots ./port_royal_smart.py random heuristic
"""
import arena_bot

COIN = 0.3  # influence points per coin, roughly


def wanted_symbols(observation):
    """Symbols (cross, anchor, house) that the expeditions on display require, from the card table."""
    cards = arena_bot.match.tables.get("cards") or []
    wanted = set()
    for card_id in observation.get("expedition_area", []):
        if 0 < card_id <= len(cards):
            wanted.update(cards[card_id - 1].get("requires", {}))
    return wanted


def card_value(card, me, wanted=frozenset()):
    if card["kind"] == "ship":
        return card.get("coins", 0) * COIN
    if card["kind"] == "person":
        bonus = 0.5 if card.get("symbol") in wanted or (card.get("symbol") == "any" and wanted) else 0.0
        return card.get("ip", 0) + 0.4 + bonus - card.get("cost", 0) * COIN * 0.5
    return 0.0


def should_stop(observation):
    harbour = observation["harbour"]
    colours = [c["colour"] for c in harbour if c["kind"] == "ship"]
    me = observation["you"]
    coins = observation["players"][me]["coins"]
    affordable = [c for c in harbour if c["kind"] != "person" or c.get("cost", 99) <= coins]
    worth = sum(card_value(c, me) for c in affordable)
    # Each distinct ship colour in the harbour is one more way to bust on the next draw.
    risk = len(set(colours))
    return len(harbour) >= 4 or worth >= 3 or (risk >= 2 and len(harbour) >= 2) or risk >= 3


def act(observation, legal_actions):
    types = [a["type"] for a in legal_actions]
    if "expedition" in types:
        return types.index("expedition")
    state = observation.get("state")
    if state == "REPEL":
        ship = observation.get("pending_ship") or {}
        present = {c.get("colour") for c in observation["harbour"] if c["kind"] == "ship"}
        if "repel" in types and ship.get("colour") in present:
            return types.index("repel")
        return types.index("dock") if "dock" in types else 0
    if state == "DISCOVER":
        if "stop" in types and ("draw" not in types or should_stop(observation)):
            return types.index("stop")
        return types.index("draw") if "draw" in types else 0
    # TRADE: the best card, or done
    me = observation["you"]
    by_id = {c["id"]: c for c in observation["harbour"]}
    wanted = wanted_symbols(observation)
    best, best_value = None, 0.2
    for i, action in enumerate(legal_actions):
        if action["type"] == "take" and action.get("card") in by_id:
            value = card_value(by_id[action["card"]], me, wanted)
            if value > best_value:
                best, best_value = i, value
    if best is not None:
        return best
    return types.index("done") if "done" in types else 0


if __name__ == "__main__":
    arena_bot.run(act)
