/*
 * image.c - what warpsim knows about the program itself: where its
 * executable is loaded, its __shared__ variables (names and sizes, from the
 * ELF symbol table, section ws_shared), its functions, and its source.
 *
 * And the source text, for three questions: a lane that left the kernel
 * without calling a collective either took a return statement that lies
 * before the call (it exited early, which the Programming Guide allows) or
 * ran on past the call to the kernel's end (it skipped the call)
 * (ws_source_return_between); which loop holds a __syncthreads
 * (ws_source_loop_around); and the names of a kernel's parameters
 * (ws_source_params). Besides, which of the program's global variables are
 * its own (ws_image_own_data), and where its image lies (ws_image_span).
 *
 * Depends on nothing but the C library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ws_internal.h"

uintptr_t ws_exe_base;            /* where the executable is loaded */
static int exe_pie = 1, loaded;
static char exe_path[4096];

typedef struct func { uintptr_t start, end; } func;
typedef struct span { uintptr_t lo, hi; } span;

static ws_var *vars;
static int nvars;
static uintptr_t below_shared;    /* end of the last object before ws_shared */
extern char shared_start[] WS_SHARED_START __attribute__((weak));
static func *funcs;
static int nfuncs;
static span *own;                 /* the program's own global variables, by address */
static int nown, own_loaded;

void ws_image_init(void)
{
    Dl_info info;
    Elf64_Ehdr eh;
    int fd;
    ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    exe_path[n > 0 ? n : 0] = '\0';
    if (dladdr((void *)ws_image_init, &info) && info.dli_fbase)
        ws_exe_base = (uintptr_t)info.dli_fbase;
    fd = exe_path[0] ? open(exe_path, O_RDONLY) : -1;
    if (fd >= 0) {
        if (read(fd, &eh, sizeof eh) == (ssize_t)sizeof eh &&
            memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0)
            exe_pie = eh.e_type == ET_DYN;
        close(fd);
    }
}

const char *ws_image_path(void)
{
    return exe_path;
}

uintptr_t ws_image_file_addr(uintptr_t pc)
{
    return exe_pie ? pc - ws_exe_base : pc;
}

uintptr_t ws_pc_from_offset(uint32_t off)
{
    return ws_exe_base + off;
}

static int by_start(const void *a, const void *b)
{
    uintptr_t x = ((const func *)a)->start, y = ((const func *)b)->start;
    return x < y ? -1 : x > y;
}

static int by_addr(const void *a, const void *b)
{
    uintptr_t x = ((const ws_var *)a)->addr, y = ((const ws_var *)b)->addr;
    return x < y ? -1 : x > y;
}

/* Whether s is what may follow a C++ static's name: nothing, _N or __N_. */
static int discriminator(const char *s)
{
    size_t d;
    if (!*s)
        return 1;
    if (s[0] != '_')
        return 0;
    if (s[1] == '_') {
        d = strspn(s + 2, "0123456789");
        return d > 0 && s[2 + d] == '_' && !s[3 + d];
    }
    d = strspn(s + 1, "0123456789");
    return d > 0 && !s[1 + d];
}

/*
 * The source name of a C++ static (the Itanium ABI's names, g++'s and
 * clang++'s, for lesson files compiled as C++): a function's static s is
 * _ZZ<function>E1s, with _N or __N_ after it when the function has
 * several; a static at namespace scope _ZL1s, in a namespace _ZN2nsL1sE.
 * Returns 1 with the name in out, 0 when sym is none of these.
 */
