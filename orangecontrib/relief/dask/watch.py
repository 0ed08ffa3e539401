"""The workers' state while a pass of the Dask estimate waits for its tasks: the errors that end
the call when the cluster cannot finish it (workers that died, lost the tasks or stay paused
because their memory is nearly full) and why workers died."""
import time

__all__ = ["ClusterError", "Lost", "Watch"]

#: seconds every worker may stay paused (its memory above Dask's pause fraction of its limit)
#: or the cluster without a worker, before the call ends with an error
STALL_LIMIT = 30.0
#: seconds between two looks at the workers' state
WATCH_EVERY = 0.5
#: seconds to wait for the nannies to tell why workers died
CAUSE_WAIT = 20.0


class ClusterError(RuntimeError):
    """The cluster cannot finish the estimate: workers died, lost its tasks or data, or stay
    paused (the message says why)."""


class Lost(ClusterError):
    """The cluster lost a pass's tasks or the data they read."""


class Watch:
    """The workers' state while a pass waits for its tasks: :meth:`check` raises a
    :class:`ClusterError` when for ``STALL_LIMIT`` seconds workers paused by Dask's memory
    manager (their process memory above the pause fraction of their limit: they start none of
    the tasks assigned to them) hold the only work left, every other worker idle (or there is
    no other), or the scheduler has had no worker; :meth:`cause` tells why workers died."""

    def __init__(self, client):
        self.client = client
        self.started = time.time()          # the scheduler's clock stamps its events
        self.last = time.monotonic()
        self.stalled_since = None
        self.workers = client.scheduler_info(n_workers=-1)["workers"]
        #: the workers seen paused (their memory nearly full) and their memory limits
        self.full = {}
        #: every worker's memory limit seen, by address (restarted workers get new addresses)
        self.limits = {address: w["memory_limit"] for address, w in self.workers.items()}

    def check(self):
        now = time.monotonic()
        if now - self.last < WATCH_EVERY:
            return
        self.last = now
        self._refresh()
        paused = {address: w["memory_limit"] for address, w in self.workers.items()
                  if w.get("status") == "paused"}
        self.full.update(paused)
        if self.workers and not (paused and self._only_paused_work(paused)):
            self.stalled_since = None
            return
        if self.stalled_since is None:
            self.stalled_since = now
        if now - self.stalled_since >= STALL_LIMIT:
            if not self.workers:
                raise ClusterError(f"the Dask scheduler has had no worker for {STALL_LIMIT:.0f} s "
                                   "(they died or were never started): the estimate cannot go on")
            memory = ", ".join(f"{_mb(self.workers[a]['metrics'].get('memory'))} of "
                               f"{_mb(self.workers[a]['memory_limit'])}" for a in paused)
            who = ("every Dask worker has" if len(paused) == len(self.workers) else
                   f"{len(paused)} of {len(self.workers)} Dask workers, holding the "
                   "estimate's tasks while the others are idle, have")
            raise ClusterError(f"{who} been paused for {STALL_LIMIT:.0f} s because "
                               f"its memory is nearly full ({memory}), so the estimate cannot "
                               "go on: give the workers more memory (memory_limit) or split the "
                               "data into smaller partitions")

    def _only_paused_work(self, paused):
        """Whether the workers that are not paused run nothing: the work left is the paused
        workers' (a paused worker starts none of the tasks assigned to it)."""
        if len(paused) == len(self.workers):
            return True
        processing = self.client.processing()
        return not any(processing.get(address) for address in self.workers
                       if address not in paused)

    def cause(self):
        """Why workers died: out of memory when their nannies restarted them for exceeding
        their memory limit (the nannies' "worker-restart-memory" events on the scheduler, or
        the warning in their logs) or they were seen paused before, else killed or crashed.
        A nanny sends its event in the background and can be asked for its log only once its
        worker is back, so both are looked for during up to ``CAUSE_WAIT`` seconds."""
        limits = set(self.full.values())
        deadline = time.monotonic() + CAUSE_WAIT
        while True:
            try:
                self._refresh()
            except Exception:                               # noqa: BLE001 the cluster is gone
                break
            restarted = self._memory_restarts()
            if restarted:
                limits |= {self.limits[a] for a in restarted if a in self.limits}
                return self._out_of_memory(limits or set(self.limits.values()))
            logs = self._nanny_logs()
            if logs is not None or time.monotonic() >= deadline:
                if logs and any("memory budget" in str(record) for records in logs.values()
                                for record in records):
                    limits |= {w["memory_limit"] for w in self.workers.values()}
                break
            time.sleep(WATCH_EVERY)
        return self._out_of_memory(limits) if limits else "killed or crashed"

    def _refresh(self):
        """The scheduler's workers now, and every memory limit seen by address."""
        self.workers = self.client.scheduler_info(n_workers=-1)["workers"]
        self.limits.update({address: w["memory_limit"] for address, w in self.workers.items()})

    def _memory_restarts(self):
        """The addresses of the workers that their nannies restarted for exceeding their
        memory limit since the pass began."""
        try:
            events = self.client.get_events("worker-restart-memory")
        except Exception:                                   # noqa: BLE001 the cluster is gone
            events = ()
        return [event.get("worker") for stamp, event in events if stamp >= self.started]

    def _nanny_logs(self):
        """The nannies' logs, or None while the scheduler has no worker (whose nanny it asks)."""
        if not self.workers:
            return None
        try:
            return self.client.get_worker_logs(nanny=True)
        except Exception:                                   # noqa: BLE001 a worker just died
            return None

    @staticmethod
    def _out_of_memory(limits):
        return (f"out of memory: a worker exceeded its memory limit "
                f"({', '.join(_mb(limit) for limit in sorted(limits))}); give the workers more "
                "memory or split the data into smaller partitions")


def _mb(n_bytes):
    return f"{(n_bytes or 0) / 2 ** 20:.0f} MB"
