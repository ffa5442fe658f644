"""Many server processes as one site: leases of live matches, a bus between processes, relays.

Used only when a bus is configured (`REDIS_URL`); a single process runs without any of it.
See docs/deploy.md. The modules:

- `node`: `ClusterNode`, one process of the cluster (the service's `ownership`): composes the
  parts below, starts and stops them, answers the service calls forwarded to it, shares renames
  and the Watch list's live games, and runs the heartbeat's upkeep;
- `rpc`: calls between processes on the bus (each one's inbox, calls, answers, questions to
  all) and their wire format;
- `ownership`: which process runs each match, the pool and each tournament, by their leases:
  claiming, fencing, letting go, and taking over from a process that shut down or died;
- `leases`: `LeaseKeeper`, the leases one process holds, renewed together by one heartbeat;
- `relays`: the sockets of matches and tournament pages that another process runs, relayed to
  it, and at the owner the sockets other processes hold;
- `tables`: both ends of one relayed match (`RemoteTable`, `OwnerSeats`; states never older
  than one shown);
- `pages`: both ends of one relayed tournament page (`TournamentRelay`, `PageStandIn`);
- `ports`: what the cluster needs of a bus (`Bus`), the hooks the service calls (`Ownership`),
  and their errors.
"""

from .leases import LeaseKeeper
from .node import ClusterConfig, ClusterNode, node_name
from .ports import Bus, BusDown, Droppable, OwnedElsewhere
from .tables import RemoteTable

__all__ = [
    "Bus",
    "BusDown",
    "ClusterConfig",
    "ClusterNode",
    "Droppable",
    "LeaseKeeper",
    "OwnedElsewhere",
    "RemoteTable",
    "node_name",
]
