#!/usr/bin/env bash
# install-tools.sh NEED...: installs what is missing for each NEED, on Debian
# or Ubuntu, with apt-get (as root, or through sudo where it asks no
# password); otherwise prints the one command that would, and exits 2.
# What CI runs first (.ci/run), what the dev container is built with
# (.devcontainer/Dockerfile), what the Classroom workflow and Gradescope's
# setup.sh run, and what `make test` and `make docs` call
# (scripts/need-tools.sh): one list of what each thing needs.
#
#   check     make check on warpsim: make, a C and a C++ compiler (gcc and g++
#             12 or newer, or clang 14 or newer: on an older gcc, as Ubuntu
#             22.04's 11, gcc-12 and g++-12 are installed and made cc and
#             c++), python3, flock; and libclang's
#             Python bindings, with which scripts/device-only.py checks that
#             a student's file is device code only (python3-clang-14 on
#             Debian 12 and Ubuntu 22.04, python3-clang-18 on Ubuntu 24.04)
#   grade     make grade, the Classroom workflow, Gradescope: check's
#   test      make test: check's, bats with bats-support and bats-assert,
#             ShellCheck, GNU parallel, gnuplot
#   schema    check-jsonschema (PyPI) in tests/build/venv, for the test that
#             validates the Classroom workflow
#   docs      make docs: pandoc, weasyprint, pdfinfo, python3; PyMuPDF
#             (python3-fitz), with which tests/docs.bats measures the
#             handouts' type
#   dev       the dev container: check, test and docs
#   ci        what CI installs before make test: dev's and schema
#   browser   tests/browser.bats: chromium, its driver, selenium
#   portable  warpsim with clang, and for arm64 under qemu-user
# --dry-run: says what it would install, installs nothing.
# Exit status: 0 all there (or installed), 2 something missing that could
# not be installed (its line says what), or an unknown NEED.
set -u
dry=no
if [ "${1:-}" = --dry-run ]; then dry=yes; shift; fi
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
[ $# -gt 0 ] || { echo "usage: install-tools.sh [--dry-run] check|grade|test|schema|docs|dev|ci|browser|portable..." >&2; exit 2; }
missing=()
want_schema=no
gcc12=no

have() { command -v "$1" >/dev/null 2>&1; }
add() { local p; for p in "$@"; do [[ " ${missing[*]} " == *" $p "* ]] || missing+=("$p"); done; }

# major VERSION: its first number.
major() { printf '%s\n' "${1%%.*}"; }

# A C compiler warpsim can use: cc as gcc 12+ or clang 14+, or clang 14+.
c_compiler_ok() {
    local v
    if have cc; then
        if cc --version 2>/dev/null | head -n 1 | grep -q clang; then
            v=$(cc -dumpversion 2>/dev/null)
            [ "$(major "${v:-0}")" -ge 14 ] 2>/dev/null && return 0
        else
            v=$(cc -dumpfullversion -dumpversion 2>/dev/null)
            [ "$(major "${v:-0}")" -ge 12 ] 2>/dev/null && return 0
        fi
    fi
    return 1
}

# need_libclang: libclang's Python bindings, for the Python that
# scripts/device-only.py runs under (/usr/bin/python3 where there is one).
need_libclang() {
    local py=python3 pkg=python3-clang-14
    [ ! -x /usr/bin/python3 ] || py=/usr/bin/python3
    "$py" -c 'import clang.cindex' >/dev/null 2>&1 && return
    # shellcheck disable=SC1091
    case "$(. /etc/os-release 2>/dev/null; echo "${ID:-}-${VERSION_ID:-}")" in
        ubuntu-24.*|ubuntu-25.*) pkg=python3-clang-18 ;;
    esac
    add "$pkg"
}

need_check() {
    have make || add make
    have python3 || add python3
    have flock || add util-linux
    need_libclang
    if ! c_compiler_ok; then
        if have cc || have gcc; then
            add gcc-12 g++-12 && gcc12=yes    # an older gcc: gcc-12 beside it, as cc
        else
            add gcc g++ libc6-dev
        fi
    elif ! have c++; then
        add g++                           # lesson files are C++ (mk/warpsim.mk)
    fi
}

need_test() {
    need_check
    have bats || add bats
    have shellcheck || add shellcheck
    have parallel || add parallel     # bats --jobs
    have gnuplot || add gnuplot-nox   # the benchmarks' plots
    local lib dir found
    IFS=: read -ra libdirs <<<"${BATS_LIB_PATH:-/usr/lib/bats}"
    for lib in bats-support bats-assert; do
        found=no
        for dir in "${libdirs[@]}"; do
            [ -f "$dir/$lib/load.bash" ] && found=yes
        done
        [ "$found" = yes ] || add "$lib"
    done
}

