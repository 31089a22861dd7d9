"""FOCUS 1.2 cost and usage: invoice ids, account types, the pricing currency.

Read as 1.0 (the provider is `ProviderName`); `InvoiceId` (new in 1.2) is part of
the invoice key. Detected by a column 1.2 added.
"""

from __future__ import annotations

from .focus import FocusVersion

FORMAT = FocusVersion("1.2", added=("BillingAccountType", "InvoiceId", "PricingCurrency",
                                    "PricingCurrencyContractedUnitPrice", "PricingCurrencyEffectiveCost",
                                    "PricingCurrencyListUnitPrice", "SubAccountType"),
                      providers=("ProviderName",), issuer=("ProviderName",))
