"""The RDMA port files under /sys/class/infiniband/<device>/ports/<n>/ (rate, state, link_layer) and the node's network
summary. The kernel writes rate as '<Gb/s> Gb/sec (<width> <speed>)' and state as '<number>: <NAME>'.

'200 Gb/sec (4X HDR)' and '4: ACTIVE' are the values ibstatus (which prints these sysfs files) showed for a
ConnectX-7 (MT4129, firmware 28.40.1000) in a public Chinese InfiniBand guide by Harry Chen found through the code
search; its repository could not be named, so it is quoted here and not kept as a fixture. Tests whose names say
'synthetic' use strings written for the test in the kernel's format."""

from __future__ import annotations

import pytest

from gpuready.errors import ParseError
from gpuready.probe.parse.infiniband import (
    Port,
    PortRate,
    parse_link_layer,
    parse_port_rate,
    parse_port_state,
    summarise_ports,
)


def test_rate_of_an_hdr_port_as_ibstatus_showed_it() -> None:
    assert parse_port_rate("200 Gb/sec (4X HDR)\n") == PortRate(200.0, "4X HDR")
    assert parse_port_state("4: ACTIVE\n") == "ACTIVE"
    assert parse_link_layer("InfiniBand\n") == "infiniband"


@pytest.mark.parametrize(("text", "gbits", "label"), [
    ("400 Gb/sec (4X NDR)\n", 400.0, "4X NDR"),
    ("800 Gb/sec (4X XDR)\n", 800.0, "4X XDR"),
    ("200 Gb/sec (2X NDR)\n", 200.0, "2X NDR"),   # NDR200
    ("2.5 Gb/sec (1X SDR)\n", 2.5, "1X SDR"),
    ("100 Gb/sec (2X NDR)\n", 100.0, "2X NDR"),   # a 100GbE RoCE port: the kernel's nearest IB label
    ("10 Gb/sec\n", 10.0, ""),
])
def test_rates_synthetic(text: str, gbits: float, label: str) -> None:
    assert parse_port_rate(text) == PortRate(gbits, label)


@pytest.mark.parametrize("text", ["", "fast", "400 Gbit/s", "0 Gb/sec (4X NDR)", "Gb/sec (4X NDR)"])
def test_rates_that_are_not_rates_synthetic(text: str) -> None:
    with pytest.raises(ParseError):
        parse_port_rate(text)


def test_states_and_link_layers_synthetic() -> None:
    assert parse_port_state("1: DOWN\n") == "DOWN"
    assert parse_port_state("5: ACTIVE_DEFER") == "ACTIVE_DEFER"
    assert parse_port_state("ACTIVE") == "ACTIVE"
    assert parse_link_layer("Ethernet\n") == "ethernet"
    for bad, parser in (("4 - ACTIVE", parse_port_state), ("Omni-Path", parse_link_layer)):
        with pytest.raises(ParseError):
            parser(bad)


def _port(device: str, kind: str, state: str, gbits: float | None, label: str = "") -> Port:
    return Port(device, 1, kind, state, PortRate(gbits, label) if gbits is not None else None)


def test_eight_ndr_ports_beside_a_roce_storage_port_and_a_down_port_synthetic() -> None:
    ports = [_port(f"mlx5_{i}", "infiniband", "ACTIVE", 400, "4X NDR") for i in range(8)]
    ports += [_port("mlx5_8", "ethernet", "ACTIVE", 100, "2X NDR"), _port("mlx5_9", "infiniband", "DOWN", 10)]
    network = summarise_ports(ports)
    assert network is not None
    assert (network.kind, network.rate_gbits, network.active_ports, network.label) == ("infiniband", 400, 8, "4X NDR")


def test_a_roce_node_is_ethernet_and_no_active_port_is_no_network_synthetic() -> None:
    roce = summarise_ports([_port("mlx5_0", "ethernet", "ACTIVE", 400), _port("mlx5_1", "ethernet", "ACTIVE", 400)])
    assert roce is not None and (roce.kind, roce.rate_gbits, roce.active_ports) == ("ethernet", 400, 2)
    assert summarise_ports([_port("mlx5_0", "infiniband", "DOWN", 400), _port("mlx5_1", "infiniband", "ACTIVE", None)]
                           ) is None
    assert summarise_ports([]) is None
