"""Running contender processes: executor (lifecycle), sampler (outside view), measure (one run)."""
