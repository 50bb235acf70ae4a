"""Query parameters, parsed strictly: a parameter that is given must be valid, else a 400 that names it."""
from __future__ import annotations

import re

from rest_framework.exceptions import ValidationError

_NUMBER = re.compile(r"[0-9]{1,18}")


def query_int(request, name: str, default: int | None, low: int, high: int | None = None) -> int | None:
    """The query parameter ``name`` as an int in [low, high]; a clear 400 for anything else (``²``, 30 nines)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not _NUMBER.fullmatch(raw) or int(raw) < low or (high is not None and int(raw) > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise ValidationError({name: [f"must be a whole number, {bound}; got {raw[:40]!r}"]})
    return int(raw)


TRUE, FALSE = {"1", "true", "yes"}, {"0", "false", "no"}


def query_bool(request, name: str, default: bool = False) -> bool:
    """The query parameter ``name`` as a boolean (1/true/yes, 0/false/no); a 400 for anything else."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if raw.lower() not in TRUE | FALSE:
        raise ValidationError({name: [f"must be true or false; got {raw[:40]!r}"]})
    return raw.lower() in TRUE


def query_text(request, name: str, max_length: int) -> str:
    """The query parameter ``name`` as text ("" if absent); a 400 past ``max_length`` characters or with a NUL
    (PostgreSQL refuses NUL in a query: a DataError, a 500, if it got that far)."""
    raw = request.query_params.get(name, "")
    if len(raw) > max_length:
        raise ValidationError({name: [f"at most {max_length} characters"]})
    if "\x00" in raw:
        raise ValidationError({name: ["Null characters are not allowed."]})
    return raw
