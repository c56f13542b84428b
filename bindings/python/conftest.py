"""Puts this directory on sys.path so `python3 -m pytest bindings/python` imports the in-tree package."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
