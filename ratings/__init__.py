"""Ratings: TrueSkill per version and rated ruleset (overall and per player-count bracket), the rating lock
that makes a match's update exactly once, the leaderboards' reads, and the rating models of recomputation.

May import: ``bots``, ``players``, ``infra`` and the engines. Never imports ``tournaments`` (the pipeline
calls ``ratings.services`` with the seats of a finished match).
"""
