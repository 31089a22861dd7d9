"""FOCUS 1.1 cost and usage: capacity reservations, commitment quantities, SKU meters and price details.

Read as 1.0 (the provider is `ProviderName`); detected by a column 1.1 added.
"""

from __future__ import annotations

from .focus import FocusVersion

FORMAT = FocusVersion("1.1", added=("CapacityReservationId", "CapacityReservationStatus", "CommitmentDiscountQuantity",
                                    "CommitmentDiscountUnit", "ServiceSubcategory", "SkuMeter", "SkuPriceDetails"),
                      providers=("ProviderName",), issuer=("ProviderName",))
