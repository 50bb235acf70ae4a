"""The regression gate: a new version meets its predecessor in duplicate series before it becomes valid."""
import math
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from arena_testing import token_client
from bots import services as bot_services
from bots.models import Bot, BotVersion
from players.models import Player
from tournaments.models import Match
from tournaments.selectors import visible_matches
from tournaments.running.validation import create_gate_matches, create_validation_matches, validate_version

STARTER = (Path(__file__).resolve().parents[2] / "engines" / "sdk" / "starters" / "port_royal.py").read_bytes()
T975 = {1: 12.706205, 2: 4.302653, 3: 3.182446}  # Student's t, 97.5th percentile, by degrees of freedom (printed tables)


@pytest.fixture
def alice(db):
    return Player.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def series3(settings):
    settings.ARENA = {**settings.ARENA, "REGRESSION_SERIES": 3}


def builtin_version(bot: Bot, number: int, name: str, status: str) -> BotVersion:
    """A version of alice's bot that runs a built-in bot's code (no sandbox needed)."""
    return BotVersion.objects.create(bot=bot, number=number, kind="builtin", builtin_name=name, status=status)


@pytest.fixture
def twin(alice, builtin_versions):
    """alice's Port Royal bot: v1 (valid) plays like the random bot; v2 (pending, its validation matches
    created as an upload's are) plays like the heuristic bot."""
    bot = Bot.objects.create(owner=alice, game="port_royal", name="twin")
    v1 = builtin_version(bot, 1, "random", "valid")
    v2 = builtin_version(bot, 2, "heuristic", "pending")
    create_validation_matches(v2)
    return v1, v2


def by_hand(version: BotVersion, baseline: BotVersion) -> tuple[list[float], float, list[float]]:
    """Per series the difference of the two average places, read from the stored seats; mean and 95% CI."""
    diffs = []
    for series in sorted(set(Match.objects.filter(purpose="validation", series__isnull=False,
                                                  seats__bot_version=version).values_list("series", flat=True))):
        mine, theirs = [], []
        for match in Match.objects.filter(purpose="validation", series=series, seats__bot_version=version):
            for seat in match.seats.all():
                if seat.bot_version_id == version.pk:
                    mine.append(seat.rank + 1)
                elif seat.bot_version_id == baseline.pk:
                    theirs.append(seat.rank + 1)
        diffs.append(sum(mine) / len(mine) - sum(theirs) / len(theirs))
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = T975[n - 1] * sd / math.sqrt(n)
    return diffs, mean, [mean - half, mean + half]


def test_a_new_version_meets_its_predecessor_in_duplicate_series_before_it_is_valid(twin, series3, builtin_versions):
    v1, v2 = twin
    assert validate_version(v2.pk) == "valid"
    v2.refresh_from_db()
    gate = v2.regression
    # One table: new, previous, the built-ins by name; 3 series x 4 seat rotations.
    assert gate["table"] == ["twin v2", "twin v1", "heuristic v1", "random v1"]
    assert (gate["baseline"], gate["baseline_number"], gate["seats"], gate["series"], gate["games"]) == (
        v1.pk, 1, 4, 3, 12)
    matches = list(Match.objects.filter(pk__in=gate["matches"]).order_by("id"))
    assert len(matches) == 12 and all(m.purpose == "validation" and not m.rated and m.tournament_id is None
                                      and m.status == "finished" for m in matches)
    for series in range(3):
        rotation = [m for m in matches if m.series == series]
        assert len({m.seed for m in rotation}) == 1  # one seed per series...
        seats = [list(m.seats.order_by("seat").values_list("bot_version_id", flat=True)) for m in rotation]
        for seat in range(4):  # ...and every bot in every seat once
            assert len({order[seat] for order in seats}) == 4
    assert len({m.seed for m in matches}) == 3
    diffs, mean, ci = by_hand(v2, v1)
    assert gate["differences"] == [round(d, 4) for d in diffs]
    assert gate["difference"] == round(mean, 4)
    assert gate["ci95"] == pytest.approx(ci, abs=2e-4)
    assert gate["verdict"] == ("better" if ci[1] < 0 else "worse" if ci[0] > 0 else "no clear difference")
    assert "regression gate vs v1 over 3 duplicate series" in v2.status_detail
    # The heuristic bot places better than the random one it replaces (tens of Port Royal games agree).
    assert gate["average_place"] < gate["baseline_average_place"]
    # Idempotent: a second delivery changes nothing and plays nothing.
    assert validate_version(v2.pk) == "valid"
    assert Match.objects.filter(purpose="validation", series__isnull=False).count() == 12


