#!/usr/bin/env bash
# get-cuda-11.8.sh [--yes]: installs CUDA 11.8, the oldest toolkit the lessons
# support, which still builds for compute capability 6.0 (Pascal), from
# Debian 12's contrib and non-free sections, with clang 14 as its host
# compiler (CUDA 11.8 refuses gcc 12). `make pascal` and `make compat` use it.
#
# The package, nvidia-cuda-toolkit, is about 1.6 GB to download (about 5 GB
# installed). The script asks before downloading unless given --yes.
# It installs to /usr/lib/nvidia-cuda-toolkit and leaves your nvcc in PATH
# alone; mk/toolkit.mk finds it there.
set -u
yes=no
case "${1:-}" in
    --yes|-y) yes=yes ;;
    "") ;;
    -h|--help)
        sed -n '2,10s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "get-cuda-11.8.sh: unknown option '$1' (try --yes or --help)" >&2; exit 2 ;;
esac

NVCC118=/usr/lib/nvidia-cuda-toolkit/bin/nvcc
if [ -x "$NVCC118" ] && "$NVCC118" --version 2>/dev/null | grep -q 'release 11\.8' \
    && command -v clang++-14 >/dev/null 2>&1; then
    echo "CUDA 11.8 is installed: $NVCC118 (host compiler clang++-14)"
    exit 0
fi

if ! grep -qs '^VERSION_CODENAME=bookworm' /etc/os-release; then
    echo "get-cuda-11.8.sh: this installs Debian 12 (bookworm) packages; on another system get CUDA 11.8 from https://developer.nvidia.com/cuda-11-8-0-download-archive" >&2
    exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "get-cuda-11.8.sh: needs root for apt-get; run: sudo $0${1:+ $1}" >&2
    exit 2
fi

echo "CUDA 11.8 comes from Debian 12's non-free section (package nvidia-cuda-toolkit):"
echo "about 1.6 GB to download, about 5 GB on disk, plus clang-14 as its host compiler."
if [ "$yes" = no ]; then
    if [ -t 0 ]; then
        read -r -p "Download and install it now? [y/N] " answer
        case "$answer" in [yY]*) ;; *) echo "nothing installed"; exit 2 ;; esac
    else
        echo "get-cuda-11.8.sh: not asked on a terminal; run again with --yes to download" >&2
        exit 2
    fi
fi

# Enable contrib and non-free (the toolkit is in non-free; the driver library
# it depends on needs nvidia-support from contrib) for the Debian mirror
# already configured (deb.debian.org when none is found).
mirror=$(grep -hsE '^(URIs:|deb) ' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list \
         | grep -oE 'https?://[^ ]*/debian/?$|https?://[^ ]*/debian ' | head -n 1 | tr -d ' ')
mirror=${mirror:-http://deb.debian.org/debian}
list=/etc/apt/sources.list.d/cuda-11.8-non-free.sources
if [ ! -f "$list" ]; then
    printf 'Types: deb\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$mirror" > "$list"
    echo "enabled contrib and non-free from $mirror in $list"
fi

export DEBIAN_FRONTEND=noninteractive
echo "apt-get update"
apt-get update -qq >/dev/null || { echo "get-cuda-11.8.sh: apt-get update failed" >&2; exit 2; }
echo "apt-get install nvidia-cuda-toolkit clang-14 (this takes a few minutes)"
log=$(mktemp)
if ! apt-get install -y -q --no-install-recommends nvidia-cuda-toolkit clang-14 >"$log" 2>&1; then
    tail -n 5 "$log" >&2
    echo "get-cuda-11.8.sh: apt-get could not install nvidia-cuda-toolkit (full log: $log)" >&2
    exit 2
fi
grep -E '^(Need to get|After this operation)' "$log"
rm -f "$log"
if ! "$NVCC118" --version | grep -q 'release 11\.8'; then
    echo "get-cuda-11.8.sh: installed, but $NVCC118 is not CUDA 11.8" >&2
    exit 2
fi
echo "CUDA 11.8 is installed: $NVCC118 (host compiler clang++-14)"
