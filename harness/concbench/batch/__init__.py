"""The batch lifecycle: one contender process runs a workload's iterations and exits; each
line checked against the contract (measure, contract_check, executor)."""
