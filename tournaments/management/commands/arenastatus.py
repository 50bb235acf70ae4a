"""Print the health of the match pipeline: queued, running and stalled matches, leases, worker heartbeats."""
import json

from django.core.management.base import BaseCommand

from tournaments.running.health import snapshot


class Command(BaseCommand):
    help = "Show queued, running and stalled matches, their leases and the workers' heartbeats."

    def add_arguments(self, parser):
        parser.add_argument("--json", dest="as_json", action="store_true", help="one JSON object instead of tables")

    def handle(self, *args, as_json: bool = False, **options):
        health = snapshot()
        if as_json:
            self.stdout.write(json.dumps(health))
            return
        waiting = "unknown" if health["waiting_in_broker"] is None else health["waiting_in_broker"]
        stalled = health["stalled"]
        w = self.stdout.write
        w(f"matches: {health['queued']} queued ({waiting} waiting in the broker), {health['running']} running, "
          f"stalled: {len(stalled['expired_leases'])} expired lease(s) {stalled['expired_leases']}, "
          f"{len(stalled['lost_messages'])} lost message(s) {stalled['lost_messages']}")
        if health["broker_error"]:
            w(f"broker: {health['broker_error']}")
        w("")
        w(f"{'match':>8}  {'game':<11} {'worker':<28} {'try':>3} {'running':>9} {'lease left':>10}")
        for lease in health["leases"]:
            w(f"{lease['match']:>8}  {lease['game']:<11} {lease['worker'][:28]:<28} {lease['attempts']:>3} "
              f"{_secs(lease['running_s']):>9} {_secs(lease['lease_left_s']):>10}")
        if not health["leases"]:
            w("       -  no running match")
        w("")
        w(f"{'worker':<28} {'host':<16} {'pid':>7} {'state':<9} {'match':>8} {'last seen':>9}  alive")
        for worker in health["workers"]:
            w(f"{worker['name'][:28]:<28} {worker['host'][:16]:<16} {worker['pid']:>7} {worker['state']:<9} "
              f"{worker['match'] or '-':>8} {_secs(worker['last_seen_s']):>9}  {'yes' if worker['alive'] else 'NO'}")
        if not health["workers"]:
            w("no worker has reported a heartbeat")
        w(f"\nworkers alive: {health['workers_alive']}")


def _secs(value) -> str:
    return "-" if value is None else f"{value:.1f}s"

