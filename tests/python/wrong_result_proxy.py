"""A target wrapper for tests: a MySQL-protocol proxy that returns one wrong value.

It listens on 127.0.0.1 and passes every packet between the client and a real
server's Unix socket unchanged, except the first row of the result of any
query whose text contains ``trigger``: the last digit of that row's first value
is changed (0 -> 1, 1 -> 2, ..., 9 -> 0), the same way every time, as a real
wrong-result bug would be. Packet lengths stay the same, so nothing else
changes. ``altered`` counts the results it changed.
"""

import socket
import threading

COM_QUERY = 3


class WrongResultProxy:
    def __init__(self, server_socket: str, trigger: str):
        self.server_socket = server_socket
        self.trigger = trigger.encode()
        self.altered = 0
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def dsn(self) -> str:
        return f"mysql://root@127.0.0.1:{self.port}/test"

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.connect(self.server_socket)
            state = {"alter": False}
            threading.Thread(target=self._client_to_server, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self._server_to_client, args=(server, client, state), daemon=True).start()

    @staticmethod
    def _packets(sock):
        buf = b""
        while True:
            while len(buf) < 4 or len(buf) < 4 + int.from_bytes(buf[:3], "little"):
                try:
                    chunk = sock.recv(65536)
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
            n = 4 + int.from_bytes(buf[:3], "little")
            yield bytearray(buf[:n])
            buf = buf[n:]

    def _client_to_server(self, client, server, state) -> None:
        for packet in self._packets(client):
            if packet[4:5] == bytes([COM_QUERY]):
                state["alter"] = self.trigger in packet[5:]
                state["phase"] = "count"
            try:
                server.sendall(packet)
            except OSError:
                break
        server.close()

    def _server_to_client(self, server, client, state) -> None:
        for packet in self._packets(server):
            if state.get("alter"):
                self._maybe_alter(packet, state)
            try:
                client.sendall(packet)
            except OSError:
                break
        client.close()

    def _maybe_alter(self, packet: bytearray, state: dict) -> None:
        payload = packet[4:]
        phase = state.get("phase")
        if phase == "count":
            if payload[0] in (0x00, 0xFF, 0xFB):  # OK, error, LOCAL INFILE: no rows
                state["alter"] = False
                return
            state["columns"] = payload[0]  # fewer than 251 columns in tests
            state["phase"] = "columns"
        elif phase == "columns":
            state["columns"] -= 1
            if state["columns"] == 0:
                state["phase"] = "eof"
        elif phase == "eof" and payload[0] == 0xFE and len(payload) < 9:
            state["phase"] = "row"
        elif phase in ("eof", "row"):
            state["alter"] = False
            if payload[0] == 0xFE and len(payload) < 9 or payload[0] == 0xFB or payload[0] >= 0xFB:
                return  # no rows, or a NULL / long first value: left alone
            length = payload[0]
            value = payload[1:1 + length]
            for i in range(len(value) - 1, -1, -1):
                if 48 <= value[i] <= 57:
                    packet[4 + 1 + i] = 48 + (value[i] - 48 + 1) % 10
                    with self._lock:
                        self.altered += 1
                    return