static int cxx_var_name(const char *sym, char *out, size_t len)
{
    const char *p, *e;
    size_t n;
    if (!strncmp(sym, "_ZL", 3) && isdigit((unsigned char)sym[3])) {
        n = strtoul(sym + 3, (char **)&p, 10);
        if (n && n == strlen(p)) {
            snprintf(out, len, "%.*s", (int)n, p);
            return 1;
        }
    }
    if (!strncmp(sym, "_ZN", 3)) {             /* the last name before E */
        const char *last = NULL;
        size_t ln = 0;
        for (p = sym + 3; *p && *p != 'E';) {
            if (*p == 'L')
                p++;
            if (!isdigit((unsigned char)*p))
                return 0;
            n = strtoul(p, (char **)&e, 10);
            if (strlen(e) < n)
                return 0;
            last = e;
            ln = n;
            p = e + n;
        }
        if (*p != 'E' || p[1] || !last)
            return 0;
        snprintf(out, len, "%.*s", (int)ln, last);
        return 1;
    }
    if (strncmp(sym, "_ZZ", 3) != 0)
        return 0;
    for (e = sym + strlen(sym); e > sym + 3; e--) {     /* E<n><name>[_N | __N_], last E first */
        if (e[-1] != 'E' || !isdigit((unsigned char)e[0]))
            continue;
        n = strtoul(e, (char **)&p, 10);
        if (strlen(p) < n)
            continue;
        if (discriminator(p + n)) {
            snprintf(out, len, "%.*s", (int)n, p);
            return 1;
        }
    }
    return 0;
}

/*
 * The source name of a static's symbol: gcc names a function's static s
 * "s.N", clang "function.s" (and "function.s.N" when there are several).
 * Drops a leading "function." (when a letter or _ follows the dot), then a
 * trailing ".N".
 */
static void var_name(const char *sym, char *out, size_t len)
{
    const char *dot = strchr(sym, '.');
    char *end;
    size_t n;
    if (cxx_var_name(sym, out, len))
        return;
    if (dot && dot[1] && !isdigit((unsigned char)dot[1]))
        sym = dot + 1;
    snprintf(out, len, "%s", sym);
    end = strrchr(out, '.');
    if (end && end[1]) {
        for (n = 1; isdigit((unsigned char)end[n]); n++)
            ;
        if (!end[n])
            *end = '\0';
    }
}

static int by_lo(const void *a, const void *b)
{
    uintptr_t x = ((const span *)a)->lo, y = ((const span *)b)->lo;
    return x < y ? -1 : x > y;
}

/*
 * Whether a data object of the program (in .data or .bss) is the program's
 * own rather than warpsim's or the C library's: a static of a .cu file (a
 * local symbol after the file's STT_FILE entry), or a global whose name
 * belongs to no library (warpsim's start with ws, the C runtime's with __,
 * and a library variable copied into the program has a version, @, or is
 * one of the C library's few).
 */
static int own_variable(const char *name, int local, const char *file)
{
    static const char *const libc_vars[] = {
        "stdin", "stdout", "stderr", "environ", "optarg", "optind", "opterr", "optopt"
    };
    size_t n = strlen(file), i;
    if (local)
        return n > 3 && !strcmp(file + n - 3, ".cu");
    if (!strncmp(name, "ws", 2) || !strncmp(name, "__", 2) || strchr(name, '@'))
        return 0;
    for (i = 0; i < sizeof libc_vars / sizeof *libc_vars; i++)
        if (!strcmp(name, libc_vars[i]))
            return 0;
    return 1;
}

/* Reads the symbol tables once: ws_shared's objects and every function;
 * or (own) the program's own global variables, which only a kernel's
 * write to memory that is neither device nor shared memory nor its stack
 * asks for (a program's start stays as short as it was). */
