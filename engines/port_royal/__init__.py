"""Port Royal (Alexander Pfister, Pegasus Spiele 2014) for 2-5 players; rules: port_royal.md."""
from engines.bots import RandomBot
from engines.port_royal.bots import HeuristicBot
from engines.port_royal.rules import GAME, PortRoyal

BOTS = {"random": RandomBot, "heuristic": HeuristicBot}

__all__ = ["GAME", "BOTS", "PortRoyal", "HeuristicBot"]
