"""The Dask backend when workers fail: a worker killed in the middle of a run (its tasks are
retried and the estimates are those of one machine), a partition that kills every worker
reading it and one that runs out of memory (a clear error naming the cause), and workers
paused because their memory is nearly full (a clear error, not a hang). Each case runs on
its own ``LocalCluster`` of worker processes and is bounded in time, so that a regression
fails instead of hanging."""
import os
import signal
import threading
import time

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster

from orangecontrib.relief import dask as dask_backend
from orangecontrib.relief.dask import estimate, watch
from orangecontrib.relief.dask.passes import Passes
from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import ReliefF

#: seconds a faulty call may take before the test fails
LIMIT = 90
N, CHUNK = 400, 100


def table(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((N, 4))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
    return X, y


def cluster(memory_limit="1GB", n_workers=2):
    return LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                        memory_limit=memory_limit, dashboard_address=":0")


def bounded(call, seconds=LIMIT):
    """``call()``'s result or the exception it raised; fails if it runs ``seconds``."""
    out = {}

    def run():
        try:
            out["result"] = call()
        except BaseException as error:          # noqa: BLE001 handed to the test
            out["error"] = error
    thread = threading.Thread(target=run, daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the call still runs after {seconds} s (a hang)"
    return out.get("result"), out.get("error"), time.monotonic() - start


@pytest.mark.parametrize("n_workers", [2, 1])
def test_worker_killed_mid_run_is_retried(n_workers, monkeypatch):
    """A worker is killed (SIGKILL, as the kernel's out-of-memory killer does) just after the
    neighbour search's tasks are submitted: Dask restarts it and reruns the lost tasks; with
    one worker the sampled instances it held are lost too and sent again. The estimates equal
    one machine's."""
    X, y = table()
    estimator = ReliefF(k=5, iterations=40, random_state=1)
    single = estimator(encode(X, y, n_classes=2))
    sends, send = [], Passes.send_sample

    def counted(run):
        sends.append(1)
        send(run)
    monkeypatch.setattr(Passes, "send_sample", counted)
    with cluster(n_workers=n_workers) as local, Client(local) as client:
        client.wait_for_workers(n_workers)
        victim = sorted(client.scheduler_info()["workers"])[0]
        pid = client.run(os.getpid, workers=[victim])[victim]
        killed = []

        def kill_once(fraction):    # the first report after the instances were sent: the
            if sends and not killed:  # search's, its tasks submitted
                killed.append(fraction)
                os.kill(pid, signal.SIGKILL)
        result, error, _ = bounded(lambda: estimate(
            estimator, da.from_array(X, chunks=(CHUNK, -1)), da.from_array(y, chunks=CHUNK),
            n_classes=2, client=client, callback=kill_once))
        assert killed, "the worker was not killed"
        assert victim not in client.scheduler_info()["workers"] \
            or client.run(os.getpid, workers=[victim])[victim] != pid
    assert error is None, repr(error)
    np.testing.assert_allclose(result, single, rtol=0, atol=1e-9)
    assert len(sends) == (2 if n_workers == 1 else 1)      # sent again when all holders died


def failing_partition(fail, memory_limit="1GB"):
    """The error of ReliefF on data whose second partition's reading runs ``fail()``, with one
    retry allowed by Dask, and the seconds until the call ended."""
    X, y = table()

    def read(block):
        if block[0, 0] == X[CHUNK, 0]:
            fail()
        return block
    faulty = da.from_array(X, chunks=(CHUNK, -1)).map_blocks(read, dtype=float)
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        with cluster(memory_limit) as local, Client(local) as client:
            _, error, seconds = bounded(lambda: estimate(
                ReliefF(k=5, iterations=20, random_state=0), faulty,
                da.from_array(y, chunks=CHUNK), n_classes=2, client=client))
    assert isinstance(error, RuntimeError), repr(error)
    return str(error), seconds


def test_worker_dying_on_a_partition_ends_with_an_error():
    """A partition whose reading kills every worker that tries it (after Dask's allowed
    retries) ends the call with a RuntimeError saying the workers died, within a minute."""
    message, seconds = failing_partition(lambda: os._exit(1))
    assert "workers died" in message and "(killed or crashed)" in message, message
    assert seconds < 60


def test_worker_out_of_memory_ends_with_an_error():
    """A partition whose reading takes ever more memory (64 MB at a time) beyond the worker's
    limit: the nanny restarts the worker each time, and the call ends with a RuntimeError
    naming the memory limit, within a minute."""
    def hog():
        held = []
        for _ in range(64):                                         # up to 4 GB
            held.append(np.ones(2 ** 23))
            time.sleep(0.05)
    message, seconds = failing_partition(hog, memory_limit="800MB")
    assert "out of memory" in message and "763 MB" in message, message
    assert seconds < 60


#: memory held by a worker process (the module is imported there by :func:`_fill`)
HELD = []


def _fill(fraction, limit):
    """Hold memory in the worker process until it uses ``fraction`` of ``limit`` bytes."""
    import psutil
    need = int(fraction * limit - psutil.Process().memory_info().rss)
    HELD.append(np.ones(max(need, 0) // 8))
    return psutil.Process().memory_info().rss / limit


def test_paused_workers_end_with_an_error(monkeypatch):
    """Workers whose memory is nearly full (above Dask's pause fraction, 80 % of the limit)
    start no task: instead of waiting forever, the call ends with a RuntimeError saying why
    after ``STALL_LIMIT`` seconds."""
    monkeypatch.setattr(watch, "STALL_LIMIT", 3.0)
    X, y = table()
    limit = 800 * 10 ** 6
    with cluster(memory_limit=limit, n_workers=1) as local, Client(local) as client:
        used = client.run(_fill, 0.88, limit)
        assert all(0.8 < u < 0.95 for u in used.values()), used
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(
                w["status"] != "paused" for w in client.scheduler_info()["workers"].values()):
            time.sleep(0.2)
        _, error, seconds = bounded(lambda: estimate(
            ReliefF(k=5, iterations=20, random_state=0), da.from_array(X, chunks=(CHUNK, -1)),
            da.from_array(y, chunks=CHUNK), n_classes=2, client=client))
    assert isinstance(error, RuntimeError), repr(error)
    assert "paused" in str(error) and "memory" in str(error)
    assert seconds < 30


def test_one_paused_worker_holding_the_tasks_ends_with_an_error(monkeypatch):
    """One worker of two paused (its memory nearly full) while it holds the pass's tasks, the
    other idle: the tasks never start, so instead of a hang the call ends with an error saying
    that workers holding the tasks are paused, within a minute. Every task is assigned to a
    worker when submitted (no queuing on the scheduler) and the first partition's reading
    fills its worker's memory."""
    monkeypatch.setattr(watch, "STALL_LIMIT", 3.0)
    X, y = table()
    limit = 800 * 10 ** 6

    def read(block):
        if block[0, 0] == X[0, 0]:
            _fill(0.88, limit)
            time.sleep(1.0)                     # the memory monitor pauses the worker
        return block
    faulty = da.from_array(X, chunks=(CHUNK // 4, -1)).map_blocks(read, dtype=float)
    with dask.config.set({"distributed.scheduler.worker-saturation": "inf",
                          "distributed.scheduler.work-stealing": False}):
        with cluster(memory_limit=limit) as local, Client(local) as client:
            _, error, seconds = bounded(lambda: estimate(
                ReliefF(k=5, iterations=20, random_state=0), faulty,
                da.from_array(y, chunks=CHUNK // 4), n_classes=2, client=client))
    assert isinstance(error, dask_backend.ClusterError), repr(error)
    assert "1 of 2 Dask workers" in str(error) and "paused" in str(error), str(error)
    assert seconds < 60


def test_cluster_failure_in_the_command_line_is_one_line_and_status_2(tmp_path, capsys,
                                                                      monkeypatch):
    """The cluster's failure (here its only worker paused, memory nearly full) through
    ``orange-relief rank --dask ADDRESS``: one line on stderr naming the cause, exit 2."""
    from orangecontrib.relief.cli import main
    monkeypatch.setattr(watch, "STALL_LIMIT", 3.0)
    X, y = table()
    path = tmp_path / "t.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,d,label",
               comments="")
    limit = 800 * 10 ** 6
    with cluster(memory_limit=limit, n_workers=1) as local:
        with Client(local) as client:               # closed: the command has its own
            client.run(_fill, 0.88, limit)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(
                    w["status"] != "paused"
                    for w in client.scheduler_info()["workers"].values()):
                time.sleep(0.2)
        status, error, _ = bounded(lambda: main(["rank", str(path), "-c", "label", "-m", "20",
                                                 "-q", "--dask", local.scheduler_address]))
    err = capsys.readouterr().err
    assert error is None and status == 2, (error, err)
    assert err.startswith("orange-relief rank: error: ") and err.count("\n") == 1, err
    assert "paused" in err and "Traceback" not in err
