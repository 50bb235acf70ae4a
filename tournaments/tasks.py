"""Celery tasks: small, idempotent, taking ids only."""
from celery import shared_task
from celery.exceptions import Reject

from tournaments import leases, services


@shared_task(name="tournaments.tasks.run_match", acks_late=True, reject_on_worker_lost=True)
def run_match_task(match_id: int) -> str:
    """Run one match; a second delivery of the same id finds nothing to claim and returns."""
    if leases.stop_requested():  # a stopping worker takes no new match: the message goes back for another
        raise Reject("the worker is stopping", requeue=True)
    return services.run_match(match_id, worker=run_match_task.request.hostname or "")


@shared_task(name="tournaments.tasks.reconcile_validations")
def reconcile_validations_task() -> list[int]:
    """Periodic (beat): re-enqueue stalled bot validations. (Matches: the reconciler thread of beat.)"""
    from bots.services import reconcile_validations

    return reconcile_validations()
