"""Process isolation: anything that touches a device runs in a child with a timeout, and no child outlives us.

``spec`` (what a unit of isolated work is), ``launchers`` (inline, or child processes with timeouts, process-group
kills and crash attribution), ``ranks`` (N cooperating processes, all killed on a timeout), ``_worker`` (the child).
"""