need_docs() {
    local t
    for t in pandoc weasyprint; do have "$t" || add "$t"; done
    have pdfinfo || add poppler-utils
    have python3 || add python3
    # PyMuPDF: tests/docs.bats measures the handouts' type with it
    /usr/bin/python3 -c 'import fitz' >/dev/null 2>&1 || add python3-fitz
}

for what in "$@"; do
    case "$what" in
        check|grade) need_check ;;
        test) need_test ;;
        schema) want_schema=yes; have python3 || add python3 ;;
        docs) need_docs ;;
        dev) need_test; need_docs ;;
        ci) need_test; need_docs; want_schema=yes ;;
        browser)
            have chromium || add chromium
            have chromedriver || add chromium-driver
            /usr/bin/python3 -c 'import selenium' >/dev/null 2>&1 || add python3-selenium ;;
        portable)   # warpsim with clang, and for arm64 under qemu-user
            have clang || add clang
            have qemu-aarch64 || add qemu-user
            have aarch64-linux-gnu-gcc || add gcc-aarch64-linux-gnu
            have aarch64-linux-gnu-g++ || add g++-aarch64-linux-gnu
            [ -f /usr/aarch64-linux-gnu/include/stdio.h ] || add libc6-dev-arm64-cross ;;
        *) echo "install-tools.sh: unknown need '$what' (check, grade, test, schema, docs, dev, ci, browser, portable)" >&2
           exit 2 ;;
    esac
done

# as root, or through a sudo that asks no password; else nothing
as_root=()
if [ "$(id -u)" -ne 0 ]; then
    if have sudo && sudo -n true >/dev/null 2>&1; then as_root=(sudo -n); else as_root=(none); fi
fi

if [ "$dry" = yes ]; then
    [ ${#missing[@]} -eq 0 ] || echo "would install: ${missing[*]} (apt-get)"
    [ "$want_schema" = no ] || have check-jsonschema || [ -x "$top/tests/build/venv/bin/check-jsonschema" ] ||
        echo "would install: check-jsonschema (PyPI, in tests/build/venv)"
    exit 0
fi

if [ ${#missing[@]} -gt 0 ]; then
    if [ "${as_root[0]:-}" = none ] || ! have apt-get; then
        echo "install-tools.sh: $* needs ${missing[*]}; install them with:" >&2
        echo "  sudo apt-get install -y ${missing[*]}" >&2
        exit 2
    fi
    echo "installing ${missing[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    if ! { "${as_root[@]}" apt-get update -qq >/dev/null &&
           "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
        echo "install-tools.sh: apt-get could not install ${missing[*]}" >&2
        exit 2
    fi
    if [ "$gcc12" = yes ]; then
        # cc is what make builds warpsim with: gcc-12 ahead of the older gcc
        "${as_root[@]}" update-alternatives --install /usr/bin/cc cc /usr/bin/gcc-12 120 >/dev/null
        "${as_root[@]}" update-alternatives --install /usr/bin/c++ c++ /usr/bin/g++-12 120 >/dev/null
        if ! c_compiler_ok; then
            echo "install-tools.sh: gcc-12 is installed but cc is still $(cc --version 2>/dev/null | head -n 1)" >&2
            exit 2
        fi
    fi
fi

if [ "$want_schema" = yes ] && ! have check-jsonschema; then
    venv=$top/tests/build/venv
    if [ ! -x "$venv/bin/check-jsonschema" ]; then
        echo "installing check-jsonschema (PyPI) in tests/build/venv"
        mkdir -p "$top/tests/build"
        if ! python3 -m venv "$venv" >/dev/null 2>&1; then
            # Debian's python3 keeps venv in a package of its own
            if [ "${as_root[0]:-}" != none ] && have apt-get; then
                DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq python3-venv >/dev/null
            fi
            rm -rf "$venv"
            python3 -m venv "$venv" >/dev/null 2>&1 || {
                echo "install-tools.sh: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 2; }
        fi
        if ! "$venv/bin/pip" install -q --disable-pip-version-check check-jsonschema >/dev/null 2>&1; then
            echo "install-tools.sh: pip could not install check-jsonschema into $venv" >&2
            exit 2
        fi
    fi
fi
exit 0
