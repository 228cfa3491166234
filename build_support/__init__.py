"""Build helpers used by setup.py (kept out of the installed package)."""
