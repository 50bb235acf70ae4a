"""El Capitán: seeded random games give the very same games as the engine they were recorded with.

Each digest covers every legal list (order and key order included), every event, an observation every
50 steps for every seat and the spectator, and the outcome of one seeded game. Now and then the game
goes on from a fresh clone, whose ``apply`` checks the action on its own (no cached legal list, no
cached needs), so that both ways of checking an action are covered. Speed work on the engine must
leave the digests unchanged; a rule change that alters games on purpose records them anew (``python
tests/engines/test_el_capitan_digests.py``) and says so in its commit.
"""
from __future__ import annotations

from typing import Any

import pytest

from digests import seeded_game_digest
from engines.el_capitan.rules import ElCapitan

# (players, seed, options) -> sha256, recorded with the engine of 2026-11-25 (main 987d468).
# El Capitán has no rule options; 2 players is its own variant (neutral warehouses).
# The last case reaches a free reopen with negative money (a speed-up once missed it).
CASES: list[tuple[int, int, dict[str, Any]]] = [(2 + i % 4, 700 + i, {}) for i in range(40)]
CASES.append((4, 10_033, {}))
DIGESTS = [
    "58530aebb76158c3848e18f1f72793655b764889317d9a16d1deabead93f8e18",
    "91524eb77409b21c2f895cbf7e03381eef06971e377847f4e841f7026a1b165b",
    "de909aff6e093bae798e197eaa1caaa14b62d487f8e51841b0fa89fe8ad9fcbe",
    "ccce56d3d4a274cce319302c6bfc0512a5bc7819e3aaa02af9b9c1583b3facde",
    "574408421d8ccf51128706d176ba508bad3409a2afa07b7957f1466452a1e6e2",
    "f53aefa8f75c466bf00871414489c30fd5386dfb7cee9821313abf22d894d1bd",
    "2f7fe2a030095b5de0b448b6aba071997487f8f6d105d06a03301cbf77d85b65",
    "f0e4718881e98f08789df5588803c3a524ce989203218ba35ccc4b5b43ed8645",
    "d566a0ed58aebac8961180142bc4741d3f36b42140aecfcf1f3a8361dc885f4b",
    "ccea50832f8eb79928bf5293023c37b3e43f3b677d2e450bf9664070ae9b27a1",
    "2f8d10550260c933d2ebce0245a8bb51c8ab37780810d31d0b9fdfc29e8d59de",
    "ea256b45bc763ed8556270dc534f7f35fe08f98ab7a7eeb0eb3dfd148f6faac3",
    "e64d66a8e4da8f40badd7e7a8a11e560dffdec208c6b9597ba4eb031ebd0e4a5",
    "db36aca954c5525d273e9747a163c74de7f8616d2a02239a826c18d161f3a30a",
    "4c4172e9d7352b4855b945848cb46ec9e6fad97ad185ede41c5d0c141a1196ef",
    "404700a42186f2d0a63aef168ff79bf2c82ddfb235ac5e43b3c120920ad841bb",
    "be5bb7dd99dd094e5804193f3be3bc3f5c56139d8bd343a89535141464e724b2",
    "bbbdd0da4124e7003a8e8a51cc151f647b4a1141039840f2916ca48ad4d93e0d",
    "d3abdc27208b3044383ec956d597d1a8a410867f24ad2aff14ba6853f3417846",
    "dd23291f0362da181eaa561c4e98c3183a74550c495e1e5d0fe92e6ae66edc38",
    "ca9dfce00e56f698fe9ee41684eb82500878645b7fbe0182c3c998f778416590",
    "b21dd6e2f87b100d7e9b0f1ee4f41fa76b27881bcdf19be6804853f7a62d8561",
    "c651f662ed61ae67074c70ed9ca3b07f8014d383a57bde8f9708b64a68abca6f",
    "2f277d9c29c7a234936eea43bfee0f2cfaef9e67294f74100f9bf104e275b6de",
    "56a799cc07d96b8a93ae174623892f30b7a93777a0aad04b6b602f9420bc8e9d",
    "798af96ef3488553f9dc63fdff22def9060065a5f9802b33d8a44b386b855f57",
    "7d4704c366f48a87d1436329d6a7fbb398a2932a86c1b20d476a368e7b91c073",
    "3ff3a7683a128201b93791f1a95171ad57a2f7f43b8550d87382f4a8685fcb6c",
    "677e2ad3c60ecb9ee13ad6446c1306ac17aaaf9be9b8d9841a9ca6542499532d",
    "5fec4ff319d5be52dd1fb5b0df91482a6df3c59453329fcd37fd3e66f4fa0be4",
    "3188448ad725b10ca538d70af110e4cba41f817a68e5eb2f568a11e166d88062",
    "aebee7b4a1f3887d0b4b5b668e805bf0dd5a0a8525f96fed657833b12fb16122",
    "8636b8ae7b56ce4e917c31216c9ed3e053c583052835b71018197a0bcd388af9",
    "80dcb875549b3222f9e5f71d138bcfff86cd4b8c087fe1529bccba34cf8cb5de",
    "b0620fc10c985a9df52bb7ee2a6599d67bcc69ff18ddcc393c2272b5e8e07af6",
    "2c1b6dfde1101cac920bda8bdad379f814f95a30a7214f5c35595fcb115c95e0",
    "69fb737d6a556789f4672c6dcc0a4ca2002ee6e325af74f1d92e4feda1a41f1b",
    "5af82dcf107984b21f723d76e264a6a94d0b5dbd50a23012d2cc68fcb25338cb",
    "2c258ae89f5ae3a362ecc3ca8f2d520c746a3f25833793f35d0c6e83f34cf0e9",
    "eef88584c75807b3063bd7747aced9553add80a28f061d381b60858eb6895272",
    "608037a533decbea5e4bdfa4fb60bd6a4ddc6863f76f8d9e849a886678fa3baf",
]


def game_digest(players: int, seed: int, options: dict[str, Any]) -> str:
    return seeded_game_digest(ElCapitan(), players, seed, options, every_viewer=True, clones=True)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_seeded_games_are_unchanged(case: int) -> None:
    assert game_digest(*CASES[case]) == DIGESTS[case]


if __name__ == "__main__":  # print the digests of the current engine, to record them anew
    for players, seed, options in CASES:
        print(f'    "{game_digest(players, seed, options)}",')
