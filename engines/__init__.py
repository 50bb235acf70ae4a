"""Pure-Python game engines for the bot arena.

Nothing in this package imports Django: the platform apps depend on the engines, never the
other way round. The public surface is small:

- ``engines.core``: the game contract every game implements (``Game``), its error and outcome types.
- ``engines.games``: the registry of game ids (``get_game``).
- ``engines.bots``: the bot interface and the generic built-in bots.
- ``engines.match``: playing one match between bots and replaying its log.
"""
