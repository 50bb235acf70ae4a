"""Starter bot for Top Race: plays legally, with a simple preference among action types.

Upload this file as it is (or zip it as main.py with more files), then improve ``act``.
Play it locally in the sandbox, as the platform runs it (add --trusted where bubblewrap is missing):
    python -m engines play --game top_race --bots ./top_race.py random heuristic
"""
import random

import arena_bot

#: action types in the order this bot likes them; anything else is picked at random
PREFERRED = ["take_car", "move", "play", "joker", "bid", "pass"]
rng = random.Random()


def act(observation, legal_actions):
    """Return the index of the chosen action in legal_actions."""
    for wanted in PREFERRED:
        choices = [i for i, action in enumerate(legal_actions) if action["type"] == wanted]
        if choices:
            return rng.choice(choices)
    return rng.randrange(len(legal_actions))


def start(match):
    rng.seed(match.seat)  # reproducible games: same seat, same choices
    print(f"starter bot playing {match.game} as seat {match.seat} of {match.num_players}")  # goes to stderr


if __name__ == "__main__":
    arena_bot.run(act, start=start)
