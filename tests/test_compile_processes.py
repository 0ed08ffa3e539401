"""Background compiles started from a script (scorers called as Orange's Rank calls them, no
widget in the process): one compile at a time per kernel cache, and those still waiting end with
the script."""
import subprocess
import sys
import textwrap
import time

import psutil

import test_cold_start as cold_start
from checkout import environment


def compiles(cache):
    """The background compile processes that write into ``cache``."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if "orangecontrib.relief.compilation" in (process.info["cmdline"] or []) \
                    and process.environ().get("NUMBA_CACHE_DIR") == str(cache):
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found


def test_a_scripts_compiles_run_one_at_a_time_and_the_waiting_end_with_it(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    env = environment(NUMBA_CACHE_DIR=str(cache))
    env.pop("ORANGE_RELIEF_KERNELS", None)            # the default mode: compiles in background
    script = textwrap.dedent("""
        import time
        from Orange.data import Table
        from orangecontrib.relief import ReliefF, RReliefF, MultiSURF, SURF, Relief
        from orangecontrib.relief.compilation import background_compiles
        data = Table("heart_disease")
        for scorer in (ReliefF(), MultiSURF(), SURF(), Relief()):
            scorer.score_data(data)
        RReliefF().score_data(Table("housing"))
        print("started", background_compiles(), flush=True)
        time.sleep(2)
    """)
    try:
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        started = int(result.stdout.split()[-1])
        assert started >= 2                       # several compiles were asked for
        time.sleep(3)                             # the waiting ones check every 0.2 s
        left = compiles(cache)
        # at most the one that holds the cache's lock, finishing its compile for the cache
        assert len(left) <= 1, [p.cmdline() for p in left]
    finally:
        cold_start.end_background_compiles(cache)
