"""Peak resident memory for the benchmarks (Linux /proc): read it, and reset its mark."""

from __future__ import annotations

import contextlib
from pathlib import Path


def status_mb(field: str) -> float:
    """A /proc/self/status memory field (VmRSS, VmHWM) in MB; NaN where there is none."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> float:
    """Reset the peak-RSS mark (Linux clear_refs) and return the current RSS in MB."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    return status_mb("VmRSS")
