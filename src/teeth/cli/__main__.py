"""`python -m teeth.cli`: the same command line as `teeth`."""

from teeth.cli import main

main()
