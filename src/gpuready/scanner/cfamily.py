"""C, C++ and CUDA sources (.cu, .cuh, .inl, and C++ that uses CUDA): the pattern rules matched line by line on the
code without its comments, with the preprocessor branches that exclude ROCm known.

Code inside a branch that ROCm does not compile (``#ifndef USE_ROCM``, the ``#else`` of ``#if defined(USE_ROCM)``,
``!defined(__HIP_PLATFORM_AMD__)`` ...) is the project's CUDA path next to its own ROCm path: it is credited, not
reported. A ``__CUDA_ARCH__`` guard is no ROCm path (HIP does not define it: the code compiles to nothing there).
Inline assembly whose string starts on the line after ``asm volatile(`` is seen too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from gpuready.scanner.cuda_apis import unsupported_api_hits
from gpuready.scanner.hits import Hit

_INCLUDE_SIGNS = re.compile(r'#\s*include\s*[<"](cuda\w*|cublas\w*|cudnn\w*|cub/|cutlass/|cute/|mma\.h|nvrtc|curand|'
                            r'cooperative_groups|cusparse|cufft|nvToolsExt|cuda/std|(?:\w+/)?(?:NvInfer|NvOnnxParser))')
"""A CUDA (or TensorRT) header included; the pattern starts with a literal '#', which the engine finds fast."""
_CODE_SIGNS = re.compile(r'\b__global__\b|\b__device__\b|\bthreadIdx\.|\b__shfl\w*_sync\b|\bnvinfer1::|'
                         r'\basm\s+(?:volatile\s*)?\(\s*"\s*(?:ldmatrix|stmatrix|w?mma|wgmma|cp\.async|'
                         r'ld\.(?:shared|global)|st\.(?:shared|global)|bar\.sync|shfl\.sync|lop3|prmt|red\.|atom\.)')
"""Device code, TensorRT's namespace, or a header of PTX macros: searched only in a text holding one of
``_CODE_WORDS`` (a pattern that starts with a word boundary is tried at every position of the text)."""
_CODE_WORDS = ("__global__", "__device__", "threadIdx.", "__shfl", "nvinfer1::", "asm")
_ROCM_MACRO = (r"((?!(?:\w*_)?(?:DISABLE|NO|WITHOUT|NOT)(?:_|\b))"
               r"(?:USE_ROCM|USE_HIP|__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__|__HIP_DEVICE_COMPILE__|"
               r"TORCH_HIP_VERSION|HIP_VERSION|IS_HIP\w*|BUILD_FOR_ROCM|GPU_HIP|__gfx\w+__|ROCM_\w+|HIPCUB\w*|"
               r"(?:\w+_)?(?:HIP|ROCM|HIPCC|HIPBLAS|HIPCUB)(?:_\w+)?))")
"""The macros a project's ROCm branch is written on: HIP's and PyTorch's own, and a project's whose name holds HIP or
ROCM as a word (``BNB_HIP``, ``GGML_USE_HIP``, ``WITH_HIP``), not one that switches it off (``DISABLE_HIP``)."""
_IF_ROCM = re.compile(rf"^\s*#\s*(?:ifdef\s+{_ROCM_MACRO}\b|if\s+.*?(?<!!)\bdefined\s*\(?\s*{_ROCM_MACRO}\b|"
                      rf"if\s+{_ROCM_MACRO}\b)")
_IF_NOT_ROCM = re.compile(rf"^\s*#\s*(?:ifndef\s+{_ROCM_MACRO}\b|if\s+.*!\s*defined\s*\(?\s*{_ROCM_MACRO}\b|"
                          rf"if\s+!\s*{_ROCM_MACRO}\b)")
_IF_CUDA_ARCH = re.compile(r"^\s*#\s*(?:ifdef\s+__CUDA_ARCH__\b|if\s+(?:.*?(?<!!)\bdefined\s*\(?\s*__CUDA_ARCH__\b|"
                           r"__CUDA_ARCH__\b))")
_IF_CUDA_AT_LEAST = re.compile(r"^\s*#\s*if\s+(?:\(?\s*defined\s*\(?\s*CUDA_VERSION\s*\)?\s*&&\s*)?\(?\s*"
                               r"CUDA_VERSION\s*>=?\s*\d+\s*\)?\s*\)?\s*$")
"""``#if CUDA_VERSION >= 9000``: HIP does not define the macro, so ROCm compiles the #else (the older CUDA path,
``__shfl_xor`` for ``__shfl_xor_sync``): with another implementation there, the #if is the CUDA path only."""
_IF = re.compile(r"^\s*#\s*if(n?def)?\b")
_ELIF = re.compile(r"^\s*#\s*elif\b")
_ELSE = re.compile(r"^\s*#\s*else\b")
_ENDIF = re.compile(r"^\s*#\s*endif\b")
_ASM_OPEN = re.compile(r"\basm\s*(?:volatile|__volatile__)?\s*\(\s*$|\basm\s*(?:volatile|__volatile__)\s*$")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"", re.DOTALL)

