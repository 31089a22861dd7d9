"""People: roles x count x months x monthly cost, plus a market's extra engineering days (a hybrid pays each once)."""

from lineitem_case import MARKETS, assert_figures, plan_yaml

WORKLOADS = [{"id": w, "gpu": "H100_SXM", "allocated_gpu_hours": 10} for w in ("x", "y")]
HYBRID = {"id": "mix", "hybrid": {"assign": {"x": "b", "y": "b"}}}


def test_team_plus_extra_days_paid_once(tmp_path):
    people = {"roles": [{"role": "ML engineer", "count": 2, "months": 3, "monthly_cost": 10000},
                        {"role": "Lead", "count": 1, "months": 1, "monthly_cost": 20000}],
              "engineering_day_cost": 1000}
    text = plan_yaml(people=people, workloads=WORKLOADS, markets=MARKETS + [HYBRID])
    # team 60,000 + 20,000; b adds 5 days x $1,000; the hybrid uses b twice and pays its days once
    assert_figures(tmp_path, text, {"people_a": 80000, "people_b": 85000, "people_mix": 85000})
