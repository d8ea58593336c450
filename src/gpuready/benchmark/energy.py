"""Energy per step from the vendor library's cumulative counter (NVML on NVIDIA, amdsmi on AMD), when present."""

from __future__ import annotations

from typing import Any


class EnergyMeter:
    """Reads a GPU's cumulative energy counter in joules; ``available`` is False when no library can."""

    def __init__(self, pci_bus_id: str | None, index: int = 0) -> None:
        self.read = self._nvml(pci_bus_id, index) or self._amdsmi(index)

    @property
    def available(self) -> bool:
        """Whether a counter was found."""
        return self.read is not None

    def joules(self) -> float:
        """The counter now."""
        assert self.read is not None
        return float(self.read())

    @staticmethod
    def _nvml(pci_bus_id: str | None, index: int) -> Any:
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id) if pci_bus_id else (
                pynvml.nvmlDeviceGetHandleByIndex(index))
            pynvml.nvmlDeviceGetTotalEnergyConsumption(handle)  # millijoules since driver load; raises if unsupported
        except Exception:  # noqa: BLE001 - no NVML, no counter on this GPU: energy is simply not reported
            return None
        return lambda: pynvml.nvmlDeviceGetTotalEnergyConsumption(handle) / 1e3

    @staticmethod
    def _amdsmi(index: int) -> Any:
        try:
            import amdsmi

            amdsmi.amdsmi_init()
            handle = amdsmi.amdsmi_get_processor_handles()[index]
            amdsmi.amdsmi_get_energy_count(handle)
        except Exception:  # noqa: BLE001 - no amdsmi, no counter: energy is simply not reported
            return None

        def read() -> float:
            count = amdsmi.amdsmi_get_energy_count(handle)
            return float(count["energy_accumulator"]) * float(count["counter_resolution"]) / 1e6

        return read
