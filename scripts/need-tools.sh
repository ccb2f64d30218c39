#!/usr/bin/env bash
# need-tools.sh WHAT: makes sure the tools for `make WHAT` (test, docs) are here;
# `browser` is what tests/browser.bats needs (Chromium, its driver, Selenium).
# Installs the missing Debian packages with apt-get when run as root;
# otherwise prints the one command to run and exits 2.
set -u
what=${1:?usage: need-tools.sh test|docs|browser}
missing=()

case "$what" in
    test)
        command -v bats >/dev/null 2>&1 || missing+=(bats)
        command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
        command -v parallel >/dev/null 2>&1 || missing+=(parallel)    # bats --jobs
        command -v gnuplot >/dev/null 2>&1 || missing+=(gnuplot-nox)  # the benchmarks' plots
        IFS=: read -ra libdirs <<<"${BATS_LIB_PATH:-/usr/lib/bats}"
        for lib in bats-support bats-assert; do
            found=no
            for dir in "${libdirs[@]}"; do
                [ -f "$dir/$lib/load.bash" ] && found=yes
            done
            [ "$found" = yes ] || missing+=("$lib")
        done ;;
    portable)   # warpsim with clang, and for arm64 under qemu-user
        command -v clang >/dev/null 2>&1 || missing+=(clang)
        command -v qemu-aarch64 >/dev/null 2>&1 || missing+=(qemu-user)
        command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing+=(gcc-aarch64-linux-gnu)
        command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || missing+=(g++-aarch64-linux-gnu)
        [ -f /usr/aarch64-linux-gnu/include/stdio.h ] || missing+=(libc6-dev-arm64-cross) ;;
    docs)
        for t in pandoc weasyprint; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
        command -v pdfinfo >/dev/null 2>&1 || missing+=(poppler-utils)
        command -v python3 >/dev/null 2>&1 || missing+=(python3) ;;
    browser)
        command -v chromium >/dev/null 2>&1 || missing+=(chromium)
        command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
        /usr/bin/python3 -c 'import selenium' >/dev/null 2>&1 || missing+=(python3-selenium) ;;
    *) echo "need-tools.sh: unknown need '$what'" >&2; exit 2 ;;
esac

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${missing[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    if apt-get update -qq >/dev/null &&
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
        exit 0
    fi
    echo "need-tools.sh: apt-get could not install ${missing[*]}" >&2
    exit 2
fi
echo "make $what needs ${missing[*]}; install them with:" >&2
echo "  sudo apt-get install -y ${missing[*]}" >&2
exit 2
