#!/usr/bin/env bash
# doctor.sh: what this machine has, and therefore what `make check`,
# `make bench`, `make docs` and `make test` will do here, with the next step
# for each gap. Changes nothing; always exits 0.
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
if have gcc; then
    line gcc "$(gcc -dumpfullversion)"
else
    line gcc "not found (warpsim needs gcc: apt-get install gcc)"
fi
warpsim=no
if [ -f "$root/warpsim/Makefile" ] && have gcc; then
    warpsim=yes
    line warpsim "present (make check EMU=1 runs the lessons on the CPU)"
else
    line warpsim "not available here"
fi
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
