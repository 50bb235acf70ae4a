"""Celery tasks: small, idempotent, taking ids only."""
from celery import shared_task

from tournaments.running import pipeline
from tournaments.running import validation


@shared_task(name="tournaments.tasks.run_matches", acks_late=True, reject_on_worker_lost=True)
def run_matches_task(match_ids: list[int]) -> list[str]:
    """Run the matches of one doorbell in turn; a second delivery finds nothing to claim. A stopping
    worker begins none: their doorbells ring for another."""
    return pipeline.run_matches(match_ids, worker=run_matches_task.request.hostname or "")


@shared_task(name="tournaments.tasks.run_match", acks_late=True, reject_on_worker_lost=True)
def run_match_task(match_id: int) -> str:
    """One match a doorbell, as earlier versions rang it (so a queue they filled drains)."""
    return pipeline.run_matches([match_id], worker=run_match_task.request.hostname or "")[0]


@shared_task(name="tournaments.tasks.validate_version", acks_late=True, reject_on_worker_lost=True)
def validate_version_task(version_id: int) -> str:
    """Play a new version's validation matches and record whether it may enter tournaments."""
    return validation.validate_version(version_id)


@shared_task(name="tournaments.tasks.reconcile_validations")
def reconcile_validations_task() -> list[int]:
    """Periodic (beat): re-enqueue stalled bot validations. (Matches: the reconciler thread of beat.)"""
    return validation.reconcile_validations()
