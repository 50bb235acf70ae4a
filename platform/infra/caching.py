"""The site's cache (Redis in production, files embedded), used so that a cache that is away (Redis
restarting) only makes pages slower, never breaks them."""
from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache

log = logging.getLogger(__name__)


def cache_get(key: str) -> Any:
    """The cached value, or None when it is missing or the cache cannot be reached."""
    try:
        return cache.get(key)
    except Exception:  # noqa: BLE001 - any backend's connection error
        log.warning("cache unavailable; reading the database", exc_info=True)
        return None


def cache_set(key: str, value: Any, seconds: int) -> None:
    """Cache ``value`` for ``seconds``; a cache that cannot be reached is logged and skipped."""
    try:
        cache.set(key, value, seconds)
    except Exception:  # noqa: BLE001
        log.warning("cache unavailable; not cached", exc_info=True)
