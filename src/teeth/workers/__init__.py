"""Backends that execute mutants: a local pool of forked warm workers now, ray later."""
