"""El Capitán's game state (rules file: el_capitan.md): ``ECState``, its encodings and the turn steps.

Representation (all plain lists of ints, so that ``clone`` is a handful of list copies):
- a city is an index 0..8 (``data.CITY_IDS``); ship locations add ``BANK`` (-1) and ``OFFBOARD`` (-2);
- a warehouse colour code is ``seat * 2 + neutral`` (neutral = 1 only in the 2-player game);
  ``sites[c][k]`` is that code or -1 for sites k = 1..12 (index 0 unused);
- a sailing card is an index 0..53 (0..17 destination cards, 18..53 interconnection cards);
- a loan card is an index 0..29 (``data.LOAN_IDS``, small ones first).
"""
from __future__ import annotations

import random

BANK = -1
OFFBOARD = -2

# turn steps
PRE, POST, SETTLE, CHOOSE, OVER = "pre_action", "post_action", "settle", "choose_start", "over"


class ECState:
    """Mutable state of one El Capitán game; see the module docstring for the encodings."""

    __slots__ = (
        "n", "rng", "phase", "round", "start", "cur", "step", "carded", "moved", "first_turn",
        "money", "loc", "harbor", "hand", "sup_wh", "sup_neu", "sup_fort", "loan_owner", "loan_ext",
        "bonus", "bonus_left", "sites", "pictured", "forts", "harb", "pending1", "built", "reverse",
        "disp_d", "disp_l", "draw_d", "draw_l", "disc_d", "disc_l", "phase_end_pending", "settle",
        "chooser", "version", "cache", "shut", "history", "maxocc", "obs_cache", "need_cache",
    )

    def copy(self) -> "ECState":
        """A copy for ``ElCapitan.clone``: the lists copied, the generator at the same point, the caches empty."""
        s = ECState.__new__(ECState)
        s.n, s.phase, s.round, s.start, s.cur, s.step = self.n, self.phase, self.round, self.start, self.cur, self.step
        s.rng = random.Random()
        s.rng.setstate(self.rng.getstate())
        s.carded, s.moved, s.first_turn = self.carded, self.moved, list(self.first_turn)
        s.money, s.loc, s.harbor = list(self.money), list(self.loc), list(self.harbor)
        s.hand = [list(h) for h in self.hand]
        s.sup_wh, s.sup_neu, s.sup_fort = list(self.sup_wh), list(self.sup_neu), list(self.sup_fort)
        s.loan_owner, s.loan_ext = list(self.loan_owner), list(self.loan_ext)
        s.bonus, s.bonus_left = list(self.bonus), list(self.bonus_left)
        s.sites = [list(x) for x in self.sites]
        s.pictured = [list(x) for x in self.pictured]
        s.forts = [list(x) for x in self.forts]
        s.harb = [list(x) for x in self.harb]
        s.pending1, s.built, s.reverse = list(self.pending1), list(self.built), list(self.reverse)
        s.disp_d, s.disp_l = list(self.disp_d), list(self.disp_l)
        s.draw_d, s.draw_l, s.disc_d, s.disc_l = list(self.draw_d), list(self.draw_l), list(self.disc_d), list(self.disc_l)
        s.phase_end_pending = self.phase_end_pending
        s.settle = list(self.settle)
        s.chooser, s.version, s.cache, s.shut = self.chooser, self.version, None, self.shut
        s.history = list(self.history)
        s.maxocc = list(self.maxocc)
        s.obs_cache = None
        s.need_cache = None
        return s