ROCM, CUDA, NEUTRAL = "rocm", "cuda", "neutral"
MAX_LINE = 4000
"""Characters of a line the pattern rules read."""


def uses_cuda(text: str) -> bool:
    """Whether a C/C++ file pulls in CUDA headers or is device code (so its kernel patterns matter)."""
    return bool(_INCLUDE_SIGNS.search(text)) or (any(word in text for word in _CODE_WORDS)
                                                 and bool(_CODE_SIGNS.search(text)))


def without_comments(text: str) -> list[str]:
    """The source's lines with comments blanked (string literals kept; line numbers unchanged)."""
    def blank(match: re.Match[str]) -> str:
        found = match.group(0)
        if found.startswith(('"', "'")):
            return found
        return "\n" * found.count("\n") if found.startswith("/*") else ""
    return _COMMENT.sub(blank, text).split("\n")


_TRIVIAL = re.compile(r"^\s*(?:assert\s*\(.*\)\s*;|__trap\(\)\s*;|__builtin_trap\(\)\s*;|__builtin_unreachable\(\)\s*;|"
                      r"printf\s*\(.*\)\s*;|return\s*;|CUTE_INVALID_CONTROL_PATH\s*\(.*\)\s*;?|"
                      r"if\s*\(.*\)\s*\{?|[{};]*)\s*$")
"""A line that does nothing on the path it stands on (a trap, a message, an empty return, CuTe's invalid-path
error, the condition of a block that does nothing else)."""


def _with_else(lines: Sequence[str]) -> set[int]:
    """The indexes of the #if lines whose block has an #else (or #elif) that does something: another
    implementation, not a trap (``#if __CUDA_ARCH__ >= 800 ... #else assert(0); #endif`` has none)."""
    open_ifs: list[list[int]] = []  # per open #if: its index, and whether an else part has real code
    found: set[int] = set()
    for index, line in enumerate(lines):
        if line.lstrip().startswith("#"):
            if _IF.match(line):
                open_ifs.append([index, 0, 0])
            elif (_ELSE.match(line) or _ELIF.match(line)) and open_ifs:
                open_ifs[-1][1] = 1  # in an else part from here
            elif _ENDIF.match(line) and open_ifs:
                start, _, real = open_ifs.pop()
                if real:
                    found.add(start)
        elif open_ifs and open_ifs[-1][1] and not _TRIVIAL.match(line):
            open_ifs[-1][2] = 1
    return found


