"""Python analysis through the AST: imports (and whether they are guarded), and CUDA-specific API use."""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from gpuready.scanner.build_files import APEX_CONFIGS, BNB_CONFIGS, CUDA_WHEELS, nvcc_flag
from gpuready.scanner.hits import Hit

_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError", "RuntimeError"}
_FLAG = re.compile(r"(?i:available|has_|_has|enable|use_|is_|installed|supported|flag|getenv|environ|can_|_import)|"
                   r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
"""An if-test on one of these guards an import: the import is allowed to fail (an ALL_CAPS_NAME is a config flag)."""
_SWITCH = re.compile(r"getenv|environ|\b(?!CUDA_|TORCH_CUDA|ROCM_|HIP_)[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
"""An if-test on one of these is a feature switch for code too: an environment variable or a config constant."""
_INSTALLED = re.compile(r"\bis_(?!(?:torch_)?(?:cuda|gpu|hip|rocm|npu|xpu|mps|tpu|mlu|accelerator)_)\w+_available\s*\(")
"""A probe whether a package is installed (``is_flash_attn_2_available()``), not whether a device is: an if-test on it
is a feature switch too (its body runs only where the user installed the package), unless it is negated."""
_ROCM_TEST = re.compile(r"version\.hip|\bis_hip\b|\bIS_HIP\w*|\bIS_ROCM\b|\bis_rocm\b|\bIS_AMD\b|\bis_amd\b|"
                        r"\bHIP_BUILD\b|\bUSE_ROCM\b|\bBUILD_FOR_ROCM\b|\bROCM_VERSION\b|['\"]rocm['\"]|['\"]hip['\"]")
_CUDA_TEST = re.compile(r"\bIS_NVIDIA\w*|\bis_nvidia\w*|version\.cuda|\bis_cuda\b|\bIS_CUDA\b|\bCUDA_VERSION\b|"
                        r"\bIS_HOPPER\b|\bIS_BLACKWELL\b|\bis_hopper\b|\bis_blackwell\b|\bIS_SM\d+|['\"]cuda['\"]\s*==\s*\w*backend|"
                        r"==[^=]*['\"]nvidia['\"]")  # `platform == 'nvidia'` (_test_text puts == first)
_VENDOR_WORDS = ("hip", "HIP", "rocm", "ROCM", "ROCm", "AMD", "amd", "cuda", "CUDA", "NVIDIA", "nvidia", "HOPPER",
                 "hopper", "BLACKWELL", "blackwell", "IS_SM")
"""What a file needs to hold for _CUDA_TEST or _ROCM_TEST to find anything in it."""
_EXTENSION_CALLS = frozenset({"CppExtension", "CUDAExtension", "Extension", "HIPExtension", "SYCLExtension"})
"""Calls in a build script whose first argument (or ``name=``) is the module the build makes."""
_MENTIONS_ROCM = re.compile(r"ROCM_HOME|ROCM_PATH|version\.hip|is_hip|IS_HIP|PYTORCH_ROCM_ARCH|USE_ROCM|IS_ROCM|"
                            r"BUILD_TARGET|hipcc|offload-arch|HIP_BUILD|IS_AMD\b|is_amd\b|rocm-smi|amd-smi|gcnArchName")
"""A file that says one of these handles ROCm itself."""
_CREDITED = {"python.version_cuda", "python.nvcc_call", "python.cuda_home", "python.cuda_arch_list",
             "python.capability_gate", "triton.inline_asm", "python.nvidia_smi_call", "build.nvcc_flags",
             "python.onnx_cuda_provider"}
"""Rules whose hits in a file that handles ROCm, or in a CUDA-only branch, are the project's CUDA path next to its
ROCm one: credited, not reported."""
_CONFIG_STRINGS = frozenset({"flash_attention_2", *APEX_CONFIGS, *BNB_CONFIGS})
"""Configuration values that select an NVIDIA-only path (attention implementation, optimizer)."""
_NVIDIA_PROVIDERS = frozenset({"CUDAExecutionProvider", "TensorrtExecutionProvider"})
_AMD_PROVIDERS = frozenset({"MIGraphXExecutionProvider", "ROCMExecutionProvider"})
"""ONNX Runtime's execution providers for NVIDIA GPUs, and AMD's: a provider list naming an AMD one handles both."""
_PREDICATE = re.compile(r"_*(?:has|is|can)_")
"""A function named as a yes/no question."""
_SUBPROCESS_CALLS = {"run", "call", "check_call", "check_output", "Popen", "system", "popen", "getoutput",
                     "getstatusoutput"}


def dotted(node: ast.AST) -> str:
    """``torch.version.cuda`` for an attribute chain; "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = dotted(node.func)
        return ".".join([inner + "()", *reversed(parts)]) if inner else ""
    return ""


def _handler_catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(dotted(n).split(".")[-1] in _IMPORT_ERRORS for n in names)


def _misbranches_on_rocm(node: ast.Compare) -> bool:
    """Whether a capability comparison can take an NVIDIA-only path on AMD, whose GPUs report gfx-derived
    capabilities (MI300X (9, 4), MI200 (9, 0), RDNA3 (11, 0)): a test for Ampere or older (``>= 8``, ``< 8``, and an
    exact ``== (8, 0)``, which no AMD GPU reports) is passed or failed as on a recent NVIDIA GPU; a test that names
    Hopper or later (``>= 9``, ``== (9, 0)``, ``>= (8, 9)``, ``>= 10``) is not."""
    numbers = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, int)
               and not isinstance(n.value, bool)]
    majors = [n for n in numbers if n >= 1]
    return not majors or max(majors) >= 9


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


_METHODS: dict[tuple[type, type], Any] = {}
_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
"""Nodes with nothing inside worth a visit."""


_STATEMENT_FIELDS = ("body", "orelse", "handlers", "finalbody", "cases")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_HOLDERS = (ast.stmt, ast.Module, ast.excepthandler, ast.match_case)
"""What holds statements, and where (an expression's ``body``, a lambda's or an ``x if c else y``'s, holds none)."""


class _Visitor(ast.NodeVisitor):
    def __init__(self, text: str, shallow: bool = False) -> None:
        self.hits: list[Hit] = []
        self.guard_depth = 0
        self.switch_depth = 0
        self.function_depth = 0
        self.cuda_branch_depth = 0
        self.try_depth = 0
        self.scopes: list[str] = []  # the names of the classes and functions around the node visited
        self.credited = False
        self.capability_names: set[str] = set()
        self.cpp_extension_names = {"CUDAExtension"}
        self.load_names: set[str] = set()
        self.amd_providers = 0
        """Inside a list that names an AMD execution provider of ONNX Runtime."""
        self.cuda_home_names: set[str] = set()
        """Names ``from torch.utils.cpp_extension import CUDA_HOME`` bound: their uses decide on CUDA_HOME too."""
        self.mentions_rocm = bool(_MENTIONS_ROCM.search(text))
        self.cuda_only_functions: frozenset[str] = frozenset()
        self.asks_whether = False
        """Inside a predicate (``def has_usable_nvcc()``): it asks whether CUDA's tools are there; no on ROCm."""
        self.in_catalogue = 0
        """Inside a list of several names (a set, list or tuple of strings only)."""
        self.tests_vendor = any(word in text for word in _VENDOR_WORDS)
        """Whether the file can hold a vendor test: vendor-branch analysis is skipped where it cannot apply (a plain
        substring test: _CUDA_TEST and _ROCM_TEST are for short if-tests, slow over a whole file)."""
        self.text = text
        self.shallow_ifs: list[ast.If] = []
        """The ifs around a statement walked shallow, whose tests are read only when an import stands inside."""
        self.shallow = shallow
        """Walking a statement (or a whole file) whose lines hold no word a rule needs: its statements only
        (imports and their guards), not its expressions."""
        self.watched: frozenset[str] = frozenset()
        """Top-level names of the packages whose uses are recorded (``import_use``)."""
        self.bound: dict[str, str] = {}
        """A name an import of a watched package bound -> the module it names."""
        self.import_lines: set[int] = set()
        self._guards: dict[int, bool] = {}
        self._lines: list[str] = []
        self._trigger_lines: list[int] | None = None

    def trigger_lines(self) -> list[int]:
        """The lines (1-based) that hold a word some rule needs, found once per file."""
        if self._trigger_lines is None:
            breaks = list(_LINE_BREAK.finditer(self.text))  # as the parser counts lines: \r\n, \r or \n
            starts = [0, *(m.end() for m in breaks)]
            self._lines = [self.text[start:end] for start, end in zip(starts, [*(m.start() for m in breaks),
                                                                               len(self.text)], strict=True)]
            self._trigger_lines = sorted({bisect_right(starts, m.start())
                                          for m in _STATEMENT_TRIGGERS.finditer(self.text)})
        return self._trigger_lines

    # a leaner walk than ast.NodeVisitor's: dispatch cached per node class, no visits of Load/Store/operators
    def visit(self, node: ast.AST) -> None:
        kind = type(node)
        method = _METHODS.get((type(self), kind))
        if method is None:
            method = getattr(type(self), "visit_" + kind.__name__, None) or type(self).generic_visit
            _METHODS[(type(self), kind)] = method
        if not self.shallow and isinstance(node, ast.stmt) and not self._may_hit(node):
            self.shallow = True
            method(self, node)
            self.shallow = False
        else:
            method(self, node)

    def _may_hit(self, node: ast.stmt) -> bool:
        """Whether a statement's lines hold a word some rule needs, or a name the file bound to a capability, a
        ``load`` or an extension class (``major, minor = get_device_capability()`` then ``if major >= 8``)."""
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        last = node.end_lineno or node.lineno
        lines = self.trigger_lines()
        at = bisect_left(lines, first)
        if at < len(lines) and lines[at] <= last:
            return True
        names = self.capability_names | self.load_names | self.cpp_extension_names
        if len(names) > 1 or names != {"CUDAExtension"}:
            segment = "\n".join(self._lines[first - 1:last])
            return any(name in segment for name in names)
        return False

    def generic_visit(self, node: ast.AST) -> None:
        if self.shallow:
            if isinstance(node, _HOLDERS):
                for name in _STATEMENT_FIELDS:
                    for child in getattr(node, name, None) or ():
                        self.visit(child)
            return
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST) and not isinstance(item, _LEAVES):
                        self.visit(item)
            elif isinstance(value, ast.AST) and not isinstance(value, _LEAVES):
                self.visit(value)

    def hit(self, rule: str, node: ast.AST, detail: str = "", optional: bool | None = None) -> None:
        line = getattr(node, "lineno", 0)
        if rule in _CREDITED and (self.cuda_branch_depth or self.mentions_rocm):
            if not self.credited:
                self.credited = True
                self.hits.append(Hit("credit.rocm_branch", line, "CUDA-only code in a branch (or build file) that "
                                                                 "also handles ROCm"))
            return
        if optional is None:  # code (not an import) is optional only behind a feature switch or an import guard
            optional = self.switch_depth > 0 or self.try_depth > 0 or self.cuda_branch_depth > 0
        self.hits.append(Hit(rule, line, detail, optional))

    # an import inside a function belongs to the feature that calls it, not to importing the module
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        cuda_path = self.function_depth == 0 and node.name in self.cuda_only_functions
        asks = self.asks_whether
        self.asks_whether = asks or bool(_PREDICATE.match(node.name))
        self.function_depth += 1
        self.cuda_branch_depth += cuda_path
        self.scopes.append(node.name)
        for part in (*node.decorator_list, node.args, *([node.returns] if node.returns else [])):
            self.visit(part)
        exits = 0
        for statement in node.body:
            self.visit(statement)
            if not exits and self.tests_vendor and not self.shallow and _leaves_on_rocm(statement):
                exits = 1  # `if is_hip: return False`: what follows in the function runs on CUDA only
                self.cuda_branch_depth += 1
        self.cuda_branch_depth -= cuda_path + exits
        self.function_depth -= 1
        self.scopes.pop()
        self.asks_whether = asks

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scopes.append(node.name)
        self.generic_visit(node)
        self.scopes.pop()

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        """``torch.version.cuda and capability >= (9, 0)``: what follows a CUDA test in an ``and`` is evaluated on
        CUDA only."""
        after_cuda = 0
        gate = isinstance(node.op, ast.And) and len(_conjuncts(node)) >= 3  # one of several conditions of a fast path
        for value in node.values:
            truth_test = gate and _is_cuda_version(value)
            self.cuda_branch_depth += truth_test  # `... and torch.version.cuda and capability >= 8 and ...`
            self.visit(value)
            self.cuda_branch_depth -= truth_test
            if self.tests_vendor and isinstance(node.op, ast.And) and not after_cuda and _cuda_sides_of_test(value)[0]:
                after_cuda = 1
                self.cuda_branch_depth += 1
        self.cuda_branch_depth -= after_cuda

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.visit_FunctionDef(node)

    @property
    def optional(self) -> bool:
        return self.guard_depth > 0 or self.function_depth > 0 or any(map(self._guarding, self.shallow_ifs))

    def _guarding(self, node: ast.If) -> bool:
        """Whether an if-test is a flag that guards the imports in its body (``if is_available():``), read once."""
        if id(node) not in self._guards:
            self._guards[id(node)] = bool(_FLAG.search(_test_text(node.test)))
        return self._guards[id(node)]

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and len(node.value) < 300:
            text = node.value
            if self.in_catalogue and text in _CONFIG_STRINGS:
                pass  # one of several names listed, none chosen
            elif text == "flash_attention_2":
                self.hit("python.flash_attention_2_config", node, text)
            elif text in APEX_CONFIGS or text.startswith("apex.optimizers"):
                self.hit("python.apex_config", node, text)
            elif text in BNB_CONFIGS:
                self.hit("python.bitsandbytes_config", node, text)
            elif "whl/cu" in text and CUDA_WHEELS.search(text):  # setup.py's dependency_links, an index URL
                self.hit("ci.cuda_wheels", node, text[:80])
            elif text in _NVIDIA_PROVIDERS and not self.amd_providers:  # as optional as this file's ONNX Runtime
                runtime = [h.optional for h in self.hits if h.rule == "import" and h.detail.startswith("onnxruntime")]
                self.hit("python.onnx_cuda_provider", node, text, True if runtime and all(runtime) else None)
            elif text.startswith("-") and nvcc_flag(text):  # one finding per file, each flag's line in it
                self.hit("build.nvcc_flags", node, text[:80], self.optional)  # as optional as the build it is for

    # imports and the guards around them
    def visit_Try(self, node: ast.Try) -> None:
        guarded = any(_handler_catches_import_error(h) for h in node.handlers)
        self.guard_depth += guarded
        self.try_depth += guarded
        for statement in node.body:
            self.visit(statement)
        self.guard_depth -= guarded
        self.try_depth -= guarded
        for part in (*node.handlers, *node.orelse, *node.finalbody):
            self.visit(part)

    def visit_TryStar(self, node: ast.TryStar) -> None:
        self.visit_Try(node)  # type: ignore[arg-type]

    def visit_If(self, node: ast.If) -> None:
        if self.shallow:  # only an import in the body can hit: whether the test guards it is asked then, if ever
            self.shallow_ifs.append(node)
            for statement in node.body:
                self.visit(statement)
            self.shallow_ifs.pop()
            for statement in node.orelse:
                self.visit(statement)
            return
        test = _test_text(node.test)
        flag = bool(_FLAG.search(test))
        body_cuda, else_cuda = _cuda_sides(node, test)
        switch = bool(_SWITCH.search(test)) or bool(_INSTALLED.search(test)) and not any(
            isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) and _INSTALLED.search(ast.unparse(n.operand))
            for n in ast.walk(node.test))
        reads_value = body_cuda and "version.cuda" in test and _reads_cuda_version(node.body)
        self.cuda_branch_depth += reads_value  # `if torch.version.cuda is not None: ....split('.')`: a None guard
        self.visit(node.test)
        self.cuda_branch_depth -= reads_value
        self.guard_depth += flag
        self.switch_depth += switch
        self.cuda_branch_depth += body_cuda
        for statement in node.body:
            self.visit(statement)
        self.guard_depth -= flag
        self.switch_depth -= switch
        self.cuda_branch_depth -= body_cuda
        self.cuda_branch_depth += else_cuda
        for statement in node.orelse:
            self.visit(statement)
        self.cuda_branch_depth -= else_cuda

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.hit("import", node, alias.name, self.optional)
            self.hit("module_import", node, alias.name, self.optional)
            if alias.name.split(".")[0] in self.watched:
                self.bound[alias.asname or alias.name.split(".")[0]] = alias.name
                self.import_lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        names = ",".join(alias.name for alias in node.names if alias.name != "*")
        self.hit("module_import", node, f"{'.' * node.level}{node.module or ''}|{names}", self.optional)
        if node.level == 0 and node.module:
            self.hit("import", node, node.module, self.optional)
            if node.module.split(".")[0] in self.watched:
                self.bound.update((alias.asname or alias.name, node.module) for alias in node.names
                                  if alias.name != "*")
                self.import_lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            if node.module == "torch.utils.cpp_extension":
                for alias in node.names:
                    if alias.name in ("load", "load_inline"):
                        self.load_names.add(alias.asname or alias.name)
                    if alias.name == "CUDAExtension":
                        self.cpp_extension_names.add(alias.asname or alias.name)
                    if alias.name == "CUDA_HOME" and not self.mentions_rocm:
                        self.hit("python.cuda_home", node, "from torch.utils.cpp_extension import CUDA_HOME")
                        self.cuda_home_names.add(alias.asname or alias.name)
            if node.module.startswith("torch.cuda.nvtx") or node.module == "torch.cuda" and any(
                    a.name == "nvtx" for a in node.names):
                self.hit("python.nvtx", node, f"from {node.module} import ...")
            if node.module == "triton.ops.matmul_perf_model" or node.module == "triton.testing" and any(
                    a.name == "nvsmi" for a in node.names):  # Triton's matmul model reads clocks from nvidia-smi
                self.hit("python.nvidia_smi_call", node, f"from {node.module} import {names}"[:80])
        self.generic_visit(node)

    # API use
    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = dotted(node)
        if name.endswith("version.cuda") and name.split(".")[0] in ("torch", "version"):
            self.hit("python.version_cuda", node, name)
        elif ".cuda.nvtx." in f".{name}." and name.count(".") >= 2 and not name.endswith("cuda.nvtx"):
            self.hit("python.nvtx", node, name)
        elif ".backends.cudnn." in f".{name}" and name.split(".")[-1] in ("benchmark", "deterministic", "enabled",
                                                                          "allow_tf32"):
            self.hit("python.cudnn_flag", node, name)
        elif name.endswith("CUDA_HOME") and not self.mentions_rocm:
            self.hit("python.cuda_home", node, name)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, ast.Call) and dotted(node.value.func).endswith("get_device_capability"):
            for target in node.targets:
                for element in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if isinstance(element, ast.Name):
                        self.capability_names.add(element.id)
        self.generic_visit(node)

    def visit_Set(self, node: ast.Set | ast.List | ast.Tuple) -> None:
        """``frozenset({"flash_attention_2", "sdpa", "flex_attention"})``: a list of names to look up selects none
        of them (its strings are not read as configuration)."""
        names = len(node.elts) > 1 and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
        amd = any(isinstance(e, ast.Constant) and e.value in _AMD_PROVIDERS for e in node.elts)
        self.in_catalogue += names
        self.amd_providers += amd
        self.generic_visit(node)
        self.in_catalogue -= names
        self.amd_providers -= amd

    def visit_List(self, node: ast.List) -> None:
        self.visit_Set(node)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        self.visit_Set(node)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> None:
        """``f"cuda {torch.version.cuda}"``: shown, None on ROCm, and nothing breaks; ``f"{CUDA_HOME}/include"``: a
        path that is not there on ROCm."""
        self._cuda_home_used(node, (node.value,))
        if not dotted(node.value).endswith("version.cuda"):
            self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        """``f"sm{major}{minor}"`` from ``torch.cuda.get_device_capability()``: an NVIDIA architecture name made of
        what an AMD GPU reports as its capability (MI300X: "sm94"), which the code then looks up or dispatches on."""
        first, after = node.values[:2] if len(node.values) > 1 else (None, None)
        if isinstance(first, ast.Constant) and str(first.value).lower() in ("sm", "sm_") and isinstance(
                after, ast.FormattedValue) and isinstance(after.value, ast.Name) and (
                after.value.id in self.capability_names):  # the whole string is the name (a message is not)
            self.hit("python.capability_gate", node, ast.unparse(node)[:120])
        self.generic_visit(node)

    def _cuda_home_used(self, node: ast.AST, parts: Sequence[ast.expr]) -> None:
        """A use of the imported CUDA_HOME (``CUDA_HOME is not None``, ``os.path.join(CUDA_HOME, ...)``, an
        f-string): where the build decides on it, reported as another line of the same finding."""
        if self.cuda_home_names and any(isinstance(part, ast.Name) and part.id in self.cuda_home_names
                                        for part in parts):
            self.hit("python.cuda_home", node, ast.unparse(node)[:120])

    def visit_Compare(self, node: ast.Compare) -> None:
        self._cuda_home_used(node, (node.left, *node.comparators))
        parts = (node.left, *node.comparators)
        if any(isinstance(p, ast.Constant) and p.value == "xformers" for p in parts) and any(
                "attention" in dotted(p).lower() for p in parts):  # cfg.efficient_attention_backend == "xformers"
            self.hit("python.xformers_attention", node, ast.unparse(node)[:120])
        for part in (node.left, *node.comparators):
            inner = part.value if isinstance(part, ast.Subscript) else part
            if isinstance(inner, ast.Call) and dotted(inner.func).endswith("get_device_capability") or (
                    isinstance(inner, ast.Name) and inner.id in self.capability_names):
                if _misbranches_on_rocm(node):
                    self.hit("python.capability_gate", node, ast.unparse(node)[:120])
                break
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        target = dotted(node.value)
        key = node.slice.value if isinstance(node.slice, ast.Constant) else None
        if target.endswith("environ") and key == "CUDA_HOME" and not self.mentions_rocm:
            self.hit("python.cuda_home", node, "os.environ['CUDA_HOME']")
        if target.endswith("environ") and key == "TORCH_CUDA_ARCH_LIST" and not self.mentions_rocm:
            self.hit("python.cuda_arch_list", node, "TORCH_CUDA_ARCH_LIST")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self._cuda_home_used(node, node.args)
        function = dotted(node.func)
        last = function.split(".")[-1]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        extension = last in self.cpp_extension_names and last != "" or (
            last in self.load_names or function.endswith(("cpp_extension.load", "cpp_extension.load_inline"))) and (
            "cuda_sources" in keywords or any(s.endswith((".cu", ".cuh")) for s in _strings(node))) or (
            "sources" in keywords and "extra_cuda_cflags" in keywords and any(
                s.endswith(".cu") for s in _strings(keywords["sources"])))  # a JIT helper: stylegan3's get_plugin
        if last in self.cpp_extension_names or last in _EXTENSION_CALLS:
            name = keywords.get("name") or (node.args[0] if node.args else None)
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value:
                self.hit("extension_name", node, name.value)  # the module the build makes (who imports it?)
                sources = keywords.get("sources") or (node.args[1] if len(node.args) > 1 else None)
                paths = [e.value for e in getattr(sources, "elts", []) if isinstance(e, ast.Constant)
                         and isinstance(e.value, str)]
                if self.cuda_branch_depth and paths:  # `if not ROCM_VERSION: CUDAExtension(...)`: not built on ROCm
                    self.hits.append(Hit("cuda_only_extension", getattr(node, "lineno", 0),
                                         f"{name.value}|{','.join(paths)}"))
        if extension:
            if self.mentions_rocm:
                self.hit("credit.rocm_build", node, f"{function} next to a ROCm branch (hipified on ROCm torch)")
            else:
                self.hit("python.cpp_extension_cuda", node, function, self.optional)
        if last == "init_process_group":
            backend = keywords.get("backend") or (node.args[0] if node.args else None)
            if isinstance(backend, ast.Constant) and isinstance(backend.value, str) and "nccl" in backend.value:
                self.hit("python.nccl_backend", node, backend.value)
        if last == "enable_xformers_memory_efficient_attention" or "attention" in last.lower() and any(
                isinstance(arg, ast.Constant) and arg.value == "xformers" for arg in node.args):
            self.hit("python.xformers_attention", node, function, self.optional)  # set_attention_backend("xformers")
        if _without_math_sdpa(last, node, keywords) and not any(map(_NAMED_FOR_A_KERNEL.search, self.scopes)):
            self.hit("python.sdpa_math_disabled", node, function)  # unless a variant named for it, chosen by name
        if last == "inline_asm_elementwise":
            self.hit("triton.inline_asm", node, function)
        elif last == "inline_ptx" or function.endswith("llvm.inline_asm"):  # CuTe DSL's PTX, MLIR's llvm dialect
            self.hit("python.inline_ptx", node, function)
        driver = keywords.get("driver")
        if last == "DeviceRequest" and isinstance(driver, ast.Constant) and driver.value == "nvidia":
            self.hit("build.nvidia_container_runtime", node, "DeviceRequest(driver='nvidia')")  # Docker's Python SDK
        warps = keywords.get("num_warps")
        if isinstance(warps, ast.Constant) and isinstance(warps.value, int) and warps.value >= 32:
            self.hit("triton.num_warps_32", node, f"num_warps={warps.value}")
        if last in _SUBPROCESS_CALLS and function.split(".")[0] in ("subprocess", "os", "commands", "sp", last):
            for text in _strings(node)[:4]:
                command = text.strip().split()[0] if text.strip() else ""
                if command.endswith("nvidia-smi"):
                    self.hit("python.nvidia_smi_call", node, text[:80])
                    break
                if command.endswith("nvcc"):
                    self.hit("python.nvcc_call", node, text[:80])
                    break
        if last in ("get", "getenv", "setdefault") and node.args and isinstance(node.args[0], ast.Constant):
            key = node.args[0].value
            if key == "CUDA_HOME" and not self.mentions_rocm and not self.asks_whether:
                self.hit("python.cuda_home", node, f"{function}('CUDA_HOME')")
            if key == "TORCH_CUDA_ARCH_LIST" and not self.mentions_rocm:
                self.hit("python.cuda_arch_list", node, "TORCH_CUDA_ARCH_LIST")
        self.generic_visit(node)


