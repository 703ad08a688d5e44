"""`python -m teeth`: the same command line as `teeth`."""

from teeth.cli import main

main(prog_name="teeth")
