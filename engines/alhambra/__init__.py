"""Alhambra: build the finest palace from tiles bought with four currencies (2-6 seats)."""
from engines.alhambra.bots import HeuristicBot
from engines.alhambra.rules import Alhambra
from engines.bots import RandomBot

GAME = Alhambra()
BOTS = {"random": RandomBot, "heuristic": HeuristicBot}

__all__ = ["GAME", "BOTS", "Alhambra", "HeuristicBot"]
