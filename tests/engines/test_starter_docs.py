"""The starters' own instructions agree with the README, the docs and the command line they name."""
import re
import shlex
from pathlib import Path

import pytest

from engines.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
STARTERS = sorted((REPO / "engines" / "sdk" / "starters").glob("*.[pj][ys]"))
COMMAND = re.compile(r"python -m engines (?:play|versus) --[^\n`#]+")


@pytest.mark.parametrize("path", STARTERS, ids=lambda p: p.name)
def test_a_starter_says_how_to_play_it_and_the_command_is_valid(path):
    text = path.read_text()
    game = path.stem.removesuffix("_smart")
    commands = COMMAND.findall(text)
    assert commands, f"{path.name} does not say how to play it locally"
    play = shlex.split(commands[0])[3:]
    args = build_parser().parse_args(play)
    assert args.command == "play" and args.game == game and f"./{path.name}" in args.bots
    assert not args.trusted  # the sandbox by default, as the platform runs it; --trusted is the fallback
    for command in commands[1:]:
        build_parser().parse_args(shlex.split(command)[3:])


@pytest.mark.parametrize("doc", ["README.md", "docs/authors.md", "docs/bot-protocol.md"])
def test_the_docs_name_real_starters_and_valid_commands(doc):
    text = (REPO / doc).read_text()
    for name in re.findall(r"engines/sdk/starters/[\w.]+", text):
        assert (REPO / name).exists(), name
    for command in COMMAND.findall(text):
        build_parser().parse_args(shlex.split(command)[3:])
