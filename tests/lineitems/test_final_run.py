"""Final-run compute: the compute of the workloads marked final_run, beside the total, never added to it."""

from lineitem_case import assert_figures, plan_yaml


def test_final_run_is_inside_compute_and_beside_the_total(tmp_path):
    workloads = [{"id": "final", "gpu": "H100_SXM", "peak_tflops": 1000, "final_run": True,
                  "flops": {"params": 1e9, "tokens": 6e11}, "mfu": 0.5},
                 {"id": "sweep", "gpu": "H100_SXM", "allocated_gpu_hours": 100}]
    figures = assert_figures(tmp_path, plan_yaml(workloads=workloads),
                             {"final_run_a": 2000 * 3, "compute_a": 2100 * 3, "total_a": 2100 * 3})
    assert figures["total_b"] == figures["compute_b"]  # counted once, inside compute
