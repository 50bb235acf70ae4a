"""Heuristic bot for Top Race (placeholder)."""
from engines.bots import RandomBot


class HeuristicBot(RandomBot):
    name = "heuristic"
