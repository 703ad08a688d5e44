"""Discovery: every operator applied to a target's files, mutant records out."""
