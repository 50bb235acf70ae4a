"""The platform's shared infrastructure, beneath every app: nothing here knows a game, a bot or a tournament.

- ``bulk``: fixed SQL statements for the match pipeline's hot path, several in one round trip;
- ``caching``: the site's cache, used so that a cache that is away only makes pages slower;
- ``schema``: schema steps shared by the apps' migrations;
- ``text``: one line of plain text that people write and everyone is shown;
- ``broker``: the embedded broker (kombu's filesystem transport, kept correct under concurrent workers).

May import: Django, kombu and the standard library. Imported by: the apps (``players``, ``bots``,
``tournaments``, ``ratings``, ``web``) and the project's settings. Never imports an app or the project
package ``arena``.
"""
