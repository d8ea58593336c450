"""Launchers of the node job on existing engines, one module each, never a scheduler of gpuready's own: ``slurm``
(submitit, or an sbatch script), ``ray_engine`` (one task per alive node, by node affinity), ``kubernetes`` (an
Indexed Job or a DaemonSet from the official client's models), ``torchrun`` (the multi-node collectives through c10d
rendezvous). Each is a small function of the ``NodeJob``, the fleet run id, a typed frozen config of its own and the
``Destination``. Their libraries are the optional extra ``gpuready[fleet]`` and are imported only when called."""

from gpuready.fleet.engines.command import ENGINES, node_command

__all__ = ["ENGINES", "node_command"]
