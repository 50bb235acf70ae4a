"""Running matches: from a doorbell to a stored, rated result, exactly once.

``doorbell`` (ringing Celery, reading what waits in the queue: the lowest layer, models only),
``leases`` (a match's short lease and its heartbeat, the reconciler's ring-again), ``pipeline`` (claim, play,
store and rate in one transaction), ``validation`` (a new version's validation matches and regression gate),
``health`` (worker heartbeats, stalled matches), ``lifecycle`` (Celery's signal receivers: heartbeat,
graceful stop, beat's reconciler, scheduler and statistics threads), ``workers`` and ``supervisor`` (local
worker processes and the one-command platform of ``manage.py serve``).

May import: ``tournaments.models``, ``services``, ``selectors``, ``competition`` and ``results``, ``bots``,
``ratings``, ``infra`` and the engines. Only ``doorbell`` is imported from below (by ``services``).
"""
