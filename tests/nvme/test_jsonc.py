"""nvme-cli's JSON layout: json-c's pretty printer (``ssdtwin.nvme.jsonc``)."""

from __future__ import annotations

import json

from ssdtwin.nvme.jsonc import dumps


def test_two_space_indent_no_space_after_colon() -> None:
    assert dumps({"vid": 6535, "sn": "SSDTWIN00P32A80     ", "psds": [{"max_power": 600}]}) == (
        '{\n  "vid":6535,\n  "sn":"SSDTWIN00P32A80     ",\n  "psds":[\n    {\n      "max_power":600\n    }\n  ]\n}'
    )


def test_empty_containers_open_on_their_own_line_and_slashes_stay() -> None:
    assert dumps({"a": [], "b": {}, "p": "/dev/nvme0n1"}) == '{\n  "a":[\n  ],\n  "b":{\n  },\n  "p":"/dev/nvme0n1"\n}'


def test_round_trips_through_a_json_parser() -> None:
    value = {"Devices": [{"NameSpace": 1, "UsedBytes": 2**40, "Model": 'a "quoted" \\ name'}], "none": None}
    assert json.loads(dumps(value)) == value