def test_a_worse_version_is_shown_worse_but_not_blocked(alice, series3, builtin_versions):
    bot = Bot.objects.create(owner=alice, game="port_royal", name="worse")
    v1 = builtin_version(bot, 1, "heuristic", "valid")
    v2 = builtin_version(bot, 2, "random", "pending")
    create_validation_matches(v2)
    assert validate_version(v2.pk) == "valid"
    v2.refresh_from_db()
    assert v2.regression["baseline"] == v1.pk and v2.regression["difference"] > 0
    assert v2.regression["verdict"] in ("worse", "no clear difference")
    assert "informational, not blocking" in v2.status_detail


def test_the_first_version_gets_no_gate(alice, series3, builtin_versions):
    bot = Bot.objects.create(owner=alice, game="port_royal", name="solo")
    v1 = builtin_version(bot, 1, "heuristic", "pending")
    create_validation_matches(v1)
    assert validate_version(v1.pk) == "valid"
    v1.refresh_from_db()
    assert v1.regression is None and "regression" not in v1.status_detail
    assert not Match.objects.filter(series__isnull=False).exists()


def test_the_version_stays_pending_until_the_gate_result_is_stored(twin, series3):
    """A gate match the platform cannot play keeps the version pending while it has tries left; after
    VALIDATION_TRIES the version is invalid with the reason (not pending for ever), naming no host folder."""
    from tournaments.running.validation import VALIDATION_TRIES

    v1, v2 = twin
    gate = create_gate_matches(v2, v1)
    Match.objects.filter(pk=gate[0].pk).update(options={"no such option": 1})  # the engine refuses it: a failed match
    for tries in range(1, VALIDATION_TRIES):
        assert validate_version(v2.pk) == "pending"
        v2.refresh_from_db()
        assert v2.regression is None and v2.status_detail.startswith("regression gate could not run yet")
        assert "tried again" in v2.status_detail and Match.objects.get(pk=gate[0].pk).attempts == tries
    assert validate_version(v2.pk) == "invalid"
    v2.refresh_from_db()
    assert f"could not be played in {VALIDATION_TRIES} tries (engines.core.BadOptions)" in v2.status_detail
    assert "/" not in v2.status_detail.split("tries")[1].split(")")[0]


def test_a_validation_match_that_failed_once_is_played_again(twin, series3):
    """A failure the platform recovers from (a worker without its sandbox, a database hiccup) costs a try, not the
    version: the failed match is played again at the next validation."""
    v1, v2 = twin
    gate = create_gate_matches(v2, v1)
    Match.objects.filter(pk=gate[0].pk).update(status=Match.Status.FAILED, attempts=1, error="Traceback\nOSError: gone")
    assert validate_version(v2.pk) == "valid"
    assert Match.objects.get(pk=gate[0].pk).status == Match.Status.FINISHED


def test_the_gate_is_shown_to_the_owner_only(twin, series3, alice, client):
    v1, v2 = twin
    validate_version(v2.pk)
    v2.refresh_from_db()
    mine = token_client(alice).get(f"/api/bots/{v2.bot_id}/").json()
    row = next(v for v in mine["versions"] if v["number"] == 2)
    assert row["regression"]["difference"] == v2.regression["difference"]
    assert next(v for v in mine["versions"] if v["number"] == 1)["regression"] is None
    public = APIClient().get(f"/api/bots/{v2.bot_id}/").json()
    assert all(v["regression"] is None for v in public["versions"])
    assert "Regression gate" not in client.get(f"/bots/{v2.bot_id}/").content.decode()
    client.force_login(alice)
    page = client.get(f"/bots/{v2.bot_id}/").content.decode()
    assert "Regression gate" in page and f"{v2.regression['difference']:.2f}" in page
    # Its matches are validation matches: the owner sees them, nobody else.
    gate = set(v2.regression["matches"])
    assert not gate & set(visible_matches(None).values_list("pk", flat=True))
    assert gate <= set(visible_matches(alice).values_list("pk", flat=True))


@pytest.mark.sandbox
def test_uploads_of_a_second_version_get_a_gate_result(alice, settings, builtin_versions):
    settings.ARENA = {**settings.ARENA, "REGRESSION_SERIES": 2}
    first = bot_services.upload_version(owner=alice, game="port_royal", name="starter", filename="s.py", data=STARTER)
    assert validate_version(first.pk) == "valid"
    second = bot_services.upload_version(owner=alice, game="port_royal", name="starter", filename="s.py",
                                         data=STARTER)
    assert validate_version(second.pk) == "valid"
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.regression is None
    assert (second.regression["baseline"], second.regression["series"], second.regression["games"]) == (first.pk, 2, 8)
    diffs, mean, ci = by_hand(second, first)
    assert second.regression["difference"] == round(mean, 4)
    assert second.regression["ci95"] == pytest.approx(ci, abs=2e-4)
