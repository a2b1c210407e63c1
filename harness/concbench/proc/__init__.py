"""Child processes as the harness supervises them, batch or server alike: start, watch from
outside (/proc samplers), limit (cgroups), stop and reap (process groups, orphans)."""
