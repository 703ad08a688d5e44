"""`teeth serve`: the kill-rate history as an HTTP service a team pushes runs to and queries."""

READS = ("open", "token")  # who may query: anyone, or holders of a token
DEFAULT_MAX_BODY = 64 * 1024 * 1024  # the largest push accepted, in bytes (larger: HTTP 413)
