"""A target's source as Python reads it, and what libcst says about the code around a node."""