_NAMED_FOR_A_KERNEL = re.compile(r"(?i)flash|(?<![a-z])fa[234](?![0-9])|cudnn|efficient|mem_?eff")
"""A function or class named for a fused attention kernel (``attention_causal_pt_fa2``, ``AttentionSDPAFlash``): one
variant among several that callers pick by name, not the attention every caller gets."""
_FUSED_SDPA = frozenset({"FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION"})
"""``SDPBackend`` members that are fused kernels: on ROCm only some GPUs and builds have them."""


def _without_math_sdpa(last: str, node: ast.Call, keywords: dict[str, ast.expr]) -> bool:
    """Whether a call leaves scaled_dot_product_attention without its math fallback: ``sdp_kernel(enable_math=False)``,
    ``enable_math_sdp(False)``, ``sdpa_kernel(SDPBackend.FLASH_ATTENTION)`` (or a list of fused backends, no MATH)."""
    if last == "sdp_kernel":
        math = keywords.get("enable_math")
        return isinstance(math, ast.Constant) and math.value is False
    if last == "enable_math_sdp":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value is False
    if last == "sdpa_kernel":
        chosen = keywords.get("backends") or (node.args[0] if node.args else None)
        members = [dotted(e).split(".")[-1] for e in getattr(chosen, "elts", [chosen] if chosen is not None else [])]
        return bool(members) and all(member in _FUSED_SDPA for member in members)
    return False


