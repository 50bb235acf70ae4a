"""El Capitán (Kramer & Rösner): warehouses, fortresses and loans in nine Mediterranean cities."""
from engines.bots import RandomBot

from .bots import HeuristicBot
from .rules import GAME, ElCapitan

BOTS = {"random": RandomBot, "heuristic": HeuristicBot}

__all__ = ["GAME", "BOTS", "ElCapitan", "HeuristicBot"]
