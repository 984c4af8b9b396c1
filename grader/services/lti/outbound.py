"""The one HTTP client for every call to a platform: a timeout on each call, no proxy and
nothing read from the environment, and only global addresses reached (checked after one
resolution and again on the connected socket)."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Callable
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

HTTP_TIMEOUT = (5, 20)  # seconds to connect, to read: every call to a platform


class _Http(requests.Session):
    """requests, with a timeout on every call (pylti1p3 passes none: a platform that never
    answers would hold a web worker or a queue worker for ever)."""

    def request(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        return super().request(*args, **kwargs)


class OutboundRefused(requests.exceptions.ConnectionError):
    """An outbound call to an address the service never calls (GRADER_LTI_ALLOW_PRIVATE=1
    lifts it for development and tests)."""


_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


def _judged(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address a packet to ``ip`` really reaches, as far as the address says: the IPv4
    address an IPv6 one wraps (IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, NAT64
    64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32's client), else itself."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if any(ip in network for network in _NAT64) or ip in _IPV4_COMPATIBLE:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def check_address(address: str, host: str, how: str = "resolves to") -> None:
    """OutboundRefused when ``address`` (an IP address ``host`` stands for), or the IPv4
    address it wraps, is loopback, private, link-local, reserved, multicast or otherwise not
    global."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    judged = _judged(ip)
    if any(not a.is_global or a.is_multicast for a in (ip, judged)):
        wraps = f" (which wraps {judged})" if judged != ip else ""
        raise OutboundRefused(f"{host} {how} {ip}{wraps}, an address the service never calls")


def public_address(host: str, port: int) -> str:
    """The address to connect to for `host`: refused if any address it resolves to is
    loopback, private, link-local, reserved or otherwise not global (`check_address`)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise OutboundRefused(f"{host} does not resolve: {error}") from error
    addresses = [str(info[4][0]) for info in infos]
    for address in addresses:
        check_address(address, host)
    if not addresses:
        raise OutboundRefused(f"{host} does not resolve")
    return addresses[0]


def _allow_private() -> bool:
    return os.environ.get("GRADER_LTI_ALLOW_PRIVATE") == "1"


def _checked_conn(
    connection: HTTPConnection, connect: Callable[[], socket.socket]
) -> socket.socket:
    """Resolves the host once, checks the address, connects to that very address (a second
    resolution could answer otherwise: DNS rebinding), then checks the address the socket is
    connected to before a byte is sent: what the service really reached, whatever routed it."""
    if _allow_private():
        return connect()
    host = connection._dns_host
    connection._dns_host = public_address(host, connection.port)
    sock = connect()
    try:
        check_address(str(sock.getpeername()[0]), host, "was reached at")
    except BaseException:
        sock.close()
        raise
    return sock


class _CheckedHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        return _checked_conn(self, super()._new_conn)


class _CheckedHTTPSConnection(HTTPSConnection):  # TLS still checks the name
    def _new_conn(self) -> socket.socket:
        return _checked_conn(self, super()._new_conn)


class _CheckedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _CheckedHTTPConnection


class _CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _CheckedHTTPSConnection


class _CheckedAdapter(HTTPAdapter):
    """Every connection, redirects' included, goes through the checked connections, straight
    to the platform: never through a proxy, whose connections nothing here would check."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _CheckedHTTPPool,
            "https": _CheckedHTTPSPool,
        }

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        raise OutboundRefused("calls to a platform go straight to it, never through a proxy")


def http() -> requests.Session:
    """The one HTTP session for every call to a platform (key sets, tokens, scores, rosters).
    It reads nothing from the environment (no HTTP_PROXY, no .netrc): what it connects to is
    the platform's checked address alone."""
    session = _Http()
    session.trust_env = False
    session.mount("http://", _CheckedAdapter())
    session.mount("https://", _CheckedAdapter())
    session.headers["User-Agent"] = "alpha-beta-grader (LTI 1.3 tool)"
    return session
