"""JSON laid out as nvme-cli prints it.

nvme-cli 2.x builds its JSON with json-c and prints it with
``json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)``
followed by a newline (``json_print_object`` in ``util/json.h``). json-c's pretty layout
indents by two spaces, puts no space after the colon, and opens even an empty array or
object on its own line (``json_object_object_to_json_string`` and
``json_object_array_to_json_string`` in json-c's ``json_object.c``). Key order is insertion
order, so the dicts given here must already be in nvme-cli's order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence


def dumps(value: object) -> str:
    """``value`` (dicts, lists, strings, ints, bools, None) as json-c's pretty printer lays it
    out, without the trailing newline nvme-cli adds.

    >>> print(dumps({"Devices": [{"NameSpace": 1, "DevicePath": "/dev/nvme0n1"}], "empty": []}))
    {
      "Devices":[
        {
          "NameSpace":1,
          "DevicePath":"/dev/nvme0n1"
        }
      ],
      "empty":[
      ]
    }
    """
    return _dump(value, 0)


def _dump(value: object, level: int) -> str:
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, Mapping):
        items = [f"{inner}{json.dumps(str(k), ensure_ascii=False)}:{_dump(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + ("\n" if items else "") + pad + "}"
    if isinstance(value, Sequence) and not isinstance(value, str):
        elements = [inner + _dump(v, level + 1) for v in value]
        return "[\n" + ",\n".join(elements) + ("\n" if elements else "") + pad + "]"
    # Scalars: json-c escapes like Python's json, except that it leaves "/" alone by request
    # (NOSLASHESCAPE) and Python never escapes it.
    return json.dumps(value, ensure_ascii=False)
