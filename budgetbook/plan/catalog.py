"""GPU catalog: peak dense throughput (no 2:4 sparsity) at BF16 and FP8, memory, each with its source.

Source: vendor datasheets (the first seven as collected in shared/reference/published-runs.md,
read 2026-11-30; the others read 2026-12-01). Many public tables quote the sparse figure, twice
these: NVIDIA's datasheets mark it with an asterisk ("with sparsity"); the dense figure is half.
`budgetbook gpus` lists the catalog.

Ids are what a plan writes as `gpu:` (and as a market's `gpu_prices` key); `lookup` also takes the
names people write (`H100`, `A100-80GB`, `gaudi3`), case and `-`/`_`/space aside.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Gpu:
    id: str
    name: str
    dense_bf16_tflops: float
    source: str
    dense_fp8_tflops: float | None = None   # None: no FP8 tensor cores
    memory_gb: float = 0.0
    aliases: tuple[str, ...] = ()
    as_of: str = "2026-11-30"
    # HBM bandwidth (decimal GB/s): what bounds decoding when serving (`lineitems/serving_physics.py`)
    memory_gb_per_s: float = 0.0
    bandwidth_source: str = ""
    tdp_w: float | None = None              # max thermal design power, watts (TDP below); None: not published

    def peak(self, precision: str) -> float | None:
        """Dense peak TFLOP/s at `bf16` or `fp8`; None where the GPU has no FP8."""
        return self.dense_fp8_tflops if precision == "fp8" else self.dense_bf16_tflops


AS_OF = "2026-12-01"
PRECISIONS = ("bf16", "fp8")

CATALOG: dict[str, Gpu] = {
    gpu.id: gpu
    for gpu in (
        Gpu("A100", "NVIDIA A100 SXM 80GB", 312.0, "NVIDIA A100 datasheet (312 dense BF16; no FP8)",
            None, 80, ("A100_80GB", "A100_SXM", "A100_SXM4")),
        Gpu("A100_40GB", "NVIDIA A100 SXM 40GB", 312.0, "NVIDIA A100 datasheet (312 dense BF16; no FP8)",
            None, 40, ("A100_SXM4_40GB",), "2026-12-01"),
        Gpu("H100_SXM", "NVIDIA H100 SXM", 989.0, "NVIDIA H100 datasheet (BF16 1,979 / FP8 3,958 with sparsity)",
            1979.0, 80, ("H100", "H100_SXM5", "H100_80GB")),
        Gpu("H100_PCIE", "NVIDIA H100 PCIe", 756.0, "NVIDIA H100 datasheet (BF16 1,513 / FP8 3,026 with sparsity)",
            1513.0, 80),
        Gpu("H100_NVL", "NVIDIA H100 NVL", 835.0, "NVIDIA H100 datasheet (BF16 1,671 / FP8 3,341 with sparsity)",
            1671.0, 94, (), "2026-12-01"),
        Gpu("H800", "NVIDIA H800 SXM", 989.0, "same compute as H100 SXM, reduced NVLink (NVIDIA)", 1979.0, 80,
            ("H800_SXM",)),
        Gpu("H200", "NVIDIA H200 SXM", 989.0, "NVIDIA H200 datasheet (same compute as H100 SXM)", 1979.0, 141,
            ("H200_SXM",)),
        Gpu("B200", "NVIDIA B200", 2250.0, "NVIDIA Blackwell datasheet (HGX B200: BF16 2.25 / FP8 4.5 PFLOPS dense)",
            4500.0, 180),
        Gpu("GB200", "NVIDIA GB200 (one Blackwell GPU of an NVL72)", 2500.0,
            "NVIDIA GB200 NVL72 datasheet (BF16 360 / FP8 720 PFLOPS per 72 GPUs with sparsity; 13.4 TB HBM3e)",
            5000.0, 186, ("GB200_NVL72",), "2026-12-01"),
        Gpu("L40S", "NVIDIA L40S", 362.0, "NVIDIA L40S datasheet (BF16 362 | 733 with sparsity; FP8 733 | 1,466)",
            733.0, 48, (), "2026-12-01"),
        Gpu("V100", "NVIDIA V100 SXM2 32GB", 125.0,
            "NVIDIA V100 datasheet (125 FP16 tensor TFLOPS: V100 has no BF16, FP16 is its mixed precision)",
            None, 32, ("V100_SXM2", "V100_32GB"), "2026-12-01"),
        Gpu("MI250X", "AMD Instinct MI250X", 383.0, "AMD Instinct MI250X datasheet (383 BF16, no sparsity; no FP8)",
            None, 128, (), "2026-12-01"),
        Gpu("MI300X", "AMD Instinct MI300X", 1307.0, "AMD Instinct MI300X datasheet (BF16 1,307.4 / FP8 2,614.9 dense)",
            2614.9, 192),
        Gpu("MI325X", "AMD Instinct MI325X", 1307.4,
            "AMD Instinct MI325X datasheet (BF16 1,307.4 / FP8 2,614.9 dense, 256 GB HBM3E)",
            2614.9, 256, (), "2026-12-01"),
        Gpu("TPU_v5p", "Google Cloud TPU v5p (one chip)", 459.0,
            "Google Cloud TPU v5p documentation (459 BF16 TFLOPS, 918 INT8 TOPS, 95 GB HBM2e; no FP8)",
            None, 95, ("TPUv5p", "TPU_V5P"), "2026-12-01"),
        Gpu("Gaudi3", "Intel Gaudi 3", 1835.0,
            "Intel Gaudi 3 white paper (1,835 TFLOPS BF16 and FP8 matrix, 128 GB HBM2e)", 1835.0, 128,
            ("Gaudi_3", "HL_325L"), "2026-12-01"),
    )
}

# HBM bandwidth per GPU, decimal GB/s (1 TB/s = 1,000 GB/s): each vendor's published datasheet figure,
# entered 2026-12-02 (each entry names its datasheet). Re-checked 2026-12-02, bandwidth and memory, against
# copies of the vendors' pages: NVIDIA H100 datasheet (SXM 80 GB 3.35 TB/s, PCIe 80 GB 2 TB/s, NVL 94 GB
# 3.9 TB/s), H100 PCIe product brief PB-11133-001_v02 (">2,000 GBps"), H200 (141 GB, 4.8 TB/s), DGX B200
# (1,440 GB and 64 TB/s for 8 GPUs: 180 GB, 8 TB/s each), GB200 NVL72 (13.4 TB, 576 TB/s for 72), L40S
# datasheet (48 GB GDDR6, 864 GB/s), AMD MI250X (128 GB, 3.2768 TB/s), MI300X (192 GB, 5.3 TB/s), MI325X
# (256 GB, 6 TB/s), cloud.google.com/tpu/docs/v5p (95 GB, 2,765 GBps), Intel Gaudi 3 (128 GB, 3.7 TB/s):
# every figure agrees; none changed. A100 80/40 GB (2,039 / 1,555 GB/s) and V100 SXM2 (900 GB/s) are the
# A100 and V100 datasheets' own table rows.
BANDWIDTH_AS_OF = "2026-12-02"
BANDWIDTH: dict[str, tuple[float, str]] = {
    "A100": (2039.0, "NVIDIA A100 datasheet: 80GB SXM, HBM2e 2,039 GB/s"),
    "A100_40GB": (1555.0, "NVIDIA A100 datasheet: 40GB SXM, HBM2 1,555 GB/s"),
    "H100_SXM": (3350.0, "NVIDIA H100 datasheet: SXM, HBM3 3.35 TB/s"),
    "H100_PCIE": (2000.0, "NVIDIA H100 datasheet: PCIe, HBM2e 2 TB/s"),
    "H100_NVL": (3900.0, "NVIDIA H100 datasheet: NVL, HBM3 3.9 TB/s"),
    "H800": (3350.0, "NVIDIA H800 SXM: the H100 SXM's HBM3, 3.35 TB/s"),
    "H200": (4800.0, "NVIDIA H200 datasheet: HBM3e 4.8 TB/s"),
    "B200": (8000.0, "NVIDIA HGX B200 datasheet: HBM3e 8 TB/s per GPU"),
    "GB200": (8000.0, "NVIDIA GB200 NVL72 datasheet: 576 TB/s HBM3e per 72 GPUs"),
    "L40S": (864.0, "NVIDIA L40S datasheet: GDDR6 864 GB/s"),
    "V100": (900.0, "NVIDIA V100 datasheet: SXM2, HBM2 900 GB/s"),
    "MI250X": (3276.8, "AMD Instinct MI250X datasheet: HBM2e 3.2768 TB/s"),
    "MI300X": (5300.0, "AMD Instinct MI300X datasheet: HBM3 5.3 TB/s"),
    "MI325X": (6000.0, "AMD Instinct MI325X datasheet: HBM3E 6 TB/s"),
    "TPU_v5p": (2765.0, "Google Cloud TPU v5p documentation: 2,765 GB/s HBM per chip"),
    "Gaudi3": (3700.0, "Intel Gaudi 3 white paper: HBM2e 3.7 TB/s"),
}
CATALOG = {gpu_id: replace(gpu, memory_gb_per_s=BANDWIDTH[gpu_id][0],
                           bandwidth_source=f"{BANDWIDTH[gpu_id][1]} (entered {BANDWIDTH_AS_OF})")
           for gpu_id, gpu in CATALOG.items()}
# Max TDP in watts, from the vendors' datasheets (read 2026-12-02): NVIDIA A100 SXM 400 W; H100 SXM 700 W,
# PCIe 350 W, NVL 400 W; H800 SXM 700 W; H200 SXM 700 W; HGX B200 1,000 W per GPU; GB200 NVL72 1,200 W per
# GPU; L40S 350 W; V100 SXM2 300 W; AMD MI250X 560 W, MI300X 750 W, MI325X 1,000 W; Intel Gaudi 3 (HL-325L
# OAM) 900 W. Google publishes no TPU v5p chip TDP: an owned TPU needs `tdp_w`.
TDP_SOURCE = "vendor datasheets (max TDP), read 2026-12-02"
_TDP_W = {"A100": 400.0, "A100_40GB": 400.0, "H100_SXM": 700.0, "H100_PCIE": 350.0, "H100_NVL": 400.0,
          "H800": 700.0, "H200": 700.0, "B200": 1000.0, "GB200": 1200.0, "L40S": 350.0, "V100": 300.0,
          "MI250X": 560.0, "MI300X": 750.0, "MI325X": 1000.0, "Gaudi3": 900.0}
CATALOG = {gpu_id: replace(gpu, tdp_w=_TDP_W.get(gpu_id)) for gpu_id, gpu in CATALOG.items()}

MFU_WARNING = 0.6


def _key(name: str) -> str:
    return name.upper().replace("-", "_").replace(" ", "_")


_BY_KEY: dict[str, Gpu] = {}
for _gpu in CATALOG.values():
    for _name in (_gpu.id, *_gpu.aliases):
        _BY_KEY.setdefault(_key(_name), _gpu)


def lookup(name: str) -> Gpu | None:
    """The catalog entry of a GPU as a plan names it (an id or an alias, any case); None if not in it."""
    return _BY_KEY.get(_key(name))


def plan_spelling(name: str) -> str | None:
    """The id to write in a plan for a name people write (`A100-40GB` -> `A100_40GB`), if the catalog knows it."""
    gpu = lookup(name)
    return None if gpu is None else gpu.id
