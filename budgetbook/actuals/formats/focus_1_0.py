"""FOCUS 1.0 cost and usage (and the 0.5/1.0-preview exports before it): the provider is `ProviderName`.

The oldest version reads any header that looks like FOCUS (a BilledCost,
EffectiveCost, ChargePeriodStart or BillingCurrency column) and no newer version
claims. Columns per version: the FOCUS specification's changelog, as the
`focus-data-toolkit` 0.14.1 model records each column's version (PyPI, read 2026-12-01).
"""

from __future__ import annotations

from .focus import FocusVersion

FORMAT = FocusVersion("1.0", added=(), providers=("ProviderName",), issuer=("ProviderName",))