def branches(lines: Sequence[str]) -> list[str]:
    """For each line, whether ROCm compiles it only on ROCm (``rocm``), never (``cuda``) or both (``neutral``),
    following #if/#ifdef/#ifndef/#elif/#else/#endif on the project's ROCm macros. A ``__CUDA_ARCH__`` branch whose
    #else holds another implementation is never ROCm's (HIP does not define the macro: ROCm compiles the #else)."""
    stack: list[list[str]] = []  # per open #if: the branch we are in, then every branch taken so far
    states = []
    alternatives = _with_else(lines) if any("__CUDA_ARCH__" in line or "CUDA_VERSION" in line
                                            for line in lines) else set()
    for index, line in enumerate(lines):
        if line.lstrip().startswith("#"):
            if _IF.match(line):
                state = ROCM if _IF_ROCM.match(line) else CUDA if _IF_NOT_ROCM.match(line) or (
                    index in alternatives and (_IF_CUDA_ARCH.match(line) or _IF_CUDA_AT_LEAST.match(line))) else NEUTRAL
                stack.append([state, state])
            elif _ELIF.match(line) and stack:
                condition = line.replace("#elif", "#if", 1)
                state = ROCM if _IF_ROCM.match(condition) else CUDA if _IF_NOT_ROCM.match(condition) else (
                    CUDA if ROCM in stack[-1][1:] else NEUTRAL)  # after a ROCm branch, the rest is not ROCm's
                stack[-1] = [state, *stack[-1][1:], state]
            elif _ELSE.match(line) and stack:
                taken = stack[-1][1:]
                state = CUDA if ROCM in taken else ROCM if taken and all(t == CUDA for t in taken) else NEUTRAL
                stack[-1] = [state, *taken, state]
            elif _ENDIF.match(line) and stack:
                stack.pop()
        current = [frame[0] for frame in stack]
        states.append(CUDA if CUDA in current else ROCM if ROCM in current else NEUTRAL)
    return states


_WARP_SYNC = re.compile(r"__shfl|\b(?:WARP_)?SHFL(?:_SYNC)?\s*\(|__ballot|__syncwarp|__activemask|__any_sync|"
                        r"__all_sync|__reduce_\w+_sync|"
                        r"__match_\w+_sync|WarpReduce|WarpScan|cub::Warp|tiled_partition|\bwmma::|mma\.sync|"
                        r"\bldmatrix\b|\bmma_sync\s*\(")
"""Warp-synchronous code: shuffles, votes, warp primitives, tensor-core fragments (a warp of 32 lanes holds one
``wmma`` / ``mma.sync`` tile between them); calls of a project's own warp reductions and scans, whose lane 0 holds
the result, count too (``_WARP_HELPER``: ``warp_reduce_sum(v)``, ``warpReduceMax(v)``). A project's own shuffle macro
counts where it reads a lane by number (``SHFL_SYNC(mask, v, i)``: lanes 32-63 of a wavefront read lanes 0-31); its
relative ones (``SHFL_UP_SYNC``) are left to the intrinsics they wrap."""
_WARP_HELPER = re.compile(r"\b[wW]arp_?(?:[aA]ll_?)?(?:[rR]educe|[sS]can)\w*\s*[(<]")
"""A call of a project's own warp reduction or scan (searched only in a file that says "arp" and "educe" or "can")."""
_BOUNDED_SHUFFLE = re.compile(r"__shfl\w*\s*\((?:[^()]|\([^()]*\))*,\s*(?:32|16|8|4|2)\s*\)")
"""A shuffle given its width (32 or less) as the last argument: it works within groups of that many lanes on a
64-lane wavefront too, so 32-lane index arithmetic beside it is a consistent logical grouping."""


def _warp_helper_called(lines: Sequence[str], states: Sequence[str], has_rocm_branch: bool) -> bool:
    """Whether the code ROCm compiles calls a warp reduction or scan of the project's own (``_WARP_HELPER``)."""
    return any(_WARP_HELPER.search(line) for line, state in zip(lines, states, strict=True)
               if not (has_rocm_branch and state == CUDA) and "arp" in line)


def _warp_synchronous(lines: Sequence[str], states: Sequence[str], has_rocm_branch: bool) -> bool:
    """Whether the code ROCm compiles (in a file with a ROCm branch, what is outside its CUDA-only branches) has
    warp-synchronous code other than width-bounded shuffles."""
    for line, state in zip(lines, states, strict=True):
        if has_rocm_branch and state == CUDA or not (found := _WARP_SYNC.findall(line)):
            continue
        if len(found) > len(_BOUNDED_SHUFFLE.findall(line)) or not all(f.startswith("__shfl") for f in found):
            return True
    return False


