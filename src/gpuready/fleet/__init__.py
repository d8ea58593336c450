"""Fleets: one gpuready job per node through an existing engine (Slurm via submitit, Ray, Kubernetes, torchrun),
every node's Runs in one store tagged with the fleet run, and a report that names the bad nodes.

Modules: ``config`` (what each node runs, where results go), ``tags`` (how a Run says which fleet run, node and
engine job it belongs to), ``node`` (the job a node runs), ``collect`` (a fleet run's Runs from a store or a folder),
``analysis`` (consistency, failures, outliers, baseline, defective nodes), ``baseline`` (rules from a healthy run),
``render`` (text, JSON, Markdown, HTML), ``engines`` (Slurm, Ray, Kubernetes, torchrun launchers).
"""
