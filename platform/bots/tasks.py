from celery import shared_task

from bots import services


@shared_task(name="bots.tasks.validate_version", acks_late=True, reject_on_worker_lost=True)
def validate_version_task(version_id: int) -> str:
    """Play a new version's validation matches and record whether it may enter tournaments."""
    return services.validate_version(version_id)
