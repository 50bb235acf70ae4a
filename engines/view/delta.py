"""Compact differences between two JSON values, and their application.

A delta is a list of operations, each ``[path, value]`` (set the value at ``path``) or ``[path]``
(delete the key at ``path``), where ``path`` is a list of object keys and list indices. Lists that
grow get one set per new index; lists that shrink are replaced whole (rare in game observations).
The page applies the same operations in ``static/viewer.js`` (``applyDelta``), sharing every
unchanged part with the previous observation.
"""
from __future__ import annotations

import copy
import json
import math
from typing import Any

Path = list[Any]
Op = list[Any]


def _same_scalar(a: Any, b: Any) -> bool:
    # True == 1 in Python, but the page must see a changed type; 0.0 == -0.0, but JSON writes them apart.
    return type(a) is type(b) and a == b and (type(a) is not float or math.copysign(1.0, a) == math.copysign(1.0, b))


def diff(old: Any, new: Any) -> list[Op]:
    """The operations that turn ``old`` into ``new`` (both JSON values)."""
    ops: list[Op] = []
    _diff(old, new, [], ops)
    return ops


def diff_objects(old: dict[str, Any], new: dict[str, Any], old_texts: dict[str, str] | None = None,
                 new_texts: dict[str, str] | None = None) -> list[Op]:
    """``diff`` of two JSON objects, skipping the members whose JSON text is unchanged.

    Most of an observation stays the same from one move to the next (Catan's board, the decks);
    comparing C-made JSON texts is far quicker than walking them (and, unlike ``==``, tells True from 1).
    """
    old_texts = old_texts if old_texts is not None else member_texts(old)
    new_texts = new_texts if new_texts is not None else member_texts(new)
    ops: list[Op] = []
    for key, value in new.items():
        if key not in old:
            ops.append([[key], value])
        elif old_texts[key] != new_texts[key]:
            _diff(old[key], value, [key], ops)
    for key in old:
        if key not in new:
            ops.append([[key]])
    return ops


def member_texts(value: dict[str, Any]) -> dict[str, str]:
    """The JSON text of each member of an object."""
    return {key: json.dumps(member, separators=(",", ":")) for key, member in value.items()}


def _diff(old: Any, new: Any, path: Path, ops: list[Op]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key, value in new.items():
            if key not in old:
                ops.append([path + [key], value])
            else:
                _diff(old[key], value, path + [key], ops)
        for key in old:
            if key not in new:
                ops.append([path + [key]])
    elif isinstance(old, list) and isinstance(new, list):
        if len(new) < len(old):
            ops.append([path, new])
            return
        for index, value in enumerate(new):
            if index < len(old):
                _diff(old[index], value, path + [index], ops)
            else:
                ops.append([path + [index], value])
    elif isinstance(old, (dict, list)) or isinstance(new, (dict, list)) or not _same_scalar(old, new):
        ops.append([path, new])


def apply(value: Any, ops: list[Op]) -> Any:
    """``value`` with ``ops`` applied (a new value; ``value`` is left unchanged)."""
    result = copy.deepcopy(value)
    for op in ops:
        path = op[0]
        if not path:
            result = copy.deepcopy(op[1])
            continue
        parent = result
        for key in path[:-1]:
            parent = parent[key]
        if len(op) == 1:
            del parent[path[-1]]
        elif isinstance(parent, list) and path[-1] == len(parent):
            parent.append(copy.deepcopy(op[1]))
        else:
            parent[path[-1]] = copy.deepcopy(op[1])
    return result
