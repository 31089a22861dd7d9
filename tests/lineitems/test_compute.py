"""Compute: allocated GPU-hours x runs x the price of the market the workload runs on."""

from lineitem_case import MARKETS, assert_figures, plan_yaml

WORKLOADS = [
    # 1,000 ideal hours x 1.5 = 1,500 allocated, x 2 runs = 3,000 hours
    {"id": "stated", "gpu": "H100_SXM", "ideal_gpu_hours": 1000, "utilization": 1.5, "runs": 2},
    # 6 x 1e9 params x 6e11 tokens = 3.6e21 FLOP at 1,000 TFLOP/s = 1,000 hours, / 0.5 MFU = 2,000 hours
    {"id": "flops", "gpu": "H100_SXM", "peak_tflops": 1000, "flops": {"params": 1e9, "tokens": 6e11}, "mfu": 0.5},
    # 10 GPUs x 2 days x 24 = 480 hours
    {"id": "cluster", "gpu": "H100_SXM", "cluster": {"gpus": 10, "days": 2}},
    # reported: 100 hours
    {"id": "reported", "gpu": "H100_SXM", "allocated_gpu_hours": 100},
]
HYBRID = {"id": "mix", "hybrid": {"assign": {"stated": "a", "flops": "b", "cluster": "b", "reported": "b"},
                                  "runs": {"stated": 1}}}


def test_each_way_of_giving_hours_at_each_market_price(tmp_path):
    text = plan_yaml(workloads=WORKLOADS, markets=MARKETS + [HYBRID])
    hours = 3000 + 2000 + 480 + 100
    assert_figures(tmp_path, text, {
        "compute_a": hours * 3, "compute_b": hours * 2,
        # the hybrid runs `stated` once on a (1,500 h x $3) and the rest on b
        "compute_mix": 1500 * 3 + (2000 + 480 + 100) * 2,
    })