def _cuda_sides(node: ast.If, test: str | None = None) -> tuple[bool, bool]:
    """Whether the body, and whether the else, of an if is a CUDA-only path (the test names one vendor)."""
    return _cuda_sides_of_test(node.test, test)


def _cuda_sides_of_test(node: ast.AST, test: str | None = None) -> tuple[bool, bool]:
    """Whether a test's being true, and whether its being false, means CUDA (it names one vendor only); in an
    ``and`` (``not ROCM_VERSION and COMPILE_MARLIN``) being true means CUDA when one of its parts does."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return any(_cuda_sides_of_test(value)[0] for value in node.values), False
    test = _test_text(node) if test is None else test
    rocm, cuda = bool(_ROCM_TEST.search(test)), bool(_CUDA_TEST.search(test))
    if rocm == cuda:
        return False, False
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    return (cuda and not rocm) != negated, (rocm and not cuda) != negated


def _conjuncts(node: ast.AST) -> list[ast.AST]:
    """The conditions an ``and`` joins, nested ``and``s and parentheses flattened."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [part for value in node.values for part in _conjuncts(value)]
    return [node]


def _is_cuda_version(node: ast.AST) -> bool:
    """``torch.version.cuda`` as a truth value (or an ``and`` holding it as one)."""
    return any(isinstance(part, ast.Attribute) and dotted(part).endswith("version.cuda") for part in _conjuncts(node))


