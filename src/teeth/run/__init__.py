"""One run of one target: discover, baseline, schedule, execute and record."""
