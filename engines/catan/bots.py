"""Placeholder heuristic (replaced below)."""
from engines.bots import RandomBot


class HeuristicBot(RandomBot):
    name = "heuristic"
