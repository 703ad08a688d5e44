"""teeth: mutation testing that proves a batched-tensor test suite has teeth."""

# The distribution teeth is installed as: PyPI's `teeth` is another project. The command and the package stay `teeth`.
DISTRIBUTION = "teeth-mutation"