def _reads_cuda_version(body: list[ast.stmt]) -> bool:
    """Whether statements read ``torch.version.cuda`` itself (split it, compare it): the if around them that tests
    it handles the None it is on ROCm, and is no CUDA-only branch choice."""
    return any(isinstance(n, ast.Attribute) and dotted(n).endswith("version.cuda")
               for statement in body for n in ast.walk(statement))


def _leaves_on_rocm(statement: ast.stmt) -> bool:
    """``if is_hip: return ...`` (or raise), with no else: the rest of the block is not run on ROCm."""
    return (isinstance(statement, ast.If) and not statement.orelse and bool(statement.body)
            and isinstance(statement.body[-1], (ast.Return, ast.Raise)) and _cuda_sides(statement)[1])


_ELIF_LINE = re.compile(r"^[ \t]*elif\b(.*)$", re.MULTILINE)


def cuda_only_functions(tree: ast.Module, text: str = "") -> frozenset[str]:
    """Module-level functions used only on the CUDA side of a module-level vendor ``if`` that has another side
    (``if IS_NVIDIA: softplus = softplus_nv`` / ``else: softplus = softplus_triton``): the project's CUDA path next to
    its own portable one, like code in a CUDA-only branch."""
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if not defined:
        return frozenset()
    cuda_parts: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.If) and node.orelse:
            body_cuda, else_cuda = _cuda_sides(node)
            cuda_parts.extend(node.body if body_cuda else node.orelse if else_cuda else [])
    nvidia_link = any(_CUDA_TEST.search(m.group(1)) for m in _ELIF_LINE.finditer(text)) if "elif" in text else False
    links = {id(chain.orelse[0]): chain.orelse[0] for chain in (ast.walk(tree) if nvidia_link else ())
             if isinstance(chain, ast.If) and len(chain.orelse) == 1 and isinstance(chain.orelse[0], ast.If)}
    for link in links.values():  # the last link of an if/elif chain, for NVIDIA (another link stands before it)
        if not link.orelse and _cuda_sides(link)[0]:
            cuda_parts.extend(link.body)
    if not cuda_parts:
        return frozenset()

    def loads(nodes: list[ast.stmt]) -> dict[str, int]:
        counted: dict[str, int] = {}
        for statement in nodes:
            for child in ast.walk(statement):
                if isinstance(child, ast.Name) and child.id in defined and isinstance(child.ctx, ast.Load):
                    counted[child.id] = counted.get(child.id, 0) + 1
        return counted

    on_cuda_side, everywhere = loads(cuda_parts), loads(tree.body)
    return frozenset(name for name, count in on_cuda_side.items() if everywhere.get(name) == count)


