#!/usr/bin/env bash
# doctor.sh: what this machine has, and therefore what `make check`,
# `make bench`, `make pascal`, `make compat`, `make grade`, `make docs` and
# `make test` will do here, with the next step for each gap. Changes
# nothing; always exits 0.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
have() { command -v "$1" >/dev/null 2>&1; }
line() { printf '  %-18s %s\n' "$1" "$2"; }

echo "this machine:"
if have nvcc; then
    line nvcc "$(nvcc --version | sed -n 's/^Cuda compilation tools, //p')"
else
    line nvcc "not found (install the CUDA Toolkit to build for a GPU)"
fi
gpu=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
if [ -n "$gpu" ]; then
    IFS=, read -r name cc driver <<<"$gpu"
    line GPU "${name# } (compute capability ${cc# }), driver ${driver# }"
else
    line GPU "none found (nvidia-smi lists no GPU)"
fi
san=$(command -v compute-sanitizer 2>/dev/null || { [ -x /usr/local/cuda/bin/compute-sanitizer ] && echo /usr/local/cuda/bin/compute-sanitizer; })
line compute-sanitizer "${san:-not found (comes with the CUDA Toolkit)}"
cc=${CC:-cc}
if have "$cc"; then
    line "C compiler" "$cc: $("$cc" --version 2>/dev/null | head -n 1)"
else
    line "C compiler" "$cc not found (warpsim needs gcc 12+ or clang 14+: apt-get install gcc)"
fi
warpsim=no
if [ -f "$root/warpsim/Makefile" ] && have "$cc"; then
    warpsim=yes
    line warpsim "present (make check EMU=1 runs the lessons on the CPU)"
else
    line warpsim "not available here"
fi
# The toolkits make pascal and make compat look for (mk/toolkit.mk).
old_nvcc=""
for n in /usr/lib/nvidia-cuda-toolkit/bin/nvcc /usr/local/cuda-11.8/bin/nvcc /usr/local/cuda-12.*/bin/nvcc; do
    [ -x "$n" ] && { old_nvcc=$n; break; }
done
case "$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')" in
    11.8|12.*) old_nvcc=${old_nvcc:-$(command -v nvcc)} ;;
esac
if [ -n "$old_nvcc" ]; then
    line "CUDA 11.8/12.x" "$old_nvcc ($("$old_nvcc" --version 2>/dev/null | sed -n 's/^Cuda compilation tools, //p'))"
else
    line "CUDA 11.8/12.x" "not found (scripts/get-cuda-11.8.sh installs CUDA 11.8, 1.6 GB)"
fi
py=python3
[ ! -x /usr/bin/python3 ] || py=/usr/bin/python3
libclang=$("$py" -c 'import clang.cindex as c; c.Index.create(); print("present")' 2>/dev/null ||
           echo "not found (scripts/need-tools.sh check installs python3-clang-14)")
line libclang "$libclang (make check SRC= reads a student's file with it)"
case "$root" in
    *' '*) line checkout "$root (a space in the path: the lessons' makes name no file by it; SRC= takes no file name with a space)" ;;
    *) line checkout "$root" ;;
esac
for t in pandoc weasyprint pdfinfo gnuplot bats shellcheck; do
    if ! have "$t"; then line "$t" "not found"; continue; fi
    case "$t" in
        pdfinfo) v=$(pdfinfo -v 2>&1 | head -n 1) ;;
        shellcheck) v=$(shellcheck --version | sed -n 's/^version: /shellcheck /p') ;;
        *) v=$("$t" --version 2>&1 | head -n 1) ;;
    esac
    line "$t" "$v"
done

echo
echo "so here:"
if [ -n "$gpu" ] && have nvcc; then
    echo "  make check   runs every lesson on the GPU${san:+, with compute-sanitizer}"
    echo "  make bench   runs the benchmarks on the GPU and writes docs/results/$("$root/scripts/gpu-slug.sh")/"
elif [ "$warpsim" = yes ]; then
    echo "  make check   runs every lesson on warpsim, the CPU emulator (no GPU here)"
    echo "  make bench   measures only warpsim's throughput (the GPU benchmarks need a GPU)"
else
    echo "  make check   skips every lesson: no GPU and no emulator"
    echo "               next step: a machine with an NVIDIA GPU and the CUDA Toolkit, or gcc for warpsim"
    echo "  make bench   has nothing to run"
fi
if [ -z "$old_nvcc" ]; then
    echo "  make pascal  needs CUDA 11.8 or 12.x for compute_60 PTX: run scripts/get-cuda-11.8.sh"
elif [ -n "$gpu" ]; then
    echo "  make pascal  builds compute_60 PTX with $old_nvcc and checks it on the GPU (the pre-Volta paths)"
else
    echo "  make pascal  builds compute_60 PTX with $old_nvcc into lessons/*/build/pascal/ (no GPU here to run it)"
fi
if [ -n "$old_nvcc" ] && have nvcc && nvcc --version | grep -q 'release 1[3-9]\.'; then
    echo "  make compat  builds every lesson with CUDA 11.8/12.x and with $(nvcc --version | sed -n 's/.*release \([0-9.]*\),.*/CUDA \1/p') (slow)"
else
    echo "  make compat  needs both CUDA 11.8 (or 12.x) and CUDA 13: it builds with what it finds and says what is missing"
fi
if [ "$libclang" != present ]; then
    echo "  make grade   cannot check a student's file: it needs libclang's Python bindings"
    echo "               (scripts/need-tools.sh check installs them; make check SRC= the same)"
elif [ -n "$gpu" ] && have nvcc && [ "$warpsim" = yes ]; then
    echo "  make grade   grades lessons/*/mine.cu on the GPU and on warpsim (a file passes only if both pass)"
elif [ "$warpsim" = yes ]; then
    echo "  make grade   grades lessons/*/mine.cu on warpsim (no GPU here)"
else
    echo "  make grade   cannot run: no GPU and no C compiler for warpsim"
fi
if have pandoc && have weasyprint && have pdfinfo; then
    echo "  make docs    builds the site and the PDF handouts in docs/_build/"
else
    echo "  make docs    needs pandoc, weasyprint and poppler-utils: it installs them when run as root,"
    echo "               else run: sudo apt-get install -y pandoc weasyprint poppler-utils"
fi
if have bats; then
    echo "  make test    runs tests/*.bats (make test JUNIT=dir writes JUnit XML)"
else
    echo "  make test    needs bats: it installs it when run as root,"
    echo "               else run: sudo apt-get install -y bats bats-support bats-assert shellcheck"
fi
exit 0
