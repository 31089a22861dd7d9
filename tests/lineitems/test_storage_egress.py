"""Storage & egress: checkpoint volume x retention x price per GB-month, plus volume x share moved x egress."""

from lineitem_case import assert_figures, plan_yaml


def test_checkpoint_volume_stored_and_moved(tmp_path):
    workloads = [
        # 100 GB x 5 saves x 2 runs = 1,000 GB; 3 months x $0.02 = $60; half moved x $0.10 = $50
        {"id": "w", "gpu": "H100_SXM", "ideal_gpu_hours": 10, "utilization": 1, "runs": 2,
         "checkpoints": {"size_gb": 100, "saves": 5, "retention_months": 3, "moved_share": 0.5}},
        # 1e9 params x 12 bytes = 12 GB x (1,000 steps / 100) = 120 GB; 1 month x $0.02 = $2.40; all moved: $12
        {"id": "v", "gpu": "H100_SXM", "ideal_gpu_hours": 10, "utilization": 1,
         "checkpoints": {"params": 1e9, "steps": 1000, "save_every_steps": 100}},
    ]
    # market b prices neither storage nor egress
    assert_figures(tmp_path, plan_yaml(workloads=workloads), {"storage_egress_a": 60 + 50 + 2.4 + 12,
                                                              "storage_egress_b": 0})
