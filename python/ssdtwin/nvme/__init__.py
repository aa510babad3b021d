"""What ``nvme`` (nvme-cli 2.3) and ``smartctl`` (smartmontools 7.3) would print for a
simulated drive.

Two layers, and calls only go down:

* **Data**, as the drive would return it: :func:`identify_controller` (Identify
  Controller), :func:`identify_namespace` (Identify Namespace) and :func:`smart_log` (the
  SMART / Health log) turn :meth:`ssdtwin.Device.identity` and
  :meth:`ssdtwin.Device.counters` into plain dicts named after the NVMe fields. Values the
  model does not know are constants, documented in one place, :mod:`.constants`.
* **Renderers**, one per tool output: :func:`id_ctrl_text` / :func:`id_ctrl_json`,
  :func:`id_ns_text` / :func:`id_ns_json`, :func:`list_text` / :func:`list_json`, :func:`smart_log_text` /
  :func:`smart_log_json`, :func:`get_feature_text` (over :func:`features`) and
  :func:`smartctl_text` / :func:`smartctl_json` (what ``-i``, ``-H``, ``-A`` ... ask for is a
  :class:`Sections`). Each module names the tool source it follows. JSON renderers return
  dicts in the tool's key order; :func:`dumps` lays them out as nvme-cli does. C number
  formatting (``%#x`` printing zero as ``0``, SI and binary suffixes, thousands
  separators) is in :mod:`.cfmt`.

Nothing here simulates or touches files; the ``ssdtwin nvme`` and ``ssdtwin smartctl``
commands load the device and print.

>>> from ssdtwin import Device
>>> dev = Device("p32a80")
>>> ctrl = identify_controller(dev.identity())
>>> print("".join(line for line in id_ctrl_text(ctrl).splitlines(True) if line.startswith("hm")), end="")
hmpre     : 61440
hmmin     : 2048
hmminds   : 0
hmmaxd    : 0
"""

from .features import features, get_feature_text
from .health import smart_log
from .id_ctrl import identify_controller
from .id_ns import identify_namespace
from .jsonc import dumps
from .show_id_ctrl import id_ctrl_json, id_ctrl_text
from .show_id_ns import id_ns_json, id_ns_text
from .show_list import list_json, list_text
from .show_smart_log import smart_log_json, smart_log_text
from .smartctl import Sections, smartctl_json, smartctl_text

__all__ = [
    "Sections",
    "dumps",
    "features",
    "get_feature_text",
    "id_ctrl_json",
    "id_ctrl_text",
    "id_ns_json",
    "id_ns_text",
    "identify_controller",
    "identify_namespace",
    "list_json",
    "list_text",
    "smart_log",
    "smart_log_json",
    "smart_log_text",
    "smartctl_json",
    "smartctl_text",
]
