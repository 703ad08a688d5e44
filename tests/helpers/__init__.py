"""Helpers shared by teeth's test suites: plain modules (pytest collects none of them), imported as tests.helpers.X."""
