"""`teeth check`: the changed code and tests, their mutants, and the gate."""
