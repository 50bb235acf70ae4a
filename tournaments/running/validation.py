"""Validation of uploaded versions: seeded matches against the built-in random bot, in the sandbox, then
the regression gate.

The matches' side owns validation (the bots app depends on nothing above it): a new upload sends
``bots.signals.version_uploaded`` and the receiver here creates its matches in the same transaction.

**The regression gate.** A version that played its validation matches without a fault, and whose bot has
an older valid version (the newest one: the baseline), then plays ``ARENA["REGRESSION_SERIES"]`` duplicate
series against it and the game's built-in bots: one table (new, baseline, the built-ins, as many as the game
seats), each series one seed played once per seat rotation. The version's ``regression`` records the
difference of its average place from the baseline's (negative: it places better), with a 95% confidence
interval over the series (Student's t; ``engines.versus.paired_difference``). The version becomes valid
only once that result is stored; a worse result is shown to its owner, it does not block the version (a
fault in the gate's matches does, as in any validation match). The gate's matches are validation matches:
never rated, seen by the owner only.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any, Sequence

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bots.models import BotVersion
from bots.services import register_builtin_bots
from engines.core import BadOptions
from engines.versus import paired_difference, score_series
from tournaments.competition import formats
from tournaments.running.doorbell import ring_validation
from tournaments.models import Match
from tournaments.running.pipeline import run_match
from tournaments.services import checked_options, create_match, smallest_table

GATE_SEED_OFFSET = 500  # gate seeds: version id * 1000 + 500 + series (validation matches use + 0, 1, ...)


def on_version_uploaded(sender, version: BotVersion, **kwargs) -> None:
    """Receiver of ``version_uploaded``: validation matches now, enqueued once the upload commits."""
    create_validation_matches(version)
    transaction.on_commit(lambda: enqueue_validation(version.pk))


def create_validation_matches(version: BotVersion) -> None:
    """Seeded matches of the new version against the built-in random bot (not rated)."""
    opponents = smallest_table(version.bot.game) - 1
    random_version = next(v for v in register_builtin_bots([version.bot.game]) if v.builtin_name == "random")
    for i in range(settings.ARENA["VALIDATION_MATCHES"]):
        seats = [random_version] * opponents
        seats.insert(i % (opponents + 1), version)
        create_match(game=version.bot.game, bot_versions=seats, seed=version.pk * 1000 + i,
                     purpose=Match.Purpose.VALIDATION)


def enqueue_validation(version_id: int) -> None:
    ring_validation(version_id)


def validate_version(version_id: int) -> str:
    """Run the version's validation matches, then its regression gate (idempotent), and set its status
    from how it behaved: valid only once the gate's result (if it has a baseline) is stored."""
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if version.status != BotVersion.Status.PENDING:
        return version.status
    matches = list(Match.objects.filter(purpose=Match.Purpose.VALIDATION, series__isnull=True,
                                        seats__bot_version=version).distinct().order_by("id"))
    problems, errors = _play_and_judge(matches, version)
    if errors:  # the platform could not run the matches (e.g. no sandbox on this worker): try again later
        return _still_pending(version_id, "validation could not run yet: " + "; ".join(errors))
    if problems:
        return _judged(version_id, BotVersion.Status.INVALID, "\n".join(problems))
    detail = f"played {len(matches)} validation match(es) without a fault"
    baseline = gate_baseline(version)
    regression = None
    if baseline is not None and settings.ARENA["REGRESSION_SERIES"] > 0:
        gate = create_gate_matches(version, baseline)
        problems, errors = _play_and_judge(gate, version)
        if errors:
            return _still_pending(version_id, "regression gate could not run yet: " + "; ".join(errors))
        if problems:
            return _judged(version_id, BotVersion.Status.INVALID, "\n".join(problems))
        regression = gate_result(version, baseline, gate)
        detail += f"; {describe_regression(regression)}"
    return _judged(version_id, BotVersion.Status.VALID, detail, regression)


#: A validation match the platform could not play (an engine or set-up error: a failed match) is played again at
#: the version's next validation (REQUEUE_AFTER_SECONDS later, maybe on another worker) until it was tried this
#: often; then the version is invalid, with the reason, rather than pending for ever.
VALIDATION_TRIES = 3


def _play_and_judge(matches: Sequence[Match], version: BotVersion) -> tuple[list[str], list[str]]:
    """Play the matches (idempotent; failed ones again while they have tries left); the version's faults and the
    matches that failed every try (problems), and the matches that could not run yet (errors)."""
    ids = [m.pk for m in matches]
    Match.objects.filter(pk__in=ids, status=Match.Status.FAILED, attempts__lt=VALIDATION_TRIES).update(
        status=Match.Status.QUEUED, error="", lease_token="", finished_at=None)
    for match in matches:
        run_match(match.pk)
    problems, errors = [], []
    for match in Match.objects.filter(pk__in=ids):
        if match.status == Match.Status.FAILED:
            # The owner reads this: the exception's name only (its text may name the host's folders), but a
            # package's own error whole (written for the owner: it names the package's files alone).
            name, _, text = (match.error.strip().splitlines() or ["failed"])[-1].partition(": ")
            reason = f"{name.rsplit('.', 1)[-1]}: {text}" if name.endswith(".PackageError") else name
            if match.attempts >= VALIDATION_TRIES:
                problems.append(f"match {match.pk} could not be played in {match.attempts} tries ({reason}): "
                                "if the bot runs locally, upload it again or tell the organisers")
            else:
                errors.append(f"match {match.pk}: {reason}; it is tried again")
        elif match.status != Match.Status.FINISHED:
            errors.append(f"match {match.pk} is still {match.status}")
        for seat in match.seats.filter(bot_version=version):
            for fault in seat.fault_log:
                problems.append(f"match {match.pk}, move {fault['move']}: {fault['kind']}: {fault['detail']}")
            if seat.fault_log and seat.stderr_tail:
                problems.append(f"stderr (tail):\n{seat.stderr_tail[-1500:]}")
    return problems, errors


