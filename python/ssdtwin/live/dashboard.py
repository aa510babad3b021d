"""The dashboard (``ssdtwin serve --dashboard``): one page that draws the server's
snapshots as they come, with Plotly served from its own Python package (the page works
offline: nothing is fetched from elsewhere). Routes: ``/`` the page, ``/plotly.min.js``,
``/snapshots?since=N`` the snapshots from index N on as JSON (``{"next": …, "snapshots":
[…]}``)."""

from __future__ import annotations

import html
import json
import threading
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from .feed import Snapshots


@cache
def plotly_js() -> bytes:
    """Plotly's bundle, as its Python package ships it."""
    import plotly

    return (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()


def page(title: str) -> bytes:
    """The dashboard page for a drive called ``title``."""
    text = resources.files(__package__).joinpath("dashboard.html").read_text(encoding="utf-8")
    return text.replace("{title}", html.escape(title)).encode()


def serve_dashboard(snapshots: Snapshots, address: str, title: str) -> ThreadingHTTPServer:
    """Serves the dashboard at ``http://ADDRESS:PORT/`` from a thread of its own; returns
    the HTTP server (``shutdown()`` stops it)."""
    body = page(title)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlparse(self.path)
            if url.path == "/":
                self._send(200, "text/html; charset=utf-8", body)
            elif url.path == "/plotly.min.js":
                self._send(200, "text/javascript; charset=utf-8", plotly_js())
            elif url.path == "/snapshots":
                try:
                    since = int(parse_qs(url.query).get("since", ["0"])[0])
                except ValueError:
                    self._send(400, "text/plain; charset=utf-8", b"since: a snapshot index\n")
                    return
                following, taken = snapshots.since(max(0, since))
                self._send(200, "application/json", json.dumps({"next": following, "snapshots": taken}).encode())
            elif url.path == "/favicon.ico":
                self._send(204, "image/x-icon", b"")
            else:
                self._send(404, "text/plain; charset=utf-8", b"not found\n")

        def _send(self, status: int, kind: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Requests are not logged: stderr belongs to the server's own lines."""

    host, _, port = address.rpartition(":")
    server = ThreadingHTTPServer((host, int(port)), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="dashboard", daemon=True).start()
    return server
