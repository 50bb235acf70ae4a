"""Catan: the base game with the 5-6 extension and the Best Friends scenario (rules/catan.md)."""
from engines.bots import RandomBot
from engines.catan.bots import HeuristicBot
from engines.catan.rules import Catan

GAME = Catan()
BOTS = {"random": RandomBot, "heuristic": HeuristicBot}

__all__ = ["GAME", "BOTS", "Catan", "HeuristicBot"]