_WARP_CONSTANT = re.compile(r"#\s*define\s+\w*(?:WARP_?SIZE|WarpSize|warp_size|THREADS_PER_WARP)\w*\s+"
                            r"\(?32[uU]?\)?\s*$|"
                            r"\b(?:WARP_SIZE|WARPSIZE|kWarpSize|WarpSize|warpSize|warp_size|THREADS_PER_WARP|kThreadsPerWarp)"
                            r"\s*=\s*"
                            r"32\b")
"""A warp width of 32 set as a named constant: it exists to size and index by warps, wherever they are used."""
_SHFL_REMAP = re.compile(r"^\s*#\s*define\s+__shfl\w*_sync\b")
_STD_SHIM = re.compile(r"\bnamespace\s+std\s*=\s*(?:::)?std\s*;")
"""``namespace cuda { namespace std = ::std; }`` in the file's ROCm branch: its ``cuda::std::`` names are the C++
standard library's there."""
_LIBCUDACXX_BEYOND_STD = re.compile(r"\bcuda::(?!std::)|cuda/(?!std/)")
WARP_RULES = ("kernel.warp_size_32",)
"""Rules that matter only in a file with warp-synchronous code (a lane index used for nothing else is harmless), but
for a named warp-width constant (``#define WARP_SIZE 32``), which says so itself."""


_HIP_RTC = re.compile(r"hiprtc|HIPRTC|\bhipcc\b|hipModule")
"""Signs that a file's run-time compilation has its HIP side (hipRTC, hipcc, HIP modules)."""
HIPIFIED_WITH_A_BRANCH = ("kernel.nvrtc",)
"""Rules whose API hipify maps (NVRTC to hipRTC): in a file that branches for ROCm itself and names its HIP side
(hipRTC, hipcc), the project's own ROCm path, wherever the calls stand."""
LANE_RULES = ("kernel.warp_size_32", "kernel.full_warp_mask")
"""Rules about 32-lane code: harmless in a function nothing calls (dead on every platform)."""
_BLOCK_TOKEN = re.compile(r"[{};]")
_CONTAINER = re.compile(r"\b(?:namespace|struct|class|union|enum)\b|\bextern\s*\"C")
_TEMPLATE_HEAD = re.compile(r"\btemplate\s*<[^<>{};]*(?:<[^<>{};]*(?:<[^<>{};]*>[^<>{};]*)*>[^<>{};]*)*>")
_CALLED = re.compile(r"(~?[A-Za-z_]\w*)\s*\(")
_NOT_A_NAME = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignas",
                         "__launch_bounds__", "__attribute__", "__declspec", "static_assert", "noexcept", "defined",
                         "__align__", "alignof", "operator", "throw", "requires"})


_KERNEL = "\0kernel"


