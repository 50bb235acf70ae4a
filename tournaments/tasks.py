"""Celery tasks: small, idempotent, taking ids only."""
from celery import shared_task

from tournaments import services, validation


@shared_task(name="tournaments.tasks.run_match", acks_late=True, reject_on_worker_lost=True)
def run_match_task(match_id: int) -> str:
    """Run one match; a second delivery of the same id finds nothing to claim and returns."""
    return services.run_match(match_id, worker=run_match_task.request.hostname or "")


@shared_task(name="tournaments.tasks.validate_version", acks_late=True, reject_on_worker_lost=True)
def validate_version_task(version_id: int) -> str:
    """Play a new version's validation matches and record whether it may enter tournaments."""
    return validation.validate_version(version_id)


@shared_task(name="tournaments.tasks.reconcile_matches")
def reconcile_matches_task() -> dict[str, list[int]]:
    """Periodic (beat): re-enqueue lost matches and stalled validations."""
    return {"matches": services.reconcile_matches(), "validations": validation.reconcile_validations()}
