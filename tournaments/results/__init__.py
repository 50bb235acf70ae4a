"""Results: what the finished matches add up to, read from the database.

``statistics`` (head-to-head, results by seat, score and length distributions), ``export`` (every rated
match and rating as JSON lines or CSV, streamed), ``recompute`` (the rated history replayed under another
rating model), ``bot_record`` (one bot's recent matches, faults and head-to-head, for its page and the API).

May import: ``tournaments.models`` and ``selectors``, ``bots``, ``ratings``, ``infra`` and the engines.
Never imports ``competition`` or ``running``.
"""
