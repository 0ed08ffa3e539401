"""The process's resident memory, now and at its peak while a block runs (for the benchmarks'
memory columns)."""
import os
import threading
from contextlib import contextmanager


def current_rss_mb():
    """Resident memory of this process in MB (Linux: /proc/self/statm)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


@contextmanager
def peak_rss_mb(interval=0.005):
    """Sample the resident memory every ``interval`` s while the block runs; yields a dict
    whose ``before`` (MB, at entry) is set at once and ``peak`` (MB) when the block ends."""
    memory = {"before": current_rss_mb()}
    memory["peak"] = memory["before"]
    done = threading.Event()

    def sample():
        while not done.wait(interval):
            memory["peak"] = max(memory["peak"], current_rss_mb())

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        yield memory
    finally:
        done.set()
        sampler.join()
        memory["peak"] = max(memory["peak"], current_rss_mb())
