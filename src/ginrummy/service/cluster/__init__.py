"""Many server processes as one site: leases of live matches, a bus between processes, relays.

Used only when a bus is configured (`REDIS_URL`); a single process runs without any of it.
See docs/deploy.md.
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
