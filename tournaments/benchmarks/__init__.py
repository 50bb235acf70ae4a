"""What the platform's benchmarks measure against: ``synthetic`` builds a large, consistent data set of
players, bots, tournaments and rated matches (``manage.py seedscale``) for the scale benchmarks
(``benchstats``, ``benchsite``). Never imported by the code that serves or plays.

May import: ``tournaments.models``, ``bots``, ``ratings``, ``infra`` and the engines.
"""
