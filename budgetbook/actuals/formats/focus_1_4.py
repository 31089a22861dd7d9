"""FOCUS 1.4 cost and usage: `ProviderName` and `PublisherName` removed; the export split into datasets.

The Cost and Usage dataset is read as 1.3 (`ServiceProviderName`, `ContractApplied`);
the invoice key's provider part is `InvoiceIssuerName` (who issued the invoice),
which a 1.3 export converted to 1.4 fills as its `ProviderName`, so the conversion
re-imported replaces the 1.3 bill. Detected by a column 1.4 added
(`InvoiceDetailId`, `CommitmentProgramEligibilityDetails`) or by `ServiceProviderName`
without `ProviderName`. The other 1.4 datasets: `focus_commitments`, `focus_periods`.
"""

from __future__ import annotations

from .focus import FocusVersion

FORMAT = FocusVersion("1.4", added=("CommitmentProgramEligibilityDetails", "InvoiceDetailId"),
                      providers=("ServiceProviderName", "ProviderName"),
                      issuer=("InvoiceIssuerName", "ServiceProviderName", "ProviderName"), removed=("ProviderName",),
                      contract_applied=True)
