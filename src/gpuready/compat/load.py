"""Load and validate a compatibility data set (a directory of YAML files); errors name the file and the key."""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from gpuready.compat.schema import (
    PEAK_DTYPES,
    ContainerData,
    CudaData,
    ErrorData,
    GpuCatalogue,
    JaxData,
    LinkData,
    RocmData,
    TorchData,
)
from gpuready.errors import SchemaError
from gpuready.files import read_yaml
from gpuready.model.codec import from_dict

T = TypeVar("T")

DEFAULT_DATA = Path(__file__).with_name("data")
DATA_ENV = "GPUREADY_DATA"
"""An environment variable naming a data directory to use instead of the bundled set (``--data`` wins over it)."""
STALE_AFTER_DAYS = 60
UPDATE_COMMAND = "gpuready data update"
UPDATE_HINT = (f"run `{UPDATE_COMMAND}` (it writes a new data set and a diff beside it), then use it with --data DIR "
               f"or {DATA_ENV}=DIR")
MAX_DATA_FILE_BYTES = 32 * 2**20
_ARCH = re.compile(r"^(gfx[0-9a-f]{3,4}|sm_\d{2,3}[af]?)$")


@dataclass(frozen=True)
class Dataset:
    """Every compatibility file of one data set."""

    directory: str
    gpus: GpuCatalogue
    rocm: RocmData
    torch: TorchData
    cuda: CudaData
    jax: JaxData
    links: LinkData
    errors: ErrorData
    containers: ContainerData

    @property
    def as_of(self) -> datetime.date:
        """The oldest ``as_of`` of its files: the data set is as fresh as its stalest part."""
        return min(self.gpus.as_of, self.rocm.as_of, self.torch.as_of, self.cuda.as_of, self.jax.as_of,
                   self.links.as_of, self.containers.as_of)

    def age_days(self, today: datetime.date) -> int:
        """Days since ``as_of``."""
        return (today - self.as_of).days


FILES: dict[str, type[Any]] = {
    "gpus.yaml": GpuCatalogue,
    "rocm.yaml": RocmData,
    "torch.yaml": TorchData,
    "cuda.yaml": CudaData,
    "jax.yaml": JaxData,
    "links.yaml": LinkData,
    "errors.yaml": ErrorData,
    "containers.yaml": ContainerData,
}


def _read_yaml(path: Path) -> Any:
    if not path.exists():
        raise SchemaError("missing data file", source=str(path))
    return read_yaml(path, MAX_DATA_FILE_BYTES, "data file", SchemaError)


def load_file(path: Path, cls: type[T]) -> T:
    """Read one YAML file into its dataclass and check what types alone cannot."""
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise SchemaError("expected a mapping at the top level", source=str(path), field="$")
    value = from_dict(cls, data, source=str(path))
    _check_entries(value, str(path))
    return value


def _entries(value: Any, path: str) -> Iterable[tuple[str, Any]]:
    for name in ("gpus", "releases", "driver_compat", "toolkits", "arch_support", "rocm", "links", "images", "runs"):
        for index, entry in enumerate(getattr(value, name, ()) or ()):
            yield f"$.{name}[{index}]", entry


def _check_rates(entry: Any, path: str, where: str) -> None:
    for dtype, tflops in (getattr(entry, "peak_tflops", None) or {}).items():
        if dtype not in PEAK_DTYPES:
            raise SchemaError(f"expected one of {', '.join(PEAK_DTYPES)}, got {dtype!r}", source=path,
                              field=f"{where}.peak_tflops")
        if not isinstance(tflops, int | float) or isinstance(tflops, bool) or not tflops > 0:
            raise SchemaError(f"expected a positive number of TFLOP/s, got {tflops!r}", source=path,
                              field=f"{where}.peak_tflops.{dtype}")
    bandwidth = getattr(entry, "memory_bandwidth_gbps", None)
    if bandwidth is not None and not bandwidth > 0:
        raise SchemaError(f"expected a positive GB/s, got {bandwidth!r}", source=path,
                          field=f"{where}.memory_bandwidth_gbps")
    devices = getattr(entry, "devices_per_board", 1)
    if not isinstance(devices, int) or isinstance(devices, bool) or devices < 1:
        raise SchemaError(f"expected a whole number of devices, 1 or more, got {devices!r}", source=path,
                          field=f"{where}.devices_per_board")
    if getattr(entry, "rates_source", None) and getattr(entry, "rates_read", None) is None:
        raise SchemaError("rates_source needs rates_read (the date the rates were read)", source=path,
                          field=f"{where}.rates_read")


