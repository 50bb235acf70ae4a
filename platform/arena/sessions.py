"""The session engine: Django's database sessions, refusing a cookie that cannot be a session key."""
from __future__ import annotations

import re

from django.contrib.sessions.backends import db

# What Django's own keys are: 32 of VALID_KEY_CHARS (a-z, 0-9).
_KEY = re.compile(r"[a-z0-9]{32}")


class SessionStore(db.SessionStore):
    """A session cookie that is not a key Django could have made (a NUL in it: PostgreSQL refuses the lookup
    with a DataError, a 500 on every page) is no session, without a query."""

    def _validate_session_key(self, key: str | None) -> bool:
        return bool(key) and _KEY.fullmatch(key) is not None
