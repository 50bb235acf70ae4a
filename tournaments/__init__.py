"""Tournaments and their matches, in three stages: where a match is scheduled, run and counted.

- ``competition/``: how bots meet: formats (round robin, Swiss, knockout, ladder), scheduled and recurring
  tournaments, the platform's rated ladder and its matchmaker;
- ``running/``: how a match is played: the doorbell (Celery messages), the pipeline (claim with a lease, play,
  store and rate once), leases and the reconciler, worker health, validation of uploaded versions, the
  local worker processes and their supervisor, and the Celery signal receivers;
- ``results/``: what the matches add up to: statistics, open exports, recomputed ratings, a bot's record;
- ``benchmarks/``: the synthetic data set the scale benchmarks measure.

The app's public faces stay at its top: ``models``, ``services`` (writes: creating, enqueuing, advancing and
stopping tournaments), ``selectors`` (reads of tournaments and matches) and ``tasks`` (the Celery tasks, by
their stable names). Imports flow one way: ``models`` < ``running.doorbell`` and ``competition.formats`` <
``services``/``selectors`` < ``competition`` and ``results`` < ``running`` (the pipeline advances
tournaments; beat's threads start the scheduler and the statistics). Nothing here imports ``web``, and
``bots`` never imports ``tournaments`` (a new upload sends ``bots.signals.version_uploaded``).
"""
