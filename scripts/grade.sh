#!/bin/sh
# grade.sh: lab grading; scripts/grade.py says how (grade.py --help).
exec python3 "$(dirname "$0")/grade.py" "$@"
