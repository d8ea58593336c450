"""Pure rules: ``rule(context) -> Iterator[Finding]``, one module per subject; ``ALL_RULES`` is the one list."""

from gpuready.compat.rules import access, dataset, environment, errors, framework, nvidia, rocm
from gpuready.compat.rules.context import Accelerator, Context, finding

ALL_RULES = (*dataset.RULES, *access.RULES, *framework.RULES, *rocm.RULES, *nvidia.RULES, *environment.RULES,
             *errors.RULES)

__all__ = ["ALL_RULES", "Accelerator", "Context", "finding"]
