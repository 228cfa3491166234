"""A fuzzer driven by native_functions.yaml: every op and every variant (function, method, in-place,
out=) is called with arguments generated from its schema's types, good and bad, in worker processes
that report each call before running it, so that crashes and hangs are caught with a runnable
reproducer. `python -m tests.fuzz --help`; docs/testing.md says how it is run in CI and at length.

Modules: targets (what can be called, from the YAML), generate (a call's Python source from the
schema), worker (runs calls, one process), runner (the worker pool, timeouts, classification),
known (reproducers of bugs known and being fixed, and the switch that avoids them), strategies
(the same generator as hypothesis strategies).
"""