def _test_text(node: ast.AST) -> str:
    """The names, attribute chains, calls and strings of an if-test, as text for the flag patterns (much cheaper
    than ast.unparse, which every if in a large tree would pay)."""
    parts = []
    for child in ast.walk(node):
        if isinstance(child, (ast.Name, ast.Attribute)):
            parts.append(dotted(child))
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            parts.append(repr(child.value))
        elif isinstance(child, ast.Call):
            parts.append(dotted(child.func) + "()")
        elif isinstance(child, ast.Compare) and any(isinstance(op, ast.Eq) for op in child.ops):
            parts.append("==")
    return " ".join(parts)


_TRIGGERS = re.compile(r"cuda|CUDA|nvcc|nvidia|capability|cpp_extension|inline_asm|inline_ptx|num_warps|nccl|"
                       r"flash_attention_2|xformers|whl/cu|Tensorrt|sdp_kernel|sdpa_kernel|enable_math_sdp|"
                       r"apex|paged_|_8bit|bnb|-gencode|--expt|-Xptxas|-Xcompiler|diag-suppress|use_fast_math|-arch=|"
                       r"nvtx|cudnn|hip|HIP|rocm|ROCM")
"""A Python file without any of these words can hold no rule hit: only its imports are read."""
_STATEMENT_TRIGGERS = re.compile(_TRIGGERS.pattern + r"|Extension|generate-code|ptxas|gpu-architecture|code=sm_|"
                                 r"-lnvrtc|-lcublas|-lcurand|-lcusparse")
