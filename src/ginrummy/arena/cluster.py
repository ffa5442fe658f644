"""Arenas on a Ray cluster: the local pool's jobs, run as Ray tasks, results streamed as they finish.

Each job is one match (or one table game), fully decided by its players, rules, seed and
seats (players are seeded from the deal seed), so a match played on any machine of a cluster
ends exactly as it does in the local process pool. Jobs go out in small batches, a few per CPU of the
cluster at a time, and each finished batch is handed back at once.

Needs the ``ray`` extra (``pip install 'ginrummy[ray]'``) on this machine and on every
machine of the cluster (docs/arena-ray.md).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

__all__ = ["RayCluster", "RayUnavailable", "run_jobs_on_ray"]


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached; the message says which and what to do."""


@dataclass(frozen=True, slots=True)
class RayCluster:
    """Where to run: `address` of a running cluster (``HOST:6379``, ``ray://HOST:10001``, or
    ``auto`` for the one ``ray start`` runs on this machine), or None for a private Ray on this
    machine's loopback interface with `num_cpus` CPUs, started for the run and stopped after it.

    `batch` is how many matches one task plays (None: chosen from the cluster's size).
    """

    address: str | None = None
    num_cpus: int | None = None
    batch: int | None = None

    def __post_init__(self) -> None:
        if self.num_cpus is not None and self.num_cpus < 1:
            raise ValueError(f"num_cpus must be at least 1, got {self.num_cpus}")
        if self.batch is not None and self.batch < 1:
            raise ValueError(f"batch must be at least 1, got {self.batch}")


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(
            "Ray is not installed: pip install 'ginrummy[ray]' (on every machine of the cluster)"
        ) from None
    return ray


def _play_batch(play: Callable[[Any], Any], jobs: list[Any]) -> list[Any]:
    """Runs in a Ray worker: `play` each match (or table game) of one batch, in order."""
    import ginrummy.bots  # noqa: F401  (registers every player in a fresh worker process)

    return [play(job) for job in jobs]


def _batches(jobs: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(jobs)
    while batch := list(islice(it, size)):
        yield batch


def run_jobs_on_ray(
    jobs: Iterable[Any],
    cluster: RayCluster,
    on_result: Callable[[Any], None],
    *,
    total: int,
    play: Callable[[Any], Any],
) -> None:
    """Play every job on the cluster with `play` (a module-level function, which each worker
    imports) and call `on_result` here with each match's statistics as it finishes."""
    ray = _ray()
    started_here = False
    if not ray.is_initialized():
        options: dict[str, Any] = {
            "logging_level": logging.WARNING,
            "log_to_driver": False,
            "configure_logging": True,
        }
        if cluster.address is not None:
            options["address"] = cluster.address
        else:
            options["address"] = "local"  # a new Ray of our own, never someone else's
            options["num_cpus"] = cluster.num_cpus
            options["include_dashboard"] = False
            options["_node_ip_address"] = "127.0.0.1"
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = cluster.address or "this machine"
            raise RayUnavailable(f"cannot start or reach a Ray cluster at {where}: {exc}") from None
        started_here = True
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = cluster.batch or max(1, min(8, total // (cpus * 8)))
        task = ray.remote(num_cpus=1, max_retries=2)(_play_batch)
        batches = _batches(jobs, size)
        window = 2 * cpus  # enough queued work to keep every CPU busy while results come back
        pending = [task.remote(play, batch) for batch in islice(batches, window)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for stats in ray.get(done[0]):
                on_result(stats)
            pending.extend(task.remote(play, batch) for batch in islice(batches, 1))
    finally:
        if started_here:
            ray.shutdown()
