"""Python analysis through the AST: imports (and whether they are guarded), and CUDA-specific API use."""

from __future__ import annotations

import ast
import re

from gpuready.scanner.hits import Hit

_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError", "RuntimeError"}
_FLAG = re.compile(r"(available|has_|_has|enable|use_|is_|installed|supported|flag|HAS_|USE_|IS_)", re.IGNORECASE)
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


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


class _Visitor(ast.NodeVisitor):
    def __init__(self, text: str) -> None:
        self.hits: list[Hit] = []
        self.guard_depth = 0
        self.capability_names: set[str] = set()
        self.cpp_extension_names = {"CUDAExtension"}
        self.load_names: set[str] = set()
        self.mentions_rocm = bool(re.search(r"ROCM_HOME|ROCM_PATH|version\.hip|is_hip|IS_HIP|PYTORCH_ROCM_ARCH", text))

    def hit(self, rule: str, node: ast.AST, detail: str = "", optional: bool = False) -> None:
        self.hits.append(Hit(rule, getattr(node, "lineno", 0), detail, optional))

    # imports and the guards around them
    def visit_Try(self, node: ast.Try) -> None:
        guarded = any(_handler_catches_import_error(h) for h in node.handlers)
        self.guard_depth += guarded
        for statement in node.body:
            self.visit(statement)
        self.guard_depth -= guarded
        for part in (*node.handlers, *node.orelse, *node.finalbody):
            self.visit(part)

    def visit_TryStar(self, node: ast.TryStar) -> None:
        self.visit_Try(node)  # type: ignore[arg-type]

    def visit_If(self, node: ast.If) -> None:
        flag = bool(_FLAG.search(ast.unparse(node.test)))
        self.visit(node.test)
        self.guard_depth += flag
        for statement in node.body:
            self.visit(statement)
        self.guard_depth -= flag
        for statement in node.orelse:
            self.visit(statement)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.hit("import", node, alias.name, self.guard_depth > 0)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self.hit("import", node, node.module, self.guard_depth > 0)
            if node.module == "torch.utils.cpp_extension":
                for alias in node.names:
                    if alias.name in ("load", "load_inline"):
                        self.load_names.add(alias.asname or alias.name)
                    if alias.name == "CUDAExtension":
                        self.cpp_extension_names.add(alias.asname or alias.name)
                    if alias.name == "CUDA_HOME" and not self.mentions_rocm:
                        self.hit("python.cuda_home", node, "from torch.utils.cpp_extension import CUDA_HOME")
            if node.module.startswith("torch.cuda.nvtx") or node.module == "torch.cuda" and any(
                    a.name == "nvtx" for a in node.names):
                self.hit("python.nvtx", node, f"from {node.module} import ...")
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

    def visit_Compare(self, node: ast.Compare) -> None:
        for part in (node.left, *node.comparators):
            inner = part.value if isinstance(part, ast.Subscript) else part
            if isinstance(inner, ast.Call) and dotted(inner.func).endswith("get_device_capability") or (
                    isinstance(inner, ast.Name) and inner.id in self.capability_names):
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
        function = dotted(node.func)
        last = function.split(".")[-1]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if last in self.cpp_extension_names and last != "":
            self.hit("python.cpp_extension_cuda", node, function)
        elif (last in self.load_names or function.endswith(("cpp_extension.load", "cpp_extension.load_inline"))) and (
                "cuda_sources" in keywords or any(s.endswith((".cu", ".cuh")) for s in _strings(node))):
            self.hit("python.cpp_extension_cuda", node, function)
        if last == "init_process_group":
            backend = keywords.get("backend") or (node.args[0] if node.args else None)
            if isinstance(backend, ast.Constant) and isinstance(backend.value, str) and "nccl" in backend.value:
                self.hit("python.nccl_backend", node, backend.value)
        if last == "inline_asm_elementwise":
            self.hit("triton.inline_asm", node, function)
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
            if key == "CUDA_HOME" and not self.mentions_rocm:
                self.hit("python.cuda_home", node, f"{function}('CUDA_HOME')")
            if key == "TORCH_CUDA_ARCH_LIST" and not self.mentions_rocm:
                self.hit("python.cuda_arch_list", node, "TORCH_CUDA_ARCH_LIST")
        self.generic_visit(node)


def analyse_python(text: str, filename: str = "<source>") -> list[Hit]:
    """Hits in one Python source; ``SyntaxError`` propagates (the caller reports and skips the file)."""
    tree = ast.parse(text, filename=filename)
    visitor = _Visitor(text)
    visitor.visit(tree)
    return visitor.hits
