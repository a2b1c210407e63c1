"""The server lifecycle: place, start, wait until ready, verify, warm up, measure a window
under load (load generators in loadgen/, one file each), check what was served, stop."""
