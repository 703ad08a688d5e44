"""Make the batcher suite's shared kit importable whatever pytest import mode runs it."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