def _still_pending(version_id: int, detail: str) -> str:
    BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING).update(status_detail=detail[:2000])
    return BotVersion.Status.PENDING


def _judged(version_id: int, status: str, detail: str, regression: dict | None = None) -> str:
    BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING).update(
        status=status, status_detail=detail[:5000], regression=regression)
    return status


def gate_baseline(version: BotVersion) -> BotVersion | None:
    """What the gate compares a version with: the newest older valid version of the same bot (None: the
    first version, or no older one is valid)."""
    return (BotVersion.objects.filter(bot_id=version.bot_id, number__lt=version.number,
                                      status=BotVersion.Status.VALID).order_by("-number").first())


def gate_table(version: BotVersion, baseline: BotVersion) -> list[BotVersion]:
    """The gate's seats in their first order: the new version, the baseline, then the game's built-in bots
    (by name), as many as the game seats on its default options (the built-ins again to fill a bigger
    smallest table)."""
    game = version.bot.game
    builtins = sorted(register_builtin_bots([game]), key=lambda v: v.builtin_name)
    table = [version, baseline, *builtins]
    while len(table) < smallest_table(game):
        table.append(builtins[len(table) % len(builtins)])
    for seats in range(len(table), 1, -1):
        try:
            checked_options(game, seats, None)
        except BadOptions:
            continue
        return table[:seats]
    raise BadOptions(f"{game} seats no table of the gate")


def create_gate_matches(version: BotVersion, baseline: BotVersion) -> list[Match]:
    """The gate's matches (created once): ``REGRESSION_SERIES`` series, each one seed and every seat rotation
    of the gate's table; validation matches (never rated, the owner's only)."""
    with transaction.atomic():
        BotVersion.objects.select_for_update().filter(pk=version.pk).first()  # one creator at a time
        existing = list(Match.objects.filter(purpose=Match.Purpose.VALIDATION, series__isnull=False,
                                             seats__bot_version=version).distinct().order_by("id"))
        if existing:
            return existing
        table = gate_table(version, baseline)
        created = []
        for series in range(settings.ARENA["REGRESSION_SERIES"]):
            seed = version.pk * 1000 + GATE_SEED_OFFSET + series
            for order in formats.rotation_series(table):
                match = create_match(game=version.bot.game, bot_versions=order, seed=seed,
                                     purpose=Match.Purpose.VALIDATION)
                Match.objects.filter(pk=match.pk).update(series=series)
                created.append(match)
        return created


def gate_result(version: BotVersion, baseline: BotVersion, matches: Sequence[Match]) -> dict[str, Any]:
    """The gate's result from its finished matches: per series each bot's places, and the version's
    average place against the baseline's, their difference (negative: better) with its 95% CI."""
    places: dict[int, dict[int, list[int]]] = {}
    seats = (Match.objects.filter(pk__in=[m.pk for m in matches]).order_by("series", "id")
             .values_list("series", "seats__bot_version_id", "seats__rank"))
    for series, bot_version, rank in seats:
        places.setdefault(series, {}).setdefault(bot_version, []).append(rank + 1)  # ranks are 0-based
    scored = [score_series(by_bot) for _, by_bot in sorted(places.items())]
    result = paired_difference(scored, version.pk, baseline.pk)
    first = min(matches, key=lambda m: m.pk)  # its seats in order: the table's first seating
    table = [s.bot_version for s in first.seats.select_related("bot_version__bot__owner").order_by("seat")]
    low, high = result["ci95"] or (None, None)
    verdict = ("better" if high is not None and high < 0 else "worse" if low is not None and low > 0
               else "no clear difference")
    return {"baseline": baseline.pk, "baseline_number": baseline.number, "table": [v.label for v in table],
            "seats": len(table), "games": len(matches), "matches": sorted(m.pk for m in matches),
            "verdict": verdict, **result}


def describe_regression(regression: dict[str, Any]) -> str:
    """The gate's result in one line for people."""
    ci = regression["ci95"]
    interval = f", 95% CI [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else ""
    return (f"regression gate vs v{regression['baseline_number']} over {regression['series']} duplicate series "
            f"({regression['games']} games, {regression['seats']} seats): average place "
            f"{regression['average_place']:.2f} vs {regression['baseline_average_place']:.2f}, difference "
            f"{regression['difference']:+.2f}{interval} ({regression['verdict']}; informational, not blocking)")


def reconcile_validations(now=None) -> list[int]:
    """Enqueue again the validation of versions pending for long (a lost message, a dead worker)."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.ARENA["REQUEUE_AFTER_SECONDS"])
    ids = list(BotVersion.objects.filter(status=BotVersion.Status.PENDING, kind=BotVersion.Kind.UPLOAD,
                                         created_at__lt=stale).values_list("pk", flat=True))
    for version_id in ids:
        enqueue_validation(version_id)
    return ids
