#!/usr/bin/env python3
"""device-only.py - proves that a student's lesson file is device code.

usage: device-only.py [--lesson DIR] [--arch N]... [--name NAME] [--tap] FILE...

A student's file (make check SRC=mine.cu, make grade, make check-wrong) is
built into the lesson's programs beside harness.cu, on the GPU and on
warpsim, where device code is host code. Before either build, this reads
FILE with clang's CUDA front end (libclang, device side) and accepts only
what a lesson file holds:

  - __device__ and __global__ functions (templates too) that the file
    defines; __device__, __constant__ and __shared__ variables; types;
    constants (const or constexpr, of a constant value); namespaces;
  - #include of what the lesson's own files include; #define of names
    of the file's own; #pragma unroll;

and rejects, one line each, FILE:LINE and what is not allowed: a host
function (also __host__ __device__), a declaration of a function or
variable the file does not define, a reference to a host function from
device code, inline assembly or an asm label, an attribute (constructor,
destructor, init_priority, weak, alias, section, ...), any other pragma,
#line, #undef, ## pasting, extern "C", a name the harness owns (main,
lesson_main, ws_main, what include/lesson.h and the lesson's headers
define, lesson_*, LESSON_*, ws_*, WS_*, WARPSIM*), a variable of the host
with dynamic initialization, and an #if that tests anything but the
file's own macros and what the lesson's own files test. Then it compares
the lines the preprocessor keeps in FILE in the GPU build (each
__CUDA_ARCH__ of --arch; default 800 and 900) with those of the warpsim
build (WARPSIM defined): they must be the same lines. A file that defines
none of the kernels harness.cu launches is rejected too.

--tap prints a refusal as the checker's lines (mk/lesson.mk): `not ok 1 -
NAME holds device code only`, `# locate: ` and the first line, the others
as # lines, then `0 passed, 1 failed`; nothing when FILE is accepted.
Several FILEs are checked one after another in one process (what the tests
do: the harness is read once); --name and --tap take one.
DIR is the lesson folder (default: FILE's folder if it holds harness.cu,
else the current one). NAME is how FILE is named in the lines (default:
FILE as given). Exit status: 0 accepted, 1 rejected (the lines say why),
2 bad usage or no libclang here (one line saying what to install).

It needs libclang's Python bindings: Debian 12 and Ubuntu 22.04
python3-clang-14, Ubuntu 24.04 python3-clang-18 (scripts/need-tools.sh
check installs them). The CUDA API is declared by the headers beside this
file (scripts/device-only/), not read from a CUDA Toolkit: the same
verdict on a machine with no toolkit.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
PRELUDE = os.path.join(HERE, 'device-only')

# Names of the harness and of warpsim: never declared, defined or (but
# for the API below) used by a lesson file.
OWNED_PREFIXES = ('lesson_', 'LESSON_', 'ws_', 'WS_', 'WARPSIM', 'warpsim_', '__ws_', '__lesson')
OWNED_NAMES = {'main', 'lesson_main', 'ws_main', 'LAUNCH', 'CUDA_CHECK'}
# What include/lesson.h gives a lesson file to use (not to define).
LESSON_API = {'FULL_MASK', 'LANE', 'WARP_IN_BLOCK', 'PRE_VOLTA', 'LEGACY_SHFL',
              'LEGACY_SHFL_DOWN', 'LEGACY_BALLOT', 'LEGACY_ANY', 'LEGACY_ALL',
              'jitter_sleep', 'watchdog_expired', 'LESSON_OK', 'LESSON_WRONG',
              'LESSON_HANG', 'WARPSIM'}
ALLOWED_PRAGMAS = {'unroll', 'nounroll', 'once'}
ASM_WORDS = {'asm', '__asm', '__asm__'}
ATTRIBUTE_WORDS = {'__attribute__', '__attribute', '__declspec', '_Pragma', 'alignas',
                   '_Alignas', '__builtin_frame_address', '__builtin_return_address'}
ALLOWED_ATTRS = {'CUDAHOST_ATTR', 'CUDADEVICE_ATTR', 'CUDAGLOBAL_ATTR', 'CUDASHARED_ATTR', 'CUDACONSTANT_ATTR'}


def usage(msg):
    print('device-only.py: %s' % msg, file=sys.stderr)
    sys.exit(2)


try:
    import clang.cindex as ci
except ImportError:
    sys.path.append('/usr/lib/python3/dist-packages')
    try:
        import clang.cindex as ci
    except ImportError:
        usage("needs libclang's Python bindings to read the file as CUDA C++: "
              "apt-get install python3-clang-14 (Debian 12, Ubuntu 22.04) or "
              "python3-clang-18 (Ubuntu 24.04), or scripts/need-tools.sh check")
import ctypes


class SourceRangeList(ctypes.Structure):
    _fields_ = [('count', ctypes.c_uint), ('ranges', ctypes.POINTER(ci.SourceRange))]


def find_libclang():
    """Points the bindings at a libclang that exists, where their default
    name (libclang.so) is not installed (Debian ships libclang-14.so.1)."""
    import glob
    if ci.Config.loaded:
        return
    for pattern in ('/usr/lib/llvm-*/lib/libclang.so*', '/usr/lib/*/libclang-*.so*',
                    '/usr/lib64/libclang.so*'):
        found = sorted(glob.glob(pattern))
        if found:
            ci.Config.set_library_file(found[-1])
            return


class Check:
    INDEX = None
    def __init__(self, path, name, lesson, archs, tap=False):
        self.tap = tap
        self.path = os.path.abspath(path)
        self.name = name
        self.lesson = lesson
        self.archs = archs
        self.problems = []
        if Check.INDEX is None:
            Check.INDEX = ci.Index.create()
        self.index = Check.INDEX
        self.trusted = (os.path.join(TOP, 'include') + os.sep, PRELUDE + os.sep,
                        os.path.join(TOP, 'warpsim', 'include') + os.sep)

    # ---- reporting ----
    def reject(self, line, what, rank=1):
        """Notes a problem; of several on one line the one of the lowest
        rank is shown (what the front end saw, before a token's word)."""
        entry = (line, rank, what)
        if entry not in self.problems:
            self.problems.append(entry)

    def mine(self, loc):
        return bool(ci.conf.lib.clang_Location_isFromMainFile(loc))

    def system(self, loc):
        return bool(ci.conf.lib.clang_Location_isInSystemHeader(loc))

    # ---- the lesson's own files ----
    def lesson_files(self):
        files = []
        for f in ('legacy.cu', 'sync.cu', 'exercise.cu', 'cg.cu'):
            p = os.path.join(self.lesson, f)
            if os.path.isfile(p):
                files.append(p)
        right = os.path.join(self.lesson, 'right')
        if os.path.isdir(right):
            files += [os.path.join(right, f) for f in sorted(os.listdir(right)) if f.endswith('.cu')]
        return files

    def lesson_facts(self):
        """What the lesson's own (trusted) files include, define and test."""
        includes, defined, tested = {'<assert.h>', '<cassert>'}, set(), set()
        for f in self.lesson_files():
            with open(f, errors='replace') as fh:
                text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', fh.read(), flags=re.S)
            found = [m.group(1) for m in re.finditer(r'^\s*#\s*include\s*([<"][^>"]+[>"])', text, re.M)]
            if os.path.basename(f) == 'cg.cu':
                # a program of its own (host code too): the CUDA headers it uses only
                includes.update(x for x in found if x.startswith('<'))
                continue
            includes.update(found)
            defined.update(re.findall(r'^\s*#\s*define\s+([A-Za-z_]\w*)', text, re.M))
            for cond in re.findall(r'^\s*#\s*(?:if|elif|ifdef|ifndef)\b((?:[^\n]*\\\n)*[^\n]*)', text, re.M):
                tested.update(re.findall(r'[A-Za-z_]\w*', cond))
        return includes, defined, tested

    def headers(self):
        """Trusted headers whose names a student file may not define again:
        include/*.h and the lesson folder's own headers."""
        out = []
        for d in (os.path.join(TOP, 'include'), self.lesson):
            for f in sorted(os.listdir(d)):
                if f.endswith(('.h', '.cuh')):
                    out.append(os.path.join(d, f))
        return out

    # ---- parsing ----
    def gpu_args(self, arch):
        # clang 14 knows GPUs up to sm_86: newer __CUDA_ARCH__ values are set by hand.
        return ['-x', 'cuda', '--cuda-device-only', '-nocudainc', '-nocudalib',
                '--cuda-path=/nonexistent', '--cuda-gpu-arch=sm_80', '-std=c++17',
                '-Wno-unknown-cuda-version', '-Wno-builtin-macro-redefined',
                '-U__CUDA_ARCH__', '-D__CUDA_ARCH__=%d' % arch, '-D__CUDACC__', '-D__NVCC__',
                '-DLESSON_UNIT', '-DLESSON_SRC_NAME="%s"' % os.path.basename(self.path),
                '-isystem', PRELUDE, '-I', os.path.join(TOP, 'include'), '-I', self.lesson]

    def warpsim_args(self):
        return ['-x', 'c++', '-std=gnu++17', '-DWARPSIM', '-DLESSON_UNIT',
                '-DLESSON_SRC_NAME="%s"' % os.path.basename(self.path), '-Dmain=ws_main',
                '-I', os.path.join(TOP, 'include'), '-I', os.path.join(TOP, 'warpsim', 'include'),
                '-I', self.lesson]

    def parse(self, args, bodies=True):
        opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
        if not bodies:
            opts |= ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
        try:
            return self.index.parse(self.path, args=args, options=opts)
        except ci.TranslationUnitLoadError:
            usage('clang could not read %s at all' % self.name)

    def kept_lines(self, tu):
        """The lines of FILE the preprocessor skipped in this build."""
        lib = ci.conf.lib
        lib.clang_getSkippedRanges.restype = ctypes.POINTER(SourceRangeList)
        lib.clang_getSkippedRanges.argtypes = [ci.TranslationUnit, ci.File]
        lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(SourceRangeList)]
        f = tu.get_file(self.path)
        lst = lib.clang_getSkippedRanges(tu, f)
        skipped = set()
        try:
            for i in range(lst.contents.count):
                r = lst.contents.ranges[i]
                skipped.update(range(r.start.line, r.end.line + 1))
        finally:
            lib.clang_disposeSourceRangeList(lst)
        return skipped

    # ---- the checks ----
    has_conditionals = False

    def check_tokens(self, tu, own_macros, facts):
        includes, lesson_defined, lesson_tested = facts
        toks = [t for t in tu.get_tokens(extent=tu.get_extent(self.path, (0, os.path.getsize(self.path))))
                if t.kind != ci.TokenKind.COMMENT]
        defined_here = set()
        i = 0
        n = len(toks)
        while i < n:
            t = toks[i]
            s = t.spelling
            line = t.location.line
            if s == '##':
                self.reject(line, '## token pasting is not allowed in a lesson file', 2)
            elif s in ASM_WORDS:
                self.reject(line, 'inline assembly (%s) is not allowed: device code in CUDA C++ only' % s, 2)
            elif s in ATTRIBUTE_WORDS:
                self.reject(line, '%s is not allowed: no attributes in a lesson file (they can run code '
                                  'outside a kernel or change how it links)' % s, 2)
            elif s == '[' and i + 1 < n and toks[i + 1].spelling == '[':
                self.reject(line, '[[...]] attributes are not allowed in a lesson file', 2)
            elif s == 'extern' and i + 1 < n and toks[i + 1].kind == ci.TokenKind.LITERAL:
                self.reject(line, 'extern %s is not allowed: a lesson file keeps C++ linkage' % toks[i + 1].spelling)
            elif s == '#' and i + 1 < n and toks[i + 1].location.line == line and \
                    (i == 0 or toks[i - 1].location.line != line):
                d = toks[i + 1].spelling
                last = self.logical_end(line)
                j = i + 2
                while j < n and toks[j].location.line <= last:
                    j += 1
                rest = body = toks[i + 2:j]
                if d == 'include':
                    spelled = ''.join(x.spelling for x in rest)
                    if spelled not in includes:
                        self.reject(line, '#include %s: a lesson file includes only what the lesson\'s '
                                          'own files do (%s)' % (spelled, ', '.join(sorted(includes)) or 'nothing'))
                elif d == 'define':
                    if rest:
                        m = rest[0].spelling
                        if rest[0].kind == ci.TokenKind.KEYWORD:
                            self.reject(line, '#define %s: a keyword cannot be redefined' % m)
                        elif self.owned(m) or m in self.header_names:
                            self.reject(line, '#define %s: the name is the harness\'s (include/lesson.h, '
                                              'the lesson\'s headers)' % m)
                        elif m.startswith('__') or re.match(r'_[A-Z]', m):
                            self.reject(line, '#define %s: names starting with __ or _X are the '
                                              'compiler\'s' % m)
                        defined_here.add(m)
                    for x in body[1:]:
                        w = x.spelling
                        if w == '##':
                            self.reject(line, '## token pasting is not allowed in a lesson file')
                        elif w in ASM_WORDS or w in ATTRIBUTE_WORDS:
                            self.reject(line, '#define %s: %s is not allowed in a lesson file' % (m, w))
                        elif x.kind == ci.TokenKind.IDENTIFIER and self.owned(w) and w not in LESSON_API:
                            self.reject(line, '%s is a name the harness owns: a lesson file neither '
                                              'defines nor uses it' % w)
                elif d == 'undef':
                    m = rest[0].spelling if rest else ''
                    self.reject(line, '#undef %s is not allowed in a lesson file' % m)
                elif d in ('if', 'elif', 'ifdef', 'ifndef'):
                    self.has_conditionals = True
                    for x in (body if d in ('if', 'elif') else rest):
                        if x.kind != ci.TokenKind.IDENTIFIER and x.kind != ci.TokenKind.KEYWORD:
                            continue
                        w = x.spelling
                        if w in ('defined', '__has_include', '__has_include_next') and w != 'defined':
                            pass
                        if w == 'defined' or w in own_macros or w in lesson_tested or w in ('true', 'false'):
                            continue
                        self.reject(x.location.line, '#%s tests %s, which may not be the same in the GPU '
                                    'build and the warpsim build: a lesson file tests only its own macros '
                                    'and %s' % (d, w, ', '.join(sorted(lesson_tested - {'defined'})) or 'nothing else'))
                        break
                elif d == 'pragma':
                    p = rest[0].spelling if rest else ''
                    if p not in ALLOWED_PRAGMAS:
                        self.reject(line, '#pragma %s is not allowed: only #pragma unroll' % p)
                elif d in ('line',) or d.isdigit():
                    self.reject(line, '#line is not allowed: the reports must name the file\'s own lines')
                elif d not in ('else', 'endif', 'error', 'warning'):
                    self.reject(line, '#%s is not allowed in a lesson file' % d)
                i = j
                continue
            elif t.kind == ci.TokenKind.IDENTIFIER and self.owned(s) and s not in LESSON_API:
                self.reject(line, '%s is a name the harness owns: a lesson file neither defines nor '
                                  'uses it' % s, 2)
            i += 1
        return defined_here

    def logical_end(self, line):
        """The last line of the directive that starts on line (its
        backslash continuations)."""
        while line <= len(self.lines) and self.lines[line - 1].rstrip('\r\n').endswith('\\'):
            line += 1
        return line

    def owned(self, name):
        return name in OWNED_NAMES or name.startswith(OWNED_PREFIXES)

    def attrs(self, c):
        return {k.kind.name for k in c.get_children() if k.kind.is_attribute()}

    def is_device_function(self, c):
        a = self.attrs(c)
        return ('CUDADEVICE_ATTR' in a or 'CUDAGLOBAL_ATTR' in a) and 'CUDAHOST_ATTR' not in a

    def check_attrs(self, c):
        for k in c.get_children():
            if k.kind.is_attribute() and k.kind.name not in ALLOWED_ATTRS:
                if k.kind.name == 'ASM_LABEL_ATTR':
                    self.reject(k.location.line or c.location.line,
                                'an asm label on %s is not allowed' % c.spelling)
                elif k.kind.name != 'ALIGNED_ATTR' and not self.from_trusted_macro(k):
                    words = [t.spelling for t in k.get_tokens() if t.kind == ci.TokenKind.IDENTIFIER]
                    self.reject(k.location.line or c.location.line,
                                'an attribute on %s is not allowed (%s)' % (c.spelling or 'a declaration',
                                                                          k.spelling or (words[0] if words else 'an attribute')))

    def from_trusted_macro(self, k):
        """Whether an attribute was spelled in a trusted header's macro
        (__forceinline__, __launch_bounds__, __noinline__)."""
        lib = ci.conf.lib
        f = ci.c_object_p()
        line, col, off = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        lib.clang_getSpellingLocation.argtypes = [ci.SourceLocation, ctypes.POINTER(ci.c_object_p),
                                                  ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                                                  ctypes.POINTER(ctypes.c_uint)]
        lib.clang_getSpellingLocation(k.location, ctypes.byref(f), ctypes.byref(line),
                                      ctypes.byref(col), ctypes.byref(off))
        if not f:
            return False
        name = os.path.abspath(ci.File(f).name)
        return name.startswith(self.trusted) and name != self.path

    def check_decl(self, c, scope='file'):
        k = c.kind
        name = c.spelling
        line = c.location.line
        if k in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.FUNCTION_TEMPLATE, ci.CursorKind.CXX_METHOD,
                 ci.CursorKind.CONSTRUCTOR, ci.CursorKind.DESTRUCTOR, ci.CursorKind.CONVERSION_FUNCTION):
            self.check_attrs(c)
            if k != ci.CursorKind.FUNCTION_DECL and k != ci.CursorKind.FUNCTION_TEMPLATE and \
                    c.is_default_method():
                return
            if not self.is_device_function(c):
                a = self.attrs(c)
                what = '__host__ __device__' if 'CUDAHOST_ATTR' in a and 'CUDADEVICE_ATTR' in a else 'host'
                self.reject(line, '%s is a %s function: a lesson file holds device code only '
                                  '(__device__ or __global__)' % (name, what))
            if scope == 'file' and self.owned(name) or name in self.header_names:
                self.reject(line, '%s is a name the harness owns' % name)
            if not c.is_definition():
                d = c.get_definition()
                if d is None or not self.mine(d.location):
                    self.reject(line, '%s is declared but not defined in this file: a lesson file '
                                      'declares only what it defines' % name)
            self.check_body(c)
            return
        if k == ci.CursorKind.VAR_DECL:
            self.check_attrs(c)
            a = self.attrs(c)
            if self.owned(name) or name in self.header_names:
                self.reject(line, '%s is a name the harness owns' % name)
            if c.storage_class == ci.StorageClass.EXTERN and not c.is_definition():
                if 'CUDASHARED_ATTR' not in a:
                    self.reject(line, '%s is declared extern: a lesson file declares only what it '
                                      'defines (extern __shared__ for dynamic shared memory aside)' % name)
                return
            if a & {'CUDADEVICE_ATTR', 'CUDACONSTANT_ATTR', 'CUDASHARED_ATTR'}:
                self.check_body(c)
                return
            if scope == 'class':
                return          # a static data member's declaration; its definition is checked
            if not c.type.is_const_qualified() or not self.constant(c):
                self.reject(line, '%s is a host variable: a lesson file holds __device__, __constant__ '
                                  'and __shared__ variables and constants only' % name)
            return
        if k in (ci.CursorKind.STRUCT_DECL, ci.CursorKind.CLASS_DECL, ci.CursorKind.UNION_DECL,
                 ci.CursorKind.CLASS_TEMPLATE, ci.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION):
            self.check_attrs(c)
            if self.owned(name) or name in self.header_names:
                self.reject(line, '%s is a name the harness owns' % name)
            for m in c.get_children():
                if m.kind in (ci.CursorKind.FIELD_DECL, ci.CursorKind.CXX_ACCESS_SPEC_DECL,
                              ci.CursorKind.TEMPLATE_TYPE_PARAMETER, ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER,
                              ci.CursorKind.CXX_BASE_SPECIFIER, ci.CursorKind.TYPE_REF,
                              ci.CursorKind.TEMPLATE_REF) or m.kind.is_attribute():
                    continue
                self.check_decl(m, 'class')
            return
        if k in (ci.CursorKind.ENUM_DECL, ci.CursorKind.TYPEDEF_DECL, ci.CursorKind.TYPE_ALIAS_DECL,
                 ci.CursorKind.TYPE_ALIAS_TEMPLATE_DECL, ci.CursorKind.STATIC_ASSERT,
                 ci.CursorKind.USING_DIRECTIVE, ci.CursorKind.USING_DECLARATION,
                 ci.CursorKind.NAMESPACE_ALIAS, ci.CursorKind.FRIEND_DECL):
            self.check_attrs(c)
            if k in (ci.CursorKind.TYPEDEF_DECL, ci.CursorKind.ENUM_DECL) and \
                    (self.owned(name) or name in self.header_names):
                self.reject(line, '%s is a name the harness owns' % name)
            return
        if k == ci.CursorKind.NAMESPACE:
            for m in c.get_children():
                self.check_decl(m)
            return
        if k == ci.CursorKind.LINKAGE_SPEC:
            self.reject(line, 'extern "C" is not allowed: a lesson file keeps C++ linkage')
            return
        if k in (ci.CursorKind.INCLUSION_DIRECTIVE, ci.CursorKind.MACRO_DEFINITION,
                 ci.CursorKind.MACRO_INSTANTIATION, ci.CursorKind.UNEXPOSED_DECL):
            if k == ci.CursorKind.UNEXPOSED_DECL:
                self.reject(line, 'this declaration is not one a lesson file may hold')
            return
        self.reject(line, '%s%s is not allowed in a lesson file (%s)'
                    % (name or 'this', ' ' if name else '', k.name.lower().replace('_', ' ')))

    def constant(self, c):
        lib = ci.conf.lib
        lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
        lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
        lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
        # an initializer that is a call, new or lambda is dynamic
        for n in c.walk_preorder():
            if n.kind in (ci.CursorKind.CALL_EXPR, ci.CursorKind.CXX_NEW_EXPR, ci.CursorKind.LAMBDA_EXPR):
                return False
        r = lib.clang_Cursor_Evaluate(c)
        if not r:
            return False
        lib.clang_EvalResult_dispose(r)
        return True

    def check_body(self, c):
        """No reference from device code to a host function (clang
        diagnoses the calls it emits; this sees every reference, a
        function's address too), no asm statement."""
        for n in c.walk_preorder():
            if n.kind == ci.CursorKind.ASM_STMT or n.kind == ci.CursorKind.MS_ASM_STMT:
                self.reject(n.location.line, 'inline assembly is not allowed: device code in CUDA C++ only')
            elif n.kind in (ci.CursorKind.DECL_REF_EXPR, ci.CursorKind.MEMBER_REF_EXPR,
                            ci.CursorKind.OVERLOADED_DECL_REF):
                r = n.referenced
                if r is None or r.kind not in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD,
                                               ci.CursorKind.FUNCTION_TEMPLATE):
                    continue
                a = self.attrs(r)
                if 'CUDADEVICE_ATTR' in a or 'CUDAGLOBAL_ATTR' in a:
                    continue
                if r.spelling.startswith('__builtin') or r.location.file is None:
                    continue
                self.reject(n.location.line, '%s is a host function: device code cannot call it '
                                             '(nor take its address)' % r.spelling)

    def diagnostics(self, tu):
        for d in tu.diagnostics:
            if d.severity < ci.Diagnostic.Error:
                continue
            loc = d.location
            notes = ' '.join(ch.spelling for ch in d.children)
            if 'call to __host__ function' in notes or 'reference to __host__ function' in d.spelling:
                m = re.search(r"'([^']+)'", d.spelling)
                self.reject(loc.line if self.mine(loc) else 0,
                            '%s is a host function: device code cannot call it' % (m.group(1) if m else 'this'))
            elif self.mine(loc):
                self.reject(loc.line, 'not CUDA C++ that clang accepts: %s' % d.spelling)
            elif loc.file is not None and os.path.abspath(loc.file.name).startswith(self.trusted[1]):
                continue
            else:
                self.reject(0, 'the lesson\'s headers do not compile with this file: %s:%d: %s'
                            % (os.path.basename(loc.file.name) if loc.file else '?', loc.line, d.spelling))

    KERNELS = {}

    def kernels_needed(self):
        """The kernels harness.cu launches: its __global__ declarations."""
        if self.lesson not in Check.KERNELS:
            Check.KERNELS[self.lesson] = self.read_kernels()
        return Check.KERNELS[self.lesson]

    def read_kernels(self):
        h = os.path.join(self.lesson, 'harness.cu')
        if not os.path.isfile(h):
            return set()
        args = [a for a in self.gpu_args(self.archs[0]) if not a.startswith('-DLESSON_')]
        args += ['-DLESSON_HARNESS']
        tu = self.index.parse(h, args=args, options=ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
        out = set()
        for c in tu.cursor.get_children():
            if c.location.file is not None and os.path.abspath(c.location.file.name) == os.path.abspath(h) \
                    and c.kind == ci.CursorKind.FUNCTION_DECL and 'CUDAGLOBAL_ATTR' in self.attrs(c):
                out.add(c.spelling)
        return out

    def run(self):
        with open(self.path, 'rb') as fh:
            data = fh.read()
        self.lines = data.decode('utf-8', 'replace').split('\n')
        if not data.strip():
            return self.say(['%s: the file is empty: it defines none of the lesson\'s kernels' % self.name])
        if b'\0' in data:
            return self.say(['%s: not a text file' % self.name])
        facts = self.lesson_facts()
        self.header_names = set()
        tu = self.parse(self.gpu_args(self.archs[0]))
        header_files = {os.path.abspath(h) for h in self.headers()}
        own_macros = set()
        top = []
        for c in tu.cursor.get_children():
            loc = c.location
            if self.system(loc):
                continue
            if self.mine(loc):
                top.append(c)
                if c.kind == ci.CursorKind.MACRO_DEFINITION:
                    own_macros.add(c.spelling)
                continue
            f = loc.file
            if f is not None and c.spelling and c.kind != ci.CursorKind.INCLUSION_DIRECTIVE \
                    and c.kind != ci.CursorKind.MACRO_INSTANTIATION and \
                    os.path.abspath(f.name) in header_files:
                self.header_names.add(c.spelling)
        self.header_names -= facts[1]       # what the lesson's headers want the file to define
        self.check_tokens(tu, own_macros, facts)
        self.diagnostics(tu)
        kernels = set()
        for c in top:
            self.check_decl(c)
            if c.kind == ci.CursorKind.FUNCTION_DECL and c.is_definition() and 'CUDAGLOBAL_ATTR' in self.attrs(c):
                kernels.add(c.spelling)
        # the same lines in every build (a file without conditionals keeps
        # every line in each)
        if not self.problems and self.has_conditionals:
            gpu = self.kept_lines(tu)
            for arch in self.archs[1:]:
                other = self.kept_lines(self.parse(self.gpu_args(arch), bodies=False))
                self.compare(gpu, other, '__CUDA_ARCH__ %d' % self.archs[0], '__CUDA_ARCH__ %d' % arch)
            ws = self.kept_lines(self.parse(self.warpsim_args(), bodies=False))
            self.compare(gpu, ws, 'the GPU build', 'the warpsim build')
        if not self.problems:
            needed = self.kernels_needed()
            if needed and not (needed & kernels):
                return self.say(['%s: defines none of the lesson\'s kernels (%s): harness.cu launches those'
                                 % (self.name, ', '.join(sorted(needed)))])
        if not self.problems:
            return 0
        shown = {}
        for line, rank, what in self.problems:
            if line not in shown or rank < shown[line][0]:
                shown[line] = (rank, what)
        lines = sorted(shown)
        out = []
        for line in lines[:10]:
            what = shown[line][1]
            out.append('%s:%s: %s' % (self.name, line, what) if line else '%s: %s' % (self.name, what))
        if len(lines) > 10:
            out.append('%s: ... and %d more lines' % (self.name, len(lines) - 10))
        return self.say(out)

    def say(self, out):
        """Prints the refusal (out: its lines, the first what locates it)
        and returns 1."""
        if not self.tap:
            print('\n'.join(out))
            return 1
        print('not ok 1 - %s holds device code only (checked before it is built)' % self.name)
        print('# locate: %s' % out[0])
        for line in out[1:]:
            print('# %s' % line)
        print('# a lesson file holds __device__ and __global__ functions, device variables, types '
              'and constants, and includes what the lesson\'s own files do (scripts/device-only.py --help)')
        print('0 passed, 1 failed')
        return 1

    def compare(self, a, b, an, bn):
        diff = sorted(a ^ b)
        if diff:
            self.reject(diff[0], 'the preprocessor keeps different lines here in %s and in %s: a lesson '
                                 'file is the same code wherever it is built' % (an, bn))


def main(argv):
    lesson = None
    archs = []
    name = None
    tap = False
    args = argv[1:]
    files = []
    while args:
        a = args.pop(0)
        if a in ('-h', '--help'):
            print(__doc__.strip())
            return 0
        if a == '--tap':
            tap = True
            continue
        if a in ('--lesson', '--arch', '--name'):
            if not args:
                usage('%s needs a value (try --help)' % a)
            v = args.pop(0)
            if a == '--lesson':
                lesson = v
            elif a == '--name':
                name = v
            else:
                if not re.fullmatch(r'[1-9][0-9]{2,3}', v):
                    usage("--arch %s: a __CUDA_ARCH__ value such as 900" % v)
                archs.append(int(v))
        elif a.startswith('-') and a != '-':
            usage('unknown option %s (try --help)' % a)
        else:
            files.append(a)
    if not files:
        usage('no file to check (try --help)')
    if len(files) > 1 and (name or tap):
        usage('--name and --tap take one file')
    for path in files:
        if not os.path.isfile(path):
            usage('%s: no such file' % path)
    find_libclang()
    rc = 0
    for path in files:
        where = lesson
        if where is None:
            d = os.path.dirname(os.path.abspath(path))
            where = d if os.path.isfile(os.path.join(d, 'harness.cu')) else os.getcwd()
        if not os.path.isdir(where):
            usage('--lesson %s: no such folder' % where)
        try:
            check = Check(path, name or path, os.path.abspath(where), archs or [800, 900], tap)
        except ci.LibclangError as e:
            usage('libclang could not be loaded (%s): apt-get install python3-clang-14'
                  % str(e).split('.')[0])
        rc = max(rc, check.run())
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
