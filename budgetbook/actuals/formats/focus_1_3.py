"""FOCUS 1.3 cost and usage: `ServiceProviderName` and `HostProviderName`, `ContractApplied`, allocation.

1.3 deprecated `ProviderName` for `ServiceProviderName` (who sells the service) and
`HostProviderName` (where it runs): the rules' `provider` matches the service
provider, else the provider; `host_provider` matches the host. The invoice key keeps
`ProviderName` where the file has it (a 1.2 account's keys do not change on upgrade).
`ContractApplied` (JSON, `{"Elements": [{"ContractCommitmentId": ...}]}`) names the
contract commitment a charge drew on: the rules' `contract_commitment` matches its
first element's id, `contract_commitment_type` that commitment's type from a
Contract Commitment dataset imported alongside (`focus_commitments`).
"""

from __future__ import annotations

from .focus import FocusVersion

FORMAT = FocusVersion("1.3", added=("AllocatedMethodDetails", "AllocatedMethodId", "AllocatedResourceId",
                                    "AllocatedResourceName", "AllocatedTags", "ContractApplied", "HostProviderName",
                                    "ServiceProviderName"),
                      providers=("ServiceProviderName", "ProviderName"), issuer=("ProviderName", "ServiceProviderName"),
                      contract_applied=True)
