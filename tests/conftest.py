"""Lets tests import the helpers that live beside them (reference.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