"""A statement without any of these words (in a file with some) can hold no rule hit: its expressions are not
walked. More than the file's words: an ``Extension(...)`` call and every nvcc flag count here."""


def analyse_python(text: str, filename: str = "<source>", watched: frozenset[str] = frozenset()) -> list[Hit]:
    """Hits in one Python source; ``SyntaxError`` propagates (the caller reports and skips the file). ``watched``:
    top-level import names of the packages the knowledge base knows; where the file imports one, the lines that use
    the names it bound are hits too (``import_use``), so a finding can say where the package is used."""
    tree = ast.parse(text, filename=filename)
    visitor = _Visitor(text, shallow=not _TRIGGERS.search(text))  # no rule word at all: imports and guards only
    if isinstance(tree, ast.Module) and not visitor.shallow and visitor.tests_vendor:
        visitor.cuda_only_functions = cuda_only_functions(tree, text)
    visitor.watched = watched
    visitor.visit(tree)
    if visitor.bound:
        visitor.hits += uses_of_imports(text, visitor.bound, visitor.import_lines)
    if "import" in text and (computed := _COMPUTED_IMPORT.search(text)):  # read from the text: the walk needs no more
        visitor.hits.append(Hit("loads_by_name", text.count("\n", 0, computed.start()) + 1, computed.group(0)))
    return visitor.hits


