"""Alhambra: seeded random games give the very same games as the engine they were recorded with.

Each digest covers every legal list (order and key order included), every event, an observation every
50 steps and the outcome of one seeded game. Speed work on the engine must leave them all unchanged;
a rule change that alters games on purpose records them anew (``python
tests/engines/test_alhambra_digests.py``) and says so in its commit.
"""
from __future__ import annotations

from typing import Any

import pytest

from digests import seeded_game_digest
from engines.alhambra.rules import Alhambra

# (players, seed, options) -> sha256, recorded with the engine of 2026-11-24 (main 7bda123)
CASES: list[tuple[int, int, dict[str, Any]]] = [
    (2 + i % 5, 500 + i, [{}, {"all_payments": True}, {"open_money": True}, {"max_turns": 25 + i}][i % 4])
    for i in range(40)
]
DIGESTS = [
    "2ca86bd44b03b9398c238b3ef6447c69043328beead3967e37b63a2c947e9a9c",
    "30b42c9fa83da48f0f172b17deb11f7b3abb2fc1f827442b896fc3a36dd173e6",
    "c2c14eb7d3fa9ced98984df41b5d53ed962bcb6b7785f289ffd6142573ec8891",
    "77bb1cbc6b437909e0a24f334649e492ea74c582a106273c8b0149e096f432c6",
    "826f859bc591b16a650897e953835275952cfb6134466ee0a1d68e18e7a90a32",
    "963ad17a4cb03d129386086a552c6c46c5384643c33b615ea654d10a9c8880e2",
    "6fcb65dd8adf69c3bad548b91878ffecdf9735fa53e7d9d66b7a549577e72958",
    "c74930a2e9572d6dc08d2e3176979b77d4b7e4c5b9a4d099b8d22799bca3cb7c",
    "79ed3363b91cdf2e6c405b0e7f129116eef8a6795b70c9b20fada6ae93ccad74",
    "e5397ddd5385bebf1d74650d684a65e257ea376911bb34a6a428f482f378f176",
    "fadab975394feb8109321f41e15562354d2be6137ca84af25c416247af3430a8",
    "623be64ad1b3632dc25af7fa396724ebddfbdbe2bcc925ae0f13339d99f7aba1",
    "d48dd46c824451988fd3a453dcf2684c38892710c33c9dae0f961d9498e8e163",
    "017057011983588dc6ef5d0ebd0ca2c1e30ecee0f59392a3f8c3cdafbb468cec",
    "c495d59e22c7cc47b8c557d4db3c5c08088361c6c2f92487b0fbae7544b7e54e",
    "db64c751643098eabf503fa5416a52003bc351d2ab9d72716da7de6584cec036",
    "931056a45566e1371e3d8e9d3da59cc92bf6a56dc90a1ac5fa28737f4679d779",
    "6df506cb82846e6e39a84c565c0a13714b8805f382676db3ff20b1b240f4e148",
    "59ab12b6f688a429ad3f7c747140464b2f950a51b65b3d7a4773475ad9d9b8bf",
    "cf8c4f6d48d3e02b7c84fc8fcba8205f680926678c19cd7015f74949c8838971",
    "81ac10f31bf6dbd966e28abb15b23d3aec145ea1a08ad54b21c9f7e0c9ecf57a",
    "c235cdc3abf7449090e6b7d717e766358f0b7ffca44e0abbaf4944e82f82040c",
    "e5c22e9640e1b48b8a4615f7a258fcee6f7eeba87f8376c08e251bbd99a743fa",
    "88932b2b9a29b3b0ff2b829ab2aef3dfe8cad6e083dd772f5a80d9cf09471e55",
    "ed563a59628b6636eb11f3360de6a80be8bdac63f544bd73e79df07721dc3efd",
    "b9f2af4ced7f0dc0fbec8d6583117673045f08c0c740a0adb5ada513af5a447d",
    "4488b567dec8efa997d131842e6e01cd575037f026ff726dbd04c51e5d15b2ae",
    "f41e9daafd7d239064dc3eefe6a9e9a73d48fc90770aa91092d7d007f1816df4",
    "ae1e4b665b3c5d17c6b02e47f4eaa75bc356dfa29859c1dabf5c9b581293c910",
    "105088acb7b212c7610b9a9e621e4dc36853cddd0f78c55d79a415e14d8b2078",
    "01615e6ec793bab8510dfe4a459acaa24d3c99e75e9001f5727c842c44691c70",
    "994747cd50cb6b138c7af8191bc300cb02dc4b0457bb94f75d9c9aa94e5dec4a",
    "aabac6fbe2a76219caaddddca031af70c86c854f61b3e60b8a05eab0a2fb9c24",
    "702dfd4b6cbfafe690a46a6508c2ba0aea33193bd946882fa64c35bea1e0748b",
    "b6b66cad7fcd6b76025973a5d5ae71f795d8b71ce0ac538a918a3637fe16c697",
    "3660ad9796b7ab35a035d434783f48bec887523284648384e86fdbb3625d6b82",
    "196c1bcc2143c719a13287c79fb31af4c2227f0b815652b34fc6ccc2d516f1f0",
    "eaa3fa331f153e7e176a197e5c272cc61d57ab4a0483dcf6530e19947b2f5b48",
    "15114b2048964cc6aefd1c607f9b86e318183d466d503e6b7c0845b2acb4539f",
    "c2584df2c6d5a24152424d9927ff05a273bcbee6b969f3a4edabe6c8d517c197",
]


def game_digest(players: int, seed: int, options: dict[str, Any]) -> str:
    return seeded_game_digest(Alhambra(), players, seed, options)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_seeded_games_are_unchanged(case: int) -> None:
    assert game_digest(*CASES[case]) == DIGESTS[case]


if __name__ == "__main__":  # print the digests of the current engine, to record them anew
    for players, seed, options in CASES:
        print(f'    "{game_digest(players, seed, options)}",')