static void load(int own_pass)
{
    int fd, i, shared_idx = -1, data_idx[2] = { -1, -1 }, ndata = 0;
    const char *file = "";
    struct stat st;
    unsigned char *img;
    Elf64_Ehdr *eh;
    Elf64_Shdr *sh;
    const char *shstr;
    uintptr_t bias = exe_pie ? ws_exe_base : 0;
    if (own_pass)
        own_loaded = 1;
    else
        loaded = 1;
    if (!exe_path[0] || (fd = open(exe_path, O_RDONLY)) < 0)
        return;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return;
    }
    img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (img == MAP_FAILED)
        return;
    eh = (Elf64_Ehdr *)img;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff == 0 || eh->e_shstrndx >= eh->e_shnum ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof *sh > (size_t)st.st_size) {
        munmap(img, (size_t)st.st_size);
        return;
    }
    sh = (Elf64_Shdr *)(img + eh->e_shoff);
    shstr = (const char *)img + sh[eh->e_shstrndx].sh_offset;
    for (i = 0; i < eh->e_shnum; i++) {
        if (!strcmp(shstr + sh[i].sh_name, "ws_shared"))
            shared_idx = i;
        if ((!strcmp(shstr + sh[i].sh_name, ".data") || !strcmp(shstr + sh[i].sh_name, ".bss")) &&
            (sh[i].sh_flags & SHF_WRITE))
            data_idx[ndata < 2 ? ndata++ : 1] = i;
    }
    for (i = 0; i < eh->e_shnum; i++) {
        Elf64_Sym *s;
        const char *str;
        size_t k, n;
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_offset + sh[i].sh_size > (size_t)st.st_size)
            continue;
        s = (Elf64_Sym *)(img + sh[i].sh_offset);
        str = (const char *)img + sh[sh[i].sh_link].sh_offset;
        n = sh[i].sh_size / sizeof *s;
        if (own_pass) {
            own = calloc(n, sizeof *own);
            for (k = 0; own && k < n; k++) {
                int type = ELF64_ST_TYPE(s[k].st_info);
                if (type == STT_FILE)
                    file = str + s[k].st_name;
                if (type == STT_OBJECT && s[k].st_size > 0 &&
                    (s[k].st_shndx == data_idx[0] || s[k].st_shndx == data_idx[1]) &&
                    own_variable(str + s[k].st_name,
                                 ELF64_ST_BIND(s[k].st_info) == STB_LOCAL, file)) {
                    own[nown].lo = bias + s[k].st_value;
                    own[nown].hi = own[nown].lo + s[k].st_size;
                    nown++;
                }
            }
            break;
        }
        vars = calloc(n, sizeof *vars);
        funcs = calloc(n, sizeof *funcs);
        if (!vars || !funcs)
            break;
        for (k = 0; k < n; k++) {
            int type = ELF64_ST_TYPE(s[k].st_info);
            if (type == STT_OBJECT && s[k].st_size > 0 && s[k].st_shndx != SHN_UNDEF &&
                shared_start && bias + s[k].st_value < (uintptr_t)shared_start &&
                bias + s[k].st_value + s[k].st_size > below_shared)
                below_shared = bias + s[k].st_value + s[k].st_size;
            if (type == STT_FUNC && s[k].st_size > 0 && s[k].st_shndx != SHN_UNDEF) {
                funcs[nfuncs].start = bias + s[k].st_value;
                funcs[nfuncs].end = funcs[nfuncs].start + s[k].st_size;
                nfuncs++;
            } else if (shared_idx >= 0 && s[k].st_shndx == shared_idx && type == STT_OBJECT) {
                if (!strcmp(str + s[k].st_name, "ws_shared_tail") ||
                    !strcmp(str + s[k].st_name, "ws_shared_head"))
                    continue;           /* red zones (shadow.c), not variables */
                vars[nvars].addr = bias + s[k].st_value;
                vars[nvars].size = s[k].st_size;
                var_name(str + s[k].st_name, vars[nvars].name, sizeof vars[nvars].name);
                nvars++;
            }
        }
        break;
    }
    munmap(img, (size_t)st.st_size);
    if (nvars)
        qsort(vars, (size_t)nvars, sizeof *vars, by_addr);
    if (nfuncs)
        qsort(funcs, (size_t)nfuncs, sizeof *funcs, by_start);
    if (nown)
        qsort(own, (size_t)nown, sizeof *own, by_lo);
}

/* The __shared__ variables, sorted by address; *n gets their number. */
const ws_var *ws_image_vars(int *n)
{
    if (!loaded)
        load(0);
    *n = nvars;
    return vars;
}

/* How many bytes right before addr (the start of ws_shared) belong to no
 * object of the program: padding, up to 64 bytes; 0 when unknown. */
size_t ws_image_pad_before(uintptr_t addr)
{
    if (!loaded)
        load(0);
    if (!below_shared || below_shared > addr || addr - below_shared > 64)
        return 0;
    return (size_t)(addr - below_shared);
}

/* The variable holding addr, or NULL (a gap, or no symbol table). */
const ws_var *ws_image_var_at(uintptr_t addr)
{
    int lo = 0, hi;
    if (!loaded)
        load(0);
    hi = nvars - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const ws_var *v = &vars[mid];
        if (addr < v->addr)
            hi = mid - 1;
        else if (addr >= v->addr + (v->size ? v->size : 1))
            lo = mid + 1;
        else
            return v;
    }
    return NULL;
}