_COMPUTED_IMPORT = re.compile(r"(?<![\w.])(?:importlib\.)?import_module\(\s*(?![\s'\")])|"
                              r"(?<![\w.])__import__\(\s*(?![\s'\")])")
"""A module imported by a name computed at run time (``importlib.import_module(f"models.{name}")``, not a literal):
the project loads plugins by name."""


_MAX_USES = 20
"""Use lines recorded per imported name: enough to show where a package is used, not every call in a large file."""


def uses_of_imports(text: str, bound: dict[str, str], import_lines: set[int]) -> list[Hit]:
    """Each line (past the ``import_lines`` themselves) that uses a name an import of a watched package ``bound``:
    ``import flash_attn`` then ``flash_attn.flash_attn_varlen_func(...)``, ``from xformers import ops as xops`` then
    ``xops.memory_efficient_attention(...)``. Read from the source text by word, comments and strings left out."""
    words = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(bound, key=len, reverse=True))) + r")\b")
    hits: list[Hit] = []
    counts: dict[str, int] = {}
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]  # as the parser counts lines
    for found in words.finditer(text):
        number = bisect_right(starts, found.start())
        name = found.group(1)
        if number in import_lines or counts.get(name, 0) >= _MAX_USES:
            continue
        before = text[starts[number - 1]:found.start()]
        if "#" in before or before.count('"') % 2 or before.count("'") % 2:
            continue  # in a comment, or inside a string on this line
        if not hits or hits[-1].line != number:
            counts[name] = counts.get(name, 0) + 1
            hits.append(Hit("import_use", number, bound[name]))
    return hits
