"""Helpers shared by the test suites: real databases, real processes, waiting on conditions."""
