"""Benchmark the user's workload and the device's ceilings, honestly: device-accurate timers, warm-up, medians."""
