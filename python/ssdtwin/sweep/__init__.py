"""Sweeps: grids of points (profiles x hosts x settings x fio jobs) run on any executor.

>>> from ssdtwin.sweep import from_dict, sweep
>>> grid = from_dict({"sweep": {"host": "none", "set": {"identity.capacity_bytes": 1 << 30},
...                   "job": {"rw": ["read", "write"], "size": "16m"}}})
>>> table = sweep(grid)
>>> list(table["job.rw"]), list(table["direction"])
(['read', 'write'], ['read', 'write'])
"""

from .engine import read_results, run_all, run_point, sweep
from .executors import ExecutorError, open_executor
from .grid import Grid, GridError, Point, from_dict, load_grid

__all__ = [
    "ExecutorError",
    "Grid",
    "GridError",
    "Point",
    "from_dict",
    "load_grid",
    "open_executor",
    "read_results",
    "run_all",
    "run_point",
    "sweep",
]