static func *func_at(uintptr_t pc)
{
    int lo = 0, hi;
    if (!loaded)
        load(0);
    hi = nfuncs - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (pc < funcs[mid].start)
            hi = mid - 1;
        else if (pc > funcs[mid].end)      /* a return address may be the end */
            lo = mid + 1;
        else
            return &funcs[mid];
    }
    return NULL;
}

/* The start of the function holding pc, or 0 when no symbol says. */
uintptr_t ws_image_func_start(uintptr_t pc)
{
    func *f = func_at(pc);
    return f ? f->start : 0;
}

/* Whether [addr, addr + size) lies in one of the program's own global
 * variables (own_variable): where a kernel may write outside device, shared
 * and its stack's memory, as a __device__ variable of the program's. */
int ws_image_own_data(uintptr_t addr, size_t size)
{
    int lo = 0, hi;
    if (!own_loaded)
        load(1);
    hi = nown - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (addr < own[mid].lo)
            hi = mid - 1;
        else if (addr >= own[mid].hi)
            lo = mid + 1;
        else
            return addr + size <= own[mid].hi;
    }
    return 0;
}

static int image_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t *lohi = data;
    int i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD)
            continue;
        if (!lohi[1] || a < lohi[0])
            lohi[0] = a;
        if (a + ph->p_memsz > lohi[1])
            lohi[1] = a + ph->p_memsz;
    }
    return 1;                       /* the program comes first: only it */
}

/* The program's loaded image, [*lo, *hi): its code, constants and global
 * variables (warpsim's among them). */
void ws_image_span(uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t lohi[2] = { 0, 0 };
    dl_iterate_phdr(image_segments, lohi);
    *lo = lohi[0];
    *hi = lohi[1];
}

/* ---- source text ---------------------------------------------------- */

typedef struct src_file { char path[256]; char *text; size_t len; } src_file;
static src_file files[8];
static int nfiles;

static const src_file *source(const char *path)
{
    int i;
    FILE *f;
    src_file *sf;
    long n;
    for (i = 0; i < nfiles; i++)
        if (!strcmp(files[i].path, path))
            return files[i].text ? &files[i] : NULL;
    if (nfiles == (int)(sizeof files / sizeof files[0]))
        return NULL;
    sf = &files[nfiles++];
    snprintf(sf->path, sizeof sf->path, "%s", path);
    f = fopen(path, "r");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (sf->text = malloc((size_t)n + 1)) != NULL) {
        sf->len = fread(sf->text, 1, (size_t)n, f);
        sf->text[sf->len] = '\0';
    }
    fclose(f);
    return sf->text ? sf : NULL;
}

static int is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

/*
 * Whether the source has a return statement on lines [from, to) of path:
 * 1 yes, 0 no, -1 when the file cannot be read. Comments and string
 * literals are skipped. The compiler merges every return of a function
 * into one exit, so only the source says where a lane that left without a
 * trace may have left: `if (c) return; ... S` and `if (!c) { ... S }` are
 * the same machine code, but only the second skips S.
 */
int ws_source_return_between(const char *path, int from, int to)
{
    const src_file *sf = source(path);
    const char *p, *end;
    int line = 1, in_block = 0;
    if (!sf)
        return -1;
    p = sf->text;
    end = p + sf->len;
    while (p < end && line < to) {
        if (in_block) {
            if (p[0] == '*' && p + 1 < end && p[1] == '/') {
                in_block = 0;
                p += 2;
                continue;
            }
        } else if (p[0] == '/' && p + 1 < end && p[1] == '*') {
            in_block = 1;
            p += 2;
            continue;
        } else if (p[0] == '/' && p + 1 < end && p[1] == '/') {
            while (p < end && *p != '\n')
                p++;
            continue;
        } else if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (p < end && *p != q && *p != '\n')
                p += (*p == '\\' && p + 1 < end) ? 2 : 1;
            if (p < end && *p == q)
                p++;
            continue;
        } else if (line >= from && !strncmp(p, "return", 6) &&
                   (p == sf->text || !is_ident(p[-1])) && (p + 6 >= end || !is_ident(p[6]))) {
            return 1;
        }
        if (*p == '\n')
            line++;
        p++;
    }
    return 0;
}

/* ---- loops ------------------------------------------------------------ */

