"""Competition: which bots meet, when, and in which seat order.

``formats`` (pure functions: round robin, Swiss, knockout groups), ``matchmaker`` (pure functions: the
ladder's next table), ``ladder`` (the platform's rated ladder of each game and ladder tournaments),
``schedule`` (announced and recurring tournaments with registration windows, and their scheduler).

May import: ``tournaments.models``, ``tournaments.services``, ``tournaments.selectors``, ``bots``,
``ratings`` and the engines. Never imports ``tournaments.running`` beyond what ``services`` uses.
"""
