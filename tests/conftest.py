"""Lets tests import the helpers that live beside them (reference.py), and keeps wall-clock time
out of the property tests: Hypothesis's per-example deadline fails a test on a busy machine."""

import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile("sternhalma", deadline=None)
settings.load_profile("sternhalma")
