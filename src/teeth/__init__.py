"""teeth: mutation testing that proves a batched-tensor test suite has teeth."""
