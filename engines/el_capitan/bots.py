"""Built-in El Capitán bots."""
from engines.bots import RandomBot


class HeuristicBot(RandomBot):
    name = "heuristic"
