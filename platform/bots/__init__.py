"""Bots and their versions: uploads checked as packages (the engines' upload checker), immutable versions
with a status (pending, valid, invalid), the built-in bots' rows, and the signal a new upload sends.

May import: ``players``, ``infra`` and the engines. Never imports ``tournaments`` or ``ratings``: validation
lives on the matches' side and listens to ``bots.signals.version_uploaded``.
"""