_OS_VERSION = re.compile(r"^[a-z]+ \d+(\.\d+)*$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_FRAMEWORKS = ("", "torch", "jax", "vllm")
_ENGINES = ("docker", "podman")


def _check_container(entry: Any, path: str, where: str) -> None:
    """An image's digest, framework and OS spelling; a run line's engine and flags."""
    digest = getattr(entry, "digest", None)
    if digest and not _DIGEST.match(digest):
        raise SchemaError(f"expected a digest like sha256:<64 hex digits>, got {digest!r}", source=path,
                          field=f"{where}.digest")
    framework = getattr(entry, "framework", None)
    if isinstance(framework, str) and hasattr(entry, "tag") and framework not in _FRAMEWORKS:
        raise SchemaError(f"expected one of {', '.join(repr(f) for f in _FRAMEWORKS)}, got {framework!r}",
                          source=path, field=f"{where}.framework")
    os_name = getattr(entry, "os", None)
    if isinstance(os_name, str) and hasattr(entry, "tag") and os_name and not _OS_VERSION.match(os_name):
        raise SchemaError(f"expected an OS as 'id version' (e.g. 'ubuntu 24.04'), got {os_name!r}", source=path,
                          field=f"{where}.os")
    engine = getattr(entry, "engine", None)
    if engine is not None:
        if engine not in _ENGINES:
            raise SchemaError(f"expected one of {', '.join(_ENGINES)}, got {engine!r}", source=path,
                              field=f"{where}.engine")
        if not entry.flags or any(not flag.strip() for flag in entry.flags):
            raise SchemaError("expected the run flags, one token each", source=path, field=f"{where}.flags")


def _check_limits(entry: Any, path: str, where: str) -> None:
    """Restrictions in both directions and the product list: names present, OS versions spelled ``id version``."""
    rows = getattr(entry, "os", ())
    for i, row in enumerate(rows if isinstance(rows, tuple) else ()):
        if any(not name.strip() for name in row.only_on_gpus):
            raise SchemaError("expected product names", source=path, field=f"{where}.os[{i}].only_on_gpus")
    for i, restriction in enumerate(getattr(entry, "gpu_restrictions", ()) or ()):
        if not restriction.products or any(not name.strip() for name in restriction.products):
            raise SchemaError("expected product names", source=path, field=f"{where}.gpu_restrictions[{i}].products")
        for j, os_version in enumerate(restriction.only_on_os):
            if not _OS_VERSION.match(os_version):
                raise SchemaError(f"expected an OS as 'id version' (e.g. 'ubuntu 24.04'), got {os_version!r}",
                                  source=path, field=f"{where}.gpu_restrictions[{i}].only_on_os[{j}]")
        if restriction.source is not None and not restriction.source.startswith("https://"):
            raise SchemaError(f"source must be an https:// URL, got {restriction.source!r}", source=path,
                              field=f"{where}.gpu_restrictions[{i}].source")
    products = getattr(entry, "gpus", ()) or ()
    if any(not isinstance(name, str) or not name.strip() for name in products):
        raise SchemaError("expected product names", source=path, field=f"{where}.gpus")
    if len(set(products)) != len(products):
        raise SchemaError("a product is listed twice", source=path, field=f"{where}.gpus")
    gpus_source = getattr(entry, "gpus_source", None)
    if gpus_source is not None and not gpus_source.startswith("https://"):
        raise SchemaError(f"gpus_source must be an https:// URL, got {gpus_source!r}", source=path,
                          field=f"{where}.gpus_source")


def _entry_key(entry: Any) -> str:
    """What must be unique within a file: a product name, a version, an image reference, an engine per vendor ..."""
    if hasattr(entry, "reference"):
        return str(entry.reference)
    if hasattr(entry, "engine"):
        return f"{entry.vendor.value} {entry.engine}"
    return str(getattr(entry, "name", None) or getattr(entry, "version", None) or getattr(entry, "driver", None)
               or getattr(entry, "jax", None) or getattr(entry, "cuda_major", None)
               or f"{getattr(entry, 'generation', '')} {getattr(entry, 'gpus', '')}")


def _check_entries(value: Any, path: str) -> None:
    keys: dict[str, str] = {}
    for where, entry in _entries(value, path):
        for source_field in ("source", "rates_source"):
            source = getattr(entry, source_field, None)
            if source is not None and not str(source).startswith("https://"):
                raise SchemaError(f"{source_field} must be an https:// URL, got {source!r}", source=path,
                                  field=f"{where}.{source_field}")
        _check_rates(entry, path, where)
        for arch_field in ("arch", "min_arch"):
            arch = getattr(entry, arch_field, None)
            if isinstance(arch, str) and not _ARCH.match(arch):
                raise SchemaError(f"expected a target like gfx942 or sm_90, got {arch!r}", source=path,
                                  field=f"{where}.{arch_field}")
        for list_field in ("targets", "deprecated_targets", "dropped", "deprecated"):
            for i, arch in enumerate(getattr(entry, list_field, ()) or ()):
                if not _ARCH.match(arch):
                    raise SchemaError(f"expected a target like gfx942 or sm_90, got {arch!r}", source=path,
                                      field=f"{where}.{list_field}[{i}]")
        _check_limits(entry, path, where)
        _check_container(entry, path, where)
        for i, variant in enumerate(getattr(entry, "variants", ()) or ()):
            if variant.source is not None and not variant.source.startswith("https://"):
                raise SchemaError(f"source must be an https:// URL, got {variant.source!r}", source=path,
                                  field=f"{where}.variants[{i}].source")
            if variant.source and variant.read is None:
                raise SchemaError("a variant's source needs read (the date it was read)", source=path,
                                  field=f"{where}.variants[{i}].read")
            for j, arch in enumerate(variant.arch_list):
                if not _ARCH.match(arch):
                    raise SchemaError(f"expected a target like gfx942 or sm_90, got {arch!r}", source=path,
                                      field=f"{where}.variants[{i}].arch_list[{j}]")
        key = _entry_key(entry)
        if key in keys and not where.startswith("$.arch_support"):
            raise SchemaError(f"duplicate entry {key!r} (also at {keys[key]})", source=path, field=where)
        keys[key] = where


def load_dataset(directory: Path | None = None) -> Dataset:
    """Load every data file from ``directory`` (the bundled data set by default)."""
    root = directory or (Path(os.environ[DATA_ENV]) if os.environ.get(DATA_ENV) else DEFAULT_DATA)
    if not root.is_dir():
        raise SchemaError("not a directory of gpuready compatibility data", source=str(root))
    loaded = {name: load_file(root / name, cls) for name, cls in FILES.items()}
    return Dataset(
        directory=str(root),
        gpus=loaded["gpus.yaml"],
        rocm=loaded["rocm.yaml"],
        torch=loaded["torch.yaml"],
        cuda=loaded["cuda.yaml"],
        jax=loaded["jax.yaml"],
        links=loaded["links.yaml"],
        errors=loaded["errors.yaml"],
        containers=loaded["containers.yaml"],
    )


if __name__ == "__main__":
    import sys

    for argument in sys.argv[1:]:
        file = Path(argument)
        try:
            loaded = load_file(file, FILES[file.name])
        except SchemaError as failure:
            print(f"INVALID {failure}")
            raise SystemExit(2) from failure
        except KeyError:
            raise SystemExit(f"{file}: the file name must be one of {', '.join(FILES)}") from None
        count = sum(1 for _ in _entries(loaded, str(file)))
        print(f"ok {file}: {count} entries, as_of {loaded.as_of}")


def data_summary(dataset: Dataset, today: datetime.date) -> dict[str, object]:
    """What ``gpuready data validate`` reports about a data set."""
    age = dataset.age_days(today)
    return {"directory": dataset.directory, "as_of": dataset.as_of.isoformat(), "age_days": age,
            "stale": age > STALE_AFTER_DAYS, "products_listed": sum(1 for r in dataset.rocm.releases if r.gpus),
            "gpus": len(dataset.gpus.gpus),
            "rocm_releases": len(dataset.rocm.releases),
            "torch_releases": len(dataset.torch.releases), "cuda_toolkits": len(dataset.cuda.toolkits),
            "jax_rocm_pairings": len(dataset.jax.rocm), "links": len(dataset.links.links),
            "container_images": len(dataset.containers.images)}
