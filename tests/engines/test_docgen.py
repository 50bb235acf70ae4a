"""The committed generated documents equal what the engines generate now (they cannot drift)."""
from __future__ import annotations

from engines.docgen import COMMAND, DOCS, game_page, generated, stale
from engines.games import get_game


def test_committed_docs_equal_the_generator_output():
    assert [str(p.relative_to(DOCS.parent)) for p in stale()] == [], f"run {COMMAND} and commit the result"


def test_every_game_page_lists_every_option_and_preset():
    files = generated(protocol=False)
    assert sorted(p.name for p in files) == sorted(f"{g}.md" for g in ("el_capitan", "alhambra", "port_royal",
                                                                         "catan", "top_race"))
    for path, text in files.items():
        game = get_game(path.stem)
        assert text == game_page(game) and text.startswith(f"# {game.name}\n")
        for spec in game.option_specs:
            assert f"| `{spec.name}` |" in text
        for preset in game.rated_presets:
            assert f"| `{preset}` |" in text


def test_an_example_s_decisions_are_the_lines_sent_at_that_moment():
    """Each act of an example exchange is what the host sent at that decision, not the observation as the
    rest of the game left it (Top Race's race results showed the whole game during race 1)."""
    from engines.games import GAME_IDS
    from engines.protocol import encode, example_exchange

    for game_id in GAME_IDS:
        for direction, message in example_exchange(game_id, decisions=3, skip=3):
            if direction == "host" and message["type"] == "act":
                assert message["observation_bytes"] == len(encode(message["observation"])) - 1, game_id
