"""Players: accounts (usernames that read as nobody else's), API tokens, registration.

May import: Django, DRF's token model and ``infra``. Imported by every app that names an owner; imports none.
"""
