"""Op adapters (torch and triton) and OP_SPECS: the kernels target."""
