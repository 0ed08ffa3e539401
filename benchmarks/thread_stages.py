"""Where the time of a whole estimate goes at 1 and 2 threads, and what two idle cores would give.

    python benchmarks/thread_stages.py                 # 2,000 x 30,000 SNPs, sparse 10,000 x 20,000
    python benchmarks/thread_stages.py --quick         # a smoke run (seconds)
    python benchmarks/thread_stages.py --repeats 5

On a machine shared with other users, the wall time at 2 threads says little about the code: Linux
gives each session (autogroup) an equal share of the CPUs, so while two other sessions are busy a
process gets one core's worth whatever its number of threads (check
``/proc/sys/kernel/sched_autogroup_enabled``). This benchmark therefore also measures what does
not depend on the others: every parallel launch of the package's kernels (each goes through
``estimators.base.parallel_launch``) is timed by the CPU time of each of the process's threads
(``/proc/self/task/*/schedstat``, nanoseconds), so that

* **work** = the CPU time of all the threads (more at 2 threads than at 1: work the threads add);
* **critical path** = the sum over the launches of the busiest thread's CPU time, plus the CPU
  time outside the launches (Python and numpy between the kernels, on one thread): the wall time
  on two idle cores, if the threads did not slow each other down (shared memory bandwidth);
* **idle-core speed-up** = work at 1 thread / critical path at 2 threads (Amdahl, measured).

Run with ``OMP_WAIT_POLICY=PASSIVE`` (set here before numba loads) so that a thread waiting at the
end of a launch sleeps instead of spinning and counting as busy. The cases are the scaling
criterion's: ReliefF (every instance, k = 10) and MultiSURF on SNPs held as bit planes as a
``.bed`` file is read, and ReliefF on sparse data; 1 and 2 threads alternated, the median of
``--repeats`` runs; ``uptime``'s load average printed with each run. Linux only.
"""
import argparse
import contextlib
import glob
import os
import sys
import threading
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("ORANGE_RELIEF_KERNELS", "compiled")

import numba  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roofline import _sparse_data, snp_data  # noqa: E402

from orangecontrib.relief.estimators import base  # noqa: E402
from orangecontrib.relief.estimators.relieff import ReliefF  # noqa: E402
from orangecontrib.relief.estimators.surf import MultiSURF  # noqa: E402


def thread_cpu():
    """{thread id: CPU nanoseconds} of this process's threads."""
    out = {}
    for path in glob.glob(f"/proc/{os.getpid()}/task/*/schedstat"):
        with contextlib.suppress(OSError), open(path) as file:
            out[path.split("/")[4]] = int(file.read().split()[0])
    return out


class Launches:
    """Records, for each parallel launch, the place in the package that made it and each
    thread's CPU seconds during it, by wrapping the generator behind ``parallel_launch`` (every
    module holds the same function object, so its closure is where to wrap)."""

    def __init__(self):
        self.log = []
        cell = next(c for c in base.parallel_launch.__closure__ if callable(c.cell_contents))
        inner = cell.cell_contents
        log = self.log

        def timed():
            frame = sys._getframe(2)
            while frame and "orangecontrib" not in frame.f_code.co_filename or \
                    frame.f_code.co_name in ("__enter__", "helper"):
                frame = frame.f_back
            where = (f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_name}"
                     if frame else "?")
            before = thread_cpu()
            with contextlib.contextmanager(inner)():
                yield
            after = thread_cpu()
            log.append((where, [(after[k] - before.get(k, 0)) / 1e9 for k in after]))
        cell.cell_contents = timed

    def measure(self, function):
        """(wall, work, critical path, {place: (launches, CPU, busiest-thread CPU)})."""
        self.log.clear()
        before = thread_cpu()
        start = time.perf_counter()
        function()
        wall = time.perf_counter() - start
        after = thread_cpu()
        work = sum(after[k] - before.get(k, 0) for k in after) / 1e9
        places = {}
        for where, deltas in self.log:
            count, cpu, busiest = places.get(where, (0, 0.0, 0.0))
            places[where] = (count + 1, cpu + sum(deltas), busiest + max(deltas))
        inside = sum(cpu for _, cpu, _ in places.values())
        critical = sum(busiest for _, _, busiest in places.values()) + (work - inside)
        places["outside the launches"] = (0, work - inside, work - inside)
        return wall, work, critical, places


def load():
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each (median kept)")
    args = parser.parse_args(argv)
    if numba.config.NUMBA_NUM_THREADS < 2:
        sys.exit("thread_stages.py needs at least 2 CPU threads")
    (n, a), (sn, sa, density) = (((300, 3_000), (1_000, 2_000, 0.005)) if args.quick else
                                 ((2_000, 30_000), (10_000, 20_000, 0.005)))
    snps, sparse = snp_data(n, a), _sparse_data(sn, sa, density)
    cases = [(f"ReliefF, {n:,} × {a:,} SNPs", lambda: ReliefF(k=10)(snps)),
             (f"MultiSURF, {n:,} × {a:,} SNPs", lambda: MultiSURF()(snps)),
             (f"ReliefF, {sn:,} × {sa:,} sparse at {density:.1%}", lambda: ReliefF(k=10)(sparse))]
    autogroup = "/proc/sys/kernel/sched_autogroup_enabled"
    if os.path.exists(autogroup):
        with open(autogroup) as file:
            print(f"sched_autogroup_enabled: {file.read().strip()}")
    print(f"# Thread stages, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"load average {load()}; OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}; "
          f"median of {args.repeats}")
    launches = Launches()
    for name, run in cases:
        run()                                           # compile or load every kernel
        runs = {1: [], 2: []}
        for _ in range(args.repeats):
            for threads in (1, 2):
                numba.set_num_threads(threads)
                runs[threads].append(launches.measure(run))
                wall, work, critical, _ = runs[threads][-1]
                print(f"  {name}, {threads} thread(s): wall {wall:.2f} s, work {work:.2f} s, "
                      f"critical path {critical:.2f} s (load {load()})", flush=True)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        med = {t: [float(np.median([r[i] for r in runs[t]])) for i in range(3)] for t in runs}
        print(f"\n## {name}\n")
        print(f"wall {med[1][0]:.2f} → {med[2][0]:.2f} s ({med[1][0] / med[2][0]:.2f}×, "
              f"this machine as loaded); work {med[1][1]:.2f} → {med[2][1]:.2f} s; critical "
              f"path at 2 threads {med[2][2]:.2f} s: **idle-core speed-up "
              f"{med[1][1] / med[2][2]:.2f}×**\n")
        print("| stage (launching function) | launches | 1 thread CPU | 2 threads CPU | "
              "2 threads, busiest thread |")
        print("|---|---|---|---|---|")
        places = sorted({p for r in runs[1] + runs[2] for p in r[3]},
                        key=lambda p: -np.median([r[3].get(p, (0, 0, 0))[1] for r in runs[1]]))
        for place in places:
            one, two = ([r[3].get(place, (0, 0.0, 0.0)) for r in runs[t]] for t in (1, 2))
            print(f"| {place} | {int(np.median([x[0] for x in two]))} | "
                  f"{np.median([x[1] for x in one]):.2f} s | "
                  f"{np.median([x[1] for x in two]):.2f} s | "
                  f"{np.median([x[2] for x in two]):.2f} s |")
        print(flush=True)
    print(f"load average {load()}")


if __name__ == "__main__":
    main()
