"""Top Race (Wolfgang Kramer): car auction and race with tempo cards; Pitstop, Tips and Shares."""
from engines.bots import RandomBot
from engines.top_race.bots import HeuristicBot
from engines.top_race.rules import GAME, TopRace
from engines.top_race.state import TopRaceState

BOTS = {"random": RandomBot, "heuristic": HeuristicBot}

__all__ = ["GAME", "BOTS", "TopRace", "TopRaceState", "HeuristicBot"]
