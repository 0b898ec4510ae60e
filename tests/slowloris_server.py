"""A loopback server that accepts a request and answers it a byte at a time (slowloris, server side).

The status line and headers trickle out with ``gap`` seconds between bytes and never end, so
every read succeeds within any read timeout and the answer is never complete: only a deadline on
the whole call ends it. Used to check that the app says the server answered too slowly rather
than that it could not be reached.
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType


class SlowlorisServer:
    """``with SlowlorisServer(gap=0.2) as s: s.base_url`` — a ``/v1`` address that answers forever."""

    def __init__(self, gap: float = 0.2) -> None:
        self.gap = gap
        self.connections = 0
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def base_url(self) -> str:
        """The address to give the client."""
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    def __enter__(self) -> SlowlorisServer:
        thread = threading.Thread(target=self._serve, name="slowloris", daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        self._sock.close()
        for thread in self._threads:
            thread.join(timeout=5)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.connections += 1
            thread = threading.Thread(target=self._trickle, args=(conn,), name="slowloris-conn", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _trickle(self, conn: socket.socket) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: "
        try:
            conn.settimeout(1.0)
            try:
                conn.recv(65536)
            except OSError:
                pass
            sent = 0
            while not self._stop.is_set():
                conn.sendall(head[sent:sent + 1] if sent < len(head) else b"a")
                sent += 1
                time.sleep(self.gap)
        except OSError:
            pass
        finally:
            conn.close()
