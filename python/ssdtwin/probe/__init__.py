"""Probe a drive into a profile: infer its internals from fio measurements.

Every measurement is a set of fio jobs (:class:`Job`) that a :class:`Runner` executes: the
real fio binary against a block device, a file or an NBD URI (:class:`FioRunner`), or
ssdtwin's own fio on a simulated drive in virtual time (:class:`TwinRunner`). Both return
fio-shaped outcomes, so the inference is the same code for a real drive and a twin, and
never reads a profile. One module per measurement, each a plain function returning a table
and :class:`Estimate` values (value, unit, uncertainty, the measurement it came from):

* :mod:`.floor`: unmapped reads and QD1 writes (command costs, link, firmware cores);
* :mod:`.geometry`: a region written in order (tR, program unit, dies, channel rate, ECC);
* :mod:`.slc`: the write cliff, recovery after idle or reads, reads during folding (R3);
* :mod:`.map_cache`: latency against LBA span (map-cache coverage, R1);
* :mod:`.parallelism`: the queue-depth sweep (Little's law);

:func:`probe` runs them in order (:mod:`.plan`), :mod:`.profile` turns the estimates into
a profile (each field saying whether it was measured, derived or left at its default), and
:mod:`.compare` sets two probes side by side. Writing is guarded by :mod:`.safety`.

>>> runner = TwinRunner("wd-black-256", {"nand.blocks_per_plane": 100, "slc_cache.static_gib": 0.5,
...                                      "identity.capacity_bytes": 8 << 30})
>>> result = probe(runner, twin_facts(runner.device), Settings.for_twin().only(("floor", "geometry")))
>>> # Freshly written data: the SLC tR (30 us), as this drive's dies vary around it.
>>> abs(result.estimates["first_tr_ns"].value / 1e3 - 30) < 1.5
True
"""

from .compare import compare, summary
from .estimate import Estimate
from .facts import Facts, twin_facts
from .plan import ProbeResult, probe
from .runner import FioRunner, FioTarget, Job, Outcome, Runner, TwinRunner
from .settings import MEASUREMENTS, READ_ONLY, Settings

__all__ = [
    "MEASUREMENTS",
    "READ_ONLY",
    "Estimate",
    "Facts",
    "FioRunner",
    "FioTarget",
    "Job",
    "Outcome",
    "ProbeResult",
    "Runner",
    "Settings",
    "TwinRunner",
    "compare",
    "probe",
    "summary",
    "twin_facts",
]
