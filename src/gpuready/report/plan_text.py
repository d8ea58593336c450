"""Terminal rendering of a plan."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuready.compat.plan import ContainerOption, Hardware, Plan, ReleaseOption


def hardware_line(hardware: Hardware) -> str:
    """``192 GiB, 5300 GB/s; dense peak TFLOP/s: fp64 163.4, ... (source)``, or '' when the catalogue knows nothing."""
    parts = []
    if hardware.memory_gib:
        parts.append(f"{hardware.memory_gib:g} GiB")
    if hardware.memory_bandwidth_gbps:
        parts.append(f"{hardware.memory_bandwidth_gbps:g} GB/s")
    text = ", ".join(parts)
    if hardware.peak_tflops:
        rates = ", ".join(f"{dtype} {value:g}" for dtype, value in hardware.peak_tflops.items())
        text += ("; " if text else "") + f"dense peak TFLOP/s (int8 TOPS): {rates}"
    if hardware.devices_per_board > 1 and text:
        text += f"; per board, which the OS sees as {hardware.devices_per_board} devices"
    if hardware.source:
        text += f" ({'vendor figures, ' if hardware.confirmed else 'third-party copy of vendor figures, '}" \
                f"{hardware.source})"
    elif text:
        text += " (no vendor peak rates in the catalogue)"
    return text


def container_lines(plan: Plan) -> list[Text]:
    """``Container: IMAGE (ROCm 7.2.4, torch 2.9.1, ubuntu 24.04, Python 3.12)`` and the run lines under it."""
    if not plan.containers:
        return [Text("Container: ", style="bold") + Text("no official image in the data suits it")]
    best: ContainerOption = plan.containers[0]
    about = ", ".join(p for p in (best.platform, best.framework, best.os, f"Python {best.python}" if best.python
                                  else "") if p)
    lines = [Text("Container: ", style="bold") + Text(f"{best.image} ({about})"
                                                      + ("" if best.confirmed else " (unconfirmed)"))]
    for command in best.commands:
        lines.append(Text(f"  {command.line}" + ("" if command.confirmed else
                                                 "  # flags derived, not documented by the vendor"),
                          no_wrap=True, overflow="ignore"))  # a wrapped command line would not paste
    if best.note:
        lines.append(Text(f"  {best.note}", style="dim"))
    if len(plan.containers) > 1:
        lines.append(Text(f"  {len(plan.containers) - 1} more image(s) with --json; source: {best.source}",
                          style="dim"))
    else:
        lines.append(Text(f"  source: {best.source}", style="dim"))
    return lines


def render_plan(plan: Plan) -> RenderableType:
    """Recommendation first, then the releases and the wheels."""
    parts: list[RenderableType] = [
        Text(f"{plan.gpu} ({plan.vendor}, {plan.arch})" + (f" on {plan.os}" if plan.os else ""), style="bold"),
    ]
    if hardware_line(plan.hardware):
        parts.append(Text(hardware_line(plan.hardware), style="dim"))
    parts.append(Text("Recommended: ", style="bold green") + Text(plan.recommendation))
    parts += container_lines(plan)
    if plan.data:
        parts.append(Text(f"Data: {plan.data}", style="dim"))
    if plan.releases:
        table = Table(title="Platform releases that support it (newest of each line; --json lists every release)",
                      title_justify="left")
        for column in ("release", "status", "date", "validated frameworks", "note"):
            table.add_column(column, overflow="fold")
        lines: dict[str, ReleaseOption] = {}
        for release in plan.releases:
            lines.setdefault(f"{release.name} {'.'.join(release.version.split('.')[:2])}", release)
        for option in lines.values():
            listed = option.support in ("", "listed by AMD", "target listed")
            style = "green" if option.status == "supported" and listed else "yellow"
            status = option.status if listed else f"{option.status} ({option.support})"
            table.add_row(f"{option.name} {option.version}", Text(status, style=style), option.date,
                          ", ".join(option.frameworks), option.note)
        parts += [Text(""), table]
        notes = " ".join(option.note for option in lines.values())
        legend = [text for word, text in (
            ("(core)", "(core): a release of AMD's ROCm Core SDK, the production line from ROCm 7.14 on"),
            ("(preview)", "(preview): an AMD TheRock technology preview, built per GPU family; not for production"))
                  if word in notes]
        if legend:
            parts.append(Text("; ".join(legend), style="dim"))
    if plan.wheels:
        table = Table(title="PyTorch wheels with kernels for it (newest first)", title_justify="left")
        for column in ("torch", "variant", "install"):
            table.add_column(column, overflow="fold")
        for wheel in plan.wheels:
            table.add_row(wheel.version, wheel.variant, wheel.install)
        parts += [Text(""), table]
    for note in plan.notes:
        parts.append(Text(note, style="dim"))
    return Group(*parts)
