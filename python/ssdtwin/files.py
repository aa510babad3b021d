"""Files ssdtwin writes, placed whole: written to a temporary file beside the target and
synced, then renamed over it (replacing) or linked to its name (only if there is none), so
a failed write (a full disk) leaves no truncated file that looks whole, and of two runs
placing one new name, exactly one succeeds."""

from __future__ import annotations

import os
from pathlib import Path


def place_text(path: Path, text: str, *, replace: bool = True) -> None:
    """Writes ``text`` to ``path``; without ``replace``, an existing file there is a
    ``FileExistsError`` and stays as it was."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(tmp, path)
        else:
            # A link fails where the name exists, at the moment of placing: no window between
            # a check and a rename.
            os.link(tmp, path)
    except OSError as e:
        # Named by the file asked for, not the temporary one (a full disk fails there).
        raise type(e)(e.errno, e.strerror, str(path)) from None
    finally:
        tmp.unlink(missing_ok=True)