/*
 * The source as tokens (comments, string and character literals and
 * preprocessor lines left out), for the question which loop statement
 * holds a line: a lane that called a __syncthreads in a loop before and
 * then left without a trace either returned inside the loop or left the
 * loop, past the barrier that the others reach in a later trip.
 */
typedef struct tok { const char *p; int len, line; } tok;

static int tok_is(const tok *t, const char *word)
{
    return t->len == (int)strlen(word) && !strncmp(t->p, word, (size_t)t->len);
}

/* Splits sf's text into identifiers, numbers and one-character
 * punctuators; returns how many, or -1 when out of memory. */
static int tokenize(const src_file *sf, tok **out)
{
    const char *p = sf->text, *end = p + sf->len;
    int line = 1, n = 0, cap = 1024, bol = 1;
    tok *t = malloc((size_t)cap * sizeof *t);
    if (!t)
        return -1;
    while (p < end) {
        if (*p == '\n') {
            line++;
            bol = 1;
            p++;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
            p++;
            continue;
        }
        if (bol && *p == '#') {         /* a preprocessor line, continued by \ */
            while (p < end && *p != '\n') {
                if (*p == '\\' && p + 1 < end && p[1] == '\n') {
                    line++;
                    p++;
                }
                p++;
            }
            continue;
        }
        bol = 0;
        if (p[0] == '/' && p + 1 < end && p[1] == '*') {
            for (p += 2; p < end && !(p[0] == '*' && p + 1 < end && p[1] == '/'); p++)
                line += *p == '\n';
            p += 2;
            continue;
        }
        if (p[0] == '/' && p + 1 < end && p[1] == '/') {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        if (n == cap) {
            tok *m = realloc(t, (size_t)(cap *= 2) * sizeof *t);
            if (!m) {
                free(t);
                return -1;
            }
            t = m;
        }
        t[n].p = p;
        t[n].line = line;
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (p < end && *p != q && *p != '\n')
                p += (*p == '\\' && p + 1 < end) ? 2 : 1;
            if (p < end && *p == q)
                p++;
        } else if (is_ident(*p)) {
            while (p < end && is_ident(*p))
                p++;
        } else {
            p++;
        }
        t[n].len = (int)(p - t[n].p);
        n++;
    }
    *out = t;
    return n;
}

/* The token after the bracket that closes t[i] ("(", "[" or "{"). */
static int close_of(const tok *t, int n, int i)
{
    int depth = 0;
    for (; i < n; i++) {
        char c = t[i].len == 1 ? t[i].p[0] : 0;
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']' || c == '}') && --depth == 0)
            return i + 1;
    }
    return n;
}

/* The token after the statement that starts at t[i]. */
static int stmt_end(const tok *t, int n, int i, int depth)
{
    if (i >= n || depth > 200)
        return n;
    if (tok_is(&t[i], "{"))
        return close_of(t, n, i);
    if ((tok_is(&t[i], "for") || tok_is(&t[i], "while") || tok_is(&t[i], "switch")) &&
        i + 1 < n && tok_is(&t[i + 1], "("))
        return stmt_end(t, n, close_of(t, n, i + 1), depth + 1);
    if (tok_is(&t[i], "if") && i + 1 < n && tok_is(&t[i + 1], "(")) {
        int k = stmt_end(t, n, close_of(t, n, i + 1), depth + 1);
        return k < n && tok_is(&t[k], "else") ? stmt_end(t, n, k + 1, depth + 1) : k;
    }
    if (tok_is(&t[i], "do")) {
        int k = stmt_end(t, n, i + 1, depth + 1);
        if (k + 1 < n && tok_is(&t[k], "while") && tok_is(&t[k + 1], "(")) {
            k = close_of(t, n, k + 1);
            return k < n && tok_is(&t[k], ";") ? k + 1 : k;
        }
        return k;
    }
    for (; i < n; i++) {                /* an expression statement, to its ; */
        if (tok_is(&t[i], ";"))
            return i + 1;
        if (tok_is(&t[i], "}"))
            return i;                   /* (the end of the block around it) */
        if (tok_is(&t[i], "(") || tok_is(&t[i], "[") || tok_is(&t[i], "{"))
            i = close_of(t, n, i) - 1;
    }
    return n;
}

