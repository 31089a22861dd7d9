"""Hypothesis profiles: `dev` (quick, the default) and `ci` (100 examples, no deadline).

Chosen by HYPOTHESIS_PROFILE, or `ci` when CI=true. `ci` was 200: with every feature the strategies draw
(owned clusters, reliability, adjustments, serving physics) each workbook example costs more, and the suite
must stay under 10 minutes on 2 cores. Examples are not derandomized, so every CI run draws new plans: the
coverage grows across runs. `HYPOTHESIS_PROFILE=deep` runs 1,000 for a long local soak.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=10, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=1000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI", "").lower() == "true" else "dev"))
