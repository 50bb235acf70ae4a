"""Celery tasks: small, idempotent, taking ids only."""
from celery import shared_task

from tournaments import leases, pipeline, services, validation
from tournaments.models import Match


@shared_task(name="tournaments.tasks.run_match", acks_late=True, reject_on_worker_lost=True)
def run_match_task(match_id: int) -> str:
    """Run one match; a second delivery of the same id finds nothing to claim and returns."""
    if leases.stop_requested():  # a stopping worker takes no new match: the doorbell rings for another
        if Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).exists():
            services.enqueue_matches([match_id])
        return "worker stopping"
    return pipeline.run_match(match_id, worker=run_match_task.request.hostname or "")


@shared_task(name="tournaments.tasks.validate_version", acks_late=True, reject_on_worker_lost=True)
def validate_version_task(version_id: int) -> str:
    """Play a new version's validation matches and record whether it may enter tournaments."""
    return validation.validate_version(version_id)


@shared_task(name="tournaments.tasks.reconcile_validations")
def reconcile_validations_task() -> list[int]:
    """Periodic (beat): re-enqueue stalled bot validations. (Matches: the reconciler thread of beat.)"""
    return validation.reconcile_validations()
