"""The site and the REST API: thin views over the apps' services and selectors, templates, charts, the
match viewer's pages, and ``api/`` (Django REST framework, with its OpenAPI schema).

May import every app (``players``, ``bots``, ``tournaments``, ``ratings``), ``infra`` and the engines; no app
imports ``web``.
"""
