"""Reports: terminal tables and JSON listings of stored results."""
