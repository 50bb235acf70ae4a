"""Run a game's browser drawing (engines/<game>/view.js) under node and count what it drew.

One node process renders a whole batch: it defines ``window``, evaluates view.js and calls
``render(obs, ctx)`` for every case. The SVG strings come back to Python, which parses them as XML and
counts elements by the simple selectors of ``expected_marks`` (``.a.b[data-x='v']``).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SVG_NS = "{http://www.w3.org/2000/svg}"

_HARNESS = r"""
const fs = require("fs");
const vm = require("vm");
const [SCRIPT, GAME] = process.argv.slice(-2);
const sandbox = { window: {} };
vm.createContext(sandbox);
vm.runInContext(fs.readFileSync(SCRIPT, "utf8"), sandbox, { filename: SCRIPT });
const viewer = sandbox.window.ArenaViewers[GAME];
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(c => viewer.render(c.obs, c.ctx))));
"""


def node_or_skip() -> str:
    """The node binary; skips the test with the reason when it is missing (fails in CI)."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is required in CI to test the board drawings")
        pytest.skip("node is not installed: the board drawings (view.js) cannot be run")
    return node


def render_all(game: str, cases: list[dict]) -> list[str]:
    """SVG strings of view.js for each ``{"obs": ..., "ctx": ...}`` case, in one node process."""
    node = node_or_skip()
    script = ROOT / "engines" / game / "view.js"
    proc = subprocess.run([node, "-e", _HARNESS, "--", str(script), game], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)


_SELECTOR = re.compile(r"^((?:\.[\w-]+)+)((?:\[[\w-]+='[^']*'\])*)$")
_ATTR = re.compile(r"\[([\w-]+)='([^']*)'\]")


def count(root: ET.Element, selector: str) -> int:
    """Elements under ``root`` matching a selector made of classes and ``[attr='value']`` tests."""
    match = _SELECTOR.match(selector)
    assert match, f"selector {selector!r} is not of the form .class[.class][attr='value']"
    classes = set(match.group(1).split(".")[1:])
    attrs = _ATTR.findall(match.group(2))
    found = 0
    for el in root.iter():
        if classes <= set(el.get("class", "").split()) and all(el.get(k) == v for k, v in attrs):
            found += 1
    return found


def parse_svg(svg: str) -> ET.Element:
    """The parsed SVG (raises on malformed XML); checks it is one <svg> with a viewBox."""
    root = ET.fromstring(svg)
    assert root.tag == SVG_NS + "svg", root.tag
    assert len(root.get("viewBox", "").split()) == 4
    return root


def text_of(root: ET.Element) -> str:
    """All text in the drawing, for checks on names and escaping."""
    return " ".join(t for el in root.iter() for t in (el.text, el.tail) if t)
