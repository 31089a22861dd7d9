"""GPU catalog: peak dense BF16 throughput (no 2:4 sparsity), each with its source.

Source: vendor datasheets, as collected in shared/reference/published-runs.md
(read 2026-11-30). Many public tables quote the sparse figure, twice these.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gpu:
    id: str
    name: str
    dense_bf16_tflops: float
    source: str


AS_OF = "2026-11-30"

CATALOG: dict[str, Gpu] = {
    gpu.id: gpu
    for gpu in (
        Gpu("A100", "NVIDIA A100 SXM 80GB", 312.0, "NVIDIA A100 datasheet"),
        Gpu("H100_SXM", "NVIDIA H100 SXM", 989.0, "NVIDIA H100 datasheet"),
        Gpu("H100_PCIE", "NVIDIA H100 PCIe", 756.0, "NVIDIA H100 datasheet"),
        Gpu("H800", "NVIDIA H800 SXM", 989.0, "same compute as H100 SXM, reduced NVLink (NVIDIA)"),
        Gpu("H200", "NVIDIA H200 SXM", 989.0, "NVIDIA H200 datasheet"),
        Gpu("B200", "NVIDIA B200", 2250.0, "NVIDIA Blackwell datasheet"),
        Gpu("MI300X", "AMD Instinct MI300X", 1307.0, "AMD Instinct MI300X datasheet"),
    )
}

MFU_WARNING = 0.6
