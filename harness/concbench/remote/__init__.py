"""Roles on other hosts over SSH: hosts, the SSH layer, the agent that runs there."""
