"""NVML and amdsmi are asked in a real child process; here they are stand-in modules (synthetic test doubles with
the same call names, not recorded output), so the child code and the parent's reading of it run for real."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gpuready.model import FactStatus
from gpuready.probe import LocalSystem, collect_fingerprint
from gpuready.probe.system import ReplaySystem

FAKE_PYNVML = '''
class _Pci:
    busId = b"00000000:18:00.0"
class _Mem:
    total = 85899345920
def nvmlInit(): pass
def nvmlShutdown(): pass
def nvmlSystemGetCudaDriverVersion_v2(): return 12040
def nvmlSystemGetDriverVersion(): return "550.54.15"
def nvmlDeviceGetCount(): return 1
def nvmlDeviceGetHandleByIndex(i): return i
def nvmlDeviceGetName(h): return "NVIDIA H100 80GB HBM3"
def nvmlDeviceGetUUID(h): return "GPU-synthetic"
def nvmlDeviceGetPciInfo(h): return _Pci()
def nvmlDeviceGetMemoryInfo(h): return _Mem()
def nvmlDeviceGetCudaComputeCapability(h): raise RuntimeError("not supported")
'''

FAKE_AMDSMI = '''
def amdsmi_init(): pass
def amdsmi_shut_down(): pass
def amdsmi_get_processor_handles(): return ["h0"]
def amdsmi_get_gpu_asic_info(h):
    return {"market_name": "AMD Instinct MI300X", "target_graphics_version": "gfx942", "device_id": 29857,
            "num_compute_units": 304}
def amdsmi_get_gpu_vram_info(h): return {"vram_size": 196592}
def amdsmi_get_gpu_device_bdf(h): return "0000:1B:00.0"
def amdsmi_get_gpu_device_uuid(h): return "synthetic-uuid"
def amdsmi_get_gpu_driver_info(h): return {"driver_version": "6.8.5"}
'''


class LibrariesOnly(LocalSystem):
    """This machine, but with the vendor libraries 'installed' and no tools or files."""

    def __init__(self, installed: list[tuple[str, str]]) -> None:
        self.installed = installed
        self.empty = ReplaySystem()

    def distributions(self) -> list[tuple[str, str]]:
        return self.installed

    def read_text(self, path: str) -> str | None:
        return None

    def glob(self, pattern: str) -> list[str]:
        return []

    def run(self, argv, timeout_s=20.0):  # type: ignore[no-untyped-def]
        if argv[:2] == [self.python_executable(), "-m"]:
            return super().run(argv, timeout_s)
        return self.empty.run(argv, timeout_s)


@pytest.fixture()
def fake_libraries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pynvml.py").write_text(textwrap.dedent(FAKE_PYNVML))
    (tmp_path / "amdsmi.py").write_text(textwrap.dedent(FAKE_AMDSMI))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return tmp_path


def test_nvml_and_amdsmi_facts_through_real_children(fake_libraries: Path) -> None:
    system = LibrariesOnly([("nvidia-ml-py", "12.550"), ("amdsmi", "6.2")])
    fp = collect_fingerprint(system, redact_identifiers=False)
    assert [(d.index, d.vendor.value, d.name.value) for d in fp.devices] == [
        (0, "amd", "AMD Instinct MI300X"), (1, "nvidia", "NVIDIA H100 80GB HBM3")]
    amd, nvidia = fp.devices
    assert (amd.arch.value, amd.memory_bytes.value, amd.pci_device_id.value) == ("gfx942", 196592 * 2**20, "0x74a1")
    assert amd.sources == ("amdsmi",)
    assert nvidia.pci_bus.value == "00000000:18:00.0" and nvidia.memory_bytes.value == 85899345920
    assert nvidia.arch.status is FactStatus.ABSENT, "a query the device does not support loses only that field"
    assert fp.stack.cuda_driver_version.value == "12.4"
    assert str(fp.stack.nvidia_driver_version.value) == "550.54.15"


def test_a_library_that_fails_is_a_note(fake_libraries: Path) -> None:
    (fake_libraries / "pynvml.py").write_text("def nvmlInit():\n    raise OSError('NVML Shared Library Not Found')\n")
    fp = collect_fingerprint(LibrariesOnly([("nvidia-ml-py", "12.550")]))
    notes = [n for n in fp.probes if n.name == "nvml"]
    assert notes and notes[0].fact.status is FactStatus.ERROR
    assert "NVML Shared Library Not Found" in notes[0].fact.detail
    assert fp.devices == ()
