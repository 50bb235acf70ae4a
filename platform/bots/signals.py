"""What the bots app tells the apps above it (it imports none of them)."""
from django.dispatch import Signal

# Sent inside the transaction that stores a new uploaded version (pending), with ``version``.
# The tournaments app creates its validation matches in the same transaction and enqueues them.
version_uploaded = Signal()
