"""A loopback HTTP proxy in front of gw that can lose answers: with `lose` > 0 it forwards the next
request and hangs up on the client at once, while gw's answer is still read to its end."""
from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import List, Optional, Tuple
from urllib.parse import urlsplit


class LossyProxy:
    def __init__(self, target: str) -> None:
        u = urlsplit(target)
        self.target: Tuple[str, int] = (u.hostname or "127.0.0.1", u.port or 80)
        self.lose = 0
        self.lost = 0
        self.keys: List[Optional[str]] = []  # each request's Idempotency-Key, in order
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                proxy.keys.append(self.headers.get("Idempotency-Key"))
                conn = http.client.HTTPConnection(*proxy.target, timeout=60)
                with proxy._lock:
                    lose = proxy.lose > 0
                    if lose:
                        proxy.lose -= 1
                if lose:
                    sent = threading.Event()

                    def finish() -> None:
                        conn.request(self.command, self.path, body=body, headers=headers)
                        sent.set()
                        conn.getresponse().read()  # gw answers in full; nobody hears it
                        conn.close()
                        proxy.lost += 1

                    threading.Thread(target=finish, daemon=True).start()
                    sent.wait(10)
                    self.close_connection = True
                    return
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

            do_GET = do_POST = do_DELETE = do_PATCH = _forward

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
