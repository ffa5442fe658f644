"""Where an arena's jobs run: in this process, in spawned worker processes, or on a Ray cluster.

A job (one match, or one table game) is fully decided by what it carries, so all three give the
same results; each result is handed to the caller in this process as it finishes.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable
from typing import Any

from .cluster import RayCluster

__all__ = ["run_jobs"]


def run_jobs(
    jobs: Iterable[Any],
    play: Callable[[Any], Any],
    on_result: Callable[[Any], None],
    *,
    total: int,
    workers: int,
    cluster: RayCluster | None,
    init: Callable[[], None],
    chunk: int | None = None,
) -> None:
    """Play every job with `play` (a module-level function, which each worker imports) and call
    `on_result` with each result: on the `cluster` when one is given, else in this process
    (`workers` 1) or in `workers` spawned processes started by `init`, `chunk` jobs at a time
    (None: a few per worker)."""
    if cluster is not None:
        from .cluster import run_jobs_on_ray

        run_jobs_on_ray(jobs, cluster, on_result, total=total, play=play)
    elif workers == 1:
        for job in jobs:
            on_result(play(job))
    else:
        # Spawned workers: forking a process that runs a progress-bar thread is unsafe.
        ctx = multiprocessing.get_context("spawn")
        size = chunk if chunk is not None else max(1, min(8, total // (workers * 8)))
        with ctx.Pool(workers, initializer=init) as pool:
            for result in pool.imap_unordered(play, jobs, chunksize=size):
                on_result(result)
