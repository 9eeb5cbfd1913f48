"""Machines on a private network, for partition tests: network namespaces behind a router
namespace, whose links a test can cut and restore.

```
root namespace (servers listen on `PrivateNetwork.server_address`)
   └─ veth ─ router namespace ─┬─ veth ─ host 0 namespace
                               └─ veth ─ host 1 namespace …
```

Every link is a veth pair on its own /30 of 10.213.0.0/16. Cutting a host adds two `blackhole`
rules in the router: whatever the host sends, and whatever is sent to it, vanishes there without
a word. The host's own link stays up and its next hop keeps answering ARP, so, as in a real
partition, neither end hears of a failure: its TCP connections just stop being answered and back
off. (Taking a veth down makes the drops local, and TCP then retries without the long backoff: a
worker was back 1 s after a 40 s cut, which hid a real problem in a first version of the test.)
Needs root (CAP_NET_ADMIN); `private_network` raises `NamespacesUnavailable` when namespaces
cannot be made.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field

_POOL = ipaddress.IPv4Network("10.213.0.0/16")
_BLOCKS = list(_POOL.subnets(new_prefix=30))
_CUT_PRIORITY = "100"  # after the router's `local` rule (0), before its main table (32766)


class NamespacesUnavailable(RuntimeError):
    """This process may not create network namespaces (not root, no CAP_NET_ADMIN, no `ip`)."""


def _ip(*args: str) -> str:
    return subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30).stdout


def _in(namespace: str, *args: str) -> None:
    _ip("-n", namespace, *args)


@dataclass(frozen=True)
class Host:
    """A namespace that reaches the root namespace through the router."""

    namespace: str
    network: ipaddress.IPv4Network
    router: str
    """The router's namespace."""
    router_end: str
    """The router's end of this host's link."""

    @property
    def wrapper(self) -> list[str]:
        """A command prefix that runs a command on this host."""
        return ["ip", "netns", "exec", self.namespace]

    def _cut_rules(self) -> list[list[str]]:
        common = ["priority", _CUT_PRIORITY, "blackhole"]
        return [["iif", self.router_end, *common], ["to", str(self.network), *common]]

    def cut(self) -> None:
        """Partition the host: its packets, and packets to it, are dropped silently in the router."""
        for rule in self._cut_rules():
            _in(self.router, "rule", "add", *rule)

    def restore(self) -> None:
        """Reconnect the host: the router forwards its packets again."""
        for rule in self._cut_rules():
            _in(self.router, "rule", "del", *rule)


@dataclass
class PrivateNetwork:
    """The router, its hosts and the root namespace's uplink; `remove` deletes all of them."""

    prefix: str
    uplink: ipaddress.IPv4Network
    hosts: list[Host] = field(default_factory=list)
    namespaces: list[str] = field(default_factory=list)

    @property
    def router(self) -> str:
        return f"{self.prefix}-router"

    @property
    def server_address(self) -> str:
        """The root namespace's address on the uplink: where servers the hosts use listen."""
        return str(self.uplink[1])

    @property
    def root_end(self) -> str:
        return f"{self.prefix}u"

    def _add_namespace(self, name: str) -> None:
        _ip("netns", "add", name)
        self.namespaces.append(name)
        _in(name, "link", "set", "lo", "up")

    def _add_link(
        self, network: ipaddress.IPv4Network, near: str, far: str, far_namespace: str, near_namespace: str | None
    ) -> None:
        """A veth pair on `network`: `near` (.1) in `near_namespace` (root when None), `far` (.2)."""
        near_args = ["-n", near_namespace] if near_namespace else []
        _ip(*near_args, "link", "add", near, "type", "veth", "peer", "name", far, "netns", far_namespace)
        _ip(*near_args, "addr", "add", f"{network[1]}/{network.prefixlen}", "dev", near)
        _in(far_namespace, "addr", "add", f"{network[2]}/{network.prefixlen}", "dev", far)
        _ip(*near_args, "link", "set", near, "up")
        _in(far_namespace, "link", "set", far, "up")

    def build(self, networks: list[ipaddress.IPv4Network]) -> None:
        try:
            self._add_namespace(self.router)
        except (OSError, subprocess.CalledProcessError) as exc:
            detail = exc.stderr.strip() if isinstance(exc, subprocess.CalledProcessError) else str(exc)
            raise NamespacesUnavailable(f"cannot create a network namespace (root / CAP_NET_ADMIN?): {detail}") from exc
        _ip("netns", "exec", self.router, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward")
        self._add_link(self.uplink, self.root_end, f"{self.prefix}d", self.router, None)
        for index, network in enumerate(networks):
            host = Host(f"{self.prefix}-host{index}", network, self.router, f"{self.prefix}r{index}")
            self._add_namespace(host.namespace)
            self._add_link(network, host.router_end, f"{self.prefix}h{index}", host.namespace, self.router)
            _in(host.namespace, "route", "add", str(self.uplink), "via", str(network[1]))
            _ip("route", "add", str(network), "via", str(self.uplink[2]))
            self.hosts.append(host)

    def remove(self) -> None:
        """Delete every namespace (and so every veth pair and route through them)."""
        for name in reversed(self.namespaces):
            with contextlib.suppress(subprocess.CalledProcessError):
                _ip("netns", "delete", name)
        with contextlib.suppress(subprocess.CalledProcessError):
            _ip("link", "delete", self.root_end)


def _networks_in_use() -> set[ipaddress.IPv4Network]:
    """Every /30 of the pool that an address or route of the root namespace already touches."""
    listing = _ip("-4", "-o", "addr", "show") + _ip("-4", "route", "show", "table", "all")
    used: set[ipaddress.IPv4Network] = set()
    for word in listing.split():
        with contextlib.suppress(ValueError):
            network = ipaddress.IPv4Network(word, strict=False)
            if network.overlaps(_POOL):
                used.update(b for b in _BLOCKS if b.overlaps(network))
    return used


def _free_networks(count: int) -> list[ipaddress.IPv4Network]:
    """`count` unused /30s, from a pid-derived start so that concurrent test runs pick apart."""
    used = _networks_in_use()
    start = os.getpid() * count
    found: list[ipaddress.IPv4Network] = []
    for offset in range(len(_BLOCKS)):
        block = _BLOCKS[(start + offset) % len(_BLOCKS)]
        if block not in used:
            found.append(block)
            if len(found) == count:
                return found
    raise RuntimeError(f"no free /30 left in {_POOL}")


@contextlib.contextmanager
def private_network(hosts: int) -> Iterator[PrivateNetwork]:
    """A router and `hosts` host namespaces; all removed afterwards, whatever happened."""
    if shutil.which("ip") is None:
        raise NamespacesUnavailable("the `ip` command (iproute2) is not installed")
    uplink, *networks = _free_networks(hosts + 1)
    network = PrivateNetwork(f"oq{os.getpid()}", uplink)
    try:
        network.build(networks)
        yield network
    finally:
        network.remove()