def enclosing_functions(lines: Sequence[str], wanted: set[int]) -> dict[int, tuple[str, int]]:
    """For each wanted line (1-based) inside a function body: the function's name and the line its body opens on
    (the outermost function: a lambda or a block inside it is part of it); a line in a ``__global__`` kernel is in
    none (a kernel is an entry point). Braces are counted on the code without
    comments; when they do not balance (a brace opened in both branches of an #if), nothing is said."""
    text = "\n".join(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    stack: list[tuple[str, int]] = []  # per open brace: the function's name ("" for any other block), its line
    spans: list[tuple[int, int, str, int]] = []
    boundary = 0
    for token in _BLOCK_TOKEN.finditer(text):
        position = token.start()
        if token.group() == "{":
            name = ""
            if not any(frame[0] for frame in stack):  # functions inside functions are lambdas and blocks
                header = _TEMPLATE_HEAD.sub(" ", text[boundary:position])
                if not _CONTAINER.search(header) and not header.rstrip().endswith(("=", ",", "(", "[")):
                    name = next((m.group(1) for m in _CALLED.finditer(header) if m.group(1) not in _NOT_A_NAME), "")
                    if name and "__global__" in header:
                        name = _KERNEL  # an entry point the host launches, from C++ or from Python: never unused
            stack.append((name, bisect_right(starts, position)))
        elif token.group() == "}":
            if not stack:
                return {}
            name, opened = stack.pop()
            if name:
                spans.append((opened, bisect_right(starts, position), name, opened))
        boundary = position + 1
    if stack:
        return {}
    found: dict[int, tuple[str, int]] = {}
    for first, last, name, opened in spans:
        if name == _KERNEL:
            continue
        for number in wanted:
            if first <= number <= last:
                found[number] = (name, opened)
    return found


def analyse_cfamily(text: str, rules: Sequence[tuple[str, re.Pattern[str]]]) -> list[Hit]:
    """One hit per rule per line; hits in a branch ROCm does not compile become one credit of the file's own ROCm
    path (rule ``credit.rocm_branch``)."""
    lines = without_comments(text)
    states = branches(lines)
    has_rocm_branch = ROCM in states or any(_IF_ROCM.match(line) or _IF_NOT_ROCM.match(line) for line in lines)
    hits: list[Hit] = []
    credited = False
    warp_sync = bool(_WARP_SYNC.search(text)) and _warp_synchronous(lines, states, has_rocm_branch) or (
        "arp" in text and ("educe" in text or "can" in text) and _warp_helper_called(lines, states, has_rocm_branch))
    hip_rtc = bool(_HIP_RTC.search(text))
    std_shim = any(state == ROCM and _STD_SHIM.search(line) for state, line in zip(states, lines, strict=True))
    for index, line in enumerate(lines):
        if len(line) > MAX_LINE:  # generated or minified code: rules look at the start (linear on any input)
            line = line[:MAX_LINE]
        if states[index] == ROCM and _SHFL_REMAP.match(line):
            hits.append(Hit("credit.shfl_remap", index + 1, "masked shuffles redefined for ROCm"))
        if not line.strip():
            continue
        probe = line
        if _ASM_OPEN.search(line):  # asm volatile( \n "mma.sync..." : the instruction string is on the next lines
            probe = line + " " + " ".join(lines[index + 1:index + 3]).strip()
        for rule_id, pattern in rules:
            if rule_id in WARP_RULES and not (warp_sync or _WARP_CONSTANT.search(probe)) or not pattern.search(probe):
                continue
            shimmed = rule_id == "kernel.libcudacxx" and std_shim and not _LIBCUDACXX_BEYOND_STD.search(probe)
            chosen = rule_id in WARP_RULES and states[index] == ROCM  # a lane count the ROCm branch itself chose
            if (states[index] == CUDA or rule_id in HIPIFIED_WITH_A_BRANCH and hip_rtc) and has_rocm_branch or (
                    shimmed or chosen):
                if not credited:
                    hits.append(Hit("credit.rocm_branch", index + 1, "CUDA-only code sits in a branch ROCm does not "
                                                                     "compile, next to the file's ROCm branch" if not
                                    shimmed else "cuda::std is mapped to std in the file's ROCm branch"))
                    credited = True
                continue
            hits.append(Hit(rule_id, index + 1, line.strip()[:160]))
    for hit in unsupported_api_hits(text):  # CUDA APIs HIPIFY has no HIP equivalent for (or CUDA removed)
        index = hit.line - 1
        if 0 <= index < len(states) and states[index] == CUDA and has_rocm_branch:
            if not credited:
                hits.append(Hit("credit.rocm_branch", hit.line, "CUDA-only API in a branch ROCm does not compile"))
                credited = True
            continue
        hits.append(hit)
    if any(state == ROCM for state in states) and not credited:
        first = states.index(ROCM) + 1
        hits.append(Hit("credit.rocm_branch", first, "has a ROCm branch"))
    lane = {hit.line for hit in hits if hit.rule in LANE_RULES}
    for number, (name, opened) in sorted(enclosing_functions(lines, lane).items()) if lane else ():
        hits.append(Hit("device_function", number, f"{name}|{opened}"))  # is it called anywhere? (engine.py)
    return hits