/*
 * The first and last lines of the outermost loop statement (for, while,
 * do ... while) of path that holds line: 1 found, 0 none (or the file
 * cannot be read). Loops nest, so the outermost is the one that starts
 * first.
 */
int ws_source_loop_around(const char *path, int line, int *first, int *last)
{
    const src_file *sf = source(path);
    tok *t;
    int n, i, found = 0;
    if (!sf || (n = tokenize(sf, &t)) < 0)
        return 0;
    for (i = 0; i < n && !found; i++) {
        int e;
        if (t[i].line > line)
            break;
        if (!(tok_is(&t[i], "for") || tok_is(&t[i], "while") || tok_is(&t[i], "do")))
            continue;
        e = stmt_end(t, n, i, 0);
        if (e > i && t[e - 1].line >= line) {
            *first = t[i].line;
            *last = t[e - 1].line;
            found = 1;
        }
    }
    free(t);
    return found;
}

/* ---- a kernel's parameters ------------------------------------------------ */

/* Whether t[lo..hi) names an integer type (with qualifiers), as far as
 * the words tell: C's integer keywords and the usual typedefs. */
static int integer_type(const tok *t, int lo, int hi)
{
    static const char *const words[] = {
        "int", "unsigned", "signed", "long", "short", "char", "bool", "_Bool", "size_t",
        "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
        "uint32_t", "uint64_t", "uintptr_t", "intptr_t", "const", "volatile", "restrict",
        "__restrict", "__restrict__"
    };
    int i, seen = 0;
    size_t k;
    for (i = lo; i < hi; i++) {
        for (k = 0; k < sizeof words / sizeof *words && !tok_is(&t[i], words[k]); k++)
            ;
        if (k == sizeof words / sizeof *words)
            return 0;
        seen |= k < 20;
    }
    return seen;
}

/*
 * The parameters of function `name` whose definition starts at `line` of
 * path (or a few lines above it, where its name is), in order, up to max:
 * each parameter's name and how the calling convention passes it, 'i'
 * (pointers, references, arrays and integers: the integer registers) or 'f'
 * (float and double: the vector registers). Stops at the first parameter
 * of another kind (a struct by value, a type it does not know), whose
 * place, and the places of those after it, it cannot tell. Returns how
 * many it gives.
 */
int ws_source_params(const char *path, int line, const char *name, ws_param *p, int max)
{
    const src_file *sf = source(path);
    tok *t;
    int n, i, open = -1, close, np = 0;
    if (!sf || !name[0] || (n = tokenize(sf, &t)) < 0)
        return 0;
    for (i = 0; i + 1 < n && t[i].line <= line; i++)
        if (t[i].line >= line - 8 && tok_is(&t[i], name) && tok_is(&t[i + 1], "("))
            open = i + 1;           /* the last mention before the body */
    if (open < 0) {
        free(t);
        return 0;
    }
    close = close_of(t, n, open) - 1;
    for (i = open + 1; i < close && np < max;) {
        int e = i, depth = 0, last = -1, star = 0, fp = 0;
        for (; e < close && (depth || !tok_is(&t[e], ",")); e++) {
            if (tok_is(&t[e], "(") || tok_is(&t[e], "[") || tok_is(&t[e], "<"))
                depth++, star |= tok_is(&t[e], "[");
            else if (tok_is(&t[e], ")") || tok_is(&t[e], "]") || tok_is(&t[e], ">"))
                depth--;
            else if (!depth && (tok_is(&t[e], "*") || tok_is(&t[e], "&")))
                star = 1;
            else if (!depth && (tok_is(&t[e], "float") || tok_is(&t[e], "double")))
                fp = 1;
            else if (!depth && is_ident(t[e].p[0]) && !isdigit((unsigned char)t[e].p[0]))
                last = e;
        }
        if (last < 0 || tok_is(&t[last], "void") || t[last].len >= (int)sizeof p->name)
            break;
        if (star)
            p[np].cls = 'i';
        else if (fp)
            p[np].cls = 'f';
        else if (integer_type(t, i, last))
            p[np].cls = 'i';
        else
            break;
        memcpy(p[np].name, t[last].p, (size_t)t[last].len);
        p[np].name[t[last].len] = '\0';
        np++;
        i = e + 1;
    }
    free(t);
    return np;
}
