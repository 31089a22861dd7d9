"""Failed runs: each workload's compute x its waste share."""

from lineitem_case import assert_figures, plan_yaml


def test_waste_share_of_each_workloads_compute(tmp_path):
    workloads = [{"id": "w", "gpu": "H100_SXM", "ideal_gpu_hours": 1000, "utilization": 1.5, "waste": 0.2},
                 {"id": "clean", "gpu": "H100_SXM", "allocated_gpu_hours": 100}]
    # w: 1,500 h x $3 = $4,500, x 0.2 = $900; `clean` wastes nothing
    assert_figures(tmp_path, plan_yaml(workloads=workloads), {"failed_runs_a": 900, "failed_runs_b": 600})
