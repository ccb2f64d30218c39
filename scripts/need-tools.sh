#!/usr/bin/env bash
# need-tools.sh WHAT: makes sure the tools for `make WHAT` (test, docs) are
# here; `browser` is what tests/browser.bats needs, `portable` what
# tests/warpsim-portable.bats needs. scripts/install-tools.sh holds the one
# list of what each thing needs and installs the missing Debian packages
# (as root, or through a sudo that asks no password); otherwise it prints
# the one command to run and exits 2.
exec "$(dirname "$0")/install-tools.sh" "${1:?usage: need-tools.sh test|docs|browser|portable}"
